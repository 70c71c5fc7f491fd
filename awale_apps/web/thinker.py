"""The agents' side of the web server: runs in a worker process, so a search never holds the server's GIL.

The compiled searches (alpha-beta above all) keep the GIL for seconds; in a thread they would freeze the event loop,
so each worker process owns the agents of the games assigned to it, keyed by game id, and keeps them between moves
(an MCTS tree or a transposition table carries over, as in ``awale play``) within :class:`AgentLimits`: beyond them
the least recently used agents are dropped, and built again from their spec (with empty trees) at their game's next
move. The functions here are what the server submits to the worker; they take and return plain picklable values.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from agents.base import Limit
from awale_env.games import DEFAULT_GAME, game_of, get_game

#: The agents of this worker process, least recently used first.
_agents: OrderedDict[str, Any] = OrderedDict()


class AgentLimits(NamedTuple):
    """What a worker keeps of its games' agents: at most ``games`` of them, holding at most ``memory_bytes`` of
    search memory together (:func:`search_bytes`)."""

    games: int
    memory_bytes: int


def search_bytes(agent: Any) -> int:
    """The bytes of the numpy arrays an agent holds (its tree, transposition table, search buffers), found among its
    attributes and theirs (tuples and lists included; not in modules or classes, which agents share), each array
    counted once."""
    seen: set[int] = set()

    def held(value: Any, depth: int) -> int:
        if id(value) in seen:
            return 0
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            return value.nbytes
        if isinstance(value, (tuple, list)):
            return sum(held(item, depth) for item in value)
        if depth < 2 and hasattr(value, "__dict__") and not isinstance(value, (type, ModuleType)):
            return sum(held(item, depth + 1) for item in vars(value).values())
        return 0

    return held(agent, 0)


def warm_up() -> None:
    """Load (or compile, on a fresh clone) the search agents' kernels for the default game before its first game
    needs them (the page opens on it)."""
    from agents import make

    for spec in ("alphabeta:depth=2", "mcts:simulations=32"):
        make(spec, seed=0).act(get_game(DEFAULT_GAME).initial())


#: Seconds a searching agent may think when it is tried on its game's first position (:func:`prepare`).
PROBE_SECONDS = 0.05


def build_agent(spec: str, seed: int | None) -> Any:
    """The agent of ``spec`` (seeded); AgentSpecError for one that cannot be built here."""
    from agents import AgentSpecError, make, reset_agent

    try:
        agent = make(spec) if seed is None else make(spec, seed=seed)
    except (ImportError, OSError) as error:  # an extra that is not installed, a checkpoint that cannot be read
        raise AgentSpecError(f"cannot build {spec!r} here: {error}") from None
    reset_agent(agent, seed)
    return agent


def move_limit(agent: Any, max_seconds: float) -> Limit:
    """The budget of ``agent``'s moves here, given with each move: its own time per move capped at ``max_seconds``
    (its own depth or simulations stay; an agent that does not search ignores it)."""
    own = getattr(agent, "time", None)
    return Limit(time=max_seconds if own is None else min(own, max_seconds))


def _probe(agent: Any, seed: int | None, position: Any) -> None:
    """Try the agent on ``position`` (searching for :data:`PROBE_SECONDS` at most), then reset it; AgentSpecError if
    it cannot play that game (an agent refuses the States of games it does not play, e.g. a network trained on
    another game)."""
    from agents import AgentSpecError, reset_agent

    try:
        agent.act(position, Limit(time=PROBE_SECONDS))
    except Exception as error:
        raise AgentSpecError(f"{agent.name} cannot play {game_of(position).name}: {error}") from None
    reset_agent(agent, seed)


def _keep(game_id: str, agent: Any, limits: AgentLimits) -> None:
    """Hold ``agent`` for ``game_id`` as the most recently used."""
    _agents[game_id] = agent
    _agents.move_to_end(game_id)
    _trim(game_id, limits)


def _trim(game_id: str, limits: AgentLimits) -> None:
    """Drop the least recently used agents (never the one of ``game_id``) until the rest fit within ``limits``."""
    held = {held_id: search_bytes(agent) for held_id, agent in _agents.items()}
    total = sum(held.values())
    for held_id in list(_agents):
        if len(_agents) <= limits.games and total <= limits.memory_bytes:
            break
        if held_id != game_id:
            del _agents[held_id]
            total -= held[held_id]


def held_agents() -> dict[str, int]:
    """The games whose agents this worker holds, least recently used first, with their search memory in bytes."""
    return {game_id: search_bytes(agent) for game_id, agent in _agents.items()}


def prepare(game_id: str, spec: str, seed: int | None, limits: AgentLimits, state: dict[str, Any]) -> str:
    """Build the agent of a new game and try it on the game's first position ``state`` (a ``State.to_dict()``),
    raising ``AgentSpecError`` for a bad spec or an agent that does not play the game; return the agent's name."""
    agent = build_agent(spec, seed)
    _probe(agent, seed, get_game(state["game"]).state_type.from_dict(state))
    _keep(game_id, agent, limits)
    return str(agent.name)


def think(
    game_id: str, spec: str, seed: int | None, max_seconds: float, limits: AgentLimits, state: dict[str, Any]
) -> tuple[int, float]:
    """The agent's action in ``state`` (a ``State.to_dict()`` of any game) and the seconds it took.

    An agent this process no longer holds (evicted, dropped for memory, or the worker was restarted) is built again
    from its spec.
    """
    position = get_game(state["game"]).state_type.from_dict(state)
    agent = _agents[game_id] if game_id in _agents else build_agent(spec, seed)
    start = time.perf_counter()
    action = int(agent.act(position, move_limit(agent, max_seconds)))
    took = time.perf_counter() - start
    _keep(game_id, agent, limits)  # after the search: its tree has grown
    return action, took


def forget(game_id: str) -> None:
    """Drop the agent of a game the server evicted or deleted."""
    _agents.pop(game_id, None)
