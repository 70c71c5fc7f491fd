"""awale_env: mancala games for reinforcement learning, the two-colour, 16-hole Awale first among them.

``State`` is the rules engine of the default game (the two-colour Awale), the game of every environment, agent and
trainer unless told otherwise; its moves are action indices 0-31 (``2 * (hole - 1) + colour``) or strings like
``"14B"``. Every game is in :mod:`awale_env.games` (``GAMES``, ``get_game``). ``env()`` / ``raw_env`` (PettingZoo)
and ``{name}_env()`` for each other game load the environments on first use; the Gymnasium and PettingZoo ids are
registered when those libraries are imported (:mod:`awale_env.registration`), so importing this package or a
game's compiled core alone loads neither.
"""

from __future__ import annotations

import importlib
from typing import Any

from awale_env.kernel_cache import choose_cache_dir

choose_cache_dir()  # first: where numba caches the kernels of the modules below (awale_env/kernel_cache.py)

from awale_env.errors import IllegalMoveError, RecordError
from awale_env.registration import register_environments

#: The default game's names of this package (``awale_env.State`` ...), each the attribute of its Game, found on first
#: use: importing this package (or one of its light modules) loads no game and no numba.
_DEFAULT_GAME_NAMES = {
    "State": "state_type",
    "NUM_ACTIONS": "num_actions",
    "format_move": "format_move",
    "parse_move": "parse_move",
}
#: The environments' factories, loaded from :mod:`awale_env.env` on first use.
#: The public names; ``{name}_env`` for each game but the default are too (not listed: listing them would import
#: every game).
__all__ = [
    "GameRecord",
    "IllegalMoveError",
    "NUM_ACTIONS",
    "RecordError",
    "State",
    "env",
    "format_move",
    "parse_move",
    "raw_env",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """The default game's State, moves and sizes, the GameRecord and the environments, loaded on first use (the
    environments import gymnasium and pettingzoo)."""
    if name == "GameRecord":
        from awale_env.record import GameRecord

        return GameRecord
    if name in _DEFAULT_GAME_NAMES or name == "env" or name.endswith("_env"):
        from awale_env.games import DEFAULT_GAME, GAMES

        if name in _DEFAULT_GAME_NAMES:
            globals()[name] = getattr(GAMES[DEFAULT_GAME], _DEFAULT_GAME_NAMES[name])
            return globals()[name]
        game = name.removesuffix("_env")
        if name in ("env", "raw_env") or (game != DEFAULT_GAME and game in GAMES):
            return getattr(importlib.import_module("awale_env.env"), name)
    raise AttributeError(f"module 'awale_env' has no attribute {name!r}")


register_environments()
