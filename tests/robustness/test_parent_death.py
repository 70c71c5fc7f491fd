"""AlphaZero's self-play workers die with their learner (issue 42): a learner killed with SIGKILL mid-generation
leaves no worker playing its generation to the end (they only looked at their parent between generations)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import psutil

#: CPU seconds each worker must have used before the learner is killed: it is playing its generation.
PLAYING_CPU_SECONDS = 3.0

#: A learner: two self-play processes start a generation of 64 games x 400 moves at 400 simulations a move (hours on
#: a laptop), then it waits.
LEARNER = textwrap.dedent(
    """\
    import sys, time
    from agents.alphazero.network import build_network
    from training.alphazero.config import AlphaZeroConfig
    from training.alphazero.selfplay_pool import SelfPlayPool
    if __name__ == "__main__":  # the spawned workers import this file too
        config = AlphaZeroConfig(run_dir=sys.argv[1], workers=2, games_per_worker=64, moves_per_generation=400,
                                 simulations=400, channels=8, blocks=1)
        net = build_network(config.network_config())
        pool = SelfPlayPool(config, 0)
        pool.start(net)
        print(*[process.pid for process in pool.processes], flush=True)
        time.sleep(3600)
    """
)


def cpu_seconds(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system


def test_self_play_workers_die_with_a_learner_killed_mid_generation(tmp_path):
    script = tmp_path / "learner.py"
    script.write_text(LEARNER)
    with open(tmp_path / "log", "wb") as log:
        learner = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, stderr=log)
    workers: list[psutil.Process] = []
    try:
        workers = [psutil.Process(int(pid)) for pid in learner.stdout.readline().split()]
        assert len(workers) == 2, (tmp_path / "log").read_text()
        deadline = time.monotonic() + 300
        while min(cpu_seconds(worker) for worker in workers) < PLAYING_CPU_SECONDS:
            assert learner.poll() is None and time.monotonic() < deadline, (tmp_path / "log").read_text()
            time.sleep(0.2)
        learner.send_signal(signal.SIGKILL)
        learner.wait(timeout=30)
        _, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive, "a self-play worker outlived its killed learner"
    finally:
        if learner.poll() is None:
            learner.kill()
            learner.wait()
        for worker in workers:  # a failed test leaves none behind either
            try:
                worker.kill()
            except psutil.NoSuchProcess:
                pass
