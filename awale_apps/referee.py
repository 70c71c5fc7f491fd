"""``awale referee``: games between two player programs through the course referee's protocol (docs/editions.md), so
that a student can test a bot against the toolkit's ``awale bot`` before a tournament.

The games are played by :mod:`competition.programs` (each program started afresh under a guard that ends
its whole process group on every exit path, every answer checked by the engine and timed, output capped); this
module keeps the match's standings, prints them, and keeps the results: ``--out`` rewritten atomically as each game
ends (a killed referee leaves the games it finished), ``--db`` in the results store every competition shares
(:mod:`competition.store`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agents.checkpoint import atomic_write
from awale_env.games import Game
from competition.programs import MAX_SECONDS, Program, command_digest, split_command
from competition.ratings import Standing, tally
from competition.refereed_game import SEAT_ARGUMENTS, GameReport, RefereedGame
from competition.store import PlayerEntry, Store
from competition.tournament import report_outcome, store_report

#: The two programs' names in the standings and the store, in the order of the command line.
PROGRAMS = ("program 1", "program 2")


def match_standings(reports: list[GameReport]) -> list[Standing]:
    """The standings of program 1 and program 2 after ``reports``."""
    return tally(list(PROGRAMS), (report_outcome(PROGRAMS, report) for report in reports)).standings


def answer_times(reports: list[GameReport]) -> list[tuple[float, float]]:
    """Per program, its longest first answer (start-up included) and its longest answer to any later move, in
    seconds, over ``reports``."""
    return [(max((r.first_answer[index] for r in reports), default=0.0),
             max((r.longest_answer[index] for r in reports), default=0.0)) for index in (0, 1)]  # fmt: skip


@dataclass(frozen=True)
class Match:
    """What ``awale referee`` plays: the two commands, the game and its rules, how many games, the seconds per answer
    and the start-up allowance, and how seats are given. ValueError for a bad setting or a command that cannot run."""

    commands: tuple[str, str]
    game: Game
    options: dict[str, Any]
    max_plies: int | None
    games: int
    seconds: float
    startup: float
    seat_style: str = "names"

    def __post_init__(self) -> None:
        if self.games < 1 or not 0 < self.seconds <= MAX_SECONDS or not 0 <= self.startup <= MAX_SECONDS:
            raise ValueError(f"need games >= 1, a time per move in (0, {MAX_SECONDS:g}] s and a start-up in "
                             f"[0, {MAX_SECONDS:g}] s; got {self.games}, {self.seconds}, {self.startup}")  # fmt: skip
        if self.seat_style not in SEAT_ARGUMENTS:
            raise ValueError(f"the seat style is one of {', '.join(SEAT_ARGUMENTS)}, got {self.seat_style!r}")
        for command in self.commands:
            split_command(command)


def referee(match: Match, on_game: Callable[[GameReport], Any] | None = None) -> list[GameReport]:
    """Play ``match.games`` games between the two commands (seats alternating, program 1 first in game 1);
    ``on_game`` is told each game as it ends."""
    argvs = tuple(split_command(command) for command in match.commands)
    reports = []
    for number in range(1, match.games + 1):
        report = RefereedGame(
            match.game,
            match.options,
            match.max_plies,
            lambda index, seat: Program(argvs[index], seat),
            number,
            match.seconds,
            match.startup,
            match.seat_style,
        ).play()
        reports.append(report)
        if on_game is not None:
            on_game(report)
    return reports


def format_game(report: GameReport) -> str:
    """One line of the results table for a game."""
    a, b = (f"program {seat}" for seat in report.seats)
    result = "draw" if report.winner is None else f"program {report.winner} wins"
    line = f"game {report.number:>3}: {a} (JoueurA) vs {b} (JoueurB): {result}, {report.scores[0]}-"
    line += f"{report.scores[1]} after {report.plies} plies, {report.end}"
    return line + (f": {report.detail}" if report.detail else "")


def format_standings(commands: tuple[str, str], reports: list[GameReport]) -> str:
    """The results table per program."""
    rows = [("program", "wins", "draws", "losses", "lost by fault", "first answer", "longest later", "command")]
    times = answer_times(reports)
    for index, standing in enumerate(match_standings(reports)):
        faults = ", ".join(f"{count} {kind}" for kind, count in sorted(standing.faults.items())) or "-"
        rows.append((str(index + 1), str(standing.wins), str(standing.draws), str(standing.losses), faults,
                     *(f"{seconds:.2f} s" for seconds in times[index]), commands[index]))  # fmt: skip
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows)


def results_json(match: Match, reports: list[GameReport]) -> dict[str, Any]:
    """The match as a JSON-able dict: the settings, the programs' standings (with their commands and answer times)
    and every game."""
    programs = [
        {**standing.to_dict(), "command": command, "first_answer": first, "longest_answer": longest}
        for standing, command, (first, longest) in zip(match_standings(reports), match.commands, answer_times(reports))
    ]
    return {
        "game": match.game.name,
        "rules": match.options,
        "max_plies": match.max_plies,
        "time_per_move": match.seconds,
        "startup": match.startup,
        "programs": programs,
        "games": [asdict(report) for report in reports],
    }


def write_results(path: Path, results: dict[str, Any]) -> None:
    """``results`` as JSON into ``path``, atomically: the file holds the previous results or these, never a part."""
    text = (json.dumps(results, indent=1) + "\n").encode()
    atomic_write(path, lambda file: file.write(text))


def match_players(commands: tuple[str, str]) -> list[PlayerEntry]:
    """The two programs as players of the store."""
    return [PlayerEntry(name, "command", command, command_digest(command)) for name, command in zip(PROGRAMS, commands)]


def run_match(
    match: Match,
    out: Path | None = None,
    echo: Callable[[str], Any] = print,
    store: Store | None = None,
) -> dict[str, Any]:
    """``awale referee``: the match of :func:`referee`, each game's line echoed as it ends, then the table per
    program; the results as JSON into ``out`` when given, rewritten as each game ends, and each game into
    ``store`` (a new ``referee`` event) as it ends. Returns them."""
    event = None
    if store is not None:
        settings = {"programs": list(match.commands), "games": match.games, "rules": match.options,
                    "max_plies": match.max_plies, "time": match.seconds, "startup": match.startup,
                    "seat_style": match.seat_style}  # fmt: skip
        event = store.event("referee", "match", match.game.name, settings, match_players(match.commands), resume=False)
    played: list[GameReport] = []

    def on_game(report: GameReport) -> None:
        echo(format_game(report))
        played.append(report)
        if store is not None:
            store_report(store, event, report.number - 1, PROGRAMS, report)
        if out is not None:
            write_results(out, results_json(match, played))

    reports = referee(match, on_game)
    echo(f"{match.game.name}, {match.games} game(s), {match.seconds:g} s per answer (+{match.startup:g} s of start-up "
         "for a program's first); every answer checked against the rules: an illegal or malformed move loses for the "
         "program that wrote it (the course's referee checks none):")  # fmt: skip
    echo(format_standings(match.commands, reports))
    results = results_json(match, reports)
    if out is not None:
        write_results(out, results)
        echo(f"wrote {out}")
    return results
