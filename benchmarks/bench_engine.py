"""Engine speed: compiled random playouts (plies/s, games/s) and the State API (play + legal_actions moves/s), for
any registered game (``--game``, the default game unless told; its default rules unless ``--option`` sets a rule
flag, e.g. ``--option endless_move=illegal``).

Single thread, after a warm-up; each figure is the median of ``--repeats`` runs. Playouts use the game's compiled
``random_playouts`` (``Game.search``) from the initial position with the game's default ply limit.
Usage: python benchmarks/bench_engine.py [--game NAME] [--option FLAG=VALUE ...] [--games N] [--moves N] [--repeats N]
[--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

import numpy as np
from provenance import add_out_option, write_result

from awale_env.games import DEFAULT_GAME, GAMES, get_game
from awale_env.kernels.rng import make_rng


def playout_rate(games: int, seed: int, game: str = DEFAULT_GAME, **options: Any) -> tuple[float, float, float]:
    """(plies/s, games/s, plies per second of CPU time) of compiled random games from the initial position
    (``options``: rule flags). CPU time is what the core gave this process: on a shared machine it moves far less
    with the load than the wall clock."""
    spec = get_game(game)
    state = spec.initial(seed=seed, **options)
    rng = make_rng(seed)
    start, cpu = time.perf_counter(), time.process_time()
    plies = spec.search.random_playouts(state, games, rng)
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed, plies / (time.process_time() - cpu)


def state_api_rate(moves: int, seed: int, game: str = DEFAULT_GAME, **options: Any) -> tuple[float, float]:
    """Moves/s (wall clock, CPU time) of ``State.play`` + ``State.legal_actions`` in random games, restarting each
    finished game."""
    spec = get_game(game)
    rng = np.random.default_rng(seed)
    picks = rng.random(moves)
    state = spec.initial(seed=seed, **options)
    start, cpu = time.perf_counter(), time.process_time()
    for u in picks:
        legal = state.legal_actions()
        state = state.play(legal[int(u * len(legal))])
        if state.is_terminal:
            state = spec.initial(seed=seed, **options)
    return moves / (time.perf_counter() - start), moves / (time.process_time() - cpu)


def rule_flag(text: str) -> tuple[str, Any]:
    """``FLAG=VALUE`` as a (flag, value) pair, the value an int when it is one."""
    flag, sep, value = text.partition("=")
    if not sep or not flag:
        raise argparse.ArgumentTypeError(f"a rule flag is FLAG=VALUE, got {text!r}")
    return flag, int(value) if value.lstrip("-").isdigit() else value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, choices=list(GAMES), help="the game")
    parser.add_argument("--option", type=rule_flag, action="append", default=[], help="a rule flag, FLAG=VALUE")
    parser.add_argument("--games", type=int, default=20_000, help="random playouts per run")
    parser.add_argument("--moves", type=int, default=200_000, help="State API moves per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    add_out_option(parser, "engine")
    args = parser.parse_args()
    options = dict(args.option)

    playout_rate(100, 0, args.game, **options)  # warm-up: compile or load the cache
    state_api_rate(1000, 0, args.game, **options)
    playouts = [playout_rate(args.games, seed, args.game, **options) for seed in range(args.repeats)]
    api = [state_api_rate(args.moves, seed, args.game, **options) for seed in range(args.repeats)]
    result = {
        "game": args.game,
        "options": options,
        "playout_plies_per_s": statistics.median(p for p, _, _ in playouts),
        "playout_games_per_s": statistics.median(g for _, g, _ in playouts),
        "playout_plies_per_cpu_s": statistics.median(c for _, _, c in playouts),
        "state_api_moves_per_s": statistics.median(w for w, _ in api),
        "state_api_moves_per_cpu_s": statistics.median(c for _, c in api),
        "cores": os.cpu_count(),
    }
    rules = " ".join(f"{flag}={value}" for flag, value in options.items())
    print(f"{args.game} {rules}; cores: {result['cores']} (single-threaded measurement, median of {args.repeats})")
    print(
        f"compiled random playouts: {result['playout_plies_per_s'] / 1e6:.2f}M plies/s, "
        f"{result['playout_games_per_s']:,.0f} games/s ({result['playout_plies_per_cpu_s'] / 1e6:.2f}M per CPU second)"
    )
    print(
        f"State API play + legal_actions: {result['state_api_moves_per_s'] / 1e3:.0f}k moves/s "
        f"({result['state_api_moves_per_cpu_s'] / 1e3:.0f}k per CPU second)"
    )
    if args.json:
        print(json.dumps(result))
    write_result(args.out, result, options={k: v for k, v in vars(args).items() if k not in ("json", "out")})


if __name__ == "__main__":
    main()
