"""The analysis board's side of the worker processes: an engine's look at a position (:func:`analyse_position`),
run where the agents think (:mod:`awale_apps.web.thinker`), under the same time cap.

The engines are built from their spec with seed 0 and reset before every position, so an analysis is what the agent
built from the same spec finds on its own from a fresh start (for a depth-bounded alpha-beta, exactly). The last few
engines built are kept (:data:`KEPT_ENGINES`), so stepping through a game does not rebuild or reload them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from agents.analysis import analyse, engine_of
from awale_apps.web.thinker import build_agent, move_limit
from awale_env.games import get_game

#: Engines kept built in a worker, least recently used first (an alpha-beta table is up to 16 MB).
KEPT_ENGINES = 2
#: The seed every analysis engine is built and reset with.
ENGINE_SEED = 0

_engines: OrderedDict[tuple[str, float], Any] = OrderedDict()


def _engine(spec: str, max_seconds: float) -> Any:
    key = (spec, max_seconds)
    engine = _engines.pop(key, None)
    if engine is None:
        engine = build_agent(spec, ENGINE_SEED)
        engine_of(engine)  # ValueError for an agent that reports no analysis
    _engines[key] = engine
    while len(_engines) > KEPT_ENGINES:
        _engines.popitem(last=False)
    return engine


def analyse_position(spec: str, max_seconds: float, state: dict[str, Any], plies: int) -> dict[str, Any]:
    """The analysis (:class:`agents.analysis.Analysis`) of ``state`` (a live position's ``State.to_dict()``) by the
    engine of ``spec``, with its moves also written as the game writes them: ``best_move``, ``line_moves`` and
    ``move_probabilities``. ValueError (or AgentSpecError) for an engine that cannot analyse this game."""
    game = get_game(state["game"])
    position = game.state_type.from_dict(state)
    engine = _engine(spec, max_seconds)
    engine.reset(ENGINE_SEED)
    result = analyse(engine, position, plies, move_limit(engine, max_seconds)).to_dict()
    probabilities = result["probabilities"]
    return {
        **result,
        "engine": str(engine.name),
        "best_move": game.format_move(result["best"]),
        "line_moves": [game.format_move(action) for action in result["line"]],
        "move_probabilities": None
        if probabilities is None
        else {game.format_move(action): share for action, share in probabilities.items()},
    }
