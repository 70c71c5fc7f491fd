"""Distributed throughput: AlphaZero self-play games/s with the process pool and on Ray (one node, two local nodes),
and RLlib env steps/s (the adapter alone, and sampling inside a PPO iteration). The figures of docs/distributed.md.

Self-play runs through the trainers' own backends (:class:`training.alphazero.selfplay_pool.SelfPlayPool`,
:class:`training.alphazero.ray_selfplay.RaySelfPlayPool`)
with ``--workers`` workers, an untrained network of ``--channels`` x
``--blocks``, ``--simulations`` per move, ``--games`` games per worker and ``--moves`` moves per generation, weights
sent every generation as in training. ``--warmup`` generations are left out (start-up, numba's compilation or
cache, and games drifting apart), then ``--generations`` are timed; games/s counts the games finished in the timed
generations per wall second, games/CPU-s per CPU second of this process and every process it started (the pool's
workers; Ray's actors, raylets and GCS: what a run costs the machine, whatever else shares it). "Start-up" is the time
from creating the pool to the end of its first generation. The two-node Ray case starts a second raylet on this
machine (``ray.cluster_utils.Cluster``), one CPU per node, so an actor's weights and samples cross between object
stores as they would between machines. ``--rounds`` repeats the three cases one after the other (alternated, so that
a change of the machine's load falls on all of them), then prints each case's medians. Every figure is printed with
the load average (1 min) of the machine before and after it: the machine may be shared.

Usage: python benchmarks/bench_distributed.py [--only selfplay|rllib] [--workers 2] [--rounds 3] [--json]
Needs the ``rllib`` extra (Ray) and psutil (the dev extra).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from typing import Any

import numpy as np
import psutil

from awale_env.games import DEFAULT_GAME, get_game


def load() -> float:
    return os.getloadavg()[0]


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and every live process it started, directly or not."""
    me = psutil.Process()
    total = 0.0
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:  # ended meanwhile
            continue
        total += times.user + times.system
    return total


def measured(name: str, run: Any) -> dict[str, Any]:
    """``run()``'s figures with the load average before and after, printed as one line."""
    before = load()
    figures = run()
    row = {"case": name, **figures, "load_before": before, "load_after": load()}
    print(" ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
    return row


# --- AlphaZero self-play ----------------------------------------------------------------------------------------


def selfplay_config(args: argparse.Namespace, workers: int, backend: str) -> Any:
    from training.alphazero.trainer import AlphaZeroConfig

    return AlphaZeroConfig(
        run_dir=tempfile.mkdtemp(prefix="bench-distributed-"),
        game=args.game,
        workers=workers,
        games_per_worker=args.games,
        moves_per_generation=args.moves,
        simulations=args.simulations,
        channels=args.channels,
        blocks=args.blocks,
        max_plies=args.max_plies or get_game(args.game).default_max_plies,
        reference_every=0,
        backend=backend,
    )


def selfplay(args: argparse.Namespace, make_pool: Any, config: Any) -> dict[str, float]:
    """Drive a self-play pool generation by generation, as training does."""
    import torch  # not for --help: seconds of CPU

    from agents.alphazero.network import build_network

    torch.manual_seed(0)
    net = build_network(config.network_config()).eval()
    started = time.perf_counter()
    pool = make_pool(config, 0)
    try:
        pool.start(net)
        pool.collect()
        startup = time.perf_counter() - started
        for _ in range(args.warmup - 1):
            pool.start(net)
            pool.collect()
        games = moves = 0
        timed, cpu = time.perf_counter(), cpu_seconds()
        for _ in range(args.generations):
            pool.start(net)
            _, stats = pool.collect()
            games += stats["games"]
            moves += stats["moves"]
        seconds, cpu = time.perf_counter() - timed, cpu_seconds() - cpu
    finally:
        pool.close()
    return {"games_per_s": games / seconds, "games_per_cpu_s": games / cpu, "moves_per_s": moves / seconds,
            "cpu_s": cpu, "wall_s": seconds, "games": games, "startup_s": startup}  # fmt: skip


def bench_selfplay(args: argparse.Namespace) -> list[dict[str, Any]]:
    import ray
    from ray.cluster_utils import Cluster

    from training.alphazero.ray_selfplay import RaySelfPlayPool
    from training.alphazero.trainer import SelfPlayPool

    def one_node() -> dict[str, float]:
        ray.init(address="local", num_cpus=args.workers, include_dashboard=False)
        try:
            return selfplay(args, RaySelfPlayPool, selfplay_config(args, args.workers, "ray"))
        finally:
            ray.shutdown()

    def two_nodes() -> dict[str, float]:
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address)
        try:
            return selfplay(args, RaySelfPlayPool, selfplay_config(args, 2, "ray"))
        finally:
            ray.shutdown()
            cluster.shutdown()

    cases = {
        f"selfplay process pool, {args.workers} workers": lambda: selfplay(
            args, SelfPlayPool, selfplay_config(args, args.workers, "process")
        ),
        f"selfplay ray 1 node, {args.workers} actors": one_node,
        "selfplay ray 2 local nodes (1 CPU each), 2 actors": two_nodes,
    }
    rows = []
    for round_ in range(args.rounds):
        for name, run in cases.items():
            rows.append({"round": round_, **measured(name, run)})
    if args.rounds > 1:
        for name in cases:
            mine = [row for row in rows if row["case"] == name]
            medians = {key: float(np.median([row[key] for row in mine]))
                       for key in ("games_per_s", "games_per_cpu_s", "startup_s", "load_before")}  # fmt: skip
            print(f"median of {args.rounds}: {name}: " + " ".join(f"{k}={v:.3g}" for k, v in medians.items()))
    return rows


# --- RLlib ------------------------------------------------------------------------------------------------------


def adapter_steps(args: argparse.Namespace) -> dict[str, float]:
    """Random legal moves through the RLlib adapter alone, in this process (Ray not running)."""
    from awale_env.rllib_env import ACTION_MASK, RLlibGameEnv

    env = RLlibGameEnv({"game": args.game})
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while steps < args.adapter_steps:
        ((agent, seen),) = observations.items()
        observations, _, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(seen[ACTION_MASK])))})
        steps += 1
        if terminateds["__all__"]:
            observations, _ = env.reset()
    return {"env_steps_per_s": steps / (time.perf_counter() - start)}


def rllib_sampling(args: argparse.Namespace, env_runners: int) -> dict[str, float]:
    """PPO iterations of the ready config: env steps/s while sampling and over whole iterations (sampling and
    learning), after one untimed iteration."""
    import ray

    from training.rllib.trainer import RLlibPPOConfig, ppo_config

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = RLlibPPOConfig(game=args.game, env_runners=env_runners, eval_every=10**9)
        algorithm = ppo_config(config).build_algo()
        algorithm.train()
        sampled = sampling = total = 0.0
        for _ in range(args.iterations):
            result = algorithm.train()
            sampled += result["env_runners"]["num_env_steps_sampled"]
            sampling += result["timers"]["env_runner_sampling_timer"]
            total += result["time_this_iter_s"]
        algorithm.stop()
    finally:
        ray.shutdown()
    return {"sampling_env_steps_per_s": sampled / sampling, "iteration_env_steps_per_s": sampled / total}


def bench_rllib(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = [measured("rllib adapter alone (no Ray)", lambda: adapter_steps(args))]
    for runners in (0, 1, 2):
        rows.append(measured(f"rllib PPO, {runners} env runners", lambda n=runners: rllib_sampling(args, n)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("selfplay", "rllib"), help="run one half only")
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--workers", type=int, default=2, help="self-play workers (pool processes, Ray actors)")
    parser.add_argument("--games", type=int, default=64, help="games side by side per worker")
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--moves", type=int, default=16, help="moves per game per generation")
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=None, help="ply limit (default: the game's)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed generations first")
    parser.add_argument("--generations", type=int, default=8, help="timed generations")
    parser.add_argument("--adapter-steps", type=int, default=50_000)
    parser.add_argument("--iterations", type=int, default=3, help="timed PPO iterations")
    parser.add_argument("--rounds", type=int, default=1, help="self-play: the three cases this many times, alternated")
    parser.add_argument("--json", action="store_true", help="print one JSON list on the last line")
    args = parser.parse_args()
    rows = []
    if args.only in (None, "selfplay"):
        rows += bench_selfplay(args)
    if args.only in (None, "rllib"):
        rows += bench_rllib(args)
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
