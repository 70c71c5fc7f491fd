"""Hawalis engine speed: compiled random playouts (plies/s, games/s) under each endless-move flag, and the State API
(play + legal_actions moves/s).

Single thread, after a warm-up; each figure is the median of ``--repeats`` runs.
Usage: python benchmarks/bench_hawalis.py [--games N] [--moves N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from awale_env.core import hawalis as core
from awale_env.games.hawalis import DEFAULT_MAX_PLIES, State


def playout_rate(games: int, endless_mode: int, seed: int) -> tuple[float, float, float]:
    """(plies/s, games/s, plies per CPU second) of compiled random games from the initial position; the CPU-time
    figure is the one to compare on cores shared with other work."""
    rng = core.make_rng(seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    plies = core.random_playouts(core.initial_pits(), 0, 0, DEFAULT_MAX_PLIES, endless_mode, games, rng)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return plies / elapsed, games / elapsed, plies / cpu


def state_api_rate(moves: int, seed: int) -> float:
    """Moves/s of ``State.play`` + ``State.legal_actions`` in random games, restarting each finished game."""
    picks = np.random.default_rng(seed).random(moves)
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
    parser.add_argument("--games", type=int, default=10_000, help="random playouts per run")
    parser.add_argument("--moves", type=int, default=100_000, help="State API moves per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    for mode in range(len(core.ENDLESS_MODES)):  # warm-up: compile or load the cache
        playout_rate(100, mode, 0)
    state_api_rate(1000, 0)
    result: dict[str, float | int] = {}
    for mode, name in enumerate(core.ENDLESS_MODES):
        runs = [playout_rate(args.games, mode, seed) for seed in range(args.repeats)]
        result[f"playout_plies_per_s_{name}"] = statistics.median(p for p, _, _ in runs)
        result[f"playout_games_per_s_{name}"] = statistics.median(g for _, g, _ in runs)
        result[f"playout_plies_per_cpu_s_{name}"] = statistics.median(c for _, _, c in runs)
    api = [state_api_rate(args.moves, seed) for seed in range(args.repeats)]
    result["state_api_moves_per_s"] = statistics.median(api)
    result["cores"] = os.cpu_count() or 0
    print(f"cores: {result['cores']} (single-threaded measurement, median of {args.repeats})")
    for name in core.ENDLESS_MODES:
        print(
            f"compiled random playouts, endless_move={name!r}: "
            f"{result[f'playout_plies_per_s_{name}'] / 1e6:.2f}M plies/s, "
            f"{result[f'playout_games_per_s_{name}']:,.0f} games/s "
            f"({result[f'playout_plies_per_cpu_s_{name}'] / 1e6:.2f}M plies per CPU second)"
        )
    print(f"State API play + legal_actions: {result['state_api_moves_per_s'] / 1e3:.0f}k moves/s")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
