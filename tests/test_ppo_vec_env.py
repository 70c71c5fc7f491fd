"""``--vec-env subproc``: the learner's games stepped in worker processes (their opponents think in parallel) give the
run ``--vec-env dummy`` gives, the learner's snapshots included, and leave no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import psutil
import pytest

pytest.importorskip("sb3_contrib")

from test_ppo_selfplay import tiny_args  # noqa: E402

from agents.ppo.checkpoint import open_checkpoint  # noqa: E402
from training.ppo import pool  # noqa: E402
from training.ppo.config import Args, resolved  # noqa: E402
from training.ppo.pool import OpponentPool, close_envs, learner_envs  # noqa: E402
from training.ppo.trainer import train  # noqa: E402


def workers(parent: psutil.Process | None = None) -> list[psutil.Process]:
    """The spawned worker processes under ``parent`` (default: this one)."""
    children = (parent or psutil.Process()).children(recursive=True)
    return [p for p in children if "spawn_main" in " ".join(p.cmdline())]


def test_worker_processes_play_the_same_run_as_the_learners_own_process(tmp_path):
    # snapshots of the learner are most of the pool from the first update on: a worker that missed them would play
    # greedy instead, other games, and train another network
    options = dict(total_timesteps=512, pool_random=0.0, pool_greedy=1.0, pool_snapshots=3.0, snapshot_every=1,
                   eval_every=512, checkpoint_every=512, eval_opponents=("greedy",))  # fmt: skip
    in_process = train(tiny_args(tmp_path / "dummy", **options))
    in_workers = train(tiny_args(tmp_path / "subproc", vec_env="subproc", **options))
    with open_checkpoint(in_process) as a, open_checkpoint(in_workers) as b:
        assert a.read("pool/index.json") == b.read("pool/index.json") == b"[256, 384, 512]"
        assert a.read("policy.npz") == b.read("policy.npz")
    assert (tmp_path / "dummy" / "eval.csv").read_text() != ""
    assert workers() == []


def test_an_unknown_vec_env_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="--vec-env must be one of dummy, subproc, got 'ray'"):
        resolved(Args(run_dir="unused", vec_env="ray"))


def test_ctrl_c_in_a_terminal_stops_the_learner_and_its_worker_processes_with_one_line(tmp_path):
    """A terminal sends SIGINT to the whole process group: the workers leave it to the learner, which ends them."""
    run = tmp_path / "run"
    options = ["--run-dir", str(run), "--vec-env", "subproc", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
               "--net-arch", "16", "--eval-opponents", "random", "--eval-games", "2", "--checkpoint-every", "128",
               "--total-timesteps", "100000000", "--no-progress"]  # fmt: skip
    process = subprocess.Popen([sys.executable, "-m", "training.ppo.trainer", *options], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 300
    while not (run / "checkpoints" / "last.zip").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    children = psutil.Process(process.pid).children(recursive=True)
    assert len(workers(psutil.Process(process.pid))) == 2
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and err == f"stopped; resume with: awale train ppo --run-dir {run} --resume\n"
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"left behind: {alive}"


#: The seed of SB3's ``VecEnv.seed`` with which both games of a two-env run seat the learner first (player 0).
LEARNER_FIRST_SEED = 2


@pytest.mark.parametrize("opponent", ["greedy", "mcts:time=15"])
def test_envs_close_after_an_interrupted_step_without_waiting_for_ever(opponent, monkeypatch):
    """Ctrl-C or SIGTERM in the middle of a step: one worker's answer read, the other's not (SB3's own close then
    waits for ever), or an opponent thinking for 15 s: the workers are asked to stop, then killed. The grace is 1 s
    here, not 5: the thinking workers are killed as surely, with 8 CPU-s less spent thinking. The games are seeded so
    that the learner moves first in both: an opponent moving first would think its 15 s inside ``reset``."""
    monkeypatch.setattr(pool, "WORKER_GRACE_S", 1.0)
    args = Args(run_dir="unused", n_envs=2, vec_env="subproc", league=(opponent,), pool_random=0.0, pool_greedy=0.0,
                pool_snapshots=0.0, pool_league=1.0)  # fmt: skip
    env = learner_envs(OpponentPool(args), args, seed=1)
    processes = list(env.processes)
    env.seed(LEARNER_FIRST_SEED)
    env.reset()
    assert [info["learner_seat"] for info in env.reset_infos] == [0, 0]
    masks = np.stack(env.env_method("action_masks"))
    env.step_async(masks.argmax(axis=1))
    if opponent == "greedy":
        env.remotes[0].recv()  # as step_wait does, until the interrupt
    closing = threading.Thread(target=close_envs, args=(env,))
    start = time.monotonic()
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive(), "close_envs is still waiting"
    assert time.monotonic() - start < pool.WORKER_GRACE_S + 5
    assert not any(process.is_alive() for process in processes) and env.closed
