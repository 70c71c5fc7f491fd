"""A read-only install caches its compiled kernels in a per-user folder: a second process loads them instead of
compiling again, and the package imports even when the user's cache folder is read-only too
(:mod:`awale_env.kernel_cache`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from awale_env import kernel_cache

ROOT = Path(__file__).resolve().parents[1]

#: Plays a move (compiling or loading the two-colour Awale's kernels), then prints where the cache went and how many
#: of the kernels it used were loaded from it (hits) or compiled (misses).
FIRST_MOVE = """
import json, os, sys
import awale_env
from numba.core.registry import CPUDispatcher
state = awale_env.State.initial()
state.play(state.legal_actions()[0])
dispatchers = [value for name, module in list(sys.modules.items()) if name.startswith("awale_env")
               for value in vars(module).values() if isinstance(value, CPUDispatcher)]
print(json.dumps({
    "package": awale_env.__file__,
    "cache": os.environ.get("NUMBA_CACHE_DIR"),
    "hits": sum(sum(d.stats.cache_hits.values()) for d in dispatchers),
    "misses": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
}))
"""


@pytest.fixture
def read_only_site(tmp_path):
    """A copy of the packages in a read-only folder: a read-only bind mount as root (who may write anywhere
    else), the files made read-only otherwise."""
    source, site = tmp_path / "source", tmp_path / "site"
    for package in ("awale_env", "agents"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    site.mkdir()
    if os.geteuid() == 0:
        for command in (["mount", "--bind", str(source), str(site)], ["mount", "-o", "remount,ro,bind", str(site)]):
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                subprocess.run(["umount", str(site)], capture_output=True)
                pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()}")
    else:
        site.rmdir()
        source.rename(site)
        subprocess.run(["chmod", "-R", "a-w", str(site)], check=True)
    assert not kernel_cache.writable(site / "awale_env" / "__pycache__")
    try:
        yield site
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(site)], check=True)
        else:
            subprocess.run(["chmod", "-R", "u+w", str(site)], check=True)


def first_move(site: Path, home: Path, cache_home: Path, temp: Path) -> dict:
    """A fresh interpreter importing the packages from ``site``, with no NUMBA_CACHE_DIR of its own."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env.update(
        PYTHONPATH=str(site),
        HOME=str(home),
        XDG_CACHE_HOME=str(cache_home),
        TMPDIR=str(temp),
        PYTHONDONTWRITEBYTECODE="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MOVE], env=env, cwd=home, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("user_cache", ["writable", "read-only"])
def test_a_read_only_install_compiles_once(read_only_site, tmp_path, user_cache):
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    # the user's cache folder, or (read-only) one inside the read-only copy: then the temporary directory is used
    cache_home = home / ".cache" if user_cache == "writable" else read_only_site / "cache"
    expected = cache_home / "awale_env" / "numba" if user_cache == "writable" else None
    first = first_move(read_only_site, home, cache_home, temp)
    assert Path(first["package"]).is_relative_to(read_only_site)
    assert first["misses"] > 0 and first["hits"] == 0  # compiled, into the per-user folder
    cache = Path(first["cache"])
    assert cache == expected if expected is not None else cache.parent == temp and cache.name.startswith("awale_env")
    assert list(cache.rglob("*.nbi"))  # numba's index files
    second = first_move(read_only_site, home, cache_home, temp)
    assert second["cache"] == first["cache"]
    assert second["misses"] == 0 and second["hits"] > 0  # loaded, not compiled again


def test_the_users_choice_and_a_writable_package_are_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernel_cache.choose_cache_dir() is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(kernel_cache, "PACKAGE", tmp_path)  # a writable package folder: numba's own default
    assert kernel_cache.choose_cache_dir() is None and "NUMBA_CACHE_DIR" not in os.environ


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_folder_others_may_write_is_not_used(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert kernel_cache.writable(shared) and not kernel_cache.private(shared)
    assert kernel_cache.private(tmp_path / "mine") and (tmp_path / "mine").stat().st_mode & 0o777 == 0o700
