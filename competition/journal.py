"""The arena's journal: with ``journal=PATH`` (``awale arena --out DIR`` keeps ``DIR/games.jsonl``) each game is
appended as it ends (one JSON object per line, after a first line holding the tournament's settings), and a resume
reads the games back and plays only the missing ones: a game is known by its task index (the tasks follow from the
settings), so the results are those of an uninterrupted run.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from agents.checkpoint import atomic_write
from awale_env.games import get_game
from competition.tasks import GameResult, GameTask

#: The journal's file name in the CLI's ``--out`` folder.
JOURNAL_NAME = "games.jsonl"
#: What the journal's first line says it is.
JOURNAL_FORMAT = "awale arena games"
JOURNAL_VERSION = 1
#: How every journal's first line begins (``json.dumps`` of its header, the format first).
HEADER_START = json.dumps({"format": JOURNAL_FORMAT})[:-1].encode()
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


class JournalError(ValueError):
    """A journal that cannot be resumed: other settings, or a malformed line (other than a last one cut short)."""


class JournalWarning(UserWarning):
    """A journal's last line was cut short (the arena was killed while writing it): its game is played again."""


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


def _cut_short(line: bytes, number: int, ended: bool) -> bool:
    """Whether a line that is not JSON is what a kill while writing it leaves: the file's last line, without its
    newline, and for the first line a piece of how every settings line begins (``{"format": ...``). Anything else is
    not this arena's journal, or a damaged one, and is never overwritten."""
    if ended:
        return False
    return number > 1 or HEADER_START.startswith(line) or line.startswith(HEADER_START)


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
    and opening), read as plain JSON. A last line cut short (no newline at its end, not JSON: the arena was killed while
    writing it) is dropped from the file with a JournalWarning, and its game played again; any other bad line is a
    JournalError, and the file is left as it was.
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
    data = path.read_bytes()
    lines = data.split(b"\n")
    ended = not lines[-1]
    if ended:
        lines.pop()  # the file ends with a whole line
    records: list[Any] = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except (ValueError, RecursionError):
            if number < len(lines) or not _cut_short(line, number, ended):
                what = " (not an arena journal: remove it or choose another --out DIR)" if number == 1 else ""
                raise JournalError(f"{path} line {number}: not JSON: {line[:80]!r}{what}") from None
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
    elif not data.endswith(b"\n"):  # a whole last game whose newline was not written: end its line before appending
        with path.open("ab") as file:
            file.write(b"\n")
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
    rules = get_game(task.game)
    if min(stores) < 0 or sum(stores) > rules.total_seeds:
        raise ValueError(f"game {index}: stores {stores} are impossible in {rules.name} ({rules.total_seeds} seeds)")
    if winner != (None if stores[0] == stores[1] else int(stores[1] > stores[0])):
        raise ValueError(f"game {index}: winner {winner!r} is not the one the stores {stores} give (the player who "
                         "captured more; null for a draw)")  # fmt: skip
    if end_reason not in rules.end_reasons[1:]:
        raise ValueError(f"game {index}: end reason {end_reason[:40]!r} is none of {rules.name}'s "
                         f"({', '.join(rules.end_reasons[1:])})")  # fmt: skip
    if plies < len(task.opening) or (task.max_plies is not None and plies > task.max_plies):
        raise ValueError(f"game {index}: {plies} plies, not between its opening's {len(task.opening)} and the "
                         f"limit {task.max_plies}")  # fmt: skip
    return GameResult(index, task.specs, task.opening, winner, tuple(stores), plies, end_reason)
