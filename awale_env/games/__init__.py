"""The registry of the toolkit's games: the only list of games, which environments, agents, trainers and
applications read.

Every subpackage of ``awale_env.games`` is a game, or machinery games build on (the course editions',
:mod:`awale_env.games.editions`, registers none): importing this package imports each of them, and each game registers
its :class:`~awale_env.games.base.Game` at the bottom of its ``__init__.py`` (:func:`register`), the default game with
``default=True``. A game defined elsewhere (a test's toy game) registers the same way. ``from awale_env.games import
<name>`` gives a game's package.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from awale_env.games.base import Game

__all__ = ["DEFAULT_GAME", "GAMES", "Game", "game_of", "get_game", "register"]

#: Every registered game by name, in the order they registered (the default game first).
GAMES: dict[str, Game] = {}
_BY_STATE_TYPE: dict[type, Game] = {}
_default: list[str] = []


def register(game: Game, default: bool = False) -> Game:
    """Add ``game`` to :data:`GAMES` (``default``: the game every environment, agent and tool plays unless told
    otherwise; one game only). ValueError for a second game of the same name or State class, or a second default."""
    if not isinstance(game, Game):
        raise ValueError(f"register takes a Game, got {game!r}")
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} is registered already")
    if game.state_type in _BY_STATE_TYPE:
        raise ValueError(f"{game.state_type.__qualname__} is the State of {_BY_STATE_TYPE[game.state_type].name!r}")
    if default and _default:
        raise ValueError(f"{_default[0]!r} is the default game already; {game.name!r} cannot be too")
    if default:
        _default.append(game.name)
        games = dict(GAMES)
        GAMES.clear()
        GAMES.update({game.name: game, **games})
    else:
        GAMES[game.name] = game
    _BY_STATE_TYPE[game.state_type] = game
    game.state_type.game = game
    return game


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


for _package in pkgutil.iter_modules(__path__, f"{__name__}."):
    if _package.ispkg:
        importlib.import_module(_package.name)

if not _default:
    raise RuntimeError(f"no game package under {__path__[0]} registered itself as the default game")
#: The name of the game every environment, agent and tool plays unless told otherwise.
DEFAULT_GAME = _default[0]
