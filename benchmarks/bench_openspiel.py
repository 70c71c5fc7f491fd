"""Engine speed against OpenSpiel: a game's compiled random playouts vs pyspiel's C++ random playouts of the same
game, e.g. ``--game oware --option preset=openspiel`` (the rules tests/games/oware checks move for move against
``pyspiel.load_game("oware")``).

Both play uniformly random games from the initial position, single-threaded. Rounds alternate ours / pyspiel so that
a shared machine's load hits both alike; each figure is the median of ``--repeats`` rounds, in plies per second of
wall time and of process CPU time (the fairer figure when other jobs share the cores). pyspiel's side is
``pyspiel.evaluate_bots`` with two uniform random bots (the game loop in C++); its plies are counted afterwards,
untimed, by replaying the same seeded bots step by step.

Usage: python benchmarks/bench_openspiel.py --game NAME [--option FLAG=VALUE ...] [--openspiel NAME] [--games N]
[--repeats N] [--json]
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pyspiel
from openspiel_race import race_figures, race_parser, reference_game

from awale_env.games import Game, get_game
from awale_env.kernels.rng import make_rng


def ours(game: Game, options: dict[str, Any], games: int, seed: int) -> tuple[float, float]:
    """(plies/s wall, plies/s CPU) of ``games`` compiled random playouts from the initial position."""
    state = game.initial(seed=seed, **options)
    rng = make_rng(seed)
    wall, cpu = time.perf_counter(), time.process_time()
    plies = game.search.random_playouts(state, games, rng)
    return plies / (time.perf_counter() - wall), plies / (time.process_time() - cpu)


def _bots(seed: int) -> list:
    return [pyspiel.make_uniform_random_bot(0, seed), pyspiel.make_uniform_random_bot(1, seed + 1)]


def theirs(game: Any, games: int, seed: int) -> tuple[float, float]:
    """(plies/s wall, plies/s CPU) of ``games`` pyspiel random games run by ``evaluate_bots`` in C++."""
    bots = _bots(seed)
    wall, cpu = time.perf_counter(), time.process_time()
    results = [pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i) for i in range(games)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    plies = _count_plies(game, games, seed, results)
    return plies / wall, plies / cpu


def _count_plies(game: Any, games: int, seed: int, results: list) -> int:
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
    parser = race_parser(__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="random games per round and engine")
    args = parser.parse_args()
    game, options = get_game(args.game), dict(args.option)

    reference = reference_game(parser, args)
    ours(game, options, 10, 0)  # warm-up: compile or load the cache
    theirs(reference, 10, 0)
    rounds: dict[str, list[tuple[float, float]]] = {"ours": [], "pyspiel": []}
    for r in range(args.repeats):
        seed = 1000 * (r + 1)
        rounds["ours"].append(ours(game, options, args.games, seed))
        rounds["pyspiel"].append(theirs(reference, args.games, seed))
    result: dict[str, Any] = {"game": game.name, "options": options, "cores": os.cpu_count(), "games": args.games,
                              "repeats": args.repeats, **race_figures(rounds, "plies")}  # fmt: skip

    rules = " ".join(f"{flag}={value}" for flag, value in options.items())
    print(f"{game.name} {rules}; cores: {result['cores']}; {args.games} random games per round, median of "
          f"{args.repeats} alternating rounds")  # fmt: skip
    for name, label in [("ours", "ours, compiled playouts"), ("pyspiel", "pyspiel.evaluate_bots, uniform random bots")]:
        print(
            f"{label:<46} {result[f'{name}_plies_per_s'] / 1e6:6.2f}M plies/s wall, "
            f"{result[f'{name}_cpu_plies_per_s'] / 1e6:6.2f}M plies/s CPU"
        )
    print(f"ratio ours / pyspiel: {result['ratio']:.1f}x wall, {result['cpu_ratio']:.1f}x CPU (target >= 3x)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
