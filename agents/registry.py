"""Agents by name: the table of known agents and ``make(spec)``, which builds one from a short spec string.

A spec is ``name[:key=value,...]``, e.g. ``alphabeta:depth=8``, ``mcts:simulations=2000,seed=3``; a bare word is a
flag set to true (``alphazero:pretrained``). A value in double or single quotes is taken whole, commas, ``=``, colons
and spaces included (``rllib:path="runs/tune/PPO_0_lr=0.001,entropy_coeff=0"``); its quote character is written
twice inside it (``'it''s'``). :func:`format_spec` writes a spec that way, quoting only the values that need it,
and everything that prints a spec uses it. The table maps a name to ``"module:Class"`` and its parameters, and a
module is imported only when one of its agents is built, so no agent loads what another needs (torch only for the
learned agents that need it: AlphaZero plays without it). Another agent joins with one line in :data:`AGENTS`.
:func:`opponent_policy` is how the Gymnasium env's opponent spec strings reach this registry (the
``awale_env.opponents`` entry point: ``awale_env`` never imports ``agents``).
"""

from __future__ import annotations

import importlib
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import game_refusal

if TYPE_CHECKING:
    from awale_env.games import Game

#: Parameters every seeded agent takes.
SEED = {"seed": (int, "random seed (reset(seed=...) re-seeds)")}
#: The per-move budget every searching agent takes.
TIME = {"time": (float, "seconds per move (iterative deepening / batches of simulations stop when it runs out)")}


@dataclass(frozen=True)
class AgentEntry:
    """How to build one kind of agent: ``target`` is ``"module:Class"``; ``params`` maps a keyword of the class to
    ``(type, description)``; the type (int, float, bool or str) converts the text of a spec. ``example`` is a cheap
    spec of it, which the shared agent tests play on every game (``tests/test_agents_games.py``): a new agent is
    tested there without editing a list (None only for an agent that needs a file its training writes)."""

    target: str
    summary: str
    params: dict[str, tuple[type, str]] = field(default_factory=dict)
    example: str | None = None


AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry("agents.simple:RandomAgent", "uniformly random legal moves", {**SEED}, "random"),
    "greedy": AgentEntry(
        "agents.simple:GreedyAgent", "the move that captures most now, ties broken at random", {**SEED}, "greedy"
    ),
    "alphabeta": AgentEntry(
        "agents.alphabeta:AlphaBetaAgent",
        "negamax alpha-beta with iterative deepening, transposition table and move ordering",
        {
            "depth": (int, "depth limit in plies (default 8 without a time budget)"),
            **TIME,
            "table_bits": (int, "log2 of transposition-table entries (default 20)"),
            "eval": (str, "leaf evaluation: tuned (default, fit on self-play), score, reference (sparring partner)"),
            "endgame": (bool, "score the positions of the game's endgame table exactly, if it has one (default true)"),
            "reduce": (
                bool,
                "search late quiet moves a ply less, again in full if they look better (default: the game's)",
            ),
            **SEED,
        },
        "alphabeta:depth=2",
    ),
    "mcts": AgentEntry(
        "agents.mcts:MCTSAgent",
        "UCT Monte Carlo tree search with random rollouts, tree kept between moves",
        {
            "simulations": (int, "simulations per move (default 1000 without a time budget)"),
            **TIME,
            "c": (float, "UCT exploration constant (default 0.4)"),
            **SEED,
        },
        "mcts:simulations=40",
    ),
    "alphazero": AgentEntry(
        "agents.alphazero.agent:AlphaZeroAgent",
        "PUCT or Gumbel search guided by a network trained by AlphaZero self-play (training.alphazero.trainer)",
        {
            "path": (str, "checkpoint .pt written by training (default: the shipped network)"),
            "pretrained": (bool, "the network shipped in the package"),
            "simulations": (
                int,
                "simulations per move (default without a time budget: the network's, as trained; else 800)",
            ),
            **TIME,
            "c_puct": (float, "PUCT exploration weight (default: the network's, as trained; else 1.5)"),
            "fpu_reduction": (float, "unvisited moves' value below their parent's (default: the network's; else 0.2)"),
            "leaves": (int, "leaves evaluated per network call, spread by virtual loss (default 8)"),
            "search": (str, "selection rule: puct or gumbel (default: the network's, as trained; else puct)"),
            "considered_actions": (int, "gumbel: root moves sampled and halved (default: the network's; else 16)"),
            **SEED,
        },
        "alphazero:pretrained,simulations=8",
    ),
    "ppo": AgentEntry(
        "agents.ppo:PPOAgent",
        "a policy trained by self-play PPO (training.ppo.trainer), played with numpy",
        {
            "path": (str, "checkpoint .zip written by training"),
            "pretrained": (bool, "the checkpoint shipped in the package"),
            "deterministic": (bool, "play the most probable move (default true) or sample"),
            **SEED,
        },
        "ppo:pretrained",
    ),
    "rllib": AgentEntry(
        "agents.rllib:RLlibAgent",
        "a policy trained by self-play PPO with RLlib (training.rllib.trainer; needs the rllib extra)",
        {
            "path": (str, "checkpoint directory written by training (RUN/checkpoint)"),
            "deterministic": (bool, "play the most probable move (default true) or sample"),
            **SEED,
        },
    ),
}


class AgentSpecError(ValueError):
    """An agent spec that names no known agent or gives it a bad parameter."""


def known_agents() -> str:
    """A multi-line listing of every agent and its parameters, for error messages and ``--help``."""
    lines = []
    for name, entry in AGENTS.items():
        params = ", ".join(f"{key}={kind.__name__}" for key, (kind, _) in entry.params.items())
        lines.append(f"  {name}: {entry.summary}" + (f" [{params}]" if params else ""))
    return "known agents (spec 'name[:key=value,...]'):\n" + "\n".join(lines)


def _convert(name: str, key: str, kind: type, value: Any) -> Any:
    if not isinstance(value, str):
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        raise AgentSpecError(f"{name}: {key} must be {kind.__name__}, got {value!r}")
    try:
        if kind is bool:
            lowered = value.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return lowered in ("true", "1", "yes")
        return kind(value)
    except ValueError:
        raise AgentSpecError(f"{name}: {key} must be {kind.__name__}, got {value!r}") from None


#: One ``key[=value]`` item of a spec and the comma after it: a value is quoted ("..." or '...', its quote character
#: doubled inside) or plain (up to the next comma, not starting with a quote).
_ITEM = re.compile(
    r"""\s*(?P<key>[^=,"']*?)\s*"""
    r"""(?P<eq>=\s*(?:"(?P<double>(?:[^"]|"")*)"|'(?P<single>(?:[^']|'')*)'|(?P<plain>(?!["'])[^,]*?)))?"""
    r"""\s*(?:,|$)"""
)
#: What makes a value need quotes in a spec: a comma, a quote character, or spaces at its ends.
_NEEDS_QUOTES = re.compile(r"""[,"']|^\s|\s$|^$""")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name[:key=value,...]`` into the agent's name and its keyword arguments (text, or True for a bare
    word), quoted values unquoted (see the module docstring)."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec is a non-empty string like 'alphabeta:depth=8', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in AGENTS:
        raise AgentSpecError(f"unknown agent {name!r} in spec {spec!r}; {known_agents()}")
    kwargs: dict[str, Any] = {}
    position = 0
    while position < len(rest):
        item = _ITEM.match(rest, position)
        if item is None or item.end() == position:
            raise AgentSpecError(
                f"malformed parameters in spec {spec!r} at {rest[position:]!r}: write key=value items separated by "
                "commas; a value holding commas or quotes goes in quotes, its quote character doubled inside "
                """(path="a,b" or path='it''s')"""
            )
        position = item.end()
        key = item["key"]
        if key in kwargs:
            raise AgentSpecError(f"{key!r} is given twice in spec {spec!r}: give each parameter once")
        if item["double"] is not None:
            kwargs[key] = item["double"].replace('""', '"')
        elif item["single"] is not None:
            kwargs[key] = item["single"].replace("''", "'")
        elif item["eq"] is not None:
            kwargs[key] = item["plain"]
        elif key:
            kwargs[key] = True
    return name, kwargs


def format_spec(name: str, params: Mapping[str, Any] | None = None) -> str:
    """The spec of agent ``name`` with ``params`` (True: a bare flag), which :func:`parse_spec` reads back: a value
    holding a comma, a quote or spaces at its ends is written in double quotes (``path="a,b"``)."""
    items = []
    for key, value in (params or {}).items():
        if value is True:
            items.append(key)
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if _NEEDS_QUOTES.search(text):
            text = '"' + text.replace('"', '""') + '"'
        items.append(f"{key}={text}")
    return name + (":" + ",".join(items) if items else "")


def check_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """The agent's name and its keyword arguments, converted and checked, without building it (nor importing its
    module); AgentSpecError as :func:`make` raises it."""
    name, kwargs = parse_spec(spec)
    return name, _check(name, kwargs)


def _check(name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    params = AGENTS[name].params
    checked = {}
    for key, value in kwargs.items():
        if key not in params:
            allowed = ", ".join(params) or "none"
            raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; its parameters: {allowed}")
        kind = params[key][0]
        if value is True and kind is not bool:
            raise AgentSpecError(f"{name}: {key} needs a value ({key}=<{kind.__name__}>)")
        if key == WEIGHTS_PARAMETER and isinstance(value, str) and not value.strip():
            raise AgentSpecError(f"{name}: {key}= is empty; give the weights file (or the directory holding it)")
        checked[key] = _convert(name, key, kind, value)
    return checked


def make(spec: str, **overrides: Any) -> Any:
    """Build an agent from a spec string; keyword ``overrides`` (e.g. ``seed=3``) take precedence over the spec.

    Raises :class:`AgentSpecError` (a ValueError) naming the problem and listing what is allowed.
    """
    name, kwargs = parse_spec(spec)
    kwargs = _check(name, {**kwargs, **overrides})
    module_name, _, class_name = AGENTS[name].target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise AgentSpecError(f"bad agent spec {spec!r}: {error}") from error


#: The parameter of an agent that names its weights file (or a directory holding it).
WEIGHTS_PARAMETER = "path"


@dataclass(frozen=True)
class WeightsFile:
    """The weights file of an agent spec, read into memory where the spec is given (a driver) to build the agent
    where that file is not (a node of a cluster): its name (agents tell formats apart by it) and its bytes."""

    name: str
    data: bytes


def read_weights(spec: str, game: str) -> WeightsFile | None:
    """The file whose weights the agent of ``spec`` plays ``game`` with (its ``weights_file(game)``), read whole;
    None for a spec that names no file (``path=``): the shipped networks come with the package."""
    name, kwargs = parse_spec(spec)
    if WEIGHTS_PARAMETER not in kwargs:
        return None
    weights_file = getattr(make(spec), "weights_file", None)
    path = weights_file(game) if weights_file is not None else None
    if path is None:
        return None
    return WeightsFile(Path(path).name, Path(path).read_bytes())


def make_from_weights(spec: str, weights: WeightsFile, **overrides: Any) -> Any:
    """The agent of ``spec`` with the weights of ``weights`` in place of the file its ``path=`` names (which need
    not exist here): they are written to a private temporary folder for the agent's loader, which reads them as it
    builds the agent (every agent of the table does), and the folder is removed before returning."""
    with tempfile.TemporaryDirectory(prefix="awale-weights-") as folder:
        path = Path(folder) / weights.name
        path.write_bytes(weights.data)
        return make(spec, **overrides, **{WEIGHTS_PARAMETER: str(path)})


def opponent_policy(spec: str, game: Game) -> Any:
    """The agent a Gymnasium env of ``game`` plays against for the spec string ``opponent=spec``; AgentSpecError for a
    bad spec or an agent that does not play ``game``. Installed as the ``awale_env.opponents`` entry point."""
    agent = make(spec)
    refusal = game_refusal(agent, spec, game.name)
    if refusal is not None:
        raise AgentSpecError(refusal)
    return agent
