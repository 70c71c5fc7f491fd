"""A learner script killed with SIGKILL while its worker processes are busy: the check that none outlives it, shared
by the parent-death tests of AlphaZero's self-play pool and PPO's env workers."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil


def cpu_seconds(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system


def learner_died(learner: subprocess.Popen, tmp_path: Path) -> str:
    """What a learner that ended on its own left: its exit status (a negative one is the signal that killed it) and
    its standard error (a crash's traceback included: it runs with faulthandler)."""
    learner.poll()
    return f"the learner ended with status {learner.returncode}; its stderr: {(tmp_path / 'log').read_text()!r}"


def assert_workers_die_with_killed_learner(tmp_path: Path, learner_source: str, busy_cpu_seconds: float,
                                           what: str, busy_workers: int = 2) -> None:  # fmt: skip
    """Run ``learner_source`` (it prints its two workers' PIDs on one line once both are ready, then keeps them busy),
    wait until ``busy_workers`` of them have each used ``busy_cpu_seconds`` of CPU, SIGKILL the learner and assert
    that no worker (``what``) is left."""
    script = tmp_path / "learner.py"
    script.write_text(learner_source)
    with open(tmp_path / "log", "wb") as log:  # its own session: no signal meant for the test's group reaches it
        learner = subprocess.Popen([sys.executable, "-X", "faulthandler", str(script), str(tmp_path)],
                                   stdout=subprocess.PIPE, stderr=log, start_new_session=True)  # fmt: skip
    workers: list[psutil.Process] = []
    try:
        workers = [psutil.Process(int(pid)) for pid in learner.stdout.readline().split()]
        assert len(workers) == 2, learner_died(learner, tmp_path)
        deadline = time.monotonic() + 300
        while sorted(cpu_seconds(worker) for worker in workers)[-busy_workers] < busy_cpu_seconds:
            assert learner.poll() is None, learner_died(learner, tmp_path)
            assert time.monotonic() < deadline, f"the workers used {[cpu_seconds(w) for w in workers]} CPU seconds"
            time.sleep(0.2)
        learner.send_signal(signal.SIGKILL)
        learner.wait(timeout=30)
        _, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive, f"{what} outlived its killed learner"
    finally:
        if learner.poll() is None:
            learner.kill()
            learner.wait()
        for worker in workers:  # a failed test leaves none behind either
            try:
                worker.kill()
            except psutil.NoSuchProcess:
                pass
