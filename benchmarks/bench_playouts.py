"""Every game's engine speed beside the default game's: compiled random playouts (plies/s) from the initial position
of each registered game (or of ``--games-to`` those named) with its default rules, and each one's ratio to the default
game (the course editions beside the 2021 game: issue 14 asks >= 0.7x of the 2025 edition).

Single thread, after a warm-up; the time is this process's CPU time, which other processes on the machine change
far less than the wall clock, and the editions are measured in alternating rounds, so that what load remains hits
them alike. Each figure is the median of ``--rounds`` rounds; the load average is printed before and after.
Usage: python benchmarks/bench_playouts.py [--only NAME ...] [--games N] [--rounds N] [--json] [--out [PATH]]
(``--out``: benchmarks/results/playouts.json, whose table docs/editions.md shows through ``<!-- table:playouts -->``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from provenance import add_out_option, write_result

from awale_env.games import DEFAULT_GAME, GAMES, get_game
from awale_env.kernels.rng import make_rng


def playout_rate(name: str, games: int, seed: int) -> float:
    """Plies per CPU second of ``games`` compiled random games from the initial position of game ``name``."""
    game = get_game(name)
    state, rng = game.initial(), make_rng(seed)
    start = time.process_time()
    plies = game.search.random_playouts(state, games, rng)
    return plies / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(GAMES), help="the games to measure (default: all)")
    parser.add_argument("--games", type=int, default=20_000, help="random playouts per game and round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    add_out_option(parser, "playouts")
    args = parser.parse_args()

    names = [DEFAULT_GAME, *(name for name in args.only or GAMES if name != DEFAULT_GAME)]
    load_before = os.getloadavg()
    for name in names:
        playout_rate(name, 100, 0)  # warm-up: compile or load the cache
    rates: dict[str, list[float]] = {name: [] for name in names}
    for seed in range(args.rounds):
        for name in names:
            rates[name].append(playout_rate(name, args.games, seed))
    load_after = os.getloadavg()
    median = {name: statistics.median(values) for name, values in rates.items()}
    print(f"compiled random playouts per CPU second, median of {args.rounds} alternating rounds of {args.games} games")
    for name in names:
        ratio = median[name] / median[DEFAULT_GAME]
        print(f"{name:>14}: {median[name] / 1e6:6.2f}M plies/s  {ratio:.2f}x {DEFAULT_GAME}")
    print(f"load average (1, 5, 15 min): before {load_before}, after {load_after}; cores: {os.cpu_count()}")
    if args.json:
        result = {"plies_per_s": median, "load_before": load_before, "load_after": load_after}
        print(json.dumps(result))
    ratios = {name: median[name] / median[DEFAULT_GAME] for name in names}
    write_result(args.out, {"plies_per_cpu_s": median, "vs_default": ratios}, rounds=args.rounds, games=args.games)


if __name__ == "__main__":
    main()
