"""Where Python imports a top-level package from, found without importing it (standard library only): the
checks that a user's folder named like one of the toolkit's packages does not hide it read it before anything
heavy loads (``awale bot``'s engine, the Gymnasium opponents' entry points)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def imported_from(name: str) -> Path | None:
    """The folder of the top-level package ``name`` (or the file of a module) that Python imports, None if none."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else importlib.util.find_spec(name)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None
