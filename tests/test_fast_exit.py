"""Processes of the toolkit skip the collections of their exit (competition/fast_exit.py): a process that imported
torch and numba spent half a CPU-second walking its objects after its last line."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: An object in a reference cycle that says so when a collection frees it.
CYCLE = """
class Cycle:
    def __init__(self):
        self.me = self
    def __del__(self):
        print("collected", flush=True)
Cycle()
print("done", flush=True)
"""


def run(prologue: str) -> str:
    done = subprocess.run([sys.executable, "-c", prologue + CYCLE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_interpreter_collects_a_cycle_as_it_exits():
    assert run("") == "done\ncollected\n"  # what the toolkit's processes skip


@pytest.mark.parametrize(
    "prologue",
    [
        "from competition.fast_exit import skip_final_collections as skip\nskip()\nskip()\n",  # twice: once
        "import os\nfrom competition.parent_death import die_with_parent\ndie_with_parent(os.getppid())\n",
    ],
    ids=["skip_final_collections", "a worker"],
)
def test_a_process_of_the_toolkit_leaves_its_objects_to_the_system_as_it_exits(prologue):
    assert run(prologue) == "done\n"
