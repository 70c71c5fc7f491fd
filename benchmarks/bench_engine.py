"""Engine speed: compiled random playouts (plies/s, games/s) and the State API (play + legal_actions moves/s).

Single thread, after a warm-up; each figure is the median of ``--repeats`` runs.
Usage: python benchmarks/bench_engine.py [--games N] [--moves N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from awale_env import State
from awale_env.core import awale16 as core


def playout_rate(games: int, seed: int) -> tuple[float, float]:
    """(plies/s, games/s) of compiled random games from the initial position."""
    seeds = core.initial_seeds()
    stores = np.zeros(2, dtype=core.STORE_DTYPE)
    rng = core.make_rng(seed)
    start = time.perf_counter()
    plies = core.random_playouts(seeds, stores, 0, 0, 400, games, rng)
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed


def state_api_rate(moves: int, seed: int) -> float:
    """Moves/s of ``State.play`` + ``State.legal_actions`` in random games, restarting each finished game."""
    rng = np.random.default_rng(seed)
    picks = rng.random(moves)
    state = State.initial()
    start = time.perf_counter()
    for u in picks:
        legal = state.legal_actions()
        state = state.play(legal[int(u * len(legal))])
        if state.is_terminal:
            state = State.initial()
    return moves / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="random playouts per run")
    parser.add_argument("--moves", type=int, default=200_000, help="State API moves per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    playout_rate(100, 0)  # warm-up: compile or load the cache
    state_api_rate(1000, 0)
    playouts = [playout_rate(args.games, seed) for seed in range(args.repeats)]
    api = [state_api_rate(args.moves, seed) for seed in range(args.repeats)]
    result = {
        "playout_plies_per_s": statistics.median(p for p, _ in playouts),
        "playout_games_per_s": statistics.median(g for _, g in playouts),
        "state_api_moves_per_s": statistics.median(api),
        "cores": os.cpu_count(),
    }
    print(f"cores: {result['cores']} (single-threaded measurement, median of {args.repeats})")
    print(
        f"compiled random playouts: {result['playout_plies_per_s'] / 1e6:.2f}M plies/s, "
        f"{result['playout_games_per_s']:,.0f} games/s"
    )
    print(f"State API play + legal_actions: {result['state_api_moves_per_s'] / 1e3:.0f}k moves/s")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
