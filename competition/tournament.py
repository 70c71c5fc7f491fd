"""Tournaments of course programs and toolkit agents (``awale tournament PLAYERS.toml``): a round robin where every
move is checked by the engine and every result kept in the results store (:mod:`competition.store`).

Players come from a TOML file, one ``[[player]]`` table each with a ``name`` and either a ``command`` (a program
speaking the course protocol, run contained by :mod:`competition.programs`, with an optional ``prepare``
command run before its first game on each machine: ``awale bot --prepare ...``) or an ``agent`` spec of the toolkit
(played in the worker process, timed like a program, built and warmed up there before its first move:
:class:`competition.tasks.PreparedAgents`). Every pair meets ``games_per_pair`` times (even:
mirrored pairs, seats swapped), from the initial position, or with ``openings`` random plies played first (between
agents only: the course protocol cannot tell a program a position). Each game is a task (:class:`ProgramTask`)
computed up front from the settings and played on the worker pool (:mod:`competition.pool`: processes here
or Ray actors); the driver writes each game into the store as it ends, in one transaction, and a program's standard
error, capped, into one log file per game and program beside the store. The same command again after a kill plays
only the games the store lacks.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import tomllib

from agents.base import game_refusal, reset_agent, weights_digest
from agents.registry import make
from awale_env.games import get_game
from competition.pool import run_tasks
from competition.programs import MAX_SECONDS, Program, command_digest, exit_status, split_command
from competition.ratings import Outcome, Standing
from competition.refereed_game import AgentPlayer, GameReport, Player, RefereedGame
from competition.store import FAULT_KINDS, FaultRecord, Move, PlayerEntry, Store
from competition.tasks import PreparedAgents, check_round, prepared_agent, schedule

#: The course's time per move and start-up allowance, in seconds (docs/editions.md).
COURSE_SECONDS = 3.0
#: Each program's default address-space limit in MiB: three times what ``awale bot`` with a network takes.
DEFAULT_MEMORY_MB = 4096
#: The largest limit: 1 TiB, beyond any machine a tournament runs on (and within what ``RLIMIT_AS`` holds).
MAX_MEMORY_MB = 1 << 20
#: Bytes of a program's standard error kept per game (its log file).
LOG_CAP = 256 * 1024
#: The event name of a tournament in its store.
EVENT_NAME = "tournament"
#: The longest a program's preparation (its ``prepare`` command) may take, in seconds.
PREPARE_SECONDS = 1800.0


class PlayersError(ValueError):
    """A players file that cannot be used: the message names the file, the entry and the field (or the player whose
    ``prepare`` command failed)."""


@dataclass(frozen=True)
class PlayerSpec:
    """A player as the workers need it: its name, ``command`` (``argv``, and its preparation's ``prepare``) or
    ``agent`` (``spec``)."""

    name: str
    kind: str
    spec: str
    argv: tuple[str, ...] = ()
    prepare: tuple[str, ...] = ()


def load_players(path: Path, game: str) -> list[tuple[PlayerSpec, PlayerEntry]]:
    """The players of a TOML file (``[[player]]`` tables with ``name`` and one of ``command`` / ``agent``; a command
    may have a ``prepare`` command), checked: a command's program must exist (and its preparation's), an agent's spec
    must build and play ``game``. Each with its store entry (the digest of its executable or network file).
    PlayersError names the file, the entry and the field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PlayersError(f"cannot read {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PlayersError(f"{path} is not TOML: {error}") from None
    except RecursionError:
        deep = f"{path}: values nested too deep (a players file holds [[player]] tables of texts)"
        raise PlayersError(deep) from None
    entries = data.get("player")
    unknown = sorted(set(data) - {"player"})
    if unknown:
        raise PlayersError(f"{path}: unknown table or key {unknown[0]!r}; the file holds [[player]] tables only")
    if not isinstance(entries, list) or len(entries) < 2:
        raise PlayersError(f"{path}: a tournament needs at least 2 [[player]] tables (each a name and a command or an "
                           "agent)")  # fmt: skip
    players, names = [], set()
    for number, entry in enumerate(entries, 1):
        where = f"{path}: player {number}"
        if not isinstance(entry, dict):
            raise PlayersError(f"{where}: not a [[player]] table (a name and a command or an agent)")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 100:
            raise PlayersError(f"{where}: field 'name' must be a non-empty text of at most 100 characters")
        where += f" ({name!r})"
        if name in names:
            raise PlayersError(f"{where}: field 'name': another player has this name")
        names.add(name)
        extra = sorted(set(entry) - {"name", "command", "agent", "prepare"})
        if extra:
            raise PlayersError(f"{where}: unknown field {extra[0]!r}; a player has a name and a command (and its "
                               "prepare command) or an agent")  # fmt: skip
        if ("command" in entry) == ("agent" in entry):
            raise PlayersError(f"{where}: give exactly one of the fields 'command' and 'agent'")
        kind = "command" if "command" in entry else "agent"
        spec = entry[kind]
        if not isinstance(spec, str) or not spec.strip():
            raise PlayersError(f"{where}: field {kind!r} must be a non-empty text")
        prepare = entry.get("prepare")
        if prepare is not None and kind == "agent":
            raise PlayersError(f"{where}: field 'prepare' is for a command (an agent is prepared in its worker)")
        if prepare is not None and (not isinstance(prepare, str) or not prepare.strip()):
            raise PlayersError(f"{where}: field 'prepare' must be a non-empty text")
        field_name = kind
        try:
            if kind == "command":
                argv = tuple(split_command(spec))
                digest = command_digest(spec)
                field_name = "prepare"
                preparation = tuple(split_command(prepare)) if prepare is not None else ()
            else:
                argv, preparation = (), ()
                agent = make(spec)
                refusal = game_refusal(agent, spec, game)
                if refusal is not None:
                    raise ValueError(refusal)
                digest = weights_digest(agent, game)
        except ValueError as error:
            raise PlayersError(f"{where}: field {field_name!r}: {error}") from None
        players.append((PlayerSpec(name, kind, spec, argv, preparation), PlayerEntry(name, kind, spec, digest)))
    return players


@dataclass(frozen=True)
class TournamentSettings:
    """What fixes a tournament's games: the game and its rule flags, the ply limit, games per pair, random opening
    plies, the seed, the time per move and start-up (seconds) and each program's memory limit (MiB, 0: none)."""

    game: str
    rules: tuple[tuple[str, Any], ...] = ()
    max_plies: int | None = None
    games_per_pair: int = 2
    openings: int = 0
    seed: int = 0
    seconds: float = COURSE_SECONDS
    startup: float = COURSE_SECONDS
    memory_mb: int = DEFAULT_MEMORY_MB

    def check(self, players: list[PlayerSpec]) -> None:
        """ValueError naming the first bad setting and what it allows."""
        check_round(self.games_per_pair, self.seed, "--games-per-pair")
        if not 0 < self.seconds <= MAX_SECONDS or not 0 <= self.startup <= MAX_SECONDS:
            raise ValueError(f"--time must be in (0, {MAX_SECONDS:g}] s and --startup in [0, {MAX_SECONDS:g}] s; got "
                             f"{self.seconds:g} and {self.startup:g}")  # fmt: skip
        if self.openings < 0 or self.seed < 0 or self.memory_mb < 0:
            raise ValueError("--openings, --seed and --memory must not be negative")
        if self.memory_mb > MAX_MEMORY_MB:
            raise ValueError(f"--memory must be at most {MAX_MEMORY_MB} MiB (1 TiB; 0: no limit), got {self.memory_mb}")
        programs = [p.name for p in players if p.kind == "command"]
        if self.openings and programs:
            raise ValueError(f"--openings needs agents only: the course protocol cannot tell a program a position, and "
                             f"{programs[0]!r} is a command")  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "rules": dict(self.rules)}


@dataclass(frozen=True)
class ProgramTask:
    """One tournament game: the players in seat 0 (JoueurA, moves first) and 1, the opening, each seat's agent seed,
    the settings and the seed of the starting position. :meth:`play` runs it wherever it lands."""

    index: int
    players: tuple[PlayerSpec, PlayerSpec]
    opening: tuple[int, ...]
    agent_seeds: tuple[int, int]
    start_seed: int
    settings: TournamentSettings

    @property
    def number(self) -> int:
        """The game's number as users count: its task index + 1 (the console, the logs, the web page)."""
        return self.index + 1

    @property
    def label(self) -> str:
        return f"game {self.number} ({self.players[0].name} against {self.players[1].name})"

    @property
    def game(self) -> str:
        return self.settings.game

    @property
    def agent_specs(self) -> tuple[str, ...]:
        """The specs of the agents among the players (a Ray driver ships their weights files:
        competition.ray_backend)."""
        return tuple(player.spec for player in self.players if player.kind == "agent")

    def play(self, agent: PreparedAgents | None = None) -> TournamentGame:
        """Play the game (programs started afresh, agents built once per process and warmed up by ``agent``, default
        :data:`~competition.tasks.prepared_agent`); the report, each program's standard error and the
        warm-ups this game's agents needed first (a fresh process's)."""
        s = self.settings
        game = get_game(s.game)
        programs: dict[str, Program] = {}
        logs: dict[str, bytes] = {}
        memory = s.memory_mb * 1024 * 1024 or None
        # Before any clock runs: each program's preparation (once per process) and each agent built and warmed up.
        for player in self.players:
            if player.prepare and (player.name, player.prepare) not in _PREPARED:
                prepare_program(player, memory)
                _PREPARED.add((player.name, player.prepare))
        source = agent or prepared_agent
        warmed = len(source.warm_ups)
        built = {p.name: source(p.spec, s.game, s.rules) for p in self.players if p.kind == "agent"}
        warm_ups = [(spec, seconds) for spec, _, seconds in source.warm_ups[warmed:]]

        def start(index: int, seat: str) -> Player:
            player = self.players[index]
            if player.kind == "agent":
                reset_agent(built[player.name], self.agent_seeds[index])
                return AgentPlayer(built[player.name], game)
            programs[player.name] = Program(list(player.argv), seat, memory=memory, stderr_cap=LOG_CAP,
                                            keep_stderr=True)  # fmt: skip
            return programs[player.name]

        refereed = RefereedGame(game, dict(s.rules), s.max_plies, start, 1, s.seconds, s.startup,
                                opening=self.opening, seed=self.start_seed)  # fmt: skip
        report = refereed.play()
        for name, program in programs.items():
            logs[name] = program.stderr_bytes or b""
        opening = [game.format_move(a) for a in self.opening]
        names = (self.players[0].name, self.players[1].name)
        return TournamentGame(self.index, names, opening, report, self.start_seed, logs, warm_ups)


#: The preparations run in this process, as ``(player name, command)``: each runs once per process (per machine).
_PREPARED: set[tuple[str, tuple[str, ...]]] = set()


def prepare_program(player: PlayerSpec, memory: int | None = None) -> None:
    """Run the ``prepare`` command of a program entry (``awale bot --prepare ...``: what it does once on a machine
    before its games, such as loading its engine into caches) to its end, untimed, contained as its games are (its
    own process group under the guard, the memory limit ``memory`` in bytes, standard error capped); PlayersError
    naming the player, with the end of its standard error, if it fails or takes over :data:`PREPARE_SECONDS`."""
    program = Program(list(player.prepare), None, memory=memory, stderr_cap=LOG_CAP)
    try:
        code: int | None = program.process.wait(timeout=PREPARE_SECONDS)
    except subprocess.TimeoutExpired:
        code = None
    tail = program.stderr_tail()
    program.finish()
    if code != 0:
        ended = f"took over {PREPARE_SECONDS:g} s" if code is None else f"ended with {exit_status(code)}"
        raise PlayersError(f"player {player.name!r}: its preparation {' '.join(player.prepare)!r} {ended}"
                           + (f" [stderr: {tail}]" if tail else ""))  # fmt: skip


@dataclass
class TournamentGame:
    """A played tournament game: its task index, the players' names by seat, the opening as moves, the referee's
    report (seats: 1 is seat 0), the seed of its starting position, each program's standard error (capped) and the
    agents warmed up before it (their first game in a process: ``(spec, seconds)``)."""

    index: int
    players: tuple[str, str]
    opening: list[str]
    report: GameReport
    start_seed: int | None = None
    logs: dict[str, bytes] = field(default_factory=dict)
    warm_ups: list[tuple[str, float]] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.index + 1


def make_program_tasks(players: list[PlayerSpec], settings: TournamentSettings) -> list[ProgramTask]:
    """The games of the round robin (:func:`competition.tasks.schedule`: mirrored pairs, seats swapped)."""
    s = settings
    pairings = schedule(len(players), s.games_per_pair, s.seed, s.openings, s.max_plies, s.game, s.rules)
    return [ProgramTask(index, (players[p.seats[0]], players[p.seats[1]]), p.opening, p.agent_seeds, p.start_seed, s)
            for index, p in enumerate(pairings)]  # fmt: skip


def log_folder(db: Path) -> Path:
    """Where a tournament's log files go: ``<db name>-logs/`` beside the store."""
    return db.with_name(db.name + "-logs")


def store_report(store: Store, event: int, task: int, names: tuple[str, str], report: GameReport,
                 opening: list[str] | None = None, start_seed: int | None = None) -> None:  # fmt: skip
    """A refereed game into the store, in one transaction: ``names`` are the match's players 1 and 2 (the numbers of
    ``report.seats``), ``opening`` the moves played before theirs."""
    opening = opening or []
    first = len(opening)
    seats = report.movers  # who played each move (a move can give another turn); else the seats alternate
    if len(seats) != first + len(report.moves):
        seats = [ply % 2 for ply in range(first + len(report.moves))]
    moves = [Move(ply, seats[ply - 1], move, None) for ply, move in enumerate(opening, 1)]
    moves += [Move(first + n, seats[first + n - 1], move, seconds)
              for n, (move, seconds) in enumerate(zip(report.moves, report.times), 1)]  # fmt: skip
    fault = None
    if report.faulty is not None:
        fault = FaultRecord(names[report.faulty - 1], report.end, report.fault_ply or 0, report.fault_answer,
                            report.fault_position, report.detail)  # fmt: skip
    outcome = report_outcome(names, report)
    store.add_game(event, task, outcome.players, outcome.winner, report.scores, report.plies, report.end, opening,
                   moves, fault, start_seed)  # fmt: skip


def report_outcome(names: tuple[str, str], report: GameReport) -> Outcome:
    """How a refereed game ended, by seat: ``names`` are the match's players 1 and 2 (the numbers of
    ``report.seats``)."""
    winner = None if report.winner is None else report.seats.index(report.winner)
    fault = None if report.faulty is None else (report.seats.index(report.faulty), report.end)
    return Outcome((names[report.seats[0] - 1], names[report.seats[1] - 1]), winner, fault)


def record_game(store: Store, event: int, played: TournamentGame, logs: Path | None) -> None:
    """A played tournament game into the store and its programs' standard error into ``logs``."""
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        for name, text in played.logs.items():
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
            (logs / f"game{played.number:05d}-{safe}.log").write_bytes(text)
    store_report(store, event, played.index, played.players, played.report, played.opening, played.start_seed)


def run_tournament(
    store: Store,
    players: list[tuple[PlayerSpec, PlayerEntry]],
    settings: TournamentSettings,
    workers: int = 1,
    backend: str = "process",
    address: str | None = None,
    progress: bool = True,
    logs: Path | None = None,
    echo: Callable[[str], Any] | None = None,
) -> int:
    """Play the games of the tournament that ``store`` lacks (all of them the first time) and record each as it
    ends; returns the event id. StoreError if the store holds a tournament with other settings or players."""
    specs = [spec for spec, _ in players]
    settings.check(specs)
    if backend == "process":  # the workers share this machine: each program is prepared once, here, before any game
        for spec in specs:
            if spec.prepare:
                if echo is not None:
                    echo(f"preparing {spec.name}: {' '.join(spec.prepare)}")
                prepare_program(spec, settings.memory_mb * 1024 * 1024 or None)
        specs = [replace(spec, prepare=()) for spec in specs]
    event_settings = {"players": [asdict(entry) for _, entry in players], **settings.to_json()}
    event = store.event("tournament", EVENT_NAME, settings.game, event_settings, [entry for _, entry in players])
    tasks = make_program_tasks(specs, settings)
    done = store.played_tasks(event)
    missing = [task for task in tasks if task.index not in done]
    if echo is not None:
        echo(f"{len(tasks)} games, {len(done)} in {store.path} already, {len(missing)} to play on {workers} worker(s)")

    def finished(played: TournamentGame) -> None:
        record_game(store, event, played, logs)
        if echo is not None and played.warm_ups:
            warmed = ", ".join(f"{spec} in {seconds:.1f} s" for spec, seconds in played.warm_ups)
            echo(f"game {played.number}: agents warmed up in its worker before the first move: {warmed}")
        if echo is not None and played.report.faulty is not None:
            echo(f"game {played.number}: {played.players[played.report.faulty - 1]} lost by "
                 f"{played.report.end}: {played.report.detail}")  # fmt: skip

    run_tasks(missing, workers, progress, backend, address, finished, name="tournament")
    return event


# --- standings ------------------------------------------------------------------------------------------------------


def standings_table(rows: list[Standing]) -> str:
    """The standings as a text table: rank, player, points, W-D-L, games, faults by kind, Elo [95 % interval]."""
    header = ("#", "player", "points", "W-D-L", "games", "faults", "Elo", "95% CI")
    lines = [header]
    for rank, row in enumerate(rows, 1):
        faults = ", ".join(f"{count} {kind}" for kind, count in sorted(row.faults.items())) or "-"
        interval = f"[{row.elo_low:.0f}, {row.elo_high:.0f}]"
        lines.append((str(rank), row.player, f"{row.points:g}", f"{row.wins}-{row.draws}-{row.losses}",
                      str(row.games), faults, f"{row.elo:.0f}", interval))  # fmt: skip
    widths = [max(len(line[c]) for line in lines) for c in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def standings_records(rows: list[Standing]) -> list[dict[str, Any]]:
    """The standings as flat records (one column per fault kind), for CSV and JSON."""
    return [
        {"rank": rank, "player": row.player, "points": row.points, "wins": row.wins, "draws": row.draws,
         "losses": row.losses, "games": row.games,
         **{f"faults_{kind}": row.faults.get(kind, 0) for kind in FAULT_KINDS},
         "elo": row.elo, "elo_low": row.elo_low, "elo_high": row.elo_high}
        for rank, row in enumerate(rows, 1)
    ]  # fmt: skip


def standings_csv(rows: list[Standing]) -> str:
    records = standings_records(rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]) if records else ["rank", "player"])
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def standings_json(rows: list[Standing]) -> str:
    return json.dumps(standings_records(rows), indent=1)
