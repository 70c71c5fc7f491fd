"""Oware engine speed against OpenSpiel: our compiled random playouts vs pyspiel's C++ random playouts.

Both play uniformly random games of the same rules (our "openspiel" preset, checked move for move against pyspiel by
tests/test_oware.py) from the initial position, single-threaded. Rounds alternate ours / pyspiel so that a shared
machine's load hits both alike; each figure is the median of ``--repeats`` rounds, in plies per second of wall time
and of process CPU time (the fairer figure when other jobs share the cores). pyspiel's side is
``pyspiel.evaluate_bots`` with two uniform random bots (the game loop in C++); its plies are counted afterwards,
untimed, by replaying the same seeded bots step by step. Our "texts" preset (grand slams checked at every move) is
measured too.

Usage: python benchmarks/bench_oware.py [--games N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np
import pyspiel

from awale_env.core import oware as core
from awale_env.games.oware import Rules


def ours(games: int, seed: int, preset: str) -> tuple[float, float]:
    """(plies/s wall, plies/s CPU) of ``games`` compiled random playouts from the initial position."""
    pits, stores = core.initial_pits(), np.zeros(2, dtype=core.STORE_DTYPE)
    rng = core.make_rng(seed)
    wall, cpu = time.perf_counter(), time.process_time()
    plies = core.random_playouts(pits, stores, 0, 0, 1000, Rules.preset(preset).code, games, rng)
    return plies / (time.perf_counter() - wall), plies / (time.process_time() - cpu)


def _bots(seed: int) -> list:
    return [pyspiel.make_uniform_random_bot(0, seed), pyspiel.make_uniform_random_bot(1, seed + 1)]


def theirs(game, games: int, seed: int) -> tuple[float, float]:
    """(plies/s wall, plies/s CPU) of ``games`` pyspiel random games run by ``evaluate_bots`` in C++."""
    bots = _bots(seed)
    wall, cpu = time.perf_counter(), time.process_time()
    results = [pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i) for i in range(games)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    plies = _count_plies(game, games, seed, results)
    return plies / wall, plies / cpu


def _count_plies(game, games: int, seed: int, results: list) -> int:
    """Replay the same games with fresh bots of the same seeds (untimed) and count their plies."""
    bots, plies = _bots(seed), 0
    for expected in results:
        for bot in bots:
            bot.restart()
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
            plies += 1
        if list(state.returns()) != list(expected):
            raise RuntimeError("the replay diverged from evaluate_bots: the ply count would be wrong")
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="random games per round and engine")
    parser.add_argument("--repeats", type=int, default=5, help="rounds; each figure is the median")
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    game = pyspiel.load_game("oware")
    ours(10, 0, "openspiel"), ours(10, 0, "texts")  # warm-up: compile or load the cache
    theirs(game, 10, 0)
    rounds: dict[str, list[tuple[float, float]]] = {"ours_openspiel": [], "pyspiel": [], "ours_texts": []}
    for r in range(args.repeats):
        seed = 1000 * (r + 1)
        rounds["ours_openspiel"].append(ours(args.games, seed, "openspiel"))
        rounds["pyspiel"].append(theirs(game, args.games, seed))
        rounds["ours_texts"].append(ours(args.games, seed, "texts"))
    result: dict[str, float | int | None] = {"cores": os.cpu_count(), "games": args.games, "repeats": args.repeats}
    for name, figures in rounds.items():
        result[f"{name}_plies_per_s"] = statistics.median(w for w, _ in figures)
        result[f"{name}_cpu_plies_per_s"] = statistics.median(c for _, c in figures)
    for clock in ("", "cpu_"):
        result[f"{clock}ratio"] = result[f"ours_openspiel_{clock}plies_per_s"] / result[f"pyspiel_{clock}plies_per_s"]

    print(f"cores: {result['cores']}; {args.games} random games per round, median of {args.repeats} alternating rounds")
    for name, label in [
        ("ours_openspiel", "ours, compiled playouts, preset 'openspiel'"),
        ("pyspiel", "pyspiel.evaluate_bots, uniform random bots"),
        ("ours_texts", "ours, compiled playouts, preset 'texts'"),
    ]:
        print(
            f"{label:<46} {result[f'{name}_plies_per_s'] / 1e6:6.2f}M plies/s wall, "
            f"{result[f'{name}_cpu_plies_per_s'] / 1e6:6.2f}M plies/s CPU"
        )
    ratios = f"{result['ratio']:.1f}x wall, {result['cpu_ratio']:.1f}x CPU"
    print(f"ratio ours / pyspiel (same rules): {ratios} (target >= 3x)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
