"""Deprecated alias: the web app of ``awale serve`` moved to :mod:`awale_apps.web` (the applications sit above the
library); ``from awale_env.web import create_app`` still works, with a DeprecationWarning, and loads the new package
when first used."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

NEW_MODULE = "awale_apps.web"


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__} is deprecated: use {NEW_MODULE}.{name}", DeprecationWarning, stacklevel=2)
    value = globals()[name] = getattr(importlib.import_module(NEW_MODULE), name)  # kept: one warning per name
    return value
