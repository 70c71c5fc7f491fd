"""The parallel run's scheduler (tests/xdist_scheduling.py): a file sharing a module fixture runs on one worker, its
fixture built once; the other tests are spread one by one, and a run of single tests ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from xdist_scheduling import shares_a_module_fixture

HERE = Path(__file__).resolve().parent

CONFTEST = """\
from xdist_scheduling import FixtureFileScheduling


def pytest_xdist_make_scheduler(config, log):
    return FixtureFileScheduling(config, log)
"""

#: Each test writes which worker ran it; the module fixture writes a line each time it is built.
SHARED = """\
import os
import pytest


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    with open({log!r}, "a") as log:
        log.write("built\\n")


@pytest.mark.parametrize("n", range(6))
def test_shared(built, n):
    with open({log!r}, "a") as log:
        log.write("shared " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")
"""

SINGLE = """\
import os
import time
import pytest


@pytest.mark.parametrize("n", range(10))
def test_single(n):
    time.sleep(0.2)  # long enough for both workers to take some
    with open({log!r}, "a") as log:
        log.write("single " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")
"""


def test_a_module_fixture_is_found_by_its_scope_only(tmp_path):
    module, function = tmp_path / "test_module.py", tmp_path / "test_function.py"
    module.write_text('import pytest\n\n@pytest.fixture(scope="module")\ndef a():\n    pass\n')
    function.write_text("import pytest\n\n@pytest.fixture\ndef a():\n    pass\n\nSCOPE = \"scope='module'\"\n")
    assert shares_a_module_fixture(module) and not shares_a_module_fixture(function)
    assert not shares_a_module_fixture(tmp_path / "missing.py")


def test_a_files_module_fixture_is_built_once_and_the_other_tests_are_spread(tmp_path):
    log = tmp_path / "log.txt"
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_shared.py").write_text(SHARED.format(log=str(log)))
    (tmp_path / "test_single.py").write_text(SINGLE.format(log=str(log)))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist", "-n", "2", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(HERE), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # xdist alone
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "16 passed" in done.stdout
    lines = log.read_text().splitlines()
    assert lines.count("built") == 1
    shared = {line.split()[1] for line in lines if line.startswith("shared")}
    single = {line.split()[1] for line in lines if line.startswith("single")}
    assert len(shared) == 1 and single == {"gw0", "gw1"}, lines
