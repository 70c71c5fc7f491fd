"""Gumbel AlphaZero's selection (Danihelka et al., ICLR 2022, "Policy improvement by planning with Gumbel"), the
compiled parts :mod:`agents.alphazero.mcts` calls when its rule is :data:`GUMBEL`.

At the root, the ``considered`` moves of highest Gumbel noise + logit are searched by sequential halving
(:func:`considered_visit`): every remaining move gets the same visits, then the better half by noise + logit +
completed Q goes on, down to two. Below the root the choice is deterministic (:func:`gumbel_child`): the child whose
share of the visits lags most behind the improved policy, softmax(logit + completed Q) (:func:`completed_q`), which is
also the policy's training target (:func:`gumbel_root`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: The selection rules as the compiled search takes them (:data:`agents.alphazero.search_config.RULES`, in order).
PUCT, GUMBEL = 0, 1
#: A logit below every real one, for moves a Gumbel score leaves out.
LOW_LOGIT = -1e9


@njit(cache=True)
def considered_visit(considered, simulations, index):
    """The visit count the root's move of simulation ``index`` must have under sequential halving of
    ``simulations`` over ``considered`` moves: each phase gives every remaining move the same number of visits
    (at least one, about ``simulations / (log2(considered) * remaining)``), then keeps the better half (at least 2)."""
    if considered <= 1:
        return index
    phases = 0
    while (1 << phases) < considered:
        phases += 1
    visits = 0
    start = 0
    remaining = considered
    while True:
        extra = max(1, simulations // (phases * remaining))
        if index < start + extra * remaining:
            return visits + (index - start) // remaining
        start += extra * remaining
        visits += extra
        remaining = max(2, remaining // 2)


@njit(cache=True)
def completed_q(first, count, visits, value_sum, prior, raw_value, value_scale, visit_scale, out):
    """Gumbel AlphaZero's transformed completed Q-values of the children of a node (``out[:count]``), for the
    player to move there: a visited child's mean value, an unvisited one's the node's value mixed from the network's
    (``raw_value``) and its visited children's (weighted by prior), all scaled to [0, 1] by their range, times
    ``(visit_scale + most visits of a child) * value_scale``."""
    total_visits = 0
    most = 0
    prior_seen = 0.0
    weighted = 0.0
    for i in range(count):
        n = visits[first + i]
        total_visits += n
        most = max(most, n)
        if n > 0:
            p = max(prior[first + i], 1e-30)
            prior_seen += p
            weighted += p * value_sum[first + i] / n
    mixed = raw_value
    if total_visits > 0:
        mixed = (raw_value + total_visits * weighted / prior_seen) / (total_visits + 1)
    low = 1e30
    high = -1e30
    for i in range(count):
        n = visits[first + i]
        q = value_sum[first + i] / n if n > 0 else mixed
        out[i] = q
        low = min(low, q)
        high = max(high, q)
    scale = (visit_scale + most) * value_scale / max(high - low, 1e-8)
    for i in range(count):
        out[i] = (out[i] - low) * scale


@njit(cache=True)
def root_child(first, count, visits, prior, gumbel, move, completed, visit):
    """The root's move by Gumbel AlphaZero's score (noise + logit + completed Q) among the children with ``visit``
    visits (among all when none has: a search cut short)."""
    best = -1
    best_score = -1e30
    for pass_ in range(2):
        for i in range(count):
            child = first + i
            if pass_ == 0 and visits[child] != visit:
                continue
            score = max(LOW_LOGIT, gumbel[move[child]] + math.log(max(prior[child], 1e-30)) + completed[i])
            if score > best_score:
                best_score = score
                best = child
        if best >= 0:
            break
    return best


@njit(cache=True)
def _improved_policy(first, count, prior, completed):
    """In place, the children's completed Q-values ``completed[:count]`` become Gumbel AlphaZero's improved policy:
    the softmax of logit + completed Q."""
    top = -1e30
    for i in range(count):
        completed[i] += math.log(max(prior[first + i], 1e-30))
        top = max(top, completed[i])
    norm = 0.0
    for i in range(count):
        completed[i] = math.exp(completed[i] - top)
        norm += completed[i]
    for i in range(count):
        completed[i] /= norm


@njit(cache=True)
def gumbel_child(first, count, visits, prior, completed):
    """Gumbel AlphaZero's deterministic choice below the root: the child whose share of the visits lags most behind
    its improved policy."""
    _improved_policy(first, count, prior, completed)
    total_visits = 0
    for i in range(count):
        total_visits += visits[first + i]
    best = first
    best_score = -1e30
    for i in range(count):
        score = completed[i] - visits[first + i] / (1.0 + total_visits)
        if score > best_score:
            best_score = score
            best = first + i
    return best


@njit(cache=True)
def gumbel_root(child_first, child_count, visits, value_sum, prior, raw_value, move, gumbel, value_scale,
                visit_scale, policy, actions):  # fmt: skip
    """Gumbel AlphaZero's result of each searched root: the improved policy (softmax of logits + completed Q over
    its moves, the training target) in ``policy`` (G, num_actions) and the move to play in ``actions``: the best by
    noise + logit + completed Q among the most visited."""
    completed = np.empty(policy.shape[1], dtype=np.float64)
    for g in range(child_first.shape[0]):
        policy[g, :] = 0.0
        actions[g] = -1
        first, count = child_first[g, 0], child_count[g, 0]
        if first < 0:
            continue
        completed_q(first, count, visits[g], value_sum[g], prior[g], raw_value[g, 0], value_scale, visit_scale,
                    completed)  # fmt: skip
        most = 0
        for i in range(count):
            most = max(most, visits[g, first + i])
        actions[g] = move[g, root_child(first, count, visits[g], prior[g], gumbel[g], move[g], completed, most)]
        _improved_policy(first, count, prior[g], completed)
        for i in range(count):
            policy[g, move[g, first + i]] = completed[i]
