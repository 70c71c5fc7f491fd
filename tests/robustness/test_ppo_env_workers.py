"""PPO's env worker processes (``--vec-env subproc``) die with their learner (issue 42): a learner killed with SIGKILL
while its workers step their games leaves none of them stepping on (a worker only saw its learner gone at its next
read of the pipe, after its step: an MCTS or alpha-beta opponent could think for hours)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import psutil
from test_parent_death import cpu_seconds

#: CPU seconds each worker must have used before the learner is killed: past its imports, it is searching a move.
PLAYING_CPU_SECONDS = 10.0

#: A learner: two env workers whose only opponent is alpha-beta searching 30 plies deep (hours a move); a thread
#: resets and steps them (it blocks in the step) while the main thread waits.
LEARNER = textwrap.dedent(
    """\
    import sys, threading, time
    import numpy as np
    from training.ppo.config import Args
    from training.ppo.pool import OpponentPool, learner_envs
    def step(env):
        env.reset()
        while True:
            masks = env.env_method("action_masks")
            env.step(np.array([int(np.flatnonzero(mask)[0]) for mask in masks]))
    if __name__ == "__main__":  # the spawned workers import this file too
        args = Args(run_dir=sys.argv[1], n_envs=2, vec_env="subproc", league=("alphabeta:depth=30",),
                    pool_random=0, pool_greedy=0, pool_league=1, pool_snapshots=0)
        env = learner_envs(OpponentPool(args), args, 0)
        print(*[process.pid for process in env.processes], flush=True)
        threading.Thread(target=step, args=(env,), daemon=True).start()
        time.sleep(3600)
    """
)


def test_env_workers_die_with_a_learner_killed_mid_step(tmp_path):
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
        assert not alive, "an env worker outlived its killed learner"
    finally:
        if learner.poll() is None:
            learner.kill()
            learner.wait()
        for worker in workers:  # a failed test leaves none behind either
            try:
                worker.kill()
            except psutil.NoSuchProcess:
                pass
