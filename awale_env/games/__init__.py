"""The games of the toolkit and the protocol they share (:class:`awale_env.games.base.Game`).

``GAMES`` maps each name to its :class:`Game`: ``"awale16"`` (the two-colour Awale, the default everywhere, whose
State stays ``awale_env.State``), ``"oware"`` and ``"hawalis"``. ``from awale_env.games import oware, hawalis`` gives
the other games' rule modules.
"""

from __future__ import annotations

from typing import Any

from awale_env.games import hawalis, oware
from awale_env.games.base import AWALE16, HAWALIS, OWARE, Game

__all__ = ["DEFAULT_GAME", "GAMES", "Game", "game_of", "get_game", "hawalis", "oware"]

GAMES: dict[str, Game] = {game.name: game for game in (AWALE16, OWARE, HAWALIS)}
#: The game every environment, agent and tool plays unless told otherwise.
DEFAULT_GAME = AWALE16.name

_BY_STATE_TYPE = {game.state_type: game for game in GAMES.values()}


def get_game(name_or_game: str | Game) -> Game:
    """The :class:`Game` of a name (``"awale16"``, ``"oware"``, ``"hawalis"``), or the Game itself."""
    if isinstance(name_or_game, Game):
        return name_or_game
    game = GAMES.get(name_or_game) if isinstance(name_or_game, str) else None
    if game is None:
        raise ValueError(f"unknown game {name_or_game!r}; the games are {', '.join(map(repr, GAMES))}")
    return game


def game_of(state: Any) -> Game:
    """The :class:`Game` a State belongs to (by its type)."""
    game = _BY_STATE_TYPE.get(type(state))
    if game is None:
        known = ", ".join(f"{g.state_type.__module__}.State" for g in GAMES.values())
        raise ValueError(f"{type(state).__name__!r} is not the State of a known game ({known})")
    return game
