"""What a user's install holds: the wheel built from the project carries the LICENSE, the ``py.typed`` markers, the
web page's files and the entry points."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("awale_env", "agents", "competition", "training", "awale_apps")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel of a copy of the project's packaging files and packages (the working tree stays untouched)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), "."]
    done = subprocess.run(command, cwd=source, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("*.whl")
    return zipfile.ZipFile(built)


def dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    (path,) = [path for path in wheel.namelist() if path.endswith(f".dist-info/{name}")]
    return wheel.read(path).decode()


def test_the_wheel_carries_the_license_and_says_which(wheel):
    assert dist_info(wheel, "licenses/LICENSE") == (ROOT / "LICENSE").read_text()
    assert "MIT License" in (ROOT / "LICENSE").read_text() and "the awale_env authors" in (ROOT / "LICENSE").read_text()
    metadata = Parser().parsestr(dist_info(wheel, "METADATA"))
    assert metadata["License-Expression"] == "MIT" and metadata["License-File"] == "LICENSE"


def test_the_wheel_holds_the_type_markers_the_page_and_the_entry_points(wheel):
    names = set(wheel.namelist())
    assert {"awale_env/py.typed", "agents/py.typed", "training/py.typed"} <= names
    static = {path.name for path in (ROOT / "awale_apps" / "web" / "static").iterdir()}
    assert {f"awale_apps/web/static/{name}" for name in static} <= names
    assert {"awale_env/__main__.py", "awale_apps/__main__.py", "agents/ppo/pretrained/ppo_awale16.zip"} <= names
    books = {path.name for path in (ROOT / "awale_apps" / "books").glob("*.json")}
    assert books and {f"awale_apps/books/{name}" for name in books} <= names  # awale bot's opening books
    entry_points = dist_info(wheel, "entry_points.txt")
    assert "awale = awale_apps.launch:main" in entry_points
    assert "[awale_env.opponents]\nagents = agents.registry:opponent_policy" in entry_points
