"""Deprecated alias: the ``awale`` command moved to :mod:`awale_apps.cli` (the applications sit above the library);
``awale_env.cli.main`` and the rest still work, with a DeprecationWarning, and load the new module when first used."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

NEW_MODULE = "awale_apps.cli"


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__} is deprecated: use {NEW_MODULE}.{name}", DeprecationWarning, stacklevel=2)
    value = globals()[name] = getattr(importlib.import_module(NEW_MODULE), name)  # kept: one warning per name
    return value
