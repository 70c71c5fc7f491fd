"""Ctrl-C while an agent is thinking, as a terminal sends it (SIGINT to the whole process group): ``awale play``,
``awale arena`` with worker processes and ``awale serve`` with its agent worker each stop with exit code 130 and the
one line ``interrupted`` on stderr, no traceback, and leave no process of theirs behind. A trainer stops even when
Python drops the KeyboardInterrupt (SIGINT inside a ctypes callback). SIGTERM to the command's process alone (``kill``,
a scheduler) stops an arena and a trainer the same way, with exit code 143."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from competition import interrupts
from competition.progress import Clock, Progress
from training import runs
from training.alphazero import trainer as alphazero_trainer

AWALE = str(Path(sys.executable).with_name("awale"))

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


class Command:
    """``awale ARGS`` in a process group of its own, its output in files (read while it runs)."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.out, self.err = tmp_path / "stdout", tmp_path / "stderr"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen(
                [AWALE, *args], stdin=subprocess.PIPE, stdout=out, stderr=err, start_new_session=True
            )

    def printed(self, text: str) -> bool:
        return text in self.out.read_text()

    def interrupt(self) -> tuple[int, str, list[psutil.Process]]:
        """Ctrl-C: SIGINT to the process group; its exit code, stderr and the processes it had started."""
        children = psutil.Process(self.process.pid).children(recursive=True)
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError("still running 60 s after Ctrl-C") from None
        return code, self.err.read_text(), children


def assert_stopped_cleanly(code: int, stderr: str, children: list[psutil.Process]) -> None:
    assert code == 130, stderr
    assert "Traceback" not in stderr and stderr.rstrip().endswith("\ninterrupted"), stderr
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"left behind: {alive}"


def test_ctrl_c_while_the_agent_thinks_in_awale_play(tmp_path):
    command = Command(tmp_path, "play", "--opponent", "mcts:time=60", "--seat", "1")
    wait_for(lambda: command.printed("you are player 1"), 120, "the game to start")
    time.sleep(1.0)  # the agent (player 0) is thinking, or compiling its search on a cold cache
    assert not command.printed("mcts:time=60 plays")
    assert_stopped_cleanly(*command.interrupt())


def test_ctrl_c_in_an_arena_stops_its_worker_processes(tmp_path):
    args = ["arena", "--agents", "mcts:time=60", "greedy", "--games", "2", "--workers", "2", "--no-progress"]
    command = Command(tmp_path, *args)
    # two workers (and multiprocessing's resource tracker) once the tournament is under way
    wait_for(lambda: len(psutil.Process(command.process.pid).children()) >= 3, 120, "the arena's workers")
    time.sleep(2.0)
    code, stderr, children = command.interrupt()
    assert len(children) >= 3
    assert_stopped_cleanly(code, stderr, children)


def test_sigterm_to_an_arena_alone_ends_its_worker_processes(tmp_path):
    """As ``kill PID`` or a job scheduler ends it: the workers, which would play on, are ended by the arena."""
    args = ["arena", "--agents", "mcts:time=60", "greedy", "--games", "2", "--workers", "2", "--no-progress"]
    command = Command(tmp_path, *args)
    arena = psutil.Process(command.process.pid)
    wait_for(lambda: len(arena.children()) >= 3, 120, "the arena's workers")
    time.sleep(2.0)
    children = arena.children(recursive=True)
    command.process.send_signal(signal.SIGTERM)
    code = command.process.wait(timeout=60)
    stderr = command.err.read_text()
    assert code == 143 and "Traceback" not in stderr and stderr.rstrip().endswith("\ninterrupted"), stderr
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"left behind: {alive}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ctrl_c_while_the_web_worker_thinks_in_awale_serve(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = Command(tmp_path, "serve", "--port", str(port), "--max-think", "3")

    def answers() -> bool:
        try:
            return httpx.get(f"{base}/api/config", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(answers, 120, "the server")
    created: dict[str, int | str] = {}

    def create() -> None:  # the agent has the first move: it thinks for 3 s before the answer
        try:
            response = httpx.post(f"{base}/api/games", json={"opponent": "mcts:time=3", "seat": 1}, timeout=60)
            created["status"] = response.status_code
        except httpx.HTTPError as error:
            created["status"] = type(error).__name__

    request = threading.Thread(target=create)
    request.start()
    time.sleep(1.5)
    code, stderr, children = command.interrupt()
    request.join(timeout=60)
    assert children, "the agent worker process"
    assert_stopped_cleanly(code, stderr, children)
    assert created["status"] == 201  # the request under way was answered before the server stopped


#: Cheap teacher games (depth 2, 2 a chunk): the first chunk, which shows the workers play, comes 4 CPU-s sooner than
#: at depth 5 in chunks of 10, and 2,000 games keep them playing until the SIGTERM.
TEACHER_POOL = ["--teacher-games", "2000", "--teacher-depth", "2", "--teacher-games-per-chunk", "2"]
SUBPROC_ENVS = ["--vec-env", "subproc", "--n-envs", "2", "--league", "mcts:simulations=2000", "--pool-league", "1"]


@pytest.mark.parametrize("workers", [TEACHER_POOL, SUBPROC_ENVS], ids=["teacher-games", "subproc-envs"])
def test_sigterm_to_a_trainer_alone_stops_it_and_its_workers_with_one_line(tmp_path, workers):
    """As ``docker stop`` or a scheduler ends a job: SIGTERM to the trainer's process only, while its worker
    processes play (the teacher's games, or the learner's games with ``--vec-env subproc``); the trainer ends them."""
    run = tmp_path / "run"
    command = Command(tmp_path, "train", "ppo", "--run-dir", str(run), *workers, "--no-progress")
    trainer = psutil.Process(command.process.pid)
    wait_for(lambda: len(trainer.children()) >= 3, 120, "the workers")  # and multiprocessing's resource tracker
    playing = (lambda: any((run / "teacher").rglob("chunk-*.npz"))) if workers is TEACHER_POOL else (
        lambda: (run / "tb").is_dir())  # fmt: skip
    wait_for(playing, 120, "the workers to play")
    time.sleep(1.0)
    children = trainer.children(recursive=True)
    command.process.send_signal(signal.SIGTERM)
    code = command.process.wait(timeout=60)
    stderr = command.err.read_text()
    assert code == 143, stderr
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith(f"stopped before the first checkpoint of {run}"), stderr
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"left behind: {alive}"


def ctrl_c_in_a_ctypes_callback() -> None:
    """SIGINT while a ctypes callback runs (llvmlite's, as numba writes its compile cache): Python drops the
    KeyboardInterrupt raised there and goes on."""

    @ctypes.CFUNCTYPE(None)
    def callback() -> None:
        signal.raise_signal(signal.SIGINT)

    callback()


def test_a_ctrl_c_that_python_drops_still_stops_a_training_run(tmp_path, capfd):
    def train(config: Any) -> None:
        ctrl_c_in_a_ctypes_callback()
        progress = Progress("alphazero", 3, 0, "generation", Clock(), enabled=False)
        for _ in range(3):
            progress.update(1)
        raise AssertionError("the run went on after Ctrl-C")

    trainer = dataclasses.replace(alphazero_trainer.TRAINER, train=train)
    hook = sys.unraisablehook
    with pytest.raises(SystemExit) as stopped:
        runs.main(trainer, ["--run-dir", str(tmp_path / "run")], "test")
    assert stopped.value.code == 130
    err = capfd.readouterr().err
    run = tmp_path / "run"
    assert (
        err == f"stopped before the first checkpoint of {run}: nothing to resume, run the command again to start over\n"
    )
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert sys.unraisablehook is hook
    interrupts.raise_if_dropped()  # forgotten once the run has stopped


def test_a_ctrl_c_that_numba_turns_into_another_error_stops_a_run_with_one_line(tmp_path, capfd):
    def compile_interrupted(config: Any) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("Failed in nopython mode pipeline")  # noqa: B904 - numba keeps it as the context

    def bug(config: Any) -> None:
        raise RuntimeError("a bug")

    run = ["--run-dir", str(tmp_path / "run")]
    with pytest.raises(SystemExit) as stopped:
        runs.main(dataclasses.replace(alphazero_trainer.TRAINER, train=compile_interrupted), run, "test")
    assert stopped.value.code == 130 and capfd.readouterr().err.startswith("stopped before the first checkpoint")
    with pytest.raises(RuntimeError, match="a bug"):  # a bug keeps its traceback
        runs.main(dataclasses.replace(alphazero_trainer.TRAINER, train=bug), run, "test")


def test_other_exceptions_that_python_drops_still_reach_the_hook(monkeypatch):
    dropped: list[BaseException] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_value))

    @ctypes.CFUNCTYPE(None)
    def callback() -> None:
        raise ValueError("a bug in a callback")

    with interrupts.caught():
        callback()
        ctrl_c_in_a_ctypes_callback()
    assert [repr(error) for error in dropped] == ["ValueError('a bug in a callback')"]


def test_a_sigint_that_was_ignored_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a job started with & by a non-interactive shell
    try:
        with interrupts.caught():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
