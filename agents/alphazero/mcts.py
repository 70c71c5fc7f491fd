"""Batched PUCT search: many games searched side by side, their leaves evaluated by the network as one batch.

The trees live in flat arrays (one row per game: children, visits, value sums, priors, moves) and two compiled
passes do all the tree work: :func:`select_leaves` walks every game's tree from its root to a leaf, replaying the
moves on a scratch copy of the root position with the core kernels, and writes the leaf's observation and legal
mask; the caller evaluates all pending leaves in one network call; :func:`expand_and_backup` turns the network's
logits into priors, adds the children and backs the value up, negating it at every ply because the players
alternate. Terminal positions get their exact value (+1 / -1 / 0 from the stores) and never reach the network;
a game keeps selecting until it reaches a leaf that needs the network or its simulations are done. A game may also
send ``leaves_per_game`` leaves per network call, kept apart by a virtual loss, which is how a single game (the
agent) fills a batch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from awale_env.core import awale16 as core

NUM_ACTIONS = core.NUM_ACTIONS
OBS_SIZE = core.OBS_SIZE
MAX_CHILDREN = core.NUM_HOLES  # at most 8 own holes x 2 colours are legal

# An evaluator maps observations (n, 35) float32 to (relative policy logits (n, 32), values (n,)) in numpy.
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SearchConfig:
    """PUCT parameters (AlphaZero's defaults where they carry over)."""

    simulations: int = 100
    """simulations per move (visits shared among the root's children; the root's own evaluation comes on top)"""
    c_puct: float = 1.5
    """exploration weight of the prior in PUCT"""
    fpu_reduction: float = 0.2
    """unvisited children are valued at the parent's mean value minus this (first-play urgency)"""
    dirichlet_alpha: float = 0.5
    """Dirichlet noise concentration at the root (self-play only); ~10 / typical number of legal moves"""
    noise_fraction: float = 0.25
    """share of the root prior replaced by Dirichlet noise (self-play only)"""

    def __post_init__(self) -> None:
        if isinstance(self.simulations, bool) or not isinstance(self.simulations, int) or self.simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got {self.simulations!r}")
        if not self.c_puct > 0:
            raise ValueError(f"c_puct must be positive, got {self.c_puct!r}")
        if not self.dirichlet_alpha > 0:
            raise ValueError(f"dirichlet_alpha must be positive, got {self.dirichlet_alpha!r}")
        if not 0 <= self.noise_fraction <= 1:
            raise ValueError(f"noise_fraction must be in [0, 1], got {self.noise_fraction!r}")


@njit(cache=True)
def _terminal_value(stores, player):
    """+1 / -1 / 0 for ``player`` at the end of a game."""
    own = int(stores[player])
    other = int(stores[1 - player])
    if own > other:
        return 1.0
    if own < other:
        return -1.0
    return 0.0


@njit(cache=True)
def _backup(visits, value_sum, path, length, value):
    """Add one visit along the path; ``value`` is for the player to move at the leaf, each node stores the value
    for the player who moved into it."""
    for i in range(length - 1, -1, -1):
        node = path[i]
        visits[node] += 1
        value = -value
        value_sum[node] += value


@njit(cache=True)
def _select_child(first, count, visits, value_sum, prior, parent, c_puct, fpu_reduction):
    parent_visits = visits[parent]
    parent_q = -value_sum[parent] / parent_visits if parent_visits > 0 else 0.0
    scale = c_puct * math.sqrt(parent_visits)
    best = first
    best_score = -1e30
    for child in range(first, first + count):
        n = visits[child]
        q = value_sum[child] / n if n > 0 else parent_q - fpu_reduction
        score = q + scale * prior[child] / (1.0 + n)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True)
def _undo_virtual_loss(visits, value_sum, path, length):
    for i in range(length):
        visits[path[i]] -= 1
        value_sum[path[i]] += 1.0


@njit(cache=True)
def select_leaves(
    root_seeds,
    root_stores,
    root_player,
    root_ply,
    max_plies,
    active,
    simulations,
    leaves_per_game,
    c_puct,
    fpu_reduction,
    child_first,
    child_count,
    visits,
    value_sum,
    prior,
    move,
    terminal,
    path,
    path_length,
    leaf_node,
    leaf_player,
    obs,
    legal,
):
    """For every active game, descend from the root by PUCT to up to ``leaves_per_game`` leaves the network must
    evaluate (row ``g * leaves_per_game + k`` of the leaf arrays).

    Each pending leaf's path carries a virtual loss (a visit and a lost game) so that the next descent of the same
    game looks elsewhere; a descent that still ends on a pending leaf ends the game's collection for this pass.
    Terminal leaves are backed up at once with their exact value and the game descends again, so on return each
    game has pending leaves or has finished its simulations. Returns the number of pending leaves.
    """
    seeds = np.empty(NUM_ACTIONS, dtype=root_seeds.dtype)
    stores = np.empty(2, dtype=root_stores.dtype)
    pending = 0
    for g in range(root_seeds.shape[0]):
        row = g * leaves_per_game
        for k in range(leaves_per_game):
            leaf_node[row + k] = -1
        if not active[g]:
            continue
        while visits[g, 0] <= simulations and row < (g + 1) * leaves_per_game:
            seeds[:] = root_seeds[g]
            stores[:] = root_stores[g]
            player = root_player[g]
            ply = root_ply[g]
            node = 0
            length = 1
            path[row, 0] = 0
            while child_first[g, node] >= 0:
                node = _select_child(
                    child_first[g, node], child_count[g, node], visits[g], value_sum[g], prior[g], node, c_puct,
                    fpu_reduction,
                )  # fmt: skip
                core.apply_action(seeds, stores, player, move[g, node])
                player = 1 - player
                ply += 1
                path[row, length] = node
                length += 1
            if terminal[g, node] == 0:
                status = core.end_status(core.board_total(seeds), int(stores[0]), int(stores[1]), ply, max_plies[g])
                terminal[g, node] = 1 if status != core.ONGOING else -1
            if terminal[g, node] == 1:
                _backup(visits[g], value_sum[g], path[row], length, _terminal_value(stores, player))
                continue
            if terminal[g, node] == 2:  # already waiting for the network
                break
            terminal[g, node] = 2
            for i in range(length):  # virtual loss
                visits[g, path[row, i]] += 1
                value_sum[g, path[row, i]] -= 1.0
            path_length[row] = length
            leaf_node[row] = node
            leaf_player[row] = player
            core.observe(seeds, stores, ply, max_plies[g], player, obs[row])
            core.legal_mask(seeds, player, legal[row])
            pending += 1
            row += 1
    return pending


@njit(cache=True)
def expand_and_backup(
    leaves_per_game,
    leaf_node,
    leaf_player,
    logits,
    values,
    noise,
    noise_fraction,
    legal,
    child_first,
    child_count,
    visits,
    value_sum,
    prior,
    move,
    terminal,
    num_nodes,
    path,
    path_length,
):
    """Expand every pending leaf with the softmax of its legal logits (``logits`` are per *relative* action of the
    player to move; at a root, mixed with ``noise[g]`` when ``noise_fraction`` > 0), remove its virtual loss and
    back up its value."""
    for row in range(leaf_node.shape[0]):
        node = leaf_node[row]
        if node < 0:
            continue
        g = row // leaves_per_game
        player = leaf_player[row]
        first = num_nodes[g]
        top = -1e30
        for a in range(NUM_ACTIONS):
            if legal[row, a]:
                top = max(top, logits[row, core.relative_action(a, player)])
        total = 0.0
        count = 0
        for a in range(NUM_ACTIONS):
            if legal[row, a]:
                child = first + count
                p = math.exp(logits[row, core.relative_action(a, player)] - top)
                prior[g, child] = p
                total += p
                move[g, child] = a
                child_first[g, child] = -1
                child_count[g, child] = 0
                visits[g, child] = 0
                value_sum[g, child] = 0.0
                terminal[g, child] = 0
                count += 1
        for child in range(first, first + count):
            p = prior[g, child] / total
            if node == 0 and noise_fraction > 0:
                p = (1.0 - noise_fraction) * p + noise_fraction * noise[g, move[g, child]]
            prior[g, child] = p
        child_first[g, node] = first
        child_count[g, node] = count
        terminal[g, node] = -1
        num_nodes[g] = first + count
        _undo_virtual_loss(visits[g], value_sum[g], path[row], path_length[row])
        _backup(visits[g], value_sum[g], path[row], path_length[row], values[row])


@njit(cache=True)
def root_visit_counts(child_first, child_count, visits, value_sum, move, counts, root_values):
    """Visit count of every root action (``counts`` (G, 32)) and the root's mean value for the player to move."""
    for g in range(child_first.shape[0]):
        counts[g, :] = 0
        first = child_first[g, 0]
        if first >= 0:
            for child in range(first, first + child_count[g, 0]):
                counts[g, move[g, child]] = visits[g, child]
        root_values[g] = -value_sum[g, 0] / visits[g, 0] if visits[g, 0] > 0 else 0.0


class BatchedSearch:
    """PUCT search over up to ``num_games`` positions at once; the trees are rebuilt at every call of :meth:`run`."""

    def __init__(self, num_games: int, config: SearchConfig, leaves_per_game: int = 1) -> None:
        if num_games < 1 or leaves_per_game < 1:
            raise ValueError(f"num_games and leaves_per_game must be positive, got {num_games}, {leaves_per_game}")
        self.config = config
        self.num_games = num_games
        self.leaves_per_game = leaves_per_game
        self.capacity = config.simulations
        rows = num_games * leaves_per_game
        nodes = 1 + (self.capacity + 1) * MAX_CHILDREN
        self.child_first = np.full((num_games, nodes), -1, dtype=np.int32)
        self.child_count = np.zeros((num_games, nodes), dtype=np.int32)
        self.visits = np.zeros((num_games, nodes), dtype=np.int32)
        self.value_sum = np.zeros((num_games, nodes), dtype=np.float32)
        self.prior = np.zeros((num_games, nodes), dtype=np.float32)
        self.move = np.zeros((num_games, nodes), dtype=np.int8)
        self.terminal = np.zeros((num_games, nodes), dtype=np.int8)
        self.num_nodes = np.ones(num_games, dtype=np.int32)
        self.path = np.zeros((rows, self.capacity + 2), dtype=np.int32)
        self.path_length = np.zeros(rows, dtype=np.int32)
        self.leaf_node = np.full(rows, -1, dtype=np.int32)
        self.leaf_player = np.zeros(rows, dtype=np.int64)
        self.obs = np.zeros((rows, OBS_SIZE), dtype=np.float32)
        self.legal = np.zeros((rows, NUM_ACTIONS), dtype=np.bool_)
        self.logits = np.zeros((rows, NUM_ACTIONS), dtype=np.float32)
        self.values = np.zeros(rows, dtype=np.float32)
        self.noise = np.zeros((num_games, NUM_ACTIONS), dtype=np.float32)
        self.evaluations = 0

    def run(
        self,
        seeds: np.ndarray,
        stores: np.ndarray,
        players: np.ndarray,
        plies: np.ndarray,
        max_plies: np.ndarray,
        active: np.ndarray,
        evaluate: Evaluator,
        noise_rngs: Sequence[np.random.Generator] | None = None,
        simulations: int | None = None,
        deadline: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search the live positions ``g`` with ``active[g]``; return (visit counts per absolute action (G, 32),
        root values for the player to move (G,)).

        ``noise_rngs`` (one generator per game) turns on the root's Dirichlet noise. ``deadline`` (a
        ``time.perf_counter()`` value) stops the search early, after at least the root's evaluation.
        """
        simulations = self.config.simulations if simulations is None else simulations
        if not 1 <= simulations <= self.capacity:
            raise ValueError(f"simulations must be in 1-{self.capacity} for this search, got {simulations}")
        games = self.num_games
        if seeds.shape != (games, NUM_ACTIONS):
            raise ValueError(f"this search holds {games} games: seeds must have shape ({games}, {NUM_ACTIONS})")
        active = np.asarray(active, dtype=np.bool_)
        self.child_first[:, 0] = -1
        self.visits[:, 0] = 0
        self.value_sum[:, 0] = 0.0
        self.terminal[:, 0] = 0
        self.num_nodes[:] = 1
        noise_fraction = self.config.noise_fraction if noise_rngs is not None else 0.0
        trees = (self.child_first, self.child_count, self.visits, self.value_sum, self.prior, self.move, self.terminal)
        while True:
            pending = select_leaves(
                seeds, stores, players, plies, max_plies, active, simulations, self.leaves_per_game, self.config.c_puct,
                self.config.fpu_reduction, *trees, self.path, self.path_length, self.leaf_node, self.leaf_player,
                self.obs, self.legal,
            )  # fmt: skip
            if pending == 0:
                break
            rows = np.flatnonzero(self.leaf_node >= 0)
            logits, values = evaluate(self.obs[rows])
            self.logits[rows] = logits
            self.values[rows] = values
            self.evaluations += len(rows)
            if noise_rngs is not None:
                for row in rows[self.leaf_node[rows] == 0]:
                    g = row // self.leaves_per_game
                    legal = np.flatnonzero(self.legal[row])
                    self.noise[g, legal] = noise_rngs[g].dirichlet(np.full(len(legal), self.config.dirichlet_alpha))
            expand_and_backup(
                self.leaves_per_game, self.leaf_node, self.leaf_player, self.logits, self.values, self.noise,
                noise_fraction, self.legal, *trees, self.num_nodes, self.path, self.path_length,
            )  # fmt: skip
            if deadline is not None and time.perf_counter() >= deadline:
                break
        counts = np.zeros((games, NUM_ACTIONS), dtype=np.int32)
        root_values = np.zeros(games, dtype=np.float32)
        root_visit_counts(self.child_first, self.child_count, self.visits, self.value_sum, self.move, counts,
                          root_values)  # fmt: skip
        return counts, root_values


def uniform_evaluator(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors and a value of 0 everywhere: plain PUCT search that learns only from terminal positions."""
    return np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32), np.zeros(len(obs), dtype=np.float32)
