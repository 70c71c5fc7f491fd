"""The arena: games between agents given by spec strings, round robins, and Elo ratings with confidence intervals, on
any game of the toolkit (``game="oware"`` and its rule flags; the two-colour Awale by default).

Every game is a task ``(specs by seat, opening, agent seeds)`` computed up front from the tournament seed, and agents
are built from their spec strings inside the worker processes (once per process, ``reset(seed)`` before each game),
so results are identical for a given seed whatever the number of workers, as long as the agents are bounded by
depth or simulations rather than by time. Each pair of agents plays mirrored pairs of games: the same random
opening (a few uniformly random plies, through the State API of the game), once with each agent in each seat, so
deterministic agents do not replay one game; whatever a game leaves to chance at the start (Oware's first player
under the ``"texts"`` rules) is drawn once per mirrored pair as well.

Elo is the maximum-likelihood Bradley-Terry model on scores (win 1, draw 0.5, loss 0), with ``prior_draws`` virtual
drawn games added between every pair that met (so an agent that won or lost every game still gets a finite rating),
95 % confidence intervals from the inverse Hessian of the log-likelihood, and ratings anchored so that their mean
is 1500 (or, with ``anchor=name``, so that agent is at 0).

Long tournaments: a worker process that dies (the out-of-memory killer, ``kill -9``) stops the arena at once with an
:class:`ArenaError` naming it, rather than leaving it waiting for a game that will never come. With a journal
(``journal=PATH``; ``awale arena --out DIR`` keeps ``DIR/games.jsonl``) each game is appended to it as it ends (one
JSON object per line, after a first line holding the tournament's settings), and ``resume=True`` (``--resume``)
reads the games back and plays only the missing ones: a game is known by its task index (the tasks follow from the
settings), so the results are those of an uninterrupted run.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import pickle
import signal
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field, fields
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.base import game_refusal, reset_agent, weights_digest
from agents.checkpoint import atomic_write
from agents.registry import make
from awale_env.games import DEFAULT_GAME, get_game

#: Where the games are played: worker processes on this machine, or Ray actors (training.ray_backend).
BACKENDS = ("process", "ray")
#: ``max_plies`` value meaning the game's own default ply limit (``Game.default_max_plies``).
GAME_DEFAULT = "default"

ELO_SCALE = 400.0 / math.log(10.0)
Z_95 = 1.959964

#: The journal's file name in the CLI's ``--out`` folder.
JOURNAL_NAME = "games.jsonl"
#: What the journal's first line says it is.
JOURNAL_FORMAT = "awale arena games"
JOURNAL_VERSION = 1
#: The settings a resumed tournament must share with its journal (they fix the tasks), and their CLI options.
SETTING_OPTIONS = {
    "agents": "--agents",
    "games_per_pair": "--games",
    "seed": "--seed",
    "game": "--game",
    "rules": "--rule",
    "opening_plies": "--opening-plies",
    "max_plies": "--max-plies",
    "weights": "the SHA-256 of the agents' network files",
}


class ArenaError(RuntimeError):
    """The arena cannot go on: one of its worker processes died."""


class JournalError(ValueError):
    """A journal that cannot be resumed: other settings, or a malformed line (other than a last one cut short)."""


class JournalWarning(UserWarning):
    """A journal's last line was cut short (the arena was killed while writing it): its game is played again."""


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker process: the ``__cause__`` of the one raised here."""


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


@dataclass
class Standing:
    """One agent's line of the result table."""

    agent: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: float = 0.0
    elo_low: float = 0.0
    elo_high: float = 0.0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


@dataclass
class TournamentResult:
    """All games of a tournament, the table of standings, and per-pair win/draw/loss counts."""

    agents: list[str]
    seed: int
    games: list[GameResult]
    standings: list[Standing] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    game: str = DEFAULT_GAME
    #: Games played again whole because the Ray actor playing them was lost (``backend="ray"``).
    replayed_games: int = 0

    def table(self) -> list[dict[str, Any]]:
        """The standings as JSON-safe rows, best Elo first."""
        return [{**asdict(s), "score": round(s.score, 4)} for s in self.standings]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "agents": self.agents,
            "seed": self.seed,
            "standings": self.table(),
            "pairs": self.pairs,
            "replayed_games": self.replayed_games,
            "games": [asdict(g) for g in self.games],
        }


# --- playing games -----------------------------------------------------------------------------------------------

_AGENTS: dict[str, Any] = {}  # agents built in this process, by spec


def _agent(spec: str) -> Any:
    if spec not in _AGENTS:
        _AGENTS[spec] = make(spec)
    return _AGENTS[spec]


def play_game(agents: tuple[Any, Any], state: Any) -> Any:
    """Let two agents (by seat) play from ``state`` to the end; return the final State. An illegal move raises."""
    while not state.is_terminal:
        action = agents[state.to_move].act(state)
        if not state.is_legal(action):
            name = getattr(agents[state.to_move], "name", type(agents[state.to_move]).__name__)
            raise RuntimeError(f"agent {name} played illegal action {action!r} in\n{state}")
        state = state.play(action)
    return state


def run_task(task: GameTask, agent: Callable[[str], Any] = _agent) -> GameResult:
    """Play one task (in a worker process or in this one) with the agents ``agent(spec)`` gives (built once)."""
    agents = (agent(task.specs[0]), agent(task.specs[1]))
    for agent, seed in zip(agents, task.agent_seeds):
        reset_agent(agent, seed)
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


def make_tasks(
    specs: list[str],
    games_per_pair: int,
    seed: int,
    opening_plies: int,
    max_plies: int | None,
    game: str = DEFAULT_GAME,
    options: tuple[tuple[str, Any], ...] = (),
) -> list[GameTask]:
    """The games of a round robin: for every pair, ``games_per_pair`` games in mirrored pairs sharing a starting
    position and an opening."""
    tasks = []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            for k in range(games_per_pair):
                # One stream per (pair, mirrored game pair): the same whatever else the tournament holds; the start
                # seed comes from a stream of its own, so the openings of a game without chance are what they always
                # were.
                rng = np.random.default_rng([seed, i, j, k // 2])
                start_seed = int(np.random.default_rng([seed, i, j, k // 2, 1]).integers(2**31))
                start = start_position(game, options, max_plies, start_seed)
                opening = random_opening(opening_plies, rng, max_plies, start)
                seeds = tuple(int(s) for s in rng.integers(0, 2**31, size=2))
                pair = (specs[i], specs[j]) if k % 2 == 0 else (specs[j], specs[i])
                tasks.append(GameTask(len(tasks), pair, opening, seeds, max_plies, game, options, start_seed))
    return tasks


@contextmanager
def workers_ignore_interrupts() -> Iterator[None]:
    """Around starting worker processes: they start with Ctrl-C ignored (a setting a new process inherits and Python
    keeps), so that Ctrl-C, which a terminal sends to every process of the group, is handled by this process alone
    (which stops the workers) and no worker prints a traceback, not even one still starting. Only the main thread
    may change how signals are handled: from another thread the workers start as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _serve(connection: Connection) -> None:
    """A worker process: play each task received on ``connection`` and send back ``(result, None)``, or when the game
    raised ``(None, (pickled error or None, error as text, traceback))``; stop when the arena closes its end or dies."""
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[Any, Any] = (run_task(task), None)
        except Exception as error:
            try:
                pickled: bytes | None = pickle.dumps(error)
            except Exception:
                pickled = None
            reply = (None, (pickled, f"{type(error).__name__}: {error}", traceback.format_exc()))
        try:
            connection.send(reply)
        except OSError:
            return


def _exit_status(process: multiprocessing.process.BaseProcess) -> str:
    """How a dead worker process ended: its exit code, or the signal that killed it."""
    process.join(timeout=5)
    code = process.exitcode
    if code is None:
        return "exit code unknown"
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    oom = ", as by the out-of-memory killer" if -code == signal.SIGKILL else ""
    return f"exit code {code}: killed by {name}{oom}"


class _Worker:
    """A worker process (started here) with this end of its pipe, and the task it plays (with its position)."""

    def __init__(self, context: Any) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs,), daemon=True)
        self.process.start()
        theirs.close()  # its only copy left in the worker: the pipe ends (EOFError here) when the worker dies
        self.job: tuple[int, GameTask] | None = None

    def give(self, job: tuple[int, GameTask] | None) -> None:
        self.job = job
        if job is not None:
            try:
                self.connection.send(job[1])
            except OSError:
                pass  # it died: its end of the pipe is closed, which collect() reports

    def collect(self) -> tuple[int, GameResult]:
        """The position and result of the task it played; ArenaError if it died, the game's error if it raised."""
        assert self.job is not None
        position, task = self.job
        try:
            result, failure = self.connection.recv()
        except (EOFError, OSError):
            raise ArenaError(
                f"arena worker process {self.process.pid} died ({_exit_status(self.process)}) during game "
                f"{task.index} ({task.specs[0]} against {task.specs[1]})"
            ) from None
        self.job = None
        if failure is not None:
            pickled, text, trace = failure
            try:
                error = pickle.loads(pickled)
            except Exception:
                error = RuntimeError(text)
            raise error from WorkerTraceback(trace)
        return position, result


def _run_in_processes(tasks: list[GameTask], workers: int, finished: Callable[[GameResult], None]) -> list[GameResult]:
    """Play ``tasks`` on ``workers`` worker processes, one task at a time each; results in task order, and
    ``finished(result)`` as each comes. The arena waits on the workers' pipes and on their process sentinels, so a
    worker that dies raises ArenaError at once (multiprocessing's Pool replaces it and waits forever for its game).
    Leaving, on an error or Ctrl-C, terminates every worker without waiting for the games under way; the workers
    leave Ctrl-C to this process."""
    context = multiprocessing.get_context("spawn")
    results: list[Any] = [None] * len(tasks)
    jobs = iter(enumerate(tasks))
    pool: list[_Worker] = []
    try:
        with workers_ignore_interrupts():
            for _ in range(min(workers, len(tasks))):
                pool.append(_Worker(context))
        for worker in pool:
            worker.give(next(jobs, None))
        while busy := [worker for worker in pool if worker.job is not None]:
            ready = set(wait([worker.connection for worker in busy] + [worker.process.sentinel for worker in busy]))
            for worker in busy:
                if worker.connection in ready or worker.process.sentinel in ready:
                    position, result = worker.collect()
                    results[position] = result
                    finished(result)
                    worker.give(next(jobs, None))
    finally:
        for worker in pool:
            worker.process.terminate()
        for worker in pool:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()
    return results


def run_tasks(
    tasks: list[GameTask],
    workers: int = 1,
    progress: bool = True,
    backend: str = "process",
    address: str | None = None,
    finished: Callable[[GameResult], None] | None = None,
    replayed: Callable[[GameTask], None] | None = None,
) -> list[GameResult]:
    """Play every task, in ``workers`` processes if more than one, or with ``backend="ray"`` on ``workers`` Ray actors
    of the cluster at ``address`` (:mod:`training.ray_backend`); results in task order, ``finished(result)``
    called as each game ends (in the order they end) and, on Ray, ``replayed(task)`` for a game played again after
    its actor was lost. ArenaError if a worker process dies."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress)

    def done(result: GameResult) -> None:
        if finished is not None:
            finished(result)
        bar.update()

    try:
        if backend == "ray":
            from training.ray_backend import run_tasks as run_tasks_on_ray  # imports Ray: only for this backend

            return run_tasks_on_ray(tasks, workers, address, done, replayed)
        if workers <= 1:
            results = []
            for task in tasks:
                results.append(run_task(task))
                done(results[-1])
            return results
        return _run_in_processes(tasks, workers, done)
    finally:
        bar.close()


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


def round_robin(
    specs: list[str],
    games_per_pair: int = 20,
    seed: int = 0,
    workers: int = 1,
    opening_plies: int = 4,
    max_plies: int | str | None = GAME_DEFAULT,
    progress: bool = True,
    prior_draws: float = 1.0,
    game: str = DEFAULT_GAME,
    backend: str = "process",
    address: str | None = None,
    journal: str | Path | None = None,
    resume: bool = False,
    **options: Any,
) -> TournamentResult:
    """Every pair of agents plays ``games_per_pair`` games (an even number: mirrored pairs) of ``game`` with the
    rule flags ``options`` (e.g. ``game="oware", preset="openspiel"``) and ``max_plies`` (default: the game's own
    limit), on ``workers`` processes or Ray actors (``backend``, ``address``: :func:`run_tasks`); returns the games,
    the standings with Elo (see the module docstring) and per-pair counts.

    ``journal``: a file where each game is appended as it ends (a new one, or one to ``resume``);
    ``resume=True`` plays only the games it lacks (:func:`open_journal`). ArenaError if a worker process dies."""
    if resume and journal is None:
        raise ValueError("resume=True needs the journal to resume from (journal=PATH; awale arena --out DIR)")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int) or games_per_pair < 2:
        raise ValueError(f"games per pair must be an even integer >= 2, got {games_per_pair!r}")
    if games_per_pair % 2:
        raise ValueError(f"games per pair must be even (each opening is played from both seats), got {games_per_pair}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"the tournament seed (--seed) must be a non-negative integer, got {seed!r}")
    if isinstance(opening_plies, bool) or not isinstance(opening_plies, int) or opening_plies < 0:
        raise ValueError(f"opening plies must be a non-negative integer, got {opening_plies!r}")
    game, max_plies = check_game(game, options, max_plies)
    weights = check_specs(specs, game)
    rules = tuple(sorted(options.items()))
    tasks = make_tasks(specs, games_per_pair, seed, opening_plies, max_plies, game, rules)
    games: list[GameResult] = []
    if journal is not None:
        journal = Path(journal)
        settings = tournament_settings(specs, games_per_pair, seed, opening_plies, max_plies, game, rules, weights)
        games = open_journal(journal, settings, tasks, resume)
    recorded = {g.index for g in games}
    replayed: list[GameTask] = []
    with journal.open("a", encoding="utf-8") if journal is not None else nullcontext() as file:

        def finished(result: GameResult) -> None:
            games.append(result)
            if file is not None:
                file.write(json.dumps(asdict(result)) + "\n")
                file.flush()  # in the file as soon as the game ends, whatever stops this process later

        try:
            missing = [t for t in tasks if t.index not in recorded]
            run_tasks(missing, workers, progress, backend, address, finished, replayed.append)
        except ArenaError as error:
            if journal is None:
                hint = "a journal (awale arena --out DIR; journal=PATH) keeps the finished games for a resume"
            else:
                hint = (f"the {len(games)} finished games of {len(tasks)} are in {journal}: run again with "
                        f"resume=True (awale arena --resume) to play only the others")  # fmt: skip
            raise ArenaError(f"{error}; {hint}") from None
    games.sort(key=lambda g: g.index)
    result = summarize(specs, seed, games, prior_draws)
    result.game = game
    result.replayed_games = len(replayed)
    return result


def play_match(
    spec_a: str, spec_b: str, games: int = 20, seed: int = 0, workers: int = 1, **kwargs: Any
) -> TournamentResult:
    """A match between two agents: a round robin of two."""
    return round_robin([spec_a, spec_b], games, seed, workers, **kwargs)


# --- the journal -------------------------------------------------------------------------------------------------


def tournament_settings(
    specs: list[str],
    games_per_pair: int,
    seed: int,
    opening_plies: int,
    max_plies: int | None,
    game: str,
    options: tuple[tuple[str, Any], ...],
    weights: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What fixes a tournament's tasks (:func:`make_tasks`) and its players (``weights``: the SHA-256 of the agents'
    network files, by spec), as JSON values: the first line of its journal."""
    settings = {"agents": list(specs), "games_per_pair": games_per_pair, "seed": seed, "game": game,
                "rules": dict(options), "opening_plies": opening_plies, "max_plies": max_plies,
                "weights": dict(weights or {})}  # fmt: skip
    return json.loads(json.dumps(settings))


def start_journal(path: Path, settings: dict[str, Any]) -> None:
    """Begin the journal at ``path`` (replacing any): its first line holds the format and the ``settings``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"format": JOURNAL_FORMAT, "version": JOURNAL_VERSION, "settings": settings}
    path.write_text(json.dumps(header) + "\n", encoding="utf-8")


def open_journal(path: Path, settings: dict[str, Any], tasks: list[GameTask], resume: bool) -> list[GameResult]:
    """Make ``path`` ready for the games of ``tasks`` to be appended, and return those it already holds.

    Without ``resume`` a new one is started, unless ``path`` already holds one (JournalError: a stopped tournament
    is not thrown away by a forgotten ``--resume``); with ``resume`` and no journal yet, too. Otherwise its settings
    must be ``settings`` (JournalError naming each that differs) and each line a game of ``tasks`` (its index, agents
    and opening), read as plain JSON. A last line that is cut short or not JSON (the arena was killed while writing it)
    is dropped from the file with a JournalWarning, and its game played again; any other bad line is a JournalError.
    A larger ``games_per_pair`` than the journal's adds games to every pair: the games played are the first ones of
    each pair of the larger tournament (:func:`make_tasks` draws each mirrored pair's opening from its own stream), so
    they are kept, renumbered, and the journal rewritten with the new settings.
    """
    if not resume and path.exists() and path.stat().st_size > 0:
        raise JournalError(
            f"{path} already holds a tournament's games: resume it (resume=True; awale arena --resume), or remove it "
            "or choose another journal (--out DIR) to start again"
        )
    if not path.exists():
        start_journal(path, settings)
        return []
    lines = path.read_bytes().split(b"\n")
    if not lines[-1]:
        lines.pop()  # the file ends with a whole line
    records: list[Any] = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except ValueError:
            if number < len(lines):
                raise JournalError(f"{path} line {number}: not JSON: {line[:80]!r}") from None
    cut = len(records) < len(lines)  # the last line: dropped once the others are known to be good
    cut_line = (
        f"{path} line {len(lines)} (the last) is cut short or not JSON, as when the arena is killed while writing it"
    )
    if not records:  # an empty journal, or one cut short in its first line
        if cut:
            warnings.warn(f"{cut_line}: the tournament starts again", JournalWarning, stacklevel=3)
        start_journal(path, settings)
        return []
    header, *games = records
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise JournalError(f"{path} line 1: not the settings line of an arena journal")
    if header.get("version") != JOURNAL_VERSION:
        raise JournalError(f"{path} line 1: journal version {header.get('version')!r}, this arena reads "
                           f"{JOURNAL_VERSION}")  # fmt: skip
    if not isinstance(header.get("settings"), dict):
        raise JournalError(f"{path} line 1: no settings")
    recorded = header["settings"]
    if "weights" not in recorded:  # a journal from before the digests were kept: its networks cannot be checked
        settings = {name: value for name, value in settings.items() if name != "weights"}
    played_per_pair = recorded.get("games_per_pair")
    more_games = type(played_per_pair) is int and 2 <= played_per_pair < settings["games_per_pair"]
    differences = [
        _difference(name, recorded.get(name), settings.get(name))
        for name in [*settings, *(name for name in recorded if name not in settings)]
        if json.dumps(recorded.get(name), sort_keys=True) != json.dumps(settings.get(name), sort_keys=True)
        and not (more_games and name == "games_per_pair")
    ]
    if differences:
        raise JournalError(
            f"cannot resume from {path}, a tournament with other settings: {'; '.join(differences)}; resume with "
            "its settings, or start again without --resume (resume=False)"
        )
    results: dict[int, GameResult] = {}
    for number, record in enumerate(games, 2):
        if more_games and isinstance(record, dict) and type(record.get("index")) is int:
            pair, k = divmod(record["index"], played_per_pair)
            record = {**record, "index": pair * settings["games_per_pair"] + k}
        try:
            result = _recorded_game(record, tasks)
        except ValueError as error:
            raise JournalError(f"{path} line {number}: {error}") from None
        if result.index in results:
            raise JournalError(f"{path} line {number}: game {result.index} again")
        results[result.index] = result
    if cut:
        warnings.warn(f"{cut_line}: dropped, its game to be played again", JournalWarning, stacklevel=3)
        with path.open("r+b") as file:
            file.truncate(sum(len(line) + 1 for line in lines[:-1]))
    if more_games:
        header = {"format": JOURNAL_FORMAT, "version": JOURNAL_VERSION, "settings": settings}
        text = "".join(json.dumps(item) + "\n" for item in [header, *map(asdict, results.values())])
        atomic_write(path, lambda file: file.write(text.encode()))
    return list(results.values())


def forget_network_games(path: Path, specs: list[str], weights: dict[str, str]) -> int:
    """Drop from the journal at ``path`` the games of each agent of ``specs`` whose network file is not the one
    ``weights`` (the tournament's SHA-256 by spec, :func:`check_specs`) names, and record ``weights`` there: a resume
    then plays those games again with the new networks and keeps every other game (a new network shipped, the rest of
    a long round robin unchanged). A journal from before the digests were kept loses every game of ``specs`` and takes
    ``weights`` for all its agents, the others' files assumed unchanged. Returns how many games were dropped: none
    when the journal already names these networks, so a resume after a kill does not drop them again."""
    for spec in specs:
        if spec not in weights:
            raise ValueError(f"{spec!r} plays with no network file: only a changed network's games can be replayed")
    lines = path.read_bytes().splitlines(keepends=True)
    try:
        header = json.loads(lines[0])
        recorded = header["settings"].get("weights")
    except (IndexError, ValueError, TypeError, KeyError, AttributeError):
        raise JournalError(f"{path} line 1: not the settings line of an arena journal") from None
    if recorded is not None and not isinstance(recorded, dict):
        raise JournalError(f"{path} line 1: the network files (weights) are not an object")
    changed = {spec for spec in specs if recorded is None or recorded.get(spec) != weights[spec]}
    if not changed:
        return 0

    def replayed(line: bytes) -> bool:
        try:
            return not changed.isdisjoint(json.loads(line)["specs"])
        except (ValueError, TypeError, KeyError):
            return False  # not a game: left for open_journal to judge

    games = [line for line in lines[1:] if not replayed(line)]
    now = dict(weights) if recorded is None else {**recorded, **{spec: weights[spec] for spec in changed}}
    header["settings"]["weights"] = now
    atomic_write(path, lambda file: file.write(json.dumps(header).encode() + b"\n" + b"".join(games)))
    return len(lines) - 1 - len(games)


def _difference(name: str, there: Any, here: Any) -> str:
    """One setting that differs between a journal (``there``) and this tournament (``here``), said for a user."""
    if name == "weights" and isinstance(there, dict) and isinstance(here, dict):
        changed = sorted(spec for spec in {*there, *here} if there.get(spec) != here.get(spec))
        return f"the network file of {', '.join(map(repr, changed))} is not the one its games were played with"
    return f"{name} ({SETTING_OPTIONS.get(name, 'unknown')}) is {there!r} there, {here!r} here"


def _recorded_game(record: Any, tasks: list[GameTask]) -> GameResult:
    """The GameResult of a journal line, checked against the task of its index; ValueError says what is wrong."""
    names = [f.name for f in fields(GameResult)]
    if not isinstance(record, dict) or sorted(record) != sorted(names):
        raise ValueError(f"not a game (an object with the fields {', '.join(names)})")
    index = record["index"]
    if type(index) is not int or not 0 <= index < len(tasks):
        raise ValueError(f"game index {index!r} is not one of this tournament's 0 to {len(tasks) - 1}")
    task = tasks[index]
    if record["specs"] != list(task.specs) or record["opening"] != list(task.opening):
        raise ValueError(f"game {index} has other agents or another opening than this tournament's game {index}")
    winner, stores, plies, end_reason = record["winner"], record["stores"], record["plies"], record["end_reason"]
    if not (
        (winner is None or (type(winner) is int and winner in (0, 1)))
        and isinstance(stores, list)
        and len(stores) == 2
        and all(type(store) is int for store in stores)
        and type(plies) is int
        and plies >= 0
        and isinstance(end_reason, str)
    ):
        raise ValueError(f"game {index}: a bad winner, stores, plies or end reason")
    return GameResult(index, task.specs, task.opening, winner, tuple(stores), plies, end_reason)


# --- results and Elo ---------------------------------------------------------------------------------------------


def summarize(
    specs: list[str], seed: int, games: list[GameResult], prior_draws: float = 1.0, anchor: str | None = None
) -> TournamentResult:
    """Standings, per-pair counts and Elo from a list of games (mean 1500, or agent ``anchor`` at 0: :func:`elo`)."""
    index = {s: i for i, s in enumerate(specs)}
    n = len(specs)
    points = np.zeros((n, n))
    played = np.zeros((n, n))
    standings = [Standing(s) for s in specs]
    wdl = np.zeros((n, n, 3), dtype=np.int64)  # wins, draws, losses of row against column
    for g in games:
        for seat in (0, 1):
            me, other = index[g.specs[seat]], index[g.specs[1 - seat]]
            s = g.score(seat)
            points[me, other] += s
            played[me, other] += 1
            outcome = 0 if s == 1.0 else (1 if s == 0.5 else 2)
            wdl[me, other, outcome] += 1
    ratings, low, high = elo(points, played, prior_draws, None if anchor is None else index[anchor])
    for i, st in enumerate(standings):
        st.wins, st.draws, st.losses = (int(x) for x in wdl[i].sum(axis=0))
        st.games = st.wins + st.draws + st.losses
        st.elo, st.elo_low, st.elo_high = round(ratings[i], 1), round(low[i], 1), round(high[i], 1)
    pairs = [
        {"agent": specs[i], "opponent": specs[j], "wins": int(wdl[i, j, 0]), "draws": int(wdl[i, j, 1]),
         "losses": int(wdl[i, j, 2])}
        for i in range(n) for j in range(n) if i != j and played[i, j]
    ]  # fmt: skip
    standings.sort(key=lambda s: -s.elo)
    return TournamentResult(list(specs), seed, list(games), standings, pairs)


def elo(
    points: np.ndarray, played: np.ndarray, prior_draws: float = 1.0, anchor: int | None = None, iterations: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximum-likelihood Elo ratings and 95 % confidence bounds (see the module docstring).

    ``points[i, j]`` is what agent i scored against j (win 1, draw 0.5) in ``played[i, j]`` games. Ratings have
    mean 1500, or agent ``anchor`` at 0. Returns (ratings, lower bounds, upper bounds).
    """
    points = np.asarray(points, dtype=float)
    played = np.asarray(played, dtype=float)
    n = len(played)
    met = (played + played.T) > 0
    np.fill_diagonal(met, False)
    points = points + 0.5 * prior_draws * met
    played = played + prior_draws * met
    theta = np.zeros(n)
    centre = np.full((n, n), 1.0 / n)  # fixes the free shift: solve on the sum-zero subspace
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        gradient = (points - played * p).sum(axis=1)
        weights = played * p * p.T
        laplacian = np.diag(weights.sum(axis=1)) - weights
        step = np.linalg.solve(laplacian + centre, gradient)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    covariance = np.linalg.inv(laplacian + centre) - centre
    if anchor is None:
        ratings = 1500.0 + ELO_SCALE * theta
        spread = ELO_SCALE * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    else:
        ratings = ELO_SCALE * (theta - theta[anchor])
        var = np.diag(covariance) + covariance[anchor, anchor] - 2 * covariance[:, anchor]
        spread = ELO_SCALE * np.sqrt(np.maximum(var, 0.0))
    return ratings, ratings - Z_95 * spread, ratings + Z_95 * spread


# --- reporting ---------------------------------------------------------------------------------------------------


def format_table(result: TournamentResult) -> str:
    """The standings (best Elo first) and the cross table of wins-draws-losses of each row against each column."""
    names = [s.agent for s in result.standings]
    width = max(len("agent"), *(len(n) for n in names))
    lines = [f"{'agent':<{width}}  games   wins  draws losses  score     Elo   95% CI"]
    for s in result.standings:
        lines.append(
            f"{s.agent:<{width}}  {s.games:5d}  {s.wins:5d}  {s.draws:5d}  {s.losses:5d}  {s.score:6.1%}"
            f"  {s.elo:6.0f}   [{s.elo_low:.0f}, {s.elo_high:.0f}]"
        )
    counts = {(p["agent"], p["opponent"]): f"{p['wins']}-{p['draws']}-{p['losses']}" for p in result.pairs}
    cell = max(11, *(len(c) for c in counts.values()))
    header = "  ".join(f"{f'#{k + 1}':>{cell}}" for k in range(len(names)))
    lines += ["", f"{'wins-draws-losses':<{width + 3}}{header}"]
    for k, row in enumerate(names):
        cells = ("" if row == col else counts.get((row, col), "") for col in names)
        lines.append(f"{f'#{k + 1} {row}':<{width + 3}}" + "  ".join(f"{c:>{cell}}" for c in cells))
    return "\n".join(lines)


def write_results(result: TournamentResult, out: Path) -> list[Path]:
    """Write ``results.json`` (everything), ``standings.csv``, ``games.csv`` and ``elo.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "standings.csv", out / "games.csv", out / "elo.png"]
    paths[0].write_text(json.dumps(result.to_json(), indent=1))
    rows = result.table()
    with paths[1].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with paths[2].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "seat0", "seat1", "winner", "store0", "store1", "plies", "end_reason", "opening"])
        for g in result.games:
            winner = "" if g.winner is None else g.winner
            opening = " ".join(map(str, g.opening))
            writer.writerow([g.index, *g.specs, winner, *g.stores, g.plies, g.end_reason, opening])
    plot_elo(result, paths[3])
    return paths


def plot_elo(result: TournamentResult, path: Path) -> None:
    """Elo ratings as points with their 95 % confidence intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    standings = result.standings[::-1]
    width = 5 + 0.09 * max(len(s.agent) for s in standings)  # room for long specs (paths) on the left
    fig, ax = plt.subplots(figsize=(width, 0.5 * len(standings) + 1.5))
    y = np.arange(len(standings))
    elos = np.array([s.elo for s in standings])
    errors = np.array([[s.elo - s.elo_low for s in standings], [s.elo_high - s.elo for s in standings]])
    ax.errorbar(elos, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(y, [s.agent for s in standings])
    ax.set_ylim(-0.5, len(standings) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("Elo (95 % CI)")
    ax.set_title(f"Round robin, {len(result.games)} games, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
