"""The agents' side of the web server: runs in a worker process, so a search never holds the server's GIL.

The compiled searches (alpha-beta above all) keep the GIL for seconds; in a thread they would freeze the event loop,
so each worker process owns the agents of the games assigned to it, keyed by game id, and keeps them between moves
(an MCTS tree or a transposition table carries over, as in ``awale play``). The functions here are what the server
submits to the worker; they take and return plain picklable values.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from awale_env.games import game_of, get_game
from awale_env.rules import State

#: The agents of this worker process, least recently used first.
_agents: OrderedDict[str, Any] = OrderedDict()


def warm_up() -> None:
    """Load (or compile, on a fresh clone) the search agents' kernels before the first game needs them."""
    from agents import make

    for spec in ("alphabeta:depth=2", "mcts:simulations=32"):
        make(spec, seed=0).act(State.initial())


#: Seconds a searching agent may think when it is tried on its game's first position (:func:`prepare`).
PROBE_SECONDS = 0.05


def _build(spec: str, seed: int | None, max_seconds: float) -> Any:
    from agents import AGENTS, AgentSpecError, make, parse_spec, reset_agent

    try:
        agent = make(spec) if seed is None else make(spec, seed=seed)
    except (ImportError, OSError) as error:  # an extra that is not installed, a checkpoint that cannot be read
        raise AgentSpecError(f"cannot build {spec!r} here: {error}") from None
    # Every searching agent of the registry takes ``time`` (seconds per move), keeps it as ``agent.time`` and reads
    # it at every move; capping it after construction keeps the agent's own default depth or simulations.
    if "time" in AGENTS[parse_spec(spec)[0]].params:
        agent.time = max_seconds if agent.time is None else min(agent.time, max_seconds)
    reset_agent(agent, seed)
    return agent


def _probe(agent: Any, spec: str, seed: int | None, position: Any) -> None:
    """Try the agent on ``position`` (a searching one for :data:`PROBE_SECONDS`), then reset it; AgentSpecError if
    it cannot play that game (an agent refuses the States of games it does not play, e.g. a network trained on
    another game)."""
    from agents import AGENTS, AgentSpecError, parse_spec, reset_agent

    timed = "time" in AGENTS[parse_spec(spec)[0]].params
    capped = agent.time if timed else None
    if timed:
        agent.time = PROBE_SECONDS
    try:
        agent.act(position)
    except Exception as error:
        raise AgentSpecError(f"{agent.name} cannot play {game_of(position).name}: {error}") from None
    finally:
        if timed:
            agent.time = capped
    reset_agent(agent, seed)


def _keep(game_id: str, agent: Any, capacity: int) -> None:
    _agents[game_id] = agent
    while len(_agents) > capacity:
        _agents.popitem(last=False)


def prepare(game_id: str, spec: str, seed: int | None, max_seconds: float, capacity: int, state: dict[str, Any]) -> str:
    """Build the agent of a new game and try it on the game's first position ``state`` (a ``State.to_dict()``),
    raising ``AgentSpecError`` for a bad spec or an agent that does not play the game; return the agent's name."""
    agent = _build(spec, seed, max_seconds)
    _probe(agent, spec, seed, get_game(state["game"]).state_type.from_dict(state))
    _keep(game_id, agent, capacity)
    return str(agent.name)


def think(
    game_id: str, spec: str, seed: int | None, max_seconds: float, capacity: int, state: dict[str, Any]
) -> tuple[int, float]:
    """The agent's action in ``state`` (a ``State.to_dict()`` of any game) and the seconds it took.

    An agent this process no longer holds (evicted, or the worker was restarted) is built again from its spec.
    """
    position = get_game(state["game"]).state_type.from_dict(state)
    if game_id not in _agents:
        _keep(game_id, _build(spec, seed, max_seconds), capacity)
    _agents.move_to_end(game_id)
    start = time.perf_counter()
    action = int(_agents[game_id].act(position))
    return action, time.perf_counter() - start


def forget(game_id: str) -> None:
    """Drop the agent of a game the server evicted or deleted."""
    _agents.pop(game_id, None)
