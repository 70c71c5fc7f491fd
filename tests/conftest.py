"""Fixtures shared by the tests: the games of the registry, and the toy game of tests/toy_game/.

A test taking ``registry_game`` runs once per registered game (the :class:`awale_env.games.base.Game`, test id its
name), so a new game is tested by every such test without editing any; one taking ``game_config`` runs once per game
and per rule variant of :data:`RULE_VARIANTS` (a ``(game, rule flags)`` pair). ``toy_game`` registers the toy game
for one test and puts the registry back after it.

The suite runs in parallel (``pytest -n logical``, as .ci/run does): before the workers start, pytest's controller
process loads (on a fresh clone: compiles) the numba kernels once (tests/warm_kernels.py). Tests that take long
(:data:`SLOW`, by file or test name) are marked ``slow`` here, in one place rather than in each file, and run first
so that the workers finish together; CI runs them, ``-m "not slow"`` (``bash .ci/run --quick``) leaves them out.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from awale_env.games import GAMES, Game
from awale_env.registration import gymnasium_id, pettingzoo_id, register_environments

# Several tests Ctrl-C a subprocess (a trainer, the arena, a bot) and expect it to stop. A suite started in the
# background by a non-interactive shell (`cmd &`, nohup) ignores SIGINT, every subprocess would inherit that, and
# Python keeps an inherited SIG_IGN: the subprocess would never see the Ctrl-C. A handler of this process is reset
# to the default in each subprocess it starts, so with one installed they start as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: Rule flags worth testing beside a game's defaults (each game is tested with its defaults as well).
RULE_VARIANTS: dict[str, tuple[dict[str, Any], ...]] = {
    "awale16_2025": ({"end_at_both_40": True},),
    "oware": ({"preset": "openspiel"},),
    "hawalis": ({"endless_move": "illegal"},),
}


def game_configs() -> list[tuple[Game, dict[str, Any]]]:
    """Every registered game with its default rules, then with each of its :data:`RULE_VARIANTS`."""
    return [(game, options) for name, game in GAMES.items() for options in ({}, *RULE_VARIANTS.get(name, ()))]


def config_id(config: tuple[Game, dict[str, Any]]) -> str:
    game, options = config
    return "-".join([game.name, *(f"{key}={value}" for key, value in options.items())])


#: The tests that take long (over about 20 s on 2 shared cores), as node-id prefixes: a file, or a file::test.
SLOW: tuple[str, ...] = ()


def pytest_configure(config: pytest.Config) -> None:
    """In the controller of a parallel run (``-n``), load the kernels once before the workers start."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        if os.environ.get("PYTEST_XDIST_WORKER") is None:
            from warm_kernels import warm

            warm()


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the :data:`SLOW` tests ``slow`` and move them to the front (the longest work is handed out first)."""
    slow = [item for item in items if item.nodeid.startswith(SLOW)]
    for item in slow:
        item.add_marker(pytest.mark.slow)
    marked = {id(item) for item in slow}
    items[:] = slow + [item for item in items if id(item) not in marked]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "registry_game" in metafunc.fixturenames:
        metafunc.parametrize("registry_game", list(GAMES.values()), ids=list(GAMES))
    if "game_config" in metafunc.fixturenames:
        configs = game_configs()
        metafunc.parametrize("game_config", configs, ids=[config_id(config) for config in configs])


@pytest.fixture
def toy_game() -> Iterator[Game]:
    """The toy game, registered as any game registers itself (its package's ``__init__`` calls ``register``), with
    its Gymnasium and PettingZoo ids; afterwards the registry and the ids are as before."""
    import gymnasium
    from pettingzoo.env_registry.registration import aec_registry

    saved = dict(GAMES)
    import toy_game  # registers the game on its first import

    game = toy_game.GAME
    GAMES.setdefault(game.name, game)  # put back after an earlier test
    register_environments()
    yield game
    GAMES.clear()
    GAMES.update(saved)
    gymnasium.registry.pop(gymnasium_id(game.title), None)
    aec_registry.pop(pettingzoo_id(game.title), None)
