"""AlphaZero speed: simulations/s of the one-game agent at several leaf batches, and the self-play throughput
(games/hour and network evaluations/s of batched search in worker processes).

**The agent** (``alphazero:pretrained``, one torch thread, in this process): ``--agent-simulations`` simulations
from each of ``--positions`` positions (random plies from the start, fixed seed) with ``leaves`` leaves per network
call, for each of ``--leaves``; a run times every batch size in turn, and each figure is the median of ``--runs``
runs, in CPU time of this process (what a core gives when the machine is shared) and wall-clock time.

**Self-play**: each worker plays ``--games`` games side by side with an untrained network of the default shape (or
``--channels`` / ``--blocks``), ``--simulations`` simulations per move and one torch thread. After ``--warmup``
untimed moves per game (which also staggers the games, as in a long run), ``--moves`` moves per game are timed;
games/hour counts the games that finished in the timed window, so it reflects the real game lengths.

The load average is printed before and after: on a shared machine, quote it beside the figures.
Usage: python benchmarks/bench_alphazero.py [--only agent|selfplay] [--leaves 1 8 64] [--runs 5] [--workers 2]
       [--games 128] [--simulations 100] [--search puct|gumbel] [--moves 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import time

import numpy as np
from provenance import add_out_option, write_result

from agents.alphazero.agent import AlphaZeroAgent
from agents.alphazero.architecture import NetworkConfig
from agents.alphazero.search_config import RULES, SearchConfig
from agents.alphazero.selfplay import SelfPlay
from awale_env.games import DEFAULT_GAME, get_game


def positions(count: int, seed: int = 0) -> list:
    """``count`` live positions of the default game, 0-59 random plies from the start."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = get_game(DEFAULT_GAME).initial()
        for _ in range(rng.integers(60)):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_actions())))
        if not state.is_terminal:
            found.append(state)
    return found


def agent_rates(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Median simulations/s (CPU and wall-clock time) of the shipped network's agent per leaf batch."""
    states = positions(args.positions)
    agents = {leaves: AlphaZeroAgent(simulations=args.agent_simulations, leaves=leaves) for leaves in args.leaves}
    cpu: dict[int, list[float]] = {leaves: [] for leaves in args.leaves}
    wall: dict[int, list[float]] = {leaves: [] for leaves in args.leaves}
    for _ in range(args.runs):
        for leaves, agent in agents.items():
            simulations = 0
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            for state in states:
                agent.act(state)
                simulations += agent.last_simulations
            cpu[leaves].append(simulations / (time.process_time() - cpu_start))
            wall[leaves].append(simulations / (time.perf_counter() - wall_start))
    return {
        f"leaves_{leaves}": {"cpu": statistics.median(cpu[leaves]), "wall": statistics.median(wall[leaves])}
        for leaves in args.leaves
    }


def run_worker(args: argparse.Namespace, worker: int) -> dict[str, float]:
    import torch  # here, not at the top: --help and a bad option answer without loading torch

    from agents.alphazero.network import RingNet, make_evaluator

    torch.set_num_threads(1)
    torch.manual_seed(worker)
    net = RingNet(NetworkConfig(channels=args.channels, blocks=args.blocks))
    evaluate = make_evaluator(net)
    games = SelfPlay(args.games, SearchConfig(simulations=args.simulations, search=args.search), 16, 400, seed=worker)
    for _ in range(args.warmup):  # compile or load the numba cache, then let the games drift apart
        games.step(evaluate)
    evaluations, finished, plies = games.search.evaluations, games.games_finished, games.plies_finished
    start = time.perf_counter()
    for _ in range(args.moves):
        games.step(evaluate)
    return {
        "seconds": time.perf_counter() - start,
        "moves": args.moves * args.games,
        "evaluations": games.search.evaluations - evaluations,
        "games": games.games_finished - finished,
        "plies": games.plies_finished - plies,
    }


def self_play_rates(args: argparse.Namespace) -> dict[str, float | int | str]:
    with mp.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.starmap(run_worker, [(args, w) for w in range(args.workers)])
    seconds = max(p["seconds"] for p in parts)
    games = sum(p["games"] for p in parts)
    return {
        "workers": args.workers,
        "games_side_by_side": args.games,
        "simulations": args.simulations,
        "search": args.search,
        "network": f"{args.channels}x{args.blocks}",
        "moves_per_s": sum(p["moves"] for p in parts) / seconds,
        "evaluations_per_s": sum(p["evaluations"] for p in parts) / seconds,
        "finished_games": games,
        "mean_game_plies": sum(p["plies"] for p in parts) / max(games, 1),
        "games_per_hour": games / seconds * 3600,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("agent", "selfplay"), help="measure one part only")
    parser.add_argument("--leaves", type=int, nargs="+", default=[1, 8, 64], help="the agent's leaf batches")
    parser.add_argument("--agent-simulations", type=int, default=800, help="the agent's simulations per move")
    parser.add_argument("--positions", type=int, default=8, help="positions the agent searches per run")
    parser.add_argument("--runs", type=int, default=5, help="the agent's runs (the median is reported)")
    parser.add_argument("--workers", type=int, default=2, help="self-play processes")
    parser.add_argument("--games", type=int, default=128, help="games side by side per worker")
    parser.add_argument("--simulations", type=int, default=100, help="self-play simulations per move")
    parser.add_argument("--search", choices=RULES, default="puct", help="self-play's selection rule")
    parser.add_argument("--warmup", type=int, default=100, help="untimed self-play moves per game first")
    parser.add_argument("--moves", type=int, default=60, help="timed self-play moves per game")
    parser.add_argument("--channels", type=int, default=NetworkConfig.channels)
    parser.add_argument("--blocks", type=int, default=NetworkConfig.blocks)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    add_out_option(parser, "alphazero")
    args = parser.parse_args()

    result: dict[str, object] = {"load_average_before": os.getloadavg()[0]}
    if args.only != "selfplay":
        import torch

        torch.set_num_threads(1)
        result["agent_simulations_per_s"] = agent_rates(args)
        for name, rates in result["agent_simulations_per_s"].items():
            print(f"agent {name:>10}: {rates['cpu']:,.0f} simulations/s of CPU time, {rates['wall']:,.0f} wall-clock")
    if args.only != "agent":
        result["self_play"] = self_play_rates(args)
        for key, value in result["self_play"].items():
            print(f"{key:>20}: {value:.1f}" if isinstance(value, float) else f"{key:>20}: {value}")
    result["load_average_after"] = os.getloadavg()[0]
    print(f"load average (1 min): {result['load_average_before']:.2f} before, {result['load_average_after']:.2f} after")
    if args.json:
        print(json.dumps(result))
    write_result(args.out, result, options={k: v for k, v in vars(args).items() if k not in ("json", "out")})


if __name__ == "__main__":
    main()
