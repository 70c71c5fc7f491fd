"""The agent protocol shared by every player: search agents, learned agents and the arena."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

#: The deepest search a depth limit may ask for: alpha-beta's per-ply arrays are sized for it. Kept apart from that
#: compiled search, so that a trainer's options can bound a teacher's depth without importing it.
MAX_DEPTH = 60


@dataclass(frozen=True)
class Limit:
    """How much one move may search, given with the move (``agent.act(state, limit)``; python-chess's
    ``engine.Limit``): ``time`` seconds, ``depth`` plies, ``simulations``. Each field given replaces the agent's own
    budget of that kind for this move, the others stay the agent's (``alphabeta:depth=8`` with ``Limit(time=1)``
    stops at depth 8 or after 1 s); a search stops at the first it reaches. A field the agent's search has no use for
    is ignored (alpha-beta counts no simulations, MCTS no depth; a policy answers at once)."""

    time: float | None = None
    depth: int | None = None
    simulations: int | None = None

    def __post_init__(self) -> None:
        check_positive("time", self.time, float)
        check_positive("depth", self.depth)
        check_positive("simulations", self.simulations)


def limited(limit: Limit | None, name: str, default: Any) -> Any:
    """``limit``'s ``name`` field if given (the move's budget), else ``default`` (the agent's own)."""
    value = None if limit is None else getattr(limit, name)
    return default if value is None else value


def act_within(agent: Agent, state: Any, limit: Limit | None) -> int:
    """``agent.act(state, limit)``, or ``agent.act(state)`` with no limit (an agent of the older protocol has no
    ``limit`` to take)."""
    return agent.act(state) if limit is None else agent.act(state, limit)


@runtime_checkable
class Agent(Protocol):
    """A player: ``act(state, limit=None)`` returns a legal action index for the player to move in ``state``, a State
    of any game of the toolkit (:mod:`awale_env.games`), searching within ``limit`` (a :class:`Limit`, the move's
    budget; None: the agent's own) if it searches; an agent that plays only some games lists them in ``games`` and
    may say what to use instead with ``other_game_hint(game) -> str | None`` (see :func:`game_refusal`).

    ``name`` labels the agent in tables. Agents may also define ``reset(seed: int | None = None)``, called at the
    start of every game: it forgets per-game memory (search trees, tables) and re-seeds when given a seed, as
    Gymnasium's ``reset(seed=...)`` does; use :func:`reset_agent` to call it when present. An agent that plays with
    weights read from a file says which with ``weights_file(game) -> Path | None`` (see :func:`weights_digest`).
    """

    name: str

    def act(self, state: Any, limit: Limit | None = None) -> int: ...


def reset_agent(agent: Agent, seed: int | None = None) -> None:
    """Call ``agent.reset(seed)`` if the agent has one (``reset`` is optional in the protocol)."""
    reset = getattr(agent, "reset", None)
    if reset is not None:
        reset(seed)


#: Plies of the short game a warm-up searches (:func:`warm_up`): its starting position reaches every kernel of a
#: search, and a game that ends two plies later keeps any search of it short.
WARM_UP_PLIES = 2
#: The most seconds a timed agent searches in a warm-up (its own ``time`` is for its games: ``mcts:time=60``).
WARM_UP_SECONDS = 0.5


def warm_up(
    agent: Agent,
    game: Any,
    options: Mapping[str, Any] | None = None,
    spare: Agent | None = None,
    seconds: float | None = None,
) -> None:
    """Make ``agent`` ready to play ``game`` (a :class:`awale_env.games.Game`, with the rule flags ``options``) within
    its budget from its first move: the first search of a process compiles the game's numba kernels (or loads them
    from the cache) and reads what a network needs, which must happen before any clock runs, not inside a timed move.

    Both agents search the starting position of the game limited to :data:`WARM_UP_PLIES` plies: ``spare`` (another
    agent of the same spec, for a timed agent) first, taking the compiling, then ``agent``: agents calibrate their
    budgets on their first timed searches (alpha-beta's node rate, MCTS's simulation rate), which a search that
    compiled would mislead. A timed agent (``time`` seconds per move, its own or the ``seconds`` its moves will be
    given) searches at most :data:`WARM_UP_SECONDS` there. Reset ``agent`` (:func:`reset_agent`) before its game."""
    position = game.initial(max_plies=WARM_UP_PLIES, **dict(options or {}))
    for player in (spare, agent):
        if player is None or position.is_terminal:
            continue
        budget = seconds if seconds is not None else getattr(player, "time", None)
        act_within(player, position, None if budget is None else Limit(time=min(budget, WARM_UP_SECONDS)))


def game_refusal(agent: Agent, spec: str, game: str) -> str | None:
    """Why the agent built from ``spec`` cannot play ``game`` (its ``games`` lack it), with its
    ``other_game_hint`` when it has one; None when it can. The arena and ``awale play`` check before the first move."""
    games = getattr(agent, "games", None)
    if games is None or game in games:
        return None
    hint_of = getattr(agent, "other_game_hint", None)
    hint = hint_of(game) if hint_of is not None else None
    return f"agent {spec!r} plays {', '.join(games)} only, not {game!r}" + (f": {hint}" if hint else "")


def weights_digest(agent: Agent, game: str) -> str | None:
    """The SHA-256 of the file whose weights ``agent`` plays ``game`` with (its optional ``weights_file(game)``),
    None for an agent with no such file: the arena's journal keeps it, so a resume notices a changed network."""
    weights_file = getattr(agent, "weights_file", None)
    path = weights_file(game) if weights_file is not None else None
    if path is None:
        return None
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_seed(seed: int | None) -> int | None:
    """Validate a seed argument: None or a non-negative integer."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return seed


def check_positive(name: str, value: float | None, kind: type = int) -> None:
    """Validate an optional budget parameter (depth, simulations, time): None or > 0 and finite, of the right type
    (a search given ``time=inf`` would never return)."""
    if value is None:
        return
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < math.inf
    if kind is int:
        ok = ok and isinstance(value, int)
    if not ok:
        raise ValueError(f"{name} must be a positive {kind.__name__}, got {value!r}")


def spec_name(kind: str, **params: object) -> str:
    """The spec string naming an agent, with the parameters that were given: ``alphabeta:depth=8``."""
    given = [f"{key}={value}" for key, value in params.items() if value is not None]
    return kind + (":" + ",".join(given) if given else "")
