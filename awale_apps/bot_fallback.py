"""The fallback player of ``awale bot``: the game's rules in plain Python and a shallow search, which answer a move
within half a second of its line while the full agent loads in its own process (:mod:`awale_apps.bot_engine`).
Standard library only: loading this module and a game's plain rules takes milliseconds.

A game ships its plain rules as ``plain.py`` in its package (``RULES``: a class taking ``max_plies`` and the rule
flags); :func:`plain_rules` loads that file by its path, under a private package name, so that the game package's
``__init__`` (and with it numpy and numba) is not imported. A game without such a file has no fallback: the bot
loads its compiled rules instead (:class:`CompiledRules`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
import types
from pathlib import Path
from typing import Any

#: The private package the plain rules files are loaded under (their relative imports resolve inside it).
PLAIN_PACKAGE = "_awale_plain_rules"
#: The score of a won position beyond any difference of stores.
WIN = 1000


def games_folder() -> Path | None:
    """The folder of the game packages of the installed (or first on the path) ``awale_env``, found without
    importing it."""
    spec = importlib.util.find_spec("awale_env")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "games"


def plain_rules(game: str) -> type | None:
    """The plain-Python rules class of ``game`` (a registry name), None when the game has none."""
    folder = games_folder()
    if folder is None or not game.isidentifier() or not (folder / game / "plain.py").is_file():
        return None
    if PLAIN_PACKAGE not in sys.modules:
        root = types.ModuleType(PLAIN_PACKAGE, "The games' plain rules files, loaded without their packages.")
        root.__path__ = [str(folder)]
        sys.modules[PLAIN_PACKAGE] = root
        for package in folder.iterdir():
            if (package / "plain.py").is_file() and package.name.isidentifier():
                module = types.ModuleType(f"{PLAIN_PACKAGE}.{package.name}")
                module.__path__ = [str(package)]
                sys.modules[module.__name__] = module
    return importlib.import_module(f"{PLAIN_PACKAGE}.{game}.plain").RULES


class CompiledRules:
    """A registered game with its rule flags and ply limit, with the API of the plain rules (``name``,
    ``initial()``, ``parse_move``, ``format_move``): for a game without plain rules, loaded when first needed."""

    def __init__(self, game: Any, options: dict[str, Any], max_plies: int | None) -> None:
        self.game, self.options, self.max_plies, self.name = game, options, max_plies, game.name
        self.parse_move, self.format_move = game.parse_move, game.format_move

    def initial(self) -> Any:
        return self.game.initial(max_plies=self.max_plies, **self.options)


class TimeUp(Exception):
    """The search's time ran out."""


def shallow_search(state: Any, until: float, max_depth: int = 64) -> int:
    """The move of an alpha-beta search on the stores' difference, deepened one ply at a time until ``until``
    (``time.monotonic``) or ``max_depth``; the first depth always completes (one ply: the best capture now). A
    value changes sign only where the player to move changes, so games with extra turns are searched right."""
    best = state.legal_actions()[0]
    depth = 1
    while True:
        try:
            best = _search(state, depth, -2 * WIN, 2 * WIN, until if depth > 1 else float("inf"), best)[1]
        except TimeUp:
            return best
        if time.monotonic() >= until or depth >= max_depth:
            return best
        depth += 1


def _score(state: Any, player: int) -> int:
    """The stores' difference for ``player``, beyond any difference when the game is over."""
    margin = state.stores[player] - state.stores[1 - player]
    if not state.is_terminal:
        return margin
    return margin + (WIN if margin > 0 else -WIN if margin < 0 else 0)


def _search(state: Any, depth: int, alpha: int, beta: int, until: float, first: int | None = None) -> tuple[int, int]:
    """The value of ``state`` (not over) for its player to move, searched ``depth`` plies, and its best move;
    ``first`` is searched first (the last depth's best: a cut search keeps a good move)."""
    if time.monotonic() > until:
        raise TimeUp
    me = state.to_move
    actions = state.legal_actions()
    if first in actions:
        actions.sort(key=lambda action: action != first)
    best, best_action = -2 * WIN, actions[0]
    for action in actions:
        child = state.play(action)
        if child.is_terminal or depth == 1:
            value = _score(child, me)
        elif child.to_move == me:
            value = _search(child, depth - 1, alpha, beta, until)[0]
        else:
            value = -_search(child, depth - 1, -beta, -alpha, until)[0]
        if value > best:
            best, best_action = value, action
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best, best_action
