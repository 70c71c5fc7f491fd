"""The compiled searches and the vector env's compiled stepper on both toy games (tests/toy_game_search.py and
tests/toy_turns_search.py), run in ONE fresh pytest process whose numba cache is its own (a copy of the shared one,
tests/own_numba_cache.py): the searches and the stepper compiled for a game registered from the tests must not be
cached beside the agents, because numba's cache index of a compiled function pickles the env types it was compiled
for, and a process that cannot import ``toy_game`` (any process but the tests') could not read it any more
(docs/architecture.md, step 4). One process for both files: its start (the imports and the collection, about 6 CPU-s)
is paid once, and the kernels that do not depend on the game are compiled once."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from own_numba_cache import own_cache_env

HERE = Path(__file__).parent
#: The files run in the fresh process, by what they check.
FILES = {"toy_game": "toy_game_search.py", "toy_turns": "toy_turns_search.py"}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, dict[str, str]]:
    """Each file's tests and their outcome (``passed``, ``failed``, ``error`` or ``skipped``) in the fresh process;
    the run's output, cut, under the key ``""`` for the failure messages."""
    folder = tmp_path_factory.mktemp("toy_searches")
    report = folder / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
               *(str(HERE / file) for file in FILES.values())]  # fmt: skip
    done = subprocess.run(command, env=own_cache_env(folder / "numba"), cwd=HERE.parent, capture_output=True,
                          text=True)  # fmt: skip
    found: dict[str, dict[str, str]] = {file: {} for file in FILES.values()}
    if report.exists():
        for case in ElementTree.parse(report).iter("testcase"):
            file = case.get("classname", "").rsplit(".", 1)[-1] + ".py"
            outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
            found.setdefault(file, {})[case.get("name", "")] = outcome
    found[""] = {"output": done.stdout[-4000:] + done.stderr[-2000:], "code": str(done.returncode)}
    return found


@pytest.mark.parametrize("game", list(FILES))
def test_the_compiled_searches_and_vector_env_play_the_toy_game(outcomes, game):
    """Every test of the game's search file ran in the fresh process and passed (none skipped)."""
    tests = outcomes[FILES[game]]
    assert tests and set(tests.values()) == {"passed"}, (tests, outcomes[""]["output"])
