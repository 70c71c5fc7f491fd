"""The plain minimax the tests hold alpha-beta to, on any game, over the State API (a helper module, not a test file):
alpha-beta's scoring and its depth rule written the simple way, once, for every test that compares against it."""

from __future__ import annotations

import functools

import numpy as np

from agents.base import MAX_DEPTH
from agents.negamax import WIN
from awale_env.kernels import dispatch as kn


@functools.cache
def minimax(state, depth: int, height: int = 0, decide: bool | None = None, endgame: bool = True) -> int:
    """Negamax value of ``state`` for its player to move, searched ``depth`` plies (:func:`child_depth`): a finished
    game scored as the rules decide it (a win ``WIN - height``: the quicker the better), and so is a live one whose
    winner is decided (:func:`decided`) or that the game's endgame table holds (:func:`solved`) below a root that is not
    decided (with ``endgame``, as alpha-beta's ``endgame`` option); a leaf by the store difference (``eval="score"``); a
    child's value is negated only where the other player moves."""
    decide = decided(state) < 0 if decide is None else decide
    me = state.to_move
    exact = (
        not state.is_terminal
        and decide
        and height > 0
        and (decided(state) >= 0 or endgame and solved(state) is not None)
    )
    if state.is_terminal or exact:
        won = state.winner if state.is_terminal else (decided(state) if decided(state) >= 0 else solved(state))
        return 0 if won in (None, kn.DRAW) else (WIN - height if won == me else height - WIN)
    if depth == 0:
        return state.stores[me] - state.stores[1 - me]
    return max(child_value(state, action, depth, height, decide, endgame) for action in state.legal_actions())


def child_value(state, action: int, depth: int, height: int = 0, decide: bool | None = None,
                endgame: bool = True) -> int:  # fmt: skip
    """:func:`minimax` of the position after ``action`` (searched from ``state`` at ``height`` to ``depth`` plies)
    for the player who plays it."""
    decide = decided(state) < 0 if decide is None else decide
    child = state.play(action)
    value = minimax(child, child_depth(state, child, depth, height), height + 1, decide, endgame)
    return value if child.to_move == state.to_move else -value


@functools.cache
def decided(state) -> int:
    """The game's ``decided`` kernel on a State: the winner no play can change any more, or -1."""
    root = kn.root_of(state)
    path = np.zeros(MAX_DEPTH + 2, dtype=np.int64)
    return int(kn.decided(root.env(kn.new_scratch(), path, path), root.board, root.stores))


@functools.cache
def solved(state) -> int | None:
    """The winner of a live State its game's endgame table holds (``kn.solved``, the table alpha-beta uses from a root
    at the State's ply), ``kn.DRAW`` for a draw, None for a position the table does not hold."""
    root = kn.root_of(state)
    path = np.zeros(MAX_DEPTH + 2, dtype=np.int64)
    table = root.kernels.endgame(root, MAX_DEPTH + 2)
    gain = int(kn.solved(root.env(kn.new_scratch(), path, path), table, root.board, root.player))
    if gain == kn.UNSOLVED:
        return None
    final = root.stores[root.player] - root.stores[1 - root.player] + gain
    return root.player if final > 0 else (1 - root.player if final < 0 else kn.DRAW)


def child_depth(state, child, depth: int, height: int = 0) -> int:
    """Alpha-beta's depth rule: the plies left after the move from ``state`` (at ``height``) to ``child`` are one
    fewer, but a move that gives the mover another turn costs none while two or more are left and the line stays
    within ``MAX_DEPTH`` plies of the root (the rest of a turn is searched as deep as its start)."""
    again = child.to_move == state.to_move
    return depth if again and depth >= 2 and height + depth < MAX_DEPTH else depth - 1
