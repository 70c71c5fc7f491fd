"""``--suite-profile`` (tests/suite_profile.py): each test's wall and CPU time by phase, a program it waited for
included, one JSON line per test, and the summary by file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from suite_profile import read, summary

HERE = Path(__file__).resolve().parent

CONFTEST = """\
from pathlib import Path

from suite_profile import SuiteProfile


def pytest_configure(config):
    config.pluginmanager.register(SuiteProfile(Path({profile!r})), "suite_profile")
"""

TESTS = """\
import subprocess
import sys
import time

import pytest

BUSY = "import time\\nend = time.process_time() + 0.5\\nwhile time.process_time() < end: pass"


@pytest.fixture(scope="module")
def slow_setup():
    time.sleep(0.3)


def test_sleeps(slow_setup):
    time.sleep(0.3)


def test_waits_for_a_busy_program():
    subprocess.run([sys.executable, "-c", BUSY], check=True)
"""


def test_each_test_has_its_phases_and_a_programs_cpu_counts_for_it(tmp_path):
    profile = tmp_path / "profile.jsonl"
    (tmp_path / "conftest.py").write_text(CONFTEST.format(profile=str(profile)))
    (tmp_path / "test_timed.py").write_text(TESTS)
    outer = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST")}  # run alone
    env = {**outer, "PYTHONPATH": str(HERE), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    sleeps, busy = read(profile)
    assert sleeps["test"] == "test_timed.py::test_sleeps" and sleeps["worker"] == "main"
    assert sleeps["setup"]["wall"] >= 0.3 and sleeps["call"]["wall"] >= 0.3 and sleeps["cpu"] < 0.3
    assert busy["call"]["cpu"] >= 0.5  # the program's CPU, reaped during the test
    assert abs(busy["wall"] - sum(busy[phase]["wall"] for phase in ("setup", "call", "teardown"))) < 1e-9
    text = summary([sleeps, busy], top=5)
    assert "2 tests" in text and "| test_timed.py | 2 |" in text and text.count("test_timed.py::test_sleeps") == 2
