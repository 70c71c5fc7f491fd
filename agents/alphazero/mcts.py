"""Batched search, PUCT's or Gumbel AlphaZero's (:mod:`agents.alphazero.gumbel`; the rule is a parameter of the
compiled passes): many games searched side by side, their leaves evaluated by the network as one batch.

The trees live in flat arrays (one row per game: children, visits, value sums, priors, moves) and two compiled
passes do all the tree work: :func:`select_leaves` walks every game's tree from its root to a leaf, replaying the
moves on a scratch copy of the root position, and writes the leaf's observation and legal mask; the caller
evaluates all pending leaves in one network call; :func:`expand_and_backup` turns the network's logits into
priors, adds the children and backs the value up: each node keeps the player who moved into it (the game's
``next_player`` says who moves after a move), and the value is added to the nodes its player moved into and
subtracted from the others, so a move that gives another turn keeps the sign (mctx's per-edge discount). One
search serves every game: moves, end checks, winners and observations go through the per-game kernels of
:mod:`awale_env.kernels.dispatch` (compiled once per game), and Oware's repetition rule is followed exactly, each
descent starting from its root's repetition set. Terminal positions get their exact value (+1 / -1 / 0 from the game's
winner) and never reach the network;
a game keeps selecting until it reaches a leaf that needs the network or its simulations are done. A game may also
send ``leaves_per_game`` leaves per network call, kept apart by a virtual loss, which is how a single game (the
agent) fills a batch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from agents.alphazero.gumbel import GUMBEL, PUCT, completed_q, considered_visit, gumbel_child, gumbel_root, root_child
from agents.alphazero.search_config import RULES, SearchConfig
from awale_env.games import DEFAULT_GAME, get_game
from awale_env.kernels import dispatch as kn

# An evaluator maps observations (n, obs_size) float32 to (relative policy logits (n, num_actions), values (n,)) in
# numpy; "relative": action r of the player to move is the game's action (r + action_shift(player)) % num_actions.
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@njit(cache=True)
def _backup(visits, value_sum, mover, path, length, value, player):
    """Add one visit along the path; ``value`` is for ``player``, to move at the leaf, each node stores the value
    for the player who moved into it (``mover``)."""
    for i in range(length - 1, -1, -1):
        node = path[i]
        visits[node] += 1
        value_sum[node] += value if mover[node] == player else -value


@njit(cache=True)
def _select_child(first, count, visits, value_sum, prior, mover, parent, player, c_puct, fpu_reduction):
    """The PUCT child of ``parent``, ``player`` to move there."""
    parent_visits = visits[parent]
    parent_q = value_sum[parent] / parent_visits if parent_visits > 0 else 0.0
    if mover[parent] != player:
        parent_q = -parent_q
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
def _leaf_value(env, board, stores, code, player):
    """+1 / -1 / 0 for ``player`` (to move) at the end of a game (status ``code``)."""
    won = kn.winner(env, board, stores, code, player)
    if won == kn.DRAW:
        return 0.0
    return 1.0 if won == player else -1.0


@njit(cache=True)
def select_leaves(
    env,
    root_keys,
    root_key_count,
    work_keys,
    root_board,
    root_stores,
    root_player,
    root_ply,
    max_plies,
    active,
    simulations,
    leaves_per_game,
    c_puct,
    fpu_reduction,
    rule,
    considered,
    value_scale,
    visit_scale,
    gumbel,
    child_first,
    child_count,
    visits,
    value_sum,
    prior,
    move,
    terminal,
    mover,
    raw_value,
    path,
    path_length,
    leaf_node,
    leaf_player,
    obs,
    legal,
):
    """For every active game, descend from the root by the selection ``rule`` (:data:`PUCT`: ``c_puct``,
    ``fpu_reduction``; :data:`GUMBEL`: at the root the move sequential halving of ``simulations`` over the
    ``considered`` best moves by Gumbel noise ``gumbel[g]`` + logit + completed Q asks for, below it
    :func:`~agents.alphazero.gumbel.gumbel_child`) to up to ``leaves_per_game`` leaves the network must
    evaluate (row ``g * leaves_per_game + k`` of the leaf arrays).

    ``env``: the game (:mod:`awale_env.kernels.dispatch`), re-rooted per game on its Oware repetition keys
    ``root_keys[g, :root_key_count[g]]``; ``work_keys``: an Oware key set with room for a root's keys and a descent.
    Each pending leaf's path carries a virtual loss (a visit and a lost game) so that the next descent of the same
    game looks elsewhere; a descent that still ends on a pending leaf ends the game's collection for this pass.
    Terminal leaves are backed up at once with their exact value and the game descends again, so on return each
    game has pending leaves or has finished its simulations. Returns the number of pending leaves.
    """
    board = np.empty(root_board.shape[1], dtype=root_board.dtype)
    stores = np.empty(2, dtype=root_stores.dtype)
    completed = np.empty(legal.shape[1], dtype=np.float64)
    pending = 0
    for g in range(root_board.shape[0]):
        row = g * leaves_per_game
        for k in range(leaves_per_game):
            leaf_node[row + k] = -1
        if not active[g]:
            continue
        genv = kn.rooted(env, root_keys[g, : root_key_count[g]])
        while visits[g, 0] <= simulations and row < (g + 1) * leaves_per_game:
            board[:] = root_board[g]
            stores[:] = root_stores[g]
            player = root_player[g]
            ply = root_ply[g]
            keys, repeated = kn.record(genv, work_keys, board, player, 0, True)
            gained = 0
            node = 0
            length = 1
            path[row, 0] = 0
            while child_first[g, node] >= 0:
                first, count = child_first[g, node], child_count[g, node]
                if rule == PUCT:
                    node = _select_child(first, count, visits[g], value_sum[g], prior[g], mover[g], node, player,
                                         c_puct, fpu_reduction)  # fmt: skip
                else:
                    completed_q(first, count, visits[g], value_sum[g], prior[g], raw_value[g, node], value_scale,
                                visit_scale, completed)  # fmt: skip
                    if node == 0:
                        visit = considered_visit(min(considered, count), simulations, visits[g, 0] - 1)
                        node = root_child(first, count, visits[g], prior[g], gumbel[g], move[g], completed, visit)
                    else:
                        node = gumbel_child(first, count, visits[g], prior[g], completed)
                after = kn.next_player(genv, board, player, int(move[g, node]))
                gained = kn.move(genv, board, stores, player, int(move[g, node]))
                player = after
                ply += 1
                keys, repeated = kn.record(genv, keys, board, player, gained, False)  # Oware's rule 9
                path[row, length] = node
                length += 1
            if terminal[g, node] == 2:  # already waiting for the network
                break
            code = kn.ONGOING  # a root is live: the caller searches live positions only
            if node != 0:  # the end check runs at every visit: it also settles a finished Oware board
                code = kn.status(genv, board, stores, player, ply, max_plies[g], gained, repeated)
            if code != kn.ONGOING:
                terminal[g, node] = 1
                value = _leaf_value(genv, board, stores, code, player)
                _backup(visits[g], value_sum[g], mover[g], path[row], length, value, player)
                continue
            terminal[g, node] = 2
            for i in range(length):  # virtual loss
                visits[g, path[row, i]] += 1
                value_sum[g, path[row, i]] -= 1.0
            path_length[row] = length
            leaf_node[row] = node
            leaf_player[row] = player
            kn.observe(genv, board, stores, ply, max_plies[g], player, obs[row])
            bits = kn.legal(genv, board, player)
            for a in range(legal.shape[1]):
                legal[row, a] = (bits >> a) & 1
            pending += 1
            row += 1
    return pending


@njit(cache=True)
def expand_and_backup(
    leaves_per_game,
    leaf_node,
    leaf_player,
    action_shift,
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
    mover,
    raw_value,
    num_nodes,
    path,
    path_length,
):
    """Expand every pending leaf with the softmax of its legal logits (``logits`` are per *relative* action of the
    player to move, ``(a - action_shift * player) % num_actions`` for the game's action ``a``; at a root, mixed with
    ``noise[g]`` when ``noise_fraction`` > 0), remove its virtual loss and back up its value."""
    num_actions = legal.shape[1]
    for row in range(leaf_node.shape[0]):
        node = leaf_node[row]
        if node < 0:
            continue
        g = row // leaves_per_game
        shift = action_shift * leaf_player[row]
        first = num_nodes[g]
        top = -1e30
        for a in range(num_actions):
            if legal[row, a]:
                top = max(top, logits[row, (a - shift) % num_actions])
        total = 0.0
        count = 0
        for a in range(num_actions):
            if legal[row, a]:
                child = first + count
                p = math.exp(logits[row, (a - shift) % num_actions] - top)
                prior[g, child] = p
                total += p
                move[g, child] = a
                child_first[g, child] = -1
                child_count[g, child] = 0
                visits[g, child] = 0
                value_sum[g, child] = 0.0
                terminal[g, child] = 0
                mover[g, child] = leaf_player[row]
                count += 1
        for child in range(first, first + count):
            p = prior[g, child] / total
            if node == 0 and noise_fraction > 0:
                p = (1.0 - noise_fraction) * p + noise_fraction * noise[g, move[g, child]]
            prior[g, child] = p
        child_first[g, node] = first
        child_count[g, node] = count
        terminal[g, node] = -1
        raw_value[g, node] = values[row]
        num_nodes[g] = first + count
        _undo_virtual_loss(visits[g], value_sum[g], path[row], path_length[row])
        _backup(visits[g], value_sum[g], mover[g], path[row], path_length[row], values[row], leaf_player[row])


@njit(cache=True)
def root_visit_counts(child_first, child_count, visits, value_sum, move, counts, root_values):
    """Visit count of every root action (``counts`` (G, the game's number of actions)) and the root's mean value for
    the player to move (the root's ``mover`` is set to the other player)."""
    for g in range(child_first.shape[0]):
        counts[g, :] = 0
        first = child_first[g, 0]
        if first >= 0:
            for child in range(first, first + child_count[g, 0]):
                counts[g, move[g, child]] = visits[g, child]
        root_values[g] = -value_sum[g, 0] / visits[g, 0] if visits[g, 0] > 0 else 0.0


def _search_env(kernels: kn.SearchKernels, flags: int, scratch: np.ndarray) -> Any:
    """The game's env with rule flags ``flags``, to be re-rooted per position (:func:`kn.rooted`)."""
    none = np.zeros(0, dtype=np.int64)
    return kernels.make_env(flags, none, scratch, none, none)


class BatchedSearch:
    """The search of ``config`` over up to ``num_games`` positions of ``game`` at once, each sending ``config.leaves``
    leaves per network call; the trees are rebuilt at every call of :meth:`run`."""

    def __init__(self, num_games: int, config: SearchConfig, game: str = DEFAULT_GAME) -> None:
        if num_games < 1:
            raise ValueError(f"num_games must be positive, got {num_games}")
        self.game = get_game(game)
        self.kernels = self.game.search
        self.config = config
        self.num_games = num_games
        self.leaves_per_game = leaves_per_game = config.leaves
        self.capacity = config.simulations
        rows = num_games * leaves_per_game
        actions = self.game.num_actions
        nodes = 1 + (self.capacity + 1) * self.kernels.max_moves
        # zeros, not -1: the pages of a large tree are touched only as it grows (run() marks the roots leaves, and
        # expand_and_backup each new child)
        self.child_first = np.zeros((num_games, nodes), dtype=np.int32)
        self.child_count = np.zeros((num_games, nodes), dtype=np.int32)
        self.visits = np.zeros((num_games, nodes), dtype=np.int32)
        self.value_sum = np.zeros((num_games, nodes), dtype=np.float32)
        self.prior = np.zeros((num_games, nodes), dtype=np.float32)
        self.move = np.zeros((num_games, nodes), dtype=np.int8)
        self.terminal = np.zeros((num_games, nodes), dtype=np.int8)
        self.mover = np.zeros((num_games, nodes), dtype=np.int8)  # the player who moved into each node
        self.raw_value = np.zeros((num_games, nodes), dtype=np.float32)  # the network's value of each expanded node
        self.num_nodes = np.ones(num_games, dtype=np.int32)
        self.path = np.zeros((rows, self.capacity + 2), dtype=np.int32)
        self.path_length = np.zeros(rows, dtype=np.int32)
        self.leaf_node = np.full(rows, -1, dtype=np.int32)
        self.leaf_player = np.zeros(rows, dtype=np.int64)
        self.obs = np.zeros((rows, self.game.obs_size), dtype=np.float32)
        self.legal = np.zeros((rows, actions), dtype=np.bool_)
        self.logits = np.zeros((rows, actions), dtype=np.float32)
        self.values = np.zeros(rows, dtype=np.float32)
        self.noise = np.zeros((num_games, actions), dtype=np.float32)
        self.rule = RULES.index(config.search)
        self.gumbel = np.zeros((num_games, actions), dtype=np.float32)
        #: Gumbel's result of the last :meth:`run` per position: the improved policy and the move to play.
        self.improved_policy = np.zeros((num_games, actions), dtype=np.float32)
        self.chosen = np.zeros(num_games, dtype=np.int64)
        self.scratch = kn.new_scratch()
        self.evaluations = 0

    def run(
        self,
        boards: np.ndarray,
        stores: np.ndarray,
        players: np.ndarray,
        plies: np.ndarray,
        max_plies: np.ndarray,
        active: np.ndarray,
        evaluate: Evaluator,
        noise_rngs: Sequence[np.random.Generator] | None = None,
        simulations: int | None = None,
        deadline: float | None = None,
        flags: int = 0,
        root_keys: Sequence[np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search the live positions ``g`` with ``active[g]``; return (visit counts per action (G, num_actions),
        root values for the player to move (G,)).

        A position is its row of ``boards`` (the game core's layout, as :func:`awale_env.kernels.dispatch.root_of`
        gives it), ``stores``, ``players``, ``plies`` and ``max_plies`` (0: no limit); ``flags`` are the rule flags all
        the positions share (Oware's ``rules.code``, Hawalis's ``rules.endless_code``) and ``root_keys`` each Oware
        position's repetition keys (``State.repetition_keys``; none: empty sets). ``noise_rngs`` (one generator
        per game) turns on the root's noise (Dirichlet's for PUCT, Gumbel's for Gumbel, which then also fills
        :attr:`improved_policy` and :attr:`chosen`). ``deadline`` (a ``time.perf_counter()`` value) stops the
        search early, after at least the root's evaluation.
        """
        simulations = self.config.simulations if simulations is None else simulations
        if not 1 <= simulations <= self.capacity:
            raise ValueError(f"simulations must be in 1-{self.capacity} for this search, got {simulations}")
        games = self.num_games
        shape = (games, self.kernels.board_size)
        if boards.shape != shape:
            raise ValueError(f"this search holds {games} {self.game.name} games: boards must have shape {shape}")
        active = np.asarray(active, dtype=np.bool_)
        key_count = np.zeros(games, dtype=np.int64)
        if root_keys is not None:
            key_count[:] = [len(keys) for keys in root_keys]
        keys = np.zeros((games, max(1, int(key_count.max()))), dtype=np.int64)
        for g in np.flatnonzero(key_count):
            keys[g, : key_count[g]] = root_keys[g]
        capacity = 16
        while capacity < 2 * (keys.shape[1] + simulations + 2):
            capacity *= 2
        work_keys = self.kernels.new_key_set(capacity)
        env = _search_env(self.kernels, flags, self.scratch)
        self.child_first[:, 0] = -1
        self.visits[:, 0] = 0
        self.value_sum[:, 0] = 0.0
        self.terminal[:, 0] = 0
        self.mover[:, 0] = 1 - players  # the root's value is kept for the player not to move, as if it had moved
        self.num_nodes[:] = 1
        config = self.config
        noise_fraction = config.noise_fraction if noise_rngs is not None and self.rule == PUCT else 0.0
        self.gumbel[:] = 0.0
        if noise_rngs is not None and self.rule == GUMBEL:
            for g in np.flatnonzero(active):
                self.gumbel[g] = config.gumbel_scale * noise_rngs[g].gumbel(size=self.game.num_actions)
        trees = (
            self.child_first, self.child_count, self.visits, self.value_sum, self.prior, self.move, self.terminal,
            self.mover, self.raw_value,
        )  # fmt: skip
        shift = self.game.action_shift(1)
        while True:
            pending = select_leaves(
                env, keys, key_count, work_keys, boards, stores, players, plies, max_plies, active, simulations,
                self.leaves_per_game, config.c_puct, config.fpu_reduction, self.rule, config.considered_actions,
                config.value_scale, config.visit_scale, self.gumbel, *trees, self.path,
                self.path_length, self.leaf_node, self.leaf_player, self.obs, self.legal,
            )  # fmt: skip
            if pending == 0:
                break
            rows = np.flatnonzero(self.leaf_node >= 0)
            logits, values = evaluate(self.obs[rows])
            self.logits[rows] = logits
            self.values[rows] = values
            self.evaluations += len(rows)
            if noise_rngs is not None and self.rule == PUCT:
                for row in rows[self.leaf_node[rows] == 0]:
                    g = row // self.leaves_per_game
                    legal = np.flatnonzero(self.legal[row])
                    self.noise[g, legal] = noise_rngs[g].dirichlet(np.full(len(legal), config.dirichlet_alpha))
            expand_and_backup(
                self.leaves_per_game, self.leaf_node, self.leaf_player, shift, self.logits, self.values, self.noise,
                noise_fraction, self.legal, *trees, self.num_nodes, self.path, self.path_length,
            )  # fmt: skip
            if deadline is not None and time.perf_counter() >= deadline:
                break
        counts = np.zeros((games, self.game.num_actions), dtype=np.int32)
        root_values = np.zeros(games, dtype=np.float32)
        root_visit_counts(self.child_first, self.child_count, self.visits, self.value_sum, self.move, counts,
                          root_values)  # fmt: skip
        if self.rule == GUMBEL:
            gumbel_root(self.child_first, self.child_count, self.visits, self.value_sum, self.prior, self.raw_value,
                        self.move, self.gumbel, config.value_scale, config.visit_scale, self.improved_policy,
                        self.chosen)  # fmt: skip
        return counts, root_values

    def principal_line(self, game: int = 0, plies: int = 12) -> list[int]:
        """The most visited line of position ``game``'s tree from the last search: from the root, each node's most
        visited child while it has been visited, at most ``plies`` actions."""
        line: list[int] = []
        node = 0
        while len(line) < plies and self.child_first[game, node] >= 0 and self.visits[game, node] > 0:
            first = int(self.child_first[game, node])
            children = np.arange(first, first + int(self.child_count[game, node]))
            if len(children) == 0:
                break
            best = int(children[np.argmax(self.visits[game, children])])
            if self.visits[game, best] == 0:
                break
            line.append(int(self.move[game, best]))
            node = best
        return line

    def run_states(
        self,
        states: Sequence[Any],
        evaluate: Evaluator,
        active: np.ndarray | None = None,
        noise_rngs: Sequence[np.random.Generator] | None = None,
        simulations: int | None = None,
        deadline: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`run` on ``num_games`` States of this search's game (by default every live one is searched), which
        must share their rule flags."""
        roots = [kn.root_of(state) for state in states]
        if len(roots) != self.num_games or any(r.kernels is not self.kernels for r in roots):
            raise ValueError(f"this search takes {self.num_games} {self.game.name} States")
        if len({r.flags for r in roots}) > 1:
            raise ValueError("the positions of one search must share their rules")
        if active is None:
            active = np.array([not state.is_terminal for state in states], dtype=np.bool_)
        return self.run(
            np.stack([r.board for r in roots]),
            np.stack([r.stores for r in roots]),
            np.array([r.player for r in roots], dtype=np.int64),
            np.array([r.ply for r in roots], dtype=np.int64),
            np.array([r.max_plies for r in roots], dtype=np.int64),
            active,
            evaluate,
            noise_rngs=noise_rngs,
            simulations=simulations,
            deadline=deadline,
            flags=roots[0].flags,
            root_keys=[r.keys for r in roots],
        )


def uniform(game: str = DEFAULT_GAME) -> Evaluator:
    """An evaluator of equal priors and a value of 0 everywhere for ``game``: plain PUCT search that learns only
    from terminal positions."""
    num_actions = get_game(game).num_actions

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(obs), num_actions), dtype=np.float32), np.zeros(len(obs), dtype=np.float32)

    return evaluate


#: :func:`uniform` for the default game.
uniform_evaluator = uniform()
