"""What an engine thinks of a position, for analysis and game reviews (the web page's analysis board): its value,
the expected score that value means for the player to move, its best move, the line it expects (its principal
variation) and, for AlphaZero, the share of its search each move had; and how much a move played lost against the
best one.

Two engines are read: alpha-beta (its value in its evaluation's units, a proven win or loss as the plies to the end)
and AlphaZero (its network-guided search's mean value in [-1, 1]). Both are put on one scale, the **expected score**
of the player to move (1 a win, 0.5 a draw, 0 a loss): AlphaZero's value ``v`` as ``(1 + v) / 2``, alpha-beta's
value of ``s`` seeds (its store-difference units) as ``1 / (1 + exp(-s / SEED_SCALE))``, a proven result as 1, 0.5
or 0. A move's **loss** is the drop of the mover's expected score from the position before it (the engine's best
play) to the position after it; the review classes a move by it (:data:`THRESHOLDS`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.base import Limit

#: The engines :func:`analyse` reads (agent registry names).
ENGINES = ("alphabeta", "alphazero")
#: Alpha-beta's lead in seeds that makes an expected score of 1 / (1 + e^-1), about 0.73.
SEED_SCALE = 4.0
#: A move's class by its loss of expected score, the gravest first: at least this much loss.
THRESHOLDS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))


@dataclass
class Analysis:
    """One engine's look at one position, for the player to move there."""

    #: The engine's choice (an action index) and the line it expects from here, that move first.
    best: int
    line: list[int]
    #: The engine's own value: alpha-beta's in its evaluation's units, AlphaZero's in [-1, 1].
    value: float
    #: The expected score (0 to 1) for the player to move.
    score: float
    #: A proven result: the plies to the end of the game, positive when the player to move wins (alpha-beta only).
    win_in: int | None
    #: Alpha-beta's depth completed (None for AlphaZero) and its nodes, or AlphaZero's simulations.
    depth: int | None
    nodes: int
    seconds: float
    #: AlphaZero: each searched action's share of the visits.
    probabilities: dict[int, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def engine_of(agent: Any) -> str:
    """The engine name of ``agent`` (one of :data:`ENGINES`); ValueError for an agent that reports no analysis."""
    from agents.alphabeta import AlphaBetaAgent

    if isinstance(agent, AlphaBetaAgent):
        return "alphabeta"
    if type(agent).__name__ == "AlphaZeroAgent":  # not imported here: its modules load the search's kernels
        return "alphazero"
    raise ValueError(f"{getattr(agent, 'name', agent)!r} reports no evaluation; analysis engines: {', '.join(ENGINES)}")


def analyse(agent: Any, state: Any, plies: int = 12, limit: Limit | None = None) -> Analysis:
    """Search ``state`` (a live State of any game) with ``agent`` (alpha-beta or AlphaZero, within ``limit``: see
    :class:`agents.base.Limit`) and report what it found, its line at most ``plies`` long. The search is the agent's
    own: alpha-beta's ``search`` (as ``act`` without its tie-breaking noise), AlphaZero's ``policy``."""
    if state.is_terminal:
        raise ValueError("the game is over: there is nothing to analyse")
    if engine_of(agent) == "alphabeta":
        return _alphabeta(agent, state, plies, limit)
    return _alphazero(agent, state, plies, limit)


def _alphabeta(agent: Any, state: Any, plies: int, limit: Limit | None) -> Analysis:
    from agents.evaluation import make_evaluation, units_per_seed
    from agents.negamax import MATE_BOUND, WIN
    from awale_env.games import game_of

    best = agent.search(state, limit)
    stats = agent.last_search
    value = int(stats["value"])
    win_in = None
    if abs(value) > MATE_BOUND:
        win_in = (WIN - abs(value)) * (1 if value > 0 else -1)
        score = 1.0 if value > 0 else 0.0
    else:
        seeds = value / units_per_seed(make_evaluation(agent.eval, game_of(state).name))
        score = 1.0 / (1.0 + math.exp(-seeds / SEED_SCALE))
    line = agent.principal_variation(state, plies)
    return Analysis(best, line, value, score, win_in, int(stats["depth"]), int(stats["nodes"]),
                    float(stats["seconds"]))  # fmt: skip


def _alphazero(agent: Any, state: Any, plies: int, limit: Limit | None) -> Analysis:
    import time

    start = time.perf_counter()
    counts = np.asarray(agent.policy(state, limit), dtype=np.float64)
    seconds = time.perf_counter() - start
    if counts.sum() > 0:
        best = int(np.argmax(counts))
        probabilities = {int(a): float(counts[a] / counts.sum()) for a in np.flatnonzero(counts)}
    else:  # the deadline came before any child was visited: the agent's move, and no shares
        best, probabilities = agent.act(state, limit), None
    value = float(agent.last_value)
    line = agent.principal_variation(state, plies) or [best]
    return Analysis(best, line, value, (1.0 + value) / 2.0, None, None, int(agent.last_simulations), seconds,
                    probabilities)  # fmt: skip


def result_score(state: Any, player: int) -> float:
    """The expected score of ``player`` in a finished game: 1 a win, 0.5 a draw, 0 a loss."""
    return 0.5 if state.winner is None else float(state.winner == player)


def score_for(after: Any, score: float | None, player: int) -> float:
    """``player``'s expected score in the position ``after`` a move: the game's result if it is over, else from
    ``score``, the expected score an analysis gave the player to move there."""
    if after.is_terminal:
        return result_score(after, player)
    if score is None:
        raise ValueError("a live position needs its analysis' expected score")
    return score if after.to_move == player else 1.0 - score


def classify(loss: float) -> str | None:
    """A move's class by its loss of expected score (:data:`THRESHOLDS`), or None for a good move."""
    return next((name for name, threshold in THRESHOLDS if loss >= threshold), None)
