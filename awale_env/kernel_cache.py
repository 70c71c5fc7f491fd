"""Where numba caches the compiled kernels, chosen before any of them is compiled (``awale_env/__init__.py`` calls
:func:`choose_cache_dir` first).

numba caches a function beside its source (``__pycache__``) when that folder is writable, else in its own per-user
folder (``~/.cache/numba``), and when neither is writable it refuses to load a module whose functions ask for a
cache (``RuntimeError: cannot cache function ...: no locator available``). A read-only install (a system
site-packages, a container image) must neither recompile in every process (10 s before alpha-beta's first move) nor
fail to import, so when the package's folder is not writable the kernels go to this package's per-user cache folder
(platformdirs), or, if that is not writable either, to a per-user folder in the temporary directory. A
``NUMBA_CACHE_DIR`` set by the user always wins.
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
from pathlib import Path

import platformdirs

PACKAGE = Path(__file__).resolve().parent


def writable(folder: Path) -> bool:
    """Whether files can be created in ``folder`` (created if missing), tried as numba tries it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def private(folder: Path) -> bool:
    """Whether ``folder`` (created if missing, for this user only) is writable, this user's, and writable by no one
    else: numba loads compiled code from its cache, so a folder someone else controls (a name they created first in
    a shared temporary directory) must not be used."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and (status.st_uid != os.getuid() or status.st_mode & 0o022):
        return False
    return writable(folder)


def user_folders() -> list[Path]:
    """Where the kernels go when the package's folder is read-only, in order of preference."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container's arbitrary user)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return [
        platformdirs.user_cache_path("awale_env") / "numba",
        Path(tempfile.gettempdir()) / f"awale_env-numba-{user}",
    ]


def choose_cache_dir() -> Path | None:
    """Set ``NUMBA_CACHE_DIR`` (and numba's configuration, if numba is loaded) to a writable per-user folder when the
    package's own folder is not writable and the user set none; return the folder chosen, None if numba's default
    (beside the sources) is kept. Worker processes inherit the choice through the environment."""
    if os.environ.get("NUMBA_CACHE_DIR") or writable(PACKAGE / "__pycache__"):
        return None
    folder = next((folder for folder in user_folders() if private(folder)), None)
    if folder is None:
        return None  # nowhere to write: numba says so when it tries
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # loaded before awale_env: its configuration has read the environment already
        from numba.core import config

        config.CACHE_DIR = str(folder)
    return folder
