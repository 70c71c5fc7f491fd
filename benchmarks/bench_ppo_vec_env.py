"""How fast the learner's games step against a searching league, in the learner's process (``--vec-env dummy``)
or each in a worker process (``--vec-env subproc``): moves per second, the two alternated, medians.

    python benchmarks/bench_ppo_vec_env.py [--league mcts:simulations=2000] [--moves 2048] [--repeats 3] [--out]

The league alone is the pool (``--pool-league 1``), so the opponents' thinking is what the workers share out. The
learner plays random legal moves and the masks are asked for at every step, as MaskablePPO asks; the network's
updates, the same either way, are left out, and so is the workers' start, timed on its own (``*_start_s``), with a
worker's resident memory (``worker_memory_mb``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import psutil
from provenance import add_out_option, write_result

import agents
from awale_env.games import DEFAULT_GAME, get_game
from training.ppo.config import Args


def step_rate(vec_env: str, league: str, moves: int, n_envs: int) -> tuple[float, float, float]:
    """(learner moves per second over ``moves`` moves, seconds to start the envs and reset them, the workers'
    mean resident memory in MB, 0 without workers)."""
    from sb3_contrib.common.maskable.utils import get_action_masks  # torch: not for --help

    from training.ppo.pool import OpponentPool, close_envs, learner_envs

    args = Args(run_dir="unused", n_envs=n_envs, vec_env=vec_env, league=(league,), pool_random=0.0,
                pool_greedy=0.0, pool_snapshots=0.0, pool_league=1.0)  # fmt: skip
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    env = learner_envs(OpponentPool(args), args, seed=1)
    try:
        env.seed(1)
        env.reset()
        started = time.perf_counter() - start
        workers = [psutil.Process(process.pid) for process in getattr(env, "processes", ())]
        memory = statistics.mean(w.memory_info().rss for w in workers) / 2**20 if workers else 0.0
        start = time.perf_counter()
        for _ in range(moves // n_envs):
            masks = get_action_masks(env)
            env.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in masks]))
        return (moves // n_envs) * n_envs / (time.perf_counter() - start), started, memory
    finally:
        close_envs(env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--league", default="mcts:simulations=2000", help="the one opponent of the pool")
    parser.add_argument("--moves", type=int, default=2048, help="learner moves per measurement")
    parser.add_argument("--n-envs", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    add_out_option(parser, "ppo_vec_env")
    options = parser.parse_args()
    agents.make(options.league).act(get_game(DEFAULT_GAME).initial())  # compile before timing
    runs: dict[str, list[tuple[float, float, float]]] = {"dummy": [], "subproc": []}
    for _ in range(options.repeats):
        for vec_env, measured in runs.items():  # alternated: a change of the machine's load reaches both
            measured.append(step_rate(vec_env, options.league, options.moves, options.n_envs))
            print(f"--vec-env {vec_env}: {measured[-1][0]:.0f} moves/s, started in {measured[-1][1]:.1f} s", flush=True)
    figures: dict[str, float] = {}
    for vec_env, measured in runs.items():
        figures[f"{vec_env}_moves_per_s"] = round(statistics.median(rate for rate, _, _ in measured))
        figures[f"{vec_env}_start_s"] = round(statistics.median(started for _, started, _ in measured), 1)
    figures["worker_memory_mb"] = round(statistics.median(memory for _, _, memory in runs["subproc"]))
    figures["speedup"] = round(figures["subproc_moves_per_s"] / figures["dummy_moves_per_s"], 2)
    figures["cores"] = os.cpu_count() or 0
    print(f"median: dummy {figures['dummy_moves_per_s']}, subproc {figures['subproc_moves_per_s']} moves/s "
          f"(x{figures['speedup']} on {figures['cores']} cores)")  # fmt: skip
    write_result(options.out, figures, options={k: v for k, v in vars(options).items() if k != "out"})


if __name__ == "__main__":
    main()
