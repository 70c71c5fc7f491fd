"""The registry of the toolkit's games: the only list of games, which environments, agents, trainers and
applications read.

Every subpackage of ``awale_env.games`` is a game, or machinery games build on (the course editions',
:mod:`awale_env.games.editions`, registers none), and each game registers its :class:`~awale_env.games.base.Game` at
the bottom of its ``__init__.py`` (:func:`register`), the default game with ``default=True``. A game defined
elsewhere (a test's toy game) registers the same way. ``from awale_env.games import <name>`` gives a game's package.

The registry is lazy: a game's package (its compiled rules with it), which bears the game's name, is imported when
the game is first looked up by name (``GAMES[name]``, ``name in GAMES``, :func:`get_game`), and every package when
the games are listed (iterating :data:`GAMES`), so that a program that plays one game (``awale bot``'s engine) loads
only that one. Importing this package imports none of them (nor numba): :data:`DEFAULT_GAME`, when first read,
imports the packages in their order until the default game has registered itself (the first one today), so that a
program that needs no game (``awale --help``) loads no rules.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, MutableMapping
from typing import Any

from awale_env.games.base import Game

__all__ = ["DEFAULT_GAME", "GAMES", "Game", "game_of", "get_game", "register"]

#: The subpackages of this package, in their order: each a game's, or machinery (found without importing them).
PACKAGES = tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg))
_BY_STATE_TYPE: dict[type, Game] = {}
_default: list[str] = []


def _load_package(name: str) -> None:
    """Import the subpackage ``name`` (if there is one), which registers its game."""
    if name in PACKAGES:
        importlib.import_module(f"{__name__}.{name}")


class GameRegistry(MutableMapping[str, Game]):
    """Every registered game by name (the default game first, then the packages' games in their order, then games
    registered from elsewhere), each package imported when its game is first looked up (see the module's
    docstring). Setting and deleting entries is for tests that put the registry back as it was."""

    def __init__(self) -> None:
        self._games: dict[str, Game] = {}

    def __getitem__(self, name: str) -> Game:
        if name not in self._games and isinstance(name, str):
            _load_package(name)
        return self._games[name]

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        for package in PACKAGES:
            _load_package(package)
        order = {name: None for name in (*_default[:1], *PACKAGES) if name in self._games}
        return iter([*order, *(name for name in self._games if name not in order)])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __setitem__(self, name: str, game: Game) -> None:
        self._games[name] = game

    def __delitem__(self, name: str) -> None:
        del self._games[name]

    def __repr__(self) -> str:
        return f"GameRegistry({', '.join(self)})"

    def registered(self) -> tuple[Game, ...]:
        """The games registered so far, in the order they registered, without importing any package."""
        return tuple(self._games.values())

    def register(self, game: Game, default: bool) -> Game:
        if not isinstance(game, Game):
            raise ValueError(f"register takes a Game, got {game!r}")
        if game.name in self._games:
            raise ValueError(f"a game named {game.name!r} is registered already")
        if game.state_type in _BY_STATE_TYPE:
            raise ValueError(f"{game.state_type.__qualname__} is the State of {_BY_STATE_TYPE[game.state_type].name!r}")
        if default and _default:
            raise ValueError(f"{_default[0]!r} is the default game already; {game.name!r} cannot be too")
        folder = game.package.removeprefix(f"{__name__}.")
        if folder != game.package and folder.partition(".")[0] != game.name:
            raise ValueError(f"the game of {game.package} must be named {folder.partition('.')[0]!r} (the registry "
                             f"finds a game by its package's name), not {game.name!r}")  # fmt: skip
        if default:
            _default.append(game.name)
        self._games[game.name] = game
        _BY_STATE_TYPE[game.state_type] = game
        game.state_type.game = game
        return game


#: Every registered game by name (a :class:`GameRegistry`: the default game first).
GAMES = GameRegistry()


def register(game: Game, default: bool = False) -> Game:
    """Add ``game`` to :data:`GAMES` (``default``: the game every environment, agent and tool plays unless told
    otherwise; one game only). ValueError for a second game of the same name or State class, or a second default."""
    return GAMES.register(game, default)


def get_game(name_or_game: str | Game) -> Game:
    """The registered :class:`Game` of a name, or the Game itself."""
    if isinstance(name_or_game, Game):
        return name_or_game
    game = GAMES.get(name_or_game) if isinstance(name_or_game, str) else None
    if game is None:
        raise ValueError(f"unknown game {name_or_game!r}; the games are {', '.join(map(repr, GAMES))}")
    return game


def game_of(state: Any) -> Game:
    """The registered :class:`Game` a State belongs to (by its type)."""
    game = _BY_STATE_TYPE.get(type(state))
    if game is None:
        known = ", ".join(f"{g.state_type.__module__}.{g.state_type.__qualname__}" for g in GAMES.values())
        raise ValueError(f"{type(state).__name__!r} is not the State of a known game ({known})")
    return game


#: The name of the game every environment, agent and tool plays unless told otherwise (read through
#: :func:`__getattr__`: its package is imported when it is first read).
DEFAULT_GAME: str


def _default_game() -> str:
    """The name of the default game, its package imported (the packages in their order until it has registered)."""
    for package in PACKAGES:
        if _default:
            break
        _load_package(package)
    if not _default:
        raise RuntimeError(f"no game package under {__path__[0]} registered itself as the default game")
    return _default[0]


def __getattr__(name: str) -> Any:
    """:data:`DEFAULT_GAME`, found when first read (see the module's docstring)."""
    if name == "DEFAULT_GAME":
        globals()[name] = _default_game()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
