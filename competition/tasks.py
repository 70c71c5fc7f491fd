"""Games as tasks: every game of a competition is computed up front from its seed (who sits where, the opening, each
seat's agent seed, the game and its rule flags) and played by ``task.play()``, in a worker process, a Ray actor or this
process alike, so results do not depend on where or in what order games are played. Agents are built from their
spec strings inside the process that plays, once per process, and warmed up there for each game they play before
its first move (:class:`PreparedAgents`: a timed move never pays numba's compiling or a network's loading);
``reset(seed)`` before each game.

Each pair of agents plays mirrored pairs of games: the same random opening (a few uniformly random plies, through
the State API of the game), once with each agent in each seat, so deterministic agents do not replay one game;
whatever a game leaves to chance at the start (Oware's first player under the ``"texts"`` rules) is drawn once per
mirrored pair as well.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import game_refusal, reset_agent, warm_up, weights_digest
from agents.registry import make
from awale_env.games import DEFAULT_GAME, get_game

#: ``max_plies`` value meaning the game's own default ply limit (``Game.default_max_plies``).
GAME_DEFAULT = "default"


@dataclass(frozen=True)
class GameTask:
    """One game to play: the spec in each seat, the opening plies, each seat's agent seed, and the game: its name,
    rule flags as ``(name, value)`` pairs and the seed of its starting position."""

    index: int
    specs: tuple[str, str]
    opening: tuple[int, ...]
    agent_seeds: tuple[int, int]
    max_plies: int | None
    game: str = DEFAULT_GAME
    options: tuple[tuple[str, Any], ...] = ()
    start_seed: int | None = None

    def initial(self) -> Any:
        """The starting position of this game (before the opening)."""
        return start_position(self.game, self.options, self.max_plies, self.start_seed)

    def play(self, agent: PreparedAgents | None = None) -> GameResult:
        """Play this game (in a worker process, a Ray actor or this process) with the agents ``agent(spec, game,
        options)`` gives (default :data:`prepared_agent`): :func:`run_task`."""
        return run_task(self) if agent is None else run_task(self, agent)

    @property
    def agent_specs(self) -> tuple[str, ...]:
        """The specs of the agents this game builds (a Ray driver ships their weights files:
        competition.ray_backend)."""
        return self.specs

    @property
    def number(self) -> int:
        """The game's number as users count (task index + 1), the same in every command, log, page and store."""
        return self.index + 1

    @property
    def label(self) -> str:
        """The game as an error message names it."""
        return f"game {self.number} ({self.specs[0]} against {self.specs[1]})"


@dataclass(frozen=True)
class GameResult:
    """The outcome of a task: the winning seat (None for a draw), final stores, plies and why the game ended."""

    index: int
    specs: tuple[str, str]
    opening: tuple[int, ...]
    winner: int | None
    stores: tuple[int, int]
    plies: int
    end_reason: str

    def score(self, seat: int) -> float:
        """1, 0.5 or 0 for the agent in ``seat``."""
        return 0.5 if self.winner is None else float(self.winner == seat)


class PreparedAgents:
    """The agents of one process (a pool's worker process, a Ray actor, this one) by spec, each built once by
    ``build(spec)`` and warmed up (:func:`agents.base.warm_up`) for every game it plays before its first move in
    it: a game's first timed move never pays numba's compiling or a network's loading, in a fresh worker process or
    a fresh Ray actor alike. ``warm_ups`` lists the warm-ups of this process in order, ``(spec, game, seconds)``: a
    tournament reports them."""

    def __init__(self, build: Callable[[str], Any] = make) -> None:
        self.build = build
        self.agents: dict[str, Any] = {}
        self.warm_ups: list[tuple[str, str, float]] = []

    def __call__(self, spec: str, game: str = DEFAULT_GAME, options: tuple[tuple[str, Any], ...] = ()) -> Any:
        """The agent of ``spec`` ready to play ``game`` with the rule flags ``options`` (reset it before a game)."""
        if spec not in self.agents:
            self.agents[spec] = self.build(spec)
        agent = self.agents[spec]
        if not any(warmed[:2] == (spec, game) for warmed in self.warm_ups):
            started = time.perf_counter()
            # A timed agent calibrates on its first searches: a spare of the same spec takes the compiling.
            spare = self.build(spec) if getattr(agent, "time", None) is not None else None
            warm_up(agent, get_game(game), dict(options), spare)
            self.warm_ups.append((spec, game, time.perf_counter() - started))
        return agent


#: The agents of this process (tasks played in a pool's worker processes, or here).
prepared_agent = PreparedAgents()


def play_game(agents: tuple[Any, Any], state: Any) -> Any:
    """Let two agents (by seat) play from ``state`` to the end; return the final State. An illegal move raises."""
    while not state.is_terminal:
        action = agents[state.to_move].act(state)
        if not state.is_legal(action):
            name = getattr(agents[state.to_move], "name", type(agents[state.to_move]).__name__)
            raise RuntimeError(f"agent {name} played illegal action {action!r} in\n{state}")
        state = state.play(action)
    return state


def run_task(task: GameTask, agent: PreparedAgents | None = None) -> GameResult:
    """Play one task (in a worker process or in this one) with the agents ``agent(spec, game, options)`` gives,
    ready before the first move (default :data:`prepared_agent`)."""
    build = agent or prepared_agent
    agents = (build(task.specs[0], task.game, task.options), build(task.specs[1], task.game, task.options))
    for player, seed in zip(agents, task.agent_seeds):
        reset_agent(player, seed)
    state = task.initial()
    for action in task.opening:
        state = state.play(action)
    final = play_game(agents, state)
    return GameResult(
        task.index, task.specs, task.opening, final.winner, final.stores, final.ply, final.end_reason or ""
    )


def start_position(game: str, options: tuple[tuple[str, Any], ...], max_plies: int | None, seed: int | None) -> Any:
    """The starting position of ``game`` with its rule flags ``options``; ``seed`` draws what the rules leave to
    chance."""
    return get_game(game).initial(max_plies=max_plies, seed=seed, **dict(options))


def random_opening(
    plies: int, rng: np.random.Generator, max_plies: int | None, start: Any | None = None
) -> tuple[int, ...]:
    """``plies`` uniformly random legal moves from ``start`` (default: the default game's initial position),
    fewer if the game ends first."""
    state, moves = (start if start is not None else start_position(DEFAULT_GAME, (), max_plies, None)), []
    for _ in range(plies):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        moves.append(legal[int(rng.integers(len(legal)))])
        state = state.play(moves[-1])
    return tuple(moves)


@dataclass(frozen=True)
class Pairing:
    """One game of a round robin's schedule: the players' positions in its list by seat, the opening, each seat's
    agent seed and the seed of the starting position."""

    seats: tuple[int, int]
    opening: tuple[int, ...]
    agent_seeds: tuple[int, int]
    start_seed: int


#: The most games a pair of agents plays in one round robin (each game is a task held in memory, so a typo like
#: 10**21 would never start), and the largest seed (the trainers' bound: 32 bits, as numpy's legacy seeding allows).
MAX_GAMES_PER_PAIR = 100_000
MAX_SEED = 2**32 - 1


def check_round(games_per_pair: Any, seed: Any, games_option: str = "games per pair") -> None:
    """ValueError naming ``games_per_pair`` or ``seed`` when either is not what a round robin accepts: an even integer
    in [2, :data:`MAX_GAMES_PER_PAIR`] (each opening from both seats) and an integer in [0, :data:`MAX_SEED`]."""
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int) or games_per_pair < 2:
        raise ValueError(f"{games_option} must be an even integer >= 2, got {games_per_pair!r}")
    if games_per_pair % 2 or games_per_pair > MAX_GAMES_PER_PAIR:
        raise ValueError(f"{games_option} must be even (each opening is played from both seats) and at most "
                         f"{MAX_GAMES_PER_PAIR:,}, got {games_per_pair:,}")  # fmt: skip
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"the tournament seed (--seed) must be an integer in [0, {MAX_SEED}], got {seed!r}")


def schedule(
    players: int,
    games_per_pair: int,
    seed: int,
    opening_plies: int,
    max_plies: int | None,
    game: str = DEFAULT_GAME,
    options: tuple[tuple[str, Any], ...] = (),
) -> list[Pairing]:
    """The games of a round robin of ``players``: for every pair, ``games_per_pair`` games in mirrored pairs sharing
    a starting position and an opening (seats swapped), in task order."""
    games = []
    for i in range(players):
        for j in range(i + 1, players):
            for k in range(games_per_pair):
                # One stream per (pair, mirrored game pair): the same whatever else the tournament holds; the start
                # seed comes from a stream of its own, so the openings of a game without chance are what they always
                # were.
                rng = np.random.default_rng([seed, i, j, k // 2])
                start_seed = int(np.random.default_rng([seed, i, j, k // 2, 1]).integers(2**31))
                start = start_position(game, options, max_plies, start_seed)
                opening = random_opening(opening_plies, rng, max_plies, start)
                seeds = (int(s) for s in rng.integers(0, 2**31, size=2))
                games.append(Pairing((i, j) if k % 2 == 0 else (j, i), opening, tuple(seeds), start_seed))
    return games


def make_tasks(
    specs: list[str],
    games_per_pair: int,
    seed: int,
    opening_plies: int,
    max_plies: int | None,
    game: str = DEFAULT_GAME,
    options: tuple[tuple[str, Any], ...] = (),
) -> list[GameTask]:
    """The arena's games of a round robin of agents (:func:`schedule`)."""
    return [
        GameTask(index, (specs[p.seats[0]], specs[p.seats[1]]), p.opening, p.agent_seeds, max_plies, game, options,
                 p.start_seed)
        for index, p in enumerate(schedule(len(specs), games_per_pair, seed, opening_plies, max_plies, game, options))
    ]  # fmt: skip


def check_specs(specs: list[str], game: str) -> dict[str, str]:
    """Fail fast, in this process, on a bad spec or an agent that cannot play ``game``; return the SHA-256 of the
    weights file of each agent that has one (:func:`agents.base.weights_digest`), by spec."""
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {len(specs)}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"each agent spec may appear once, got {specs}")
    digests = {}
    for spec in specs:
        agent = make(spec)
        refusal = game_refusal(agent, spec, game)
        if refusal is not None:
            raise ValueError(refusal)
        digest = weights_digest(agent, game)
        if digest is not None:
            digests[spec] = digest
    return digests


def check_game(game: str, options: dict[str, Any], max_plies: int | str | None) -> tuple[str, int | None]:
    """Validate a game name, its rule flags and a ply limit (:data:`GAME_DEFAULT`: the game's own); return the
    game's name and the ply limit. ValueError names what is allowed."""
    rules = get_game(game)
    unknown = sorted(set(options) - set(rules.rule_options))
    if unknown:
        allowed = ", ".join(rules.rule_options) or "none"
        raise ValueError(
            f"unknown rule option(s) {', '.join(map(repr, unknown))} for {rules.name}; its options: {allowed}"
        )
    if isinstance(max_plies, str):
        if max_plies != GAME_DEFAULT:
            raise ValueError(f"max_plies must be a positive integer, None or {GAME_DEFAULT!r}, got {max_plies!r}")
        max_plies = rules.default_max_plies
    rules.initial(max_plies=max_plies, **options)  # the values, checked by the game's State.initial
    return rules.name, max_plies
