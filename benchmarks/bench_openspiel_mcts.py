"""MCTS speed against OpenSpiel: our compiled UCT (agents.mcts) vs ``pyspiel.MCTSBot`` with a random-rollout
evaluator on the same game, simulations per second from the initial position, e.g. ``--game oware --option
preset=openspiel`` (the rules tests/games/oware checks move for move against ``pyspiel.load_game("oware")``).

Both search the same rules with the same exploration constant and one uniformly random rollout per simulation; neither
reuses a tree across runs, and pyspiel's solver is off (ours has none). Each run is one search of ``--simulations``
simulations from the initial position; runs alternate ours / pyspiel so that a shared machine's load hits both alike,
and each figure is the median of ``--repeats`` runs, per second of wall time and of process CPU time (the fairer
figure when other jobs share the cores). The engines' random playouts alone are compared by bench_openspiel.py.

Usage: python benchmarks/bench_openspiel_mcts.py --game NAME [--option FLAG=VALUE ...] [--openspiel NAME]
[--simulations N] [--repeats N] [--uct-c C] [--json]
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pyspiel
from openspiel_race import race_figures, race_parser, reference_game

from agents.mcts import MCTSAgent
from awale_env.games import Game, get_game


def ours(game: Game, options: dict[str, Any], simulations: int, uct_c: float, seed: int) -> tuple[float, float]:
    """(simulations/s wall, simulations/s CPU) of one search of our MCTS from the initial position."""
    agent = MCTSAgent(simulations=simulations, c=uct_c, seed=seed)
    state = game.initial(seed=seed, **options)
    wall, cpu = time.perf_counter(), time.process_time()
    agent.act(state)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return simulations / wall, simulations / cpu


def theirs(game: pyspiel.Game, simulations: int, uct_c: float, seed: int) -> tuple[float, float]:
    """(simulations/s wall, simulations/s CPU) of one ``pyspiel.MCTSBot`` step from the initial position."""
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, uct_c, simulations, 2000, False, seed, False)
    state = game.new_initial_state()
    wall, cpu = time.perf_counter(), time.process_time()
    bot.step(state)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return simulations / wall, simulations / cpu


def main() -> None:
    parser = race_parser(__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=20_000, help="simulations per search")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant of both searches")
    args = parser.parse_args()
    game, options = get_game(args.game), dict(args.option)

    reference = reference_game(parser, args)
    ours(game, options, 100, args.uct_c, 0)  # warm-up: compile or load the cache
    theirs(reference, 100, args.uct_c, 0)
    runs: dict[str, list[tuple[float, float]]] = {"ours": [], "pyspiel": []}
    for r in range(args.repeats):
        runs["ours"].append(ours(game, options, args.simulations, args.uct_c, r + 1))
        runs["pyspiel"].append(theirs(reference, args.simulations, args.uct_c, r + 1))
    result: dict[str, Any] = {"game": game.name, "options": options, "cores": os.cpu_count(),
                              "simulations": args.simulations, "repeats": args.repeats,
                              **race_figures(runs, "simulations")}  # fmt: skip

    rules = " ".join(f"{flag}={value}" for flag, value in options.items())
    print(f"{game.name} {rules}; cores: {result['cores']}; {args.simulations} simulations per search, median of "
          f"{args.repeats} alternating")  # fmt: skip
    for name, label in [("ours", "ours, agents.mcts"), ("pyspiel", "pyspiel.MCTSBot, 1 rollout")]:
        print(
            f"{label:<40} {result[f'{name}_simulations_per_s']:>10,.0f} simulations/s wall, "
            f"{result[f'{name}_cpu_simulations_per_s']:>10,.0f} CPU"
        )
    print(f"ratio ours / pyspiel: {result['ratio']:.1f}x wall, {result['cpu_ratio']:.1f}x CPU (target >= 2x)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
