"""The compiled search of :class:`agents.alphabeta.AlphaBetaAgent`: negamax alpha-beta, one iteration of its
iterative deepening per call, with a transposition table and move ordering, compiled by numba.

One search for every game: moves, legal moves and end checks go through the per-game kernels of
:mod:`awale_env.kernels.dispatch` (which call each game's compiled core) on copies of the board kept per search height,
so nothing here re-implements a rule. The figures below were measured on the two-colour game.

* Evaluation (from the side to move, :mod:`agents.evaluation`): by default the game's tuned weights of the features
  its search kernels give (store difference, seeds on each side, vulnerable holes, mobility, starving), fitted on
  self-play outcomes; ``eval=score`` is the store difference alone, ``eval=reference`` hand-set weights (the sparring
  partner). At 0.1 s per move the tuned evaluation beat the store difference's extra depth by far (the store
  difference scored 9 % against the reference weights, the tuned ones 85.5 %), although the store difference lets
  far more moves tie and cut off and the features cost about a fifth of the node rate. Ties between equal moves are
  broken at random (seeded) through the history table.
* The player to move is kept per node (the game's ``next_player``: a Kalah move can give its mover another turn);
  a child's value and window change sign only when its mover is not the node's.
* Finished games are scored exactly as the game's rules decide the winner (:func:`awale_env.kernels.dispatch.winner`;
  the ply limit of the state ends the game): ``+-(WIN - height)`` so a quicker win (slower loss) is preferred, 0 for a
  draw. So is a live position whose winner no play can change any more (:func:`awale_env.kernels.dispatch.decided`:
  a Kalah store holding more than half the seeds) when the root's is still open: the outcome is proven plies sooner.
  And so is a position the game's endgame table holds (``SearchKernels.endgame``, :func:`kn.solved`: Kalah's, of
  every position with few seeds left in the pits); at a root it holds, the move of the widest final margin is read
  from it without a search (the search's scoring of proven wins only prefers the quickest).
* Oware's repetition rule is exact along the searched line: a child repeats if its key is among the positions since
  the last capture on the path, or in the root's set when the path has no capture. The transposition table does not
  hash that history (positions that differ only in it share entries), the usual compromise of game-tree search.
* Depth: a move that gives another turn does not count as a ply (the rest of the mover's turn is searched as deep as
  its start), as programs for such games count depth in turns; a game whose players alternate is unaffected.
* Ordering: the transposition-table move, then moves that give another turn, then captures by size, then two
  killer moves per height, then the history heuristic; principal-variation search (null windows after the first move).
* Late move reductions, where the game's search kernels ask for them (``reduces_late_moves``: Kalah) or ``reduce``
  says so: below the root, a node with at least :data:`REDUCE_FROM_DEPTH` plies to go searches its quiet children (no
  extra turn, capture or killer) after the first :data:`REDUCE_AFTER` one ply less with a null window, and again in
  full when that finds one better than the best so far. A search of depth 3 or less reduces nothing.
* Transposition table: Zobrist hashing (random uint64 per (board slot, seed count), per store value, per side to
  move, and per number of plies left when the ply limit is within reach of the search), always-replace.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from agents.base import MAX_DEPTH
from agents.evaluation import evaluate
from awale_env.kernels import dispatch as kn

WIN = 10_000
MATE_BOUND = WIN - 1_000
INFINITY = 1 << 20
# Index of the "plies left" Zobrist key: positions further than this from the ply limit share one key.
PLIES_LEFT_CAP = MAX_DEPTH + 2

EXACT, LOWER, UPPER = 0, 1, 2
# The status alpha-beta gives a live position whose winner is already decided (:func:`kn.decided`), scored as a
# finished game: no game's own status code.
DECIDED = 127
# The status of a live position the game's endgame table holds (:func:`kn.solved`), likewise scored as finished.
SOLVED = 126
# Search counters (an int64 array shared by the compiled functions): nodes so far, the node count at which the search
# pauses, whether it paused and at which height, the best root move so far and whether there is one.
NODES, NODE_LIMIT, PAUSED, PAUSED_AT, ROOT_MOVE, ROOT_DONE = range(6)
NUM_COUNTERS = 6
NO_NODE_LIMIT = np.iinfo(np.int64).max


def zobrist_keys(game: kn.SearchKernels, seed: int = 2026) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random uint64 keys: per (board slot, seed count), per store value of each player, per plies left."""
    rng = np.random.default_rng(seed)
    draw = lambda *shape: rng.integers(0, 2**63, size=shape, dtype=np.int64).astype(np.uint64)  # noqa: E731
    return draw(game.board_size, game.max_count + 1), draw(2, game.max_store + 1), draw(PLIES_LEFT_CAP + 1)


@njit(cache=True)
def position_hash(seeds, stores, player, plies_left, slot_keys, store_keys, left_keys):
    """Zobrist hash of a position; ``plies_left`` is capped, so positions far from the limit share it."""
    h = left_keys[min(plies_left, PLIES_LEFT_CAP)]
    for a in range(seeds.shape[0]):
        h ^= slot_keys[a, seeds[a]]
    h ^= store_keys[0, stores[0]] ^ store_keys[1, stores[1]]
    if player == 1:
        h = ~h
    return h


@njit(cache=True)
def terminal_value(env, table, seeds, stores, code, player, height):
    """Exact value of a finished, decided or solved game (status ``code``, ``player`` to move) for ``player``: the
    rules' winner, quicker wins scored higher."""
    if code == DECIDED:
        won = kn.decided(env, seeds, stores)
    elif code == SOLVED:
        final = int(stores[player]) - int(stores[1 - player]) + kn.solved(env, table, seeds, player)
        won = player if final > 0 else (1 - player if final < 0 else kn.DRAW)
    else:
        won = kn.winner(env, seeds, stores, code, player)
    if won == kn.DRAW:
        return 0
    return WIN - height if won == player else height - WIN


@njit(cache=True)
def _to_table(value, height):
    if value > MATE_BOUND:
        return value + height
    if value < -MATE_BOUND:
        return value - height
    return value


@njit(cache=True)
def _from_table(value, height):
    if value > MATE_BOUND:
        return value - height
    if value < -MATE_BOUND:
        return value + height
    return value


@njit(cache=True)
def _play_child(seeds, stores, player, ply, max_plies, action, cs, cst, height, env, decide, table):
    """Write the position after ``action`` into (cs, cst); return ``gained | next player << 8 | status << 9`` (the
    status :data:`DECIDED` for a live position whose winner is decided, :data:`SOLVED` for one the endgame ``table``
    holds, if ``decide``)."""
    cs[:] = seeds
    cst[:] = stores
    after = kn.next_player(env, seeds, player, action)
    gained = kn.move(env, cs, cst, player, action)
    repeated = gained == 0 and kn.repeated(env, cs, after, height)
    code = kn.status(env, cs, cst, after, ply + 1, max_plies, gained, repeated)
    # Written out here and in _leaf_parent: a function for it, called per child with its arrays, cost awale16 and Oware
    # a tenth of their node rate in reference counting, and numba's inlining of it failed to compile some games.
    if decide and code == kn.ONGOING:
        if kn.decided(env, cs, cst) >= 0:
            code = DECIDED
        elif table.size > 0 and kn.solved(env, table, cs, after) != kn.UNSOLVED:
            code = SOLVED
    return max(gained, 0) | after << 8 | code << 9


@njit(cache=True)
def _leaf_parent(seeds, stores, player, ply, max_plies, beta, height, child_seeds, child_stores, actions, counters,
                 env, evaluation, decide, table):  # fmt: skip
    """Negamax at depth 1 without recursion or table: each child is scored by :func:`evaluate` or exactly;
    ``actions``: room for the legal actions. The child is played here rather than by :func:`_play_child`: most
    nodes are these children, and the call with its arrays costs them reference counting."""
    best = -INFINITY
    for i in range(kn.moves(env, seeds, player, actions)):
        counters[NODES] += 1
        child_seeds[:] = seeds
        child_stores[:] = stores
        after = kn.next_player(env, seeds, player, actions[i])
        gained = kn.move(env, child_seeds, child_stores, player, actions[i])
        repeated = gained == 0 and kn.repeated(env, child_seeds, after, height)
        code = kn.status(env, child_seeds, child_stores, after, ply + 1, max_plies, gained, repeated)
        if decide and code == kn.ONGOING:
            if kn.decided(env, child_seeds, child_stores) >= 0:
                code = DECIDED
            elif table.size > 0 and kn.solved(env, table, child_seeds, after) != kn.UNSOLVED:
                code = SOLVED
        if code != kn.ONGOING:
            v = terminal_value(env, table, child_seeds, child_stores, code, after, height + 1)
        else:
            v = evaluate(evaluation, env, child_seeds, child_stores, after)
        if after != player:
            v = -v
        if v > best:
            best = v
            if v >= beta:
                return best
    return best


@njit(cache=True)
def _generate(seeds, stores, player, ply, max_plies, bits, skip, n, height, killers, history, work, env, decide,
              table):  # fmt: skip
    """Add the children of the position at ``height`` (the legal moves in ``bits`` but ``skip``) from index ``n`` on,
    with their ordering scores: moves that give another turn, then captures by size, then killers, then history.
    Return the new child count."""
    _, _, child_seeds, child_stores, order, actions, statuses, movers, _, _ = work
    a = 0
    while a < 64 and bits >> a:  # a 64-action game's last action is the sign bit: its mask never shifts to 0
        if (bits >> a) & 1 and a != skip:
            packed = _play_child(seeds, stores, player, ply, max_plies, a, child_seeds[height, n],
                                 child_stores[height, n], height, env, decide, table)  # fmt: skip
            gained = packed & 0xFF
            actions[height, n] = a
            statuses[height, n] = packed >> 9
            movers[height, n] = (packed >> 8) & 1
            score = history[player, a]
            if movers[height, n] == player:  # another turn: the mover keeps the initiative
                score += 1 << 34
            if gained > 0:
                score += (1 << 32) + (gained << 24)
            elif a == killers[height, 0] or a == killers[height, 1]:
                score += 1 << 30
            order[height, n] = score
            n += 1
        a += 1
    return n


@njit(cache=True)
def _pick_next(work, height, i, n):
    """Move the best-scored of children i..n-1 to index i (a selection sort step: cut-offs usually come early)."""
    _, _, child_seeds, child_stores, order, actions, statuses, movers, _, _ = work
    pick = i
    for j in range(i + 1, n):
        if order[height, j] > order[height, pick]:
            pick = j
    if pick != i:
        for k in range(child_seeds.shape[2]):
            t = child_seeds[height, i, k]
            child_seeds[height, i, k] = child_seeds[height, pick, k]
            child_seeds[height, pick, k] = t
        for k in range(2):
            t = child_stores[height, i, k]
            child_stores[height, i, k] = child_stores[height, pick, k]
            child_stores[height, pick, k] = t
        order[height, i], order[height, pick] = order[height, pick], order[height, i]
        actions[height, i], actions[height, pick] = actions[height, pick], actions[height, i]
        statuses[height, i], statuses[height, pick] = statuses[height, pick], statuses[height, i]
        movers[height, i], movers[height, pick] = movers[height, pick], movers[height, i]


# Fields of a search frame (one row of ``frames`` per height: its player to move too) and the steps of the search loop.
F_DEPTH, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_MOVE, F_FIRST, F_INDEX, F_N, F_I, F_MODE, F_BITS, F_PLAYER = range(13)
NUM_FIELDS = 13
ENTER, NEXT_CHILD, CHILD_DONE = 0, 1, 2
# How the current child of a frame is searched (principal-variation search).
FULL_WINDOW, NULL_WINDOW, RE_SEARCH, REDUCED = 0, 1, 2, 3
# Late move reductions (the module docstring): quiet children are those the ordering scores by history alone.
REDUCE_FROM_DEPTH, REDUCE_AFTER, QUIET = 4, 3, 1 << 30
# Whether a search reduces is its argument's class, known when numba compiles: a search that does not reduce is
# compiled without the test (a run-time flag cost awale16's search a fifth of its node rate).
Reductions, NoReductions = namedtuple("Reductions", ()), namedtuple("NoReductions", ())


def reduces(reduce: tuple) -> bool:
    """Whether ``reduce`` (a :data:`Reductions` or :data:`NoReductions`) turns late move reductions on."""
    return isinstance(reduce, Reductions)


@overload(reduces)
def _reduces_typer(reduce):
    on = reduce.instance_class is Reductions
    return lambda reduce: on


@njit(cache=True)
def _child_depth(depth, height, same):
    """The depth a child of a node searched ``depth`` plies at ``height`` is searched to: one less, but as much for a
    move that gives another turn (the same mover's next move is part of its turn) while ``depth`` >= 2 and the
    search stays within :data:`MAX_DEPTH` plies of the root (every such move adds a seed to the mover's store, so a
    line holds only so many of them)."""
    return depth if same and depth >= 2 and height + depth < MAX_DEPTH else depth - 1


@njit(cache=True)
def _child_window(f, h, low, high, same):
    """The window of the child of the node at ``h`` searched within (``low``, ``high``) for the node's player: the
    same for a child of the same mover (an extra turn), negated and swapped for the other player's."""
    if same:
        f[h + 1, F_ALPHA], f[h + 1, F_BETA] = low, high
    else:
        f[h + 1, F_ALPHA], f[h + 1, F_BETA] = -high, -low


@njit(cache=True)
def negamax(seeds, stores, player, ply, max_plies, depth, keys, tt, killers, history, work, counters, env,
            evaluation, table, reduce):  # fmt: skip
    """Value for ``player`` of a live position searched ``depth`` plies; the best root move goes to ``counters``.

    ``keys`` = (slot, store, plies-left Zobrist keys); ``tt`` = (hashes, values, depths, flags, moves) arrays;
    ``work`` = scratch per height (node boards and stores, child boards, stores, ordering scores, actions, statuses
    and players to move, frames, hashes); ``env`` = the game (:meth:`awale_env.kernels.dispatch.Root.env`);
    ``evaluation`` scores the leaves (:func:`agents.evaluation.make_evaluation`), ``table`` is the game's endgame table
    (``SearchKernels.endgame``; empty for none), whose positions are scored exactly; ``reduce`` turns late move
    reductions on (:data:`Reductions`) or off. The recursion of negamax runs on an
    explicit stack of frames, because numba cannot cache recursive functions (numba issue #6061); hence the search can
    pause: on reaching ``counters[NODE_LIMIT]`` nodes it returns with ``counters[PAUSED]`` set, and the same call again
    (with a higher limit) goes on from there.
    """
    slot_keys, store_keys, left_keys = keys
    tt_hash, tt_value, tt_depth, tt_flag, tt_move = tt
    node_seeds, node_stores, child_seeds, child_stores, order, actions, statuses, movers, f, hashes = work
    # A decided root is searched to the rules' end as before: every move keeps its outcome, the search tells them apart.
    decide = kn.decided(env, seeds, stores) < 0
    if counters[PAUSED]:
        h = counters[PAUSED_AT]
        counters[PAUSED] = 0
    else:
        node_seeds[0] = seeds
        node_stores[0] = stores
        kn.track_line(env, 0, seeds, player, False)
        f[0, F_DEPTH], f[0, F_ALPHA], f[0, F_BETA], f[0, F_PLAYER] = depth, -INFINITY, INFINITY, player
        h = 0
    step = ENTER
    value = 0  # the value of the node just finished, for the player to move there
    while True:
        p = f[h, F_PLAYER]
        s, st = node_seeds[h], node_stores[h]
        finished = False
        if step == ENTER:
            if counters[NODES] >= counters[NODE_LIMIT]:
                counters[PAUSED], counters[PAUSED_AT] = 1, h
                return 0
            counters[NODES] += 1
            d, alpha, beta = f[h, F_DEPTH], f[h, F_ALPHA], f[h, F_BETA]
            if d <= 0:
                value, finished = evaluate(evaluation, env, s, st, p), True
            elif d == 1 and h > 0:
                value = _leaf_parent(s, st, p, ply + h, max_plies, beta, h, child_seeds[h, 0], child_stores[h, 0],
                                     actions[h], counters, env, evaluation, decide, table)  # fmt: skip
                finished = True
            else:
                plies_left = max_plies - ply - h if max_plies != kn.NO_LIMIT else PLIES_LEFT_CAP
                key = position_hash(s, st, p, plies_left, slot_keys, store_keys, left_keys)
                index = key & np.uint64(tt_hash.size - 1)
                hashes[h] = key
                f[h, F_INDEX] = index
                first = -1
                if tt_hash[index] == key:
                    first = int(tt_move[index])
                    if h > 0 and tt_depth[index] >= d:
                        v = _from_table(tt_value[index], h)
                        flag = tt_flag[index]
                        if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                            value, finished = v, True
                if not finished:
                    f[h, F_ALPHA0], f[h, F_BEST], f[h, F_MOVE], f[h, F_I] = alpha, -INFINITY, -1, 0
                    bits = kn.legal(env, s, p)
                    f[h, F_BITS] = bits
                    # The table's move alone first: it often cuts off before the others are generated.
                    if first >= 0 and (bits >> first) & 1:
                        packed = _play_child(s, st, p, ply + h, max_plies, first, child_seeds[h, 0],
                                             child_stores[h, 0], h, env, decide, table)  # fmt: skip
                        actions[h, 0], statuses[h, 0], movers[h, 0] = first, packed >> 9, (packed >> 8) & 1
                        f[h, F_FIRST], f[h, F_N] = first, 1
                    else:
                        f[h, F_FIRST] = -1
                        f[h, F_N] = _generate(s, st, p, ply + h, max_plies, bits, -1, 0, h, killers, history, work,
                                              env, decide, table)  # fmt: skip
                    step = NEXT_CHILD
        elif step == NEXT_CHILD:
            i = f[h, F_I]
            if i == f[h, F_N] and f[h, F_FIRST] >= 0:  # the table's move did not cut off: generate the others
                f[h, F_N] = _generate(s, st, p, ply + h, max_plies, f[h, F_BITS], f[h, F_FIRST], i, h, killers,
                                      history, work, env, decide, table)  # fmt: skip
                f[h, F_FIRST] = -1
            if i == f[h, F_N]:
                finished = True
            else:
                _pick_next(work, h, i, f[h, F_N])
                after = movers[h, i]
                if statuses[h, i] != kn.ONGOING:  # a finished game: its exact value, no search
                    value = terminal_value(env, table, child_seeds[h, i], child_stores[h, i], statuses[h, i], after,
                                           h + 1)  # fmt: skip
                    f[h, F_MODE] = FULL_WINDOW
                    step = CHILD_DONE
                else:
                    node_seeds[h + 1] = child_seeds[h, i]
                    node_stores[h + 1] = child_stores[h, i]
                    kn.track_line(env, h + 1, node_seeds[h + 1], after, node_stores[h + 1, p] != st[p])
                    f[h + 1, F_DEPTH], f[h + 1, F_PLAYER] = _child_depth(f[h, F_DEPTH], h, after == p), after
                    alpha, beta = f[h, F_ALPHA], f[h, F_BETA]
                    if f[h, F_MOVE] < 0:
                        f[h, F_MODE] = FULL_WINDOW
                        _child_window(f, h, alpha, beta, after == p)
                    elif (reduces(reduce) and h > 0 and i >= REDUCE_AFTER and f[h, F_DEPTH] >= REDUCE_FROM_DEPTH
                          and order[h, i] < QUIET):  # fmt: skip
                        f[h, F_MODE] = REDUCED
                        f[h + 1, F_DEPTH] -= 1
                        _child_window(f, h, alpha, alpha + 1, after == p)
                    else:
                        f[h, F_MODE] = NULL_WINDOW
                        _child_window(f, h, alpha, alpha + 1, after == p)
                    h += 1
                    step = ENTER
        else:  # CHILD_DONE: ``value`` is the value of child i for its own player to move
            i = f[h, F_I]
            v = value if movers[h, i] == p else -value
            alpha, beta = f[h, F_ALPHA], f[h, F_BETA]
            if reduces(reduce) and f[h, F_MODE] == REDUCED and v > alpha:  # a reduced search failed high: again, fully
                f[h, F_MODE] = NULL_WINDOW
                f[h + 1, F_DEPTH] = _child_depth(f[h, F_DEPTH], h, movers[h, i] == p)
                _child_window(f, h, alpha, alpha + 1, movers[h, i] == p)
                h += 1
                step = ENTER
                continue
            if f[h, F_MODE] == NULL_WINDOW and alpha < v < beta:
                f[h, F_MODE] = RE_SEARCH
                _child_window(f, h, v, beta, movers[h, i] == p)
                h += 1
                step = ENTER
                continue
            if v > f[h, F_BEST]:
                f[h, F_BEST], f[h, F_MOVE] = v, actions[h, i]
                if h == 0:
                    counters[ROOT_MOVE], counters[ROOT_DONE] = actions[h, i], 1
            if v > alpha:
                f[h, F_ALPHA] = v
            if v >= beta:
                _remember_cutoff(p, actions[h, i], child_stores[h, i, p] != st[p], f[h, F_DEPTH], h, killers, history)
                finished = True
            else:
                f[h, F_I] = i + 1
                step = NEXT_CHILD
        if finished:
            if step != ENTER:  # a searched node (not a leaf or table hit): record it in the table
                index, best = f[h, F_INDEX], f[h, F_BEST]
                tt_hash[index] = hashes[h]
                tt_value[index] = _to_table(best, h)
                tt_depth[index] = f[h, F_DEPTH]
                tt_move[index] = f[h, F_MOVE]
                tt_flag[index] = UPPER if best <= f[h, F_ALPHA0] else (LOWER if best >= f[h, F_BETA] else EXACT)
                value = best
            if h == 0:
                return value
            h -= 1
            step = CHILD_DONE


@njit(cache=True)
def _remember_cutoff(player, move, captured, depth, height, killers, history):
    """A move that caused a cut-off: a killer at this height if it captures nothing, and credit in the history."""
    if not captured and killers[height, 0] != move:
        killers[height, 1] = killers[height, 0]
        killers[height, 0] = move
    history[player, move] += depth * depth


def work_arrays(game: kn.SearchKernels) -> tuple[np.ndarray, ...]:
    """Scratch of :func:`negamax` for one game, one row per search height."""
    h, moves, board = MAX_DEPTH + 2, game.max_moves, game.board_size
    return (
        np.zeros((h, board), dtype=np.int8),
        np.zeros((h, 2), dtype=np.int16),
        np.zeros((h, moves, board), dtype=np.int8),
        np.zeros((h, moves, 2), dtype=np.int16),
        np.zeros((h, moves), dtype=np.int64),
        np.zeros((h, moves), dtype=np.int64),
        np.zeros((h, moves), dtype=np.int64),
        np.zeros((h, moves), dtype=np.int64),
        np.zeros((h, NUM_FIELDS), dtype=np.int64),
        np.zeros(h, dtype=np.uint64),
    )
