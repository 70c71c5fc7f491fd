"""Engine speed: compiled random playouts (plies/s, games/s) and the State API (play + legal_actions moves/s), for
any game of the toolkit (``--game awale16|oware|hawalis``, default rules; awale16 by default).

Single thread, after a warm-up; each figure is the median of ``--repeats`` runs. Playouts use each game's compiled
``random_playouts`` from the initial position with the game's default ply limit (400 for awale16, 1000 otherwise).
Usage: python benchmarks/bench_engine.py [--game NAME] [--games N] [--moves N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

import numpy as np

from awale_env.core import awale16, hawalis, oware
from awale_env.games import DEFAULT_GAME, GAMES, game_of, get_game


def _playouts(state: Any, games: int, rng: np.ndarray) -> int:
    """Total plies of ``games`` compiled random games from ``state`` (the game's own ``random_playouts``)."""
    name, limit = game_of(state).name, state.max_plies or 0
    if name == "awale16":
        stores = np.array(state.stores, dtype=awale16.STORE_DTYPE)
        return awale16.random_playouts(state.seeds.copy(), stores, state.to_move, state.ply, limit, games, rng)
    if name == "oware":
        stores = np.array(state.stores, dtype=oware.STORE_DTYPE)
        pits, code = state.pits.copy(), state.rules.code
        return oware.random_playouts(pits, stores, state.to_move, state.ply, limit, code, games, rng)
    endless = state.rules.endless_code
    return hawalis.random_playouts(state.pits.copy(), state.to_move, state.ply, limit, endless, games, rng)


def playout_rate(games: int, seed: int, game: str = DEFAULT_GAME) -> tuple[float, float]:
    """(plies/s, games/s) of compiled random games from the initial position."""
    state = get_game(game).initial(seed=seed)
    rng = awale16.make_rng(seed)
    start = time.perf_counter()
    plies = _playouts(state, games, rng)
    elapsed = time.perf_counter() - start
    return plies / elapsed, games / elapsed


def state_api_rate(moves: int, seed: int, game: str = DEFAULT_GAME) -> float:
    """Moves/s of ``State.play`` + ``State.legal_actions`` in random games, restarting each finished game."""
    rules = get_game(game)
    rng = np.random.default_rng(seed)
    picks = rng.random(moves)
    state = rules.initial(seed=seed)
    start = time.perf_counter()
    for u in picks:
        legal = state.legal_actions()
        state = state.play(legal[int(u * len(legal))])
        if state.is_terminal:
            state = rules.initial(seed=seed)
    return moves / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, choices=list(GAMES), help="the game (default rules)")
    parser.add_argument("--games", type=int, default=20_000, help="random playouts per run")
    parser.add_argument("--moves", type=int, default=200_000, help="State API moves per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    playout_rate(100, 0, args.game)  # warm-up: compile or load the cache
    state_api_rate(1000, 0, args.game)
    playouts = [playout_rate(args.games, seed, args.game) for seed in range(args.repeats)]
    api = [state_api_rate(args.moves, seed, args.game) for seed in range(args.repeats)]
    result = {
        "game": args.game,
        "playout_plies_per_s": statistics.median(p for p, _ in playouts),
        "playout_games_per_s": statistics.median(g for _, g in playouts),
        "state_api_moves_per_s": statistics.median(api),
        "cores": os.cpu_count(),
    }
    print(f"{args.game}; cores: {result['cores']} (single-threaded measurement, median of {args.repeats})")
    print(
        f"compiled random playouts: {result['playout_plies_per_s'] / 1e6:.2f}M plies/s, "
        f"{result['playout_games_per_s']:,.0f} games/s"
    )
    print(f"State API play + legal_actions: {result['state_api_moves_per_s'] / 1e3:.0f}k moves/s")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
