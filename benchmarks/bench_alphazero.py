"""AlphaZero self-play throughput: games/hour and network evaluations/s of batched search in worker processes.

Each worker plays ``--games`` games side by side with an untrained network of the default shape (or ``--channels``
/ ``--blocks``), ``--simulations`` simulations per move and one torch thread. After ``--warmup`` untimed moves per
game (which also staggers the games, as in a long run), ``--moves`` moves per game are timed; games/hour counts
the games that finished in the timed window, so it reflects the real game lengths.
Usage: python benchmarks/bench_alphazero.py [--workers 2] [--games 128] [--simulations 100] [--moves 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time

import torch

from agents.alphazero.mcts import SearchConfig
from agents.alphazero.network import AwaleNet, NetworkConfig, make_evaluator
from agents.alphazero.selfplay import SelfPlay


def run_worker(args: argparse.Namespace, worker: int) -> dict[str, float]:
    torch.set_num_threads(1)
    torch.manual_seed(worker)
    net = AwaleNet(NetworkConfig(channels=args.channels, blocks=args.blocks))
    evaluate = make_evaluator(net)
    games = SelfPlay(args.games, SearchConfig(simulations=args.simulations), 16, 400, seed=worker)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="self-play processes")
    parser.add_argument("--games", type=int, default=128, help="games side by side per worker")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=100, help="untimed moves per game first")
    parser.add_argument("--moves", type=int, default=60, help="timed moves per game")
    parser.add_argument("--channels", type=int, default=NetworkConfig.channels)
    parser.add_argument("--blocks", type=int, default=NetworkConfig.blocks)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    with mp.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.starmap(run_worker, [(args, w) for w in range(args.workers)])
    seconds = max(p["seconds"] for p in parts)
    moves = sum(p["moves"] for p in parts)
    games = sum(p["games"] for p in parts)
    mean_plies = sum(p["plies"] for p in parts) / max(games, 1)
    result = {
        "workers": args.workers,
        "games_side_by_side": args.games,
        "simulations": args.simulations,
        "network": f"{args.channels}x{args.blocks}",
        "moves_per_s": moves / seconds,
        "evaluations_per_s": sum(p["evaluations"] for p in parts) / seconds,
        "finished_games": games,
        "mean_game_plies": mean_plies,
        "games_per_hour": games / seconds * 3600,
    }
    for key, value in result.items():
        print(f"{key:>20}: {value:.1f}" if isinstance(value, float) else f"{key:>20}: {value}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
