"""What help pages say about the games (their names, rule flags and ply limits, and the default game), without
importing every game's package, and numba with them (about 1 CPU-s), in each program that shows one.

The facts are read from the registry once, then kept in a small JSON file beside the games' bytecode (their
``__pycache__``, or this user's cache folder when the package is read-only), valid while no source file of the games'
packages changes (each file's name, size and modification time, as Python's own bytecode is checked): the registry
stays the only list of games. The file holds data only and is checked field by field; anything else in its place is
ignored and written again. Games registered from elsewhere in this process (a test's toy game) are added as the
registry has them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs

from awale_env import games

#: The folder of the games' packages, whose source files the cached facts follow.
FOLDER = Path(games.__file__).resolve().parent
FILE_NAME = "game_facts.json"
#: The layout of the file; another one is read as no file.
FORMAT = 1
#: The most bytes the file may hold (it holds a few hundred): a larger one is ignored unread.
MAX_BYTES = 1 << 16


@dataclass(frozen=True)
class GameFacts:
    """One game as help pages name it."""

    name: str
    rule_options: tuple[str, ...]
    default_max_plies: int | None


@dataclass(frozen=True)
class GameList:
    """The registered games in the registry's order (:data:`awale_env.games.GAMES`), and the default game."""

    default: str
    games: tuple[GameFacts, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(facts.name for facts in self.games)


def sources(folder: Path = FOLDER) -> list[tuple[str, int, int]]:
    """Every Python source file under ``folder`` (bytecode folders left out): its path relative to ``folder``, size
    and modification time in nanoseconds."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                found += [(f"{entry.name}/{name}", size, mtime) for name, size, mtime in sources(Path(entry.path))]
            elif entry.name.endswith(".py") and entry.is_file():
                status = entry.stat()
                found.append((entry.name, status.st_size, status.st_mtime_ns))
    return sorted(found)


def fingerprint(folder: Path = FOLDER) -> str:
    """A digest of :func:`sources`: it changes whenever a game's source file is added, removed or changed."""
    return hashlib.sha256(json.dumps(sources(folder)).encode()).hexdigest()


def places() -> list[Path]:
    """Where the file is kept, in order of preference: beside the games' bytecode, else this user's cache folder (one
    file per installed copy of the package)."""
    copy = hashlib.sha256(str(FOLDER).encode()).hexdigest()[:16]
    return [FOLDER / "__pycache__" / FILE_NAME, platformdirs.user_cache_path("awale_env") / f"game_facts-{copy}.json"]


def facts_of(game: games.Game) -> GameFacts:
    return GameFacts(game.name, tuple(game.rule_options), game.default_max_plies)


def packaged(game: games.Game) -> bool:
    """Whether ``game`` is one of the packages under :data:`FOLDER` (not registered from elsewhere)."""
    return (game.package or "").startswith(f"{games.__name__}.")


def from_registry() -> GameList:
    """The facts of the games of the packages under :data:`FOLDER`, each package imported."""
    listed = tuple(facts_of(game) for game in games.GAMES.values() if packaged(game))
    return GameList(games.DEFAULT_GAME, listed)


def to_json(listing: GameList, digest: str) -> dict[str, Any]:
    rows = [[facts.name, list(facts.rule_options), facts.default_max_plies] for facts in listing.games]
    return {"format": FORMAT, "sources": digest, "default": listing.default, "games": rows}


def from_json(data: Any, digest: str) -> GameList | None:
    """The list a file's ``data`` holds, None unless it is of :data:`FORMAT`, made from the sources of ``digest`` and
    well formed in every field."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("sources") != digest:
        return None
    rows, default = data.get("games"), data.get("default")
    if not isinstance(rows, list) or not isinstance(default, str):
        return None
    listed = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str) and isinstance(row[1], list)):
            return None
        name, options, plies = row
        if not all(isinstance(option, str) for option in options):
            return None
        if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int)):
            return None
        listed.append(GameFacts(name, tuple(options), plies))
    if default not in {facts.name for facts in listed}:
        return None
    return GameList(default, tuple(listed))


def read(path: Path, digest: str) -> GameList | None:
    """The list kept at ``path`` for the sources of ``digest``; None when there is none, or another, or anything
    else (too large, not JSON, another layout)."""
    try:
        with path.open("rb") as file:
            text = file.read(MAX_BYTES + 1)
        return None if len(text) > MAX_BYTES else from_json(json.loads(text), digest)
    except (OSError, ValueError):
        return None


def write(listing: GameList, digest: str) -> None:
    """Keep ``listing`` in the first of :func:`places` that takes it, whole or not at all (another program may be
    reading it); nowhere if none does."""
    text = json.dumps(to_json(listing, digest))
    for path in places():
        written = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as file:
                written = Path(file.name)
                file.write(text)
            os.replace(written, path)
            return
        except OSError:
            if written is not None:
                written.unlink(missing_ok=True)  # a full disk: no half file left behind


@cache
def packaged_games() -> GameList:
    """The games of the packages under :data:`FOLDER`, from the kept file when it is up to date, else from the
    registry (then kept)."""
    digest = fingerprint()
    for path in places():
        listing = read(path, digest)
        if listing is not None:
            return listing
    listing = from_registry()
    write(listing, digest)
    return listing


def game_list() -> GameList:
    """The facts of every registered game in the registry's order, and the default game (see the module's
    docstring)."""
    listing = packaged_games()
    known = set(listing.names)
    others = tuple(facts_of(game) for game in games.GAMES.registered() if game.name not in known)
    return GameList(listing.default, listing.games + others)
