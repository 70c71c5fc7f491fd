"""Monte Carlo tree search (UCT with uniformly random rollouts), the whole simulation loop compiled by numba.

The tree is a structure of arrays (parent, first child, child count, action, visits, value) that grows in blocks;
a node's children are stored contiguously, created all at once in a seeded random order when the node is reached
for the second time. One search serves every game: moves, end checks and playouts go through the per-game kernels of
:mod:`awale_env.kernels.dispatch` (each game's compiled ``random_playout`` included), so nothing here re-implements a
rule; Oware's repetition rule is followed exactly, each simulation starting from a copy of the root's repetition set. A
node's value is the sum of rewards (win 1, draw 0.5, loss 0) for the player who made the move leading to it (the player
to move at its parent: the game's ``next_player`` says who that is, so a move that gives another turn backs the reward
up unchanged to its own mover, as OpenSpiel's MCTS backs up by player); selection
maximises ``value / visits + c * sqrt(ln(parent visits) / visits)`` with unvisited children first. The move played
is the most visited child of the root.

Between moves the agent keeps its tree: when the next position is a grandchild of the old root (its own move and
the opponent's reply) or a child (its own move gave it another turn), that subtree is copied to the front of the
arrays and becomes the new root.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numba import njit

from agents.base import Limit, check_positive, check_seed, limited, spec_name
from awale_env.kernels import dispatch as kn
from awale_env.kernels.rng import make_rng, random_below

DEFAULT_SIMULATIONS = 1000
DEFAULT_C = 0.4  # tuned in round robins at 2,000 simulations: 0.4 beat 0.25, 0.7, 1.0, 1.4 and 2.5
MAX_NODES = 1 << 22  # about 100 MB; when full, simulations go on without growing the tree
BATCH_SECONDS = 0.02  # clock checks between batches of compiled simulations under a time budget

# Tree arrays, in this order: parent, first_child, n_children, action (int32), visits (int64), value (float64).
PARENT, FIRST_CHILD, N_CHILDREN, ACTION, VISITS, VALUE = range(6)


def new_tree(capacity: int) -> tuple[np.ndarray, ...]:
    """Empty tree arrays for ``capacity`` nodes."""
    ints = tuple(np.zeros(capacity, dtype=np.int32) for _ in range(4))
    return (*ints, np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.float64))


@njit(cache=True)
def _expand(tree, node, used, env, board, player, rng, moves):
    """Create the children of ``node`` (one per legal action, in random order); return the new node count."""
    parent, first_child, n_children, action, visits, value = tree
    n = kn.moves(env, board, player, moves)
    if used + n > parent.size:
        return used
    for i in range(n - 1, 0, -1):  # Fisher-Yates with the core generator
        j = random_below(rng, i + 1)
        moves[i], moves[j] = moves[j], moves[i]
    first_child[node] = used
    n_children[node] = n
    for i in range(n):
        child = used + i
        parent[child] = node
        first_child[child] = -1
        n_children[child] = 0
        action[child] = moves[i]
        visits[child] = 0
        value[child] = 0.0
    return used + n


@njit(cache=True)
def _select(tree, node, c):
    """The child of ``node`` with the best UCT score; the first unvisited child if there is one."""
    _, first_child, n_children, _, visits, value = tree
    log_n = math.log(max(visits[node], 1))
    best, best_score = -1, -1.0
    for child in range(first_child[node], first_child[node] + n_children[node]):
        n = visits[child]
        if n == 0:
            return child
        score = value[child] / n + c * math.sqrt(log_n / n)
        if score > best_score:
            best, best_score = child, score
    return best


@njit(cache=True)
def run_simulations(tree, used, root, count, c, rng, env, work_keys):
    """Run ``count`` simulations from the root (node 0, a live position); return the new node count.

    ``root`` = (board, stores, player to move, ply, ply limit); ``env`` = the game
    (:meth:`awale_env.kernels.dispatch.Root.env`, with Oware's root repetition keys); ``work_keys``: Oware's key set to
    work in, with room for a game's keys (see :meth:`MCTSAgent.act`).
    """
    parent, _, n_children, action, visits, value = tree
    root_board, root_stores, root_player, root_ply, max_plies = root
    board = root_board.copy()
    stores = root_stores.copy()
    moves = np.empty(64, dtype=np.int64)
    movers = np.empty(64, dtype=np.int64)  # per depth of the descent, the player who moved into its node
    for _ in range(count):
        board[:] = root_board
        stores[:] = root_stores
        keys, _ = kn.record(env, work_keys, board, root_player, 0, True)
        player, ply, node, depth = root_player, root_ply, 0, 0
        code = kn.ONGOING
        # Selection and expansion: descend while the node is expanded; expand a node on its second visit.
        while code == kn.ONGOING:
            if n_children[node] == 0:
                if visits[node] == 0 and node != 0:
                    break
                used = _expand(tree, node, used, env, board, player, rng, moves)
                if n_children[node] == 0:  # the tree is full
                    break
            node = _select(tree, node, c)
            if depth == movers.size:
                movers = np.concatenate((movers, np.empty(movers.size, dtype=np.int64)))
            movers[depth] = player
            depth += 1
            after = kn.next_player(env, board, player, action[node])
            gained = kn.move(env, board, stores, player, action[node])
            player = after
            ply += 1
            keys, repeated = kn.record(env, keys, board, player, gained, False)  # Oware's rule 9
            code = kn.status(env, board, stores, player, ply, max_plies, gained, repeated)
        if code == kn.ONGOING:
            won = kn.playout(env, board, stores, player, ply, max_plies, keys, rng)
        else:
            won = kn.winner(env, board, stores, code, player)
        # Backpropagation: each node's reward is for its mover, the player who was to move at its parent (the
        # root's, which no move led to, is never read).
        while node > 0:
            depth -= 1
            visits[node] += 1
            value[node] += 0.5 if won == kn.DRAW else (1.0 if won == movers[depth] else 0.0)
            node = parent[node]
        visits[0] += 1
    return used


@njit(cache=True)
def compact_subtree(tree, new_root, out):
    """Copy the subtree under ``new_root`` into ``out`` (breadth first, so children stay contiguous) with the new
    root at index 0; return the number of nodes copied."""
    parent, first_child, n_children, action, visits, value = tree
    o_parent, o_first, o_count, o_action, o_visits, o_value = out
    source = np.empty(parent.size, dtype=np.int64)
    source[0] = new_root
    o_parent[0] = -1
    used = 1
    head = 0
    while head < used:
        old = source[head]
        o_action[head] = action[old]
        o_visits[head] = visits[old]
        o_value[head] = value[old]
        o_count[head] = n_children[old]
        o_first[head] = used if n_children[old] > 0 else -1
        for k in range(n_children[old]):
            source[used] = first_child[old] + k
            o_parent[used] = head
            used += 1
        head += 1
    return used


def _key_set_for(root: kn.Root) -> np.ndarray:
    """An empty repetition set (the game's ``new_key_set``) with room for the root's keys and every ply left (a game
    without a ply limit may make it grow); a placeholder for a game without a repetition rule."""
    plies = root.max_plies - root.ply if root.max_plies != kn.NO_LIMIT else 1024
    capacity = 16
    while capacity < 2 * (root.keys.shape[0] + plies + 2):
        capacity *= 2
    return root.kernels.new_key_set(capacity)


class MCTSAgent:
    """UCT search (see the module docstring) for any game. ``simulations`` and/or ``time`` (seconds) bound each
    move; with neither, :data:`DEFAULT_SIMULATIONS`. Deterministic under a seed when only ``simulations`` bounds it."""

    def __init__(
        self,
        simulations: int | None = None,
        time: float | None = None,
        c: float = DEFAULT_C,
        seed: int | None = None,
    ) -> None:
        check_positive("simulations", simulations)
        check_positive("time", time, float)
        check_positive("c", c, float)
        self.simulations = DEFAULT_SIMULATIONS if simulations is None and time is None else simulations
        self.time = time
        self.c = float(c)
        self.name = spec_name("mcts", simulations=simulations, time=time)
        self._rate = 30_000.0  # simulations/s, refined by every timed search
        #: Statistics of the last search: simulations run, seconds, tree nodes, whether the tree was reused.
        self.last_search: dict[str, float] = {}
        self._seed = check_seed(seed)
        self._scratch = kn.new_scratch()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Drop the tree (a new game); re-seed when given a seed."""
        if check_seed(seed) is not None:
            self._seed = seed
        entropy = self._seed if self._seed is not None else np.random.SeedSequence().entropy
        self._rng = make_rng(entropy)
        self._tree = new_tree(1 << 12)
        self._used = 0
        self._root: Any = None
        self._chosen = -1

    def _reuse(self, state: Any) -> bool:
        """Re-root the tree on ``state`` if it is the child of the old root through the move chosen there (the move
        gave another turn) or a grandchild through it (one reply)."""
        if self._root is None or self._used == 0:
            return False
        first_child, n_children, action = self._tree[FIRST_CHILD], self._tree[N_CHILDREN], self._tree[ACTION]
        mine = next((c for c in range(first_child[0], first_child[0] + n_children[0]) if action[c] == self._chosen), -1)
        if mine < 0 or n_children[mine] == 0:
            return False
        after_mine = self._root.play(self._chosen)
        again = after_mine.to_move == self._root.to_move  # alternating games re-root on grandchildren only
        found = mine if again and after_mine == state else -1
        for reply in range(first_child[mine], first_child[mine] + n_children[mine]):
            if found < 0 and after_mine.play(int(action[reply])) == state:
                found = reply
        if found < 0:
            return False
        out = new_tree(self._tree[PARENT].size)
        self._used = compact_subtree(self._tree, found, out)
        self._tree = out
        return True

    def _grow(self, needed: int) -> None:
        """Make room for ``needed`` more nodes (doubling, up to :data:`MAX_NODES`)."""
        size = self._tree[PARENT].size
        if self._used + needed <= size or size >= MAX_NODES:
            return
        new_size = min(MAX_NODES, max(2 * size, self._used + needed))
        grown = new_tree(new_size)
        for old, new in zip(self._tree, grown):
            new[:size] = old
        self._tree = grown

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The most visited move after this move's simulations from ``state`` (a State of any game), within
        ``limit``'s time and simulations (each the agent's own when not given)."""
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        start = time.perf_counter()
        reused = self._reuse(state)
        if not reused:
            self._tree[N_CHILDREN][0] = 0
            self._tree[VISITS][0] = 0
            self._tree[VALUE][0] = 0.0
            self._tree[PARENT][0] = -1
            self._used = 1
        self._root = state
        root = kn.root_of(state)
        position = (root.board, root.stores, root.player, root.ply, root.max_plies)
        env, work_keys = root.env(self._scratch, root.keys, root.keys), _key_set_for(root)
        simulations, seconds = limited(limit, "simulations", self.simulations), limited(limit, "time", self.time)
        done = 0
        while True:
            batch = simulations - done if simulations is not None else 1 << 30
            if seconds is not None:
                remaining = seconds - (time.perf_counter() - start)
                if remaining <= 0:
                    break
                batch = min(batch, max(16, int(self._rate * min(remaining, BATCH_SECONDS))))
            if batch <= 0:
                break
            self._grow(16 * batch)
            batch_start = time.perf_counter()
            self._used = run_simulations(self._tree, self._used, position, batch, self.c, self._rng, env, work_keys)
            elapsed = time.perf_counter() - batch_start
            if elapsed > 0.005:
                self._rate = batch / elapsed
            done += batch
        self._chosen = self._best_action(state)
        self.last_search = {
            "simulations": done,
            "seconds": time.perf_counter() - start,
            "nodes": self._used,
            "reused": reused,
        }
        return self._chosen

    def _best_action(self, state: Any) -> int:
        """The most visited root child (ties: the higher mean value); any legal move if nothing was searched."""
        first, count = self._tree[FIRST_CHILD][0], self._tree[N_CHILDREN][0]
        if count == 0:
            return state.legal_actions()[0]
        children = np.arange(first, first + count)
        visits = self._tree[VISITS][children]
        means = self._tree[VALUE][children] / np.maximum(visits, 1)
        best = children[np.lexsort((-means, -visits))[0]]
        return int(self._tree[ACTION][best])

    def action_visits(self) -> dict[int, int]:
        """Visits of each root action in the last search (for analysis and tests)."""
        first, count = self._tree[FIRST_CHILD][0], self._tree[N_CHILDREN][0]
        return {int(self._tree[ACTION][c]): int(self._tree[VISITS][c]) for c in range(first, first + count)}
