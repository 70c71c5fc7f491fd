"""The Gymnasium and PettingZoo ids of every registered game, registered without importing either library: the ids
go in when the library is imported (at once if it already is), so that ``import awale_env`` and the compiled cores
stay light and ``gymnasium.make("awale_env/Awale-v0")`` works after ``import awale_env``, whichever comes first.

Gymnasium 1.x loads no plugins from entry points (``gymnasium.make("awale_env:awale_env/Awale-v0")`` imports this
package itself), hence the import hook.

Ids: ``awale_env/{game.title}-v0`` (Gymnasium) and ``awale_env/{game.title.lower()}-v0`` (PettingZoo AEC); nothing is
built or compiled until ``make`` is called.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from types import ModuleType

from awale_env import games
from awale_env.games import GAMES


def gymnasium_id(title: str) -> str:
    return f"awale_env/{title}-v0"


def pettingzoo_id(title: str) -> str:
    return f"awale_env/{title.lower()}-v0"


def register_gymnasium() -> None:
    """Register every game's single-agent and vector environments with Gymnasium (ids already there are kept)."""
    import gymnasium

    for name, game in GAMES.items():
        if gymnasium_id(game.title) not in gymnasium.registry:
            gymnasium.register(
                id=gymnasium_id(game.title),
                entry_point="awale_env.gym_env:AwaleEnv",
                vector_entry_point="awale_env.vector:AwaleVectorEnv",
                kwargs={} if name == games.DEFAULT_GAME else {"game": name},
            )


def register_pettingzoo() -> None:
    """Register every game's wrapped AEC environment with PettingZoo (ids already there are kept)."""
    import pettingzoo
    from pettingzoo.env_registry.registration import aec_registry

    for name, game in GAMES.items():
        if pettingzoo_id(game.title) not in aec_registry:
            kwargs = {} if name == games.DEFAULT_GAME else {"game": name}
            pettingzoo.register("aec", pettingzoo_id(game.title), entry_point="awale_env.env:env", kwargs=kwargs)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then`` right after ``module`` is first imported (it finds the module with the other finders, then
    lets its loader run it before ``then``); removes itself once used."""

    def __init__(self, module: str, then: Callable[[], None]) -> None:
        self.module = module
        self.then = then

    def find_spec(self, fullname: str, path: object = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then(module: ModuleType) -> None:
            exec_module(module)
            self.then()

        spec.loader.exec_module = exec_then  # type: ignore[method-assign]
        return spec


def register_environments() -> None:
    """Register the ids with Gymnasium and PettingZoo now for each library already imported, when it is imported
    for the others."""
    for module, register in (("gymnasium", register_gymnasium), ("pettingzoo", register_pettingzoo)):
        if module in sys.modules:
            register()
        else:
            sys.meta_path.insert(0, _AfterImport(module, register))
