"""Gumbel against PUCT at equal simulations per move, with the shipped network (issue 45's first benchmark).

For each of ``--simulations`` (default 4, 16 and 64), ``--games`` games (default 400: pairs from the same random
``--opening-plies``-ply opening with the seats swapped) between the same network searching by Gumbel
(``alphazero:pretrained,search=gumbel``: Gumbel-top-k and sequential halving at the root, no noise) and by PUCT (the
agent's default), all games side by side (:func:`agents.alphazero.selfplay.play_match`, one leaf per call, one torch
thread). Gumbel's score (a draw counts half) with its 95 % interval, wins / draws / losses and the seconds each
budget took, under ``simulations_<N>`` in the result file. The paper's pattern to look for: a large gain at few
simulations, level at many.

Usage: python benchmarks/bench_gumbel.py [--game awale16] [--simulations 4 16 64] [--games 400] [--seed 0] [--out]
"""

from __future__ import annotations

import argparse
import os
import time

from match import score_interval
from provenance import add_out_option, write_result

from agents.alphazero.agent import pretrained_games, pretrained_path
from agents.alphazero.search_config import SearchConfig
from awale_env.games import DEFAULT_GAME, get_game


def gumbel_against_puct(game: str, simulations: int, games: int, seed: int, opening_plies: int) -> dict[str, float]:
    """Gumbel's results against PUCT with the shipped network of ``game``, both at ``simulations`` per move."""
    from agents.alphazero.network import load_player, make_evaluator  # torch: after --help
    from agents.alphazero.selfplay import play_match

    net, trained = load_player(pretrained_path(game), game)
    puct = SearchConfig(**{**trained, "simulations": simulations}).replace(search="puct")
    evaluate = make_evaluator(net)
    start = time.perf_counter()
    wins, draws, losses = play_match(
        evaluate, evaluate, games, puct.replace(search="gumbel"), get_game(game).default_max_plies, seed,
        opening_plies=opening_plies, game=game, search_b=puct,
    )  # fmt: skip
    score, low, high = score_interval(wins, draws, losses)
    return {"simulations": simulations, "games": games, "wins": wins, "draws": draws, "losses": losses,
            "score": score, "score_low": low, "score_high": high, "seconds": time.perf_counter() - start}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=pretrained_games(), help="a game a network is shipped for"
    )
    parser.add_argument("--simulations", type=int, nargs="+", default=[4, 16, 64], help="simulations per move")
    parser.add_argument("--games", type=int, default=400, help="games per budget (even: seat-swapped pairs)")
    parser.add_argument("--opening-plies", type=int, default=4, help="random plies of each pair's opening")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings")
    add_out_option(parser, "gumbel")
    args = parser.parse_args()
    import torch  # after --help and a bad option: torch takes seconds to load

    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    rows = {}
    for simulations in args.simulations:
        row = rows[f"simulations_{simulations}"] = gumbel_against_puct(
            args.game, simulations, args.games, args.seed, args.opening_plies
        )
        print(f"{simulations:>4} simulations: Gumbel scores {row['score']:.1%} [{row['score_low']:.1%}, "
              f"{row['score_high']:.1%}] against PUCT ({row['wins']}-{row['draws']}-{row['losses']}), "
              f"{row['seconds']:.0f} s")  # fmt: skip
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    write_result(args.out, {"game": args.game, **rows},
                 options={k: v for k, v in vars(args).items() if k != "out"})  # fmt: skip


if __name__ == "__main__":
    main()
