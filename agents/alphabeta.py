"""The alpha-beta agent (``alphabeta`` in the registry): iterative deepening of the compiled negamax search of
:mod:`agents.negamax` (its evaluation, move ordering, reductions and transposition table are described there), with
its tables sized for the game of each State it is given, seeded tie-breaks and a time budget.

* Time budget: numba has no clock, so a timed search runs in slices of about :data:`SLICE_SECONDS`: each slice gets
  the nodes the rate measured on the slices before allows, the search pauses when they are spent (its stack of
  frames is kept) and goes on after the clock has been read. A budget is thus held to within about a slice whatever
  the machine's load, and nothing learnt from one slow slice (a compile) outlasts the next. A timed agent compiles
  its search (or loads it from numba's cache) when it is built, and before its first move in another game. An
  iteration that runs out stops, and its best fully searched root move is kept when the principal move was searched
  first.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.base import MAX_DEPTH, Limit, check_positive, check_seed, limited, spec_name
from agents.evaluation import EVALUATIONS, make_evaluation
from agents.negamax import (
    MATE_BOUND,
    NO_NODE_LIMIT,
    NODE_LIMIT,
    NODES,
    NUM_COUNTERS,
    PAUSED,
    PLIES_LEFT_CAP,
    ROOT_DONE,
    ROOT_MOVE,
    WIN,
    NoReductions,
    Reductions,
    negamax,
    position_hash,
    work_arrays,
    zobrist_keys,
)
from awale_env.games import DEFAULT_GAME, Game, game_of, get_game
from awale_env.kernels import dispatch as kn

DEFAULT_DEPTH = 8
DEFAULT_EVALUATION = "tuned"
# The endgame table of a game without one (or of an agent told not to use it).
NO_TABLE = np.zeros(0, dtype=np.int8)
# A timed search runs in slices of about this many seconds, the clock read between them ...
SLICE_SECONDS = 0.005
# ... and never fewer nodes than this per slice (a node rate measured on fewer is mostly call overhead).
MIN_SLICE_NODES = 500


class AlphaBetaAgent:
    """Alpha-beta searcher (see the module docstring) for any game: it sizes its tables for the game of the State
    it is given. ``depth`` and/or ``time`` bound each move's search; with neither, the depth is
    :data:`DEFAULT_DEPTH`. ``eval`` names the evaluation of the leaves (:data:`agents.evaluation.EVALUATIONS`,
    default :data:`DEFAULT_EVALUATION`). ``seed`` breaks ties between equally good moves (small random values added
    to the history table before each move), so a seeded agent is deterministic under a depth limit. ``endgame``:
    score the positions of the game's endgame table exactly (where the game has one). ``reduce``: late move
    reductions (default: the game's ``reduces_late_moves``).

    An agent with a ``time`` budget compiles its search (or loads it from numba's cache) when it is built, and
    again before the clock of its first move in another game, so that no budget pays for a compile."""

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        table_bits: int = 20,
        seed: int | None = None,
        eval: str | None = None,
        endgame: bool = True,
        reduce: bool | None = None,
    ) -> None:
        check_positive("depth", depth)
        check_positive("time", time, float)
        if depth is not None and depth > MAX_DEPTH:
            raise ValueError(f"depth must be at most {MAX_DEPTH}, got {depth}")
        if isinstance(table_bits, bool) or not isinstance(table_bits, int) or not 10 <= table_bits <= 28:
            raise ValueError(f"table_bits must be an integer 10-28, got {table_bits!r}")
        if eval is not None and eval not in EVALUATIONS:
            raise ValueError(f"eval must be one of {', '.join(EVALUATIONS)}, got {eval!r}")
        self.depth = DEFAULT_DEPTH if depth is None and time is None else depth
        self.time = time
        self.eval = DEFAULT_EVALUATION if eval is None else eval
        if not isinstance(endgame, bool):
            raise ValueError(f"endgame must be True or False, got {endgame!r}")
        self.endgame = endgame
        if reduce is not None and not isinstance(reduce, bool):
            raise ValueError(f"reduce must be True or False, got {reduce!r}")
        self.reduce = reduce
        self.name = spec_name(
            "alphabeta", depth=depth, time=time, eval=eval, endgame=None if endgame else False, reduce=reduce
        )
        size = 1 << table_bits
        self._tt = (
            np.zeros(size, dtype=np.uint64),
            np.zeros(size, dtype=np.int32),
            np.zeros(size, dtype=np.int8),
            np.zeros(size, dtype=np.int8),
            np.zeros(size, dtype=np.int8),
        )
        self._killers = np.full((MAX_DEPTH + 2, 2), -1, dtype=np.int64)
        self._scratch = kn.new_scratch()
        self._path = (np.zeros(MAX_DEPTH + 2, dtype=np.int64), np.zeros(MAX_DEPTH + 2, dtype=np.int64))
        self._game: Game | None = None
        self._compiled: set[str] = set()  # the games whose search this agent has run once, outside any clock
        self._node_rate = 1e6  # nodes/s, measured on every slice of a timed search
        self._seed = check_seed(seed)
        #: Statistics of the last search: depth completed, nodes, value (for the player to move), seconds, move.
        self.last_search: dict[str, float] = {}
        default = get_game(DEFAULT_GAME)
        self._use_game(default)
        if time is not None:
            self._compile(default.initial())
        self.reset(seed)

    def _use_game(self, game: Game) -> None:
        """Size the Zobrist keys, history and work arrays for ``game`` and make its evaluation, forgetting what was
        learnt on another."""
        if game == self._game:
            return
        kernels = game.search
        self._evaluation = make_evaluation(self.eval, game.name)
        on = kernels.reduces_late_moves if self.reduce is None else self.reduce
        self._reduce = Reductions() if on else NoReductions()
        self._game = game
        self._keys = zobrist_keys(kernels)
        self._history = np.zeros((2, kernels.num_actions), dtype=np.int64)
        self._work = work_arrays(kernels)
        self._forget()

    def _forget(self) -> None:
        for array in self._tt:
            array[:] = 0
        self._killers[:] = -1
        self._history[:] = 0

    def _prepare(self, state: Any, timed: bool) -> None:
        """Use the game of ``state``; a ``timed`` search new to it compiles the search before its clock runs (also
        for an agent given its time with the move)."""
        game = game_of(state)
        self._use_game(game)
        self._endgame_table(kn.root_of(state))  # built or read outside the clock, the first time
        if timed and game.name not in self._compiled:
            self._compile(state)

    def _compile(self, state: Any) -> None:
        """Compile the search for the game of ``state`` (or load it from numba's cache) with a depth-2 search of it,
        whose traces in the tables are then forgotten."""
        root = kn.root_of(state)
        counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        counters[NODE_LIMIT] = NO_NODE_LIMIT
        self._negamax(root, root.env(self._scratch, *self._path), 2, counters, self._endgame_table(root))
        self._forget()
        self._compiled.add(game_of(state).name)

    def reset(self, seed: int | None = None) -> None:
        """Forget the transposition table, killers and history (a new game); re-seed the tie-breaks if given."""
        if check_seed(seed) is not None:
            self._seed = seed
        self._forget()
        self._tie_rng = np.random.default_rng(self._seed)

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The best move found for the player to move in ``state`` (a State of any game), within ``limit``'s time
        and depth (each the agent's own when not given)."""
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        self._prepare(state, limited(limit, "time", self.time) is not None)
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_search = {"depth": 0, "nodes": 0, "value": 0, "seconds": 0.0, "move": legal[0]}
            return legal[0]
        # Small random history values order otherwise equal moves, i.e. break ties, reproducibly under a seed.
        self._history //= 4
        self._history += self._tie_rng.integers(0, 4, size=self._history.shape)
        return self.search(state, limit)

    def search(self, state: Any, limit: Limit | None = None) -> int:
        """Iterative deepening from ``state`` within ``limit`` (see :meth:`act`); returns the best move and records
        :attr:`last_search`."""
        seconds = limited(limit, "time", self.time)
        self._prepare(state, seconds is not None)
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        root = kn.root_of(state)
        env = root.env(self._scratch, *self._path)
        table = self._endgame_table(root)
        counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        max_depth = min(limited(limit, "depth", self.depth or MAX_DEPTH), MAX_DEPTH)
        best_move, best_value, done_depth, total_nodes = -1, 0, 0, 0
        solved = self._solved_root(state, root, env, table)
        if solved is not None:  # each move's exact value read one ply down: a search of depth 1, exact
            best_move, best_value = solved
            max_depth, done_depth = 0, 1
        for depth in range(1, max_depth + 1):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            counters[:] = 0
            value = self._iteration(root, env, depth, counters, deadline, table)
            total_nodes += int(counters[NODES])
            if counters[PAUSED]:  # out of time
                # The previous principal move is searched first, so a completed root move at least matches it.
                if counters[ROOT_DONE]:
                    best_move = int(counters[ROOT_MOVE])
                break
            best_move, best_value, done_depth = int(counters[ROOT_MOVE]), int(value), depth
            if abs(value) > MATE_BOUND:  # the game's outcome is proven: deeper search changes nothing
                break
        if best_move < 0:  # not even depth 1 finished within the budget
            best_move = state.legal_actions()[0]
        seconds = time.perf_counter() - start
        self.last_search = {
            "depth": done_depth, "nodes": total_nodes, "value": best_value, "seconds": seconds, "move": best_move,
        }  # fmt: skip
        return best_move

    def principal_variation(self, state: Any, plies: int = 12) -> list[int]:
        """The line the last search of ``state`` expects (its principal variation), at most ``plies`` long: its best
        move, then each position's move in the transposition table, followed while the table holds the position
        (nodes one ply from the leaves are not stored, so a depth-d search gives at most d - 1 plies, more through moves
        that give another turn; the table is always-replace, so a line can end earlier) and the move is legal. Read
        after the search, so the search itself pays nothing for it."""
        if state.is_terminal or plies < 1:
            return []
        start = kn.root_of(state)
        horizon = start.kernels.horizon(start)
        tt_hash, _, _, _, tt_move = self._tt
        line: list[int] = []
        seen: set[int] = set()
        # The search's own best move first: a timed search's unfinished iteration may have improved on the table's.
        move = int(self.last_search.get("move", -1))
        while len(line) < plies and not state.is_terminal:
            if move < 0:
                root = kn.root_of(state)
                plies_left = horizon - root.ply if horizon != kn.NO_LIMIT else PLIES_LEFT_CAP
                key = position_hash(root.board, root.stores, root.player, max(plies_left, 0), *self._keys)
                index = key & np.uint64(tt_hash.size - 1)
                if int(key) in seen or tt_hash[index] != key:  # a cycle, or a position the table no longer holds
                    break
                seen.add(int(key))
                move = int(tt_move[index])
            if move not in state.legal_actions():
                break
            line.append(move)
            state = state.play(move)
            move = -1
        return line

    def _endgame_table(self, root: kn.Root) -> np.ndarray:
        """The game's endgame table for a search from ``root`` (empty without one, or with ``endgame=False``)."""
        return root.kernels.endgame(root, MAX_DEPTH + 2) if self.endgame else NO_TABLE

    def _solved_root(self, state: Any, root: kn.Root, env: Any, table: np.ndarray) -> tuple[int, int] | None:
        """The move of the widest final margin and its value, read from the endgame ``table``, if it holds ``root``
        (the searches' scoring of a proven win only prefers the quickest), else None."""
        if table.size == 0 or kn.solved(env, table, root.board, root.player) == kn.UNSOLVED:
            return None
        me = state.to_move
        margins = {}
        for action in state.legal_actions():
            child = state.play(action)
            margin = child.stores[me] - child.stores[1 - me]
            if not child.is_terminal:
                after = kn.root_of(child)
                gain = kn.solved(env, table, after.board, after.player)
                margin += gain if after.player == me else -gain
            margins[action] = margin
        best = max(margins, key=margins.__getitem__)
        return best, int(np.sign(margins[best])) * (WIN - 1)

    def _iteration(self, root: kn.Root, env: Any, depth: int, counters: np.ndarray, deadline: float | None,
                   table: np.ndarray) -> int:  # fmt: skip
        """One iteration of iterative deepening. Under a ``deadline`` it runs in slices of about
        :data:`SLICE_SECONDS`, each given the nodes the rate measured on the slices before allows, the clock read
        between them, so that a slow or loaded machine (or a compile) costs at most one slice over the budget; it
        stops paused when the deadline passes."""
        if deadline is None:
            counters[NODE_LIMIT] = NO_NODE_LIMIT
            return self._negamax(root, env, depth, counters, table)
        while True:
            start = time.perf_counter()
            before = int(counters[NODES])
            nodes = int(self._node_rate * min(deadline - start, SLICE_SECONDS))
            counters[NODE_LIMIT] = before + max(MIN_SLICE_NODES, nodes)
            value = self._negamax(root, env, depth, counters, table)
            end = time.perf_counter()
            if counters[NODES] - before >= MIN_SLICE_NODES:
                self._node_rate = (counters[NODES] - before) / (end - start)
            if not counters[PAUSED] or end >= deadline:
                return value

    def _negamax(self, root: kn.Root, env: Any, depth: int, counters: np.ndarray, table: np.ndarray) -> int:
        return negamax(
            root.board, root.stores, root.player, root.ply, root.kernels.horizon(root), depth, self._keys, self._tt,
            self._killers, self._history, self._work, counters, env, self._evaluation, table, self._reduce,
        )  # fmt: skip
