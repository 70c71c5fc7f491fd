"""A match between two agents in the arena, written to a JSON result file with its date, command, machine and load.

    python benchmarks/match.py ppo:pretrained alphabeta:depth=2 --games 200 --seed 0 \\
        --out benchmarks/results/ppo/pretrained_vs_alphabeta2.json

Mirrored pairs of games from random 4-ply openings, seats swapped (:func:`competition.arena.play_match`). The file is a
result file as every benchmark writes it (:func:`provenance.write_result`: date, command, machine, commit, load),
so that ``benchmarks/update_docs.py`` writes its figures into the docs: the first agent's ``wins``, ``draws`` and
``losses`` (``match``: all three, shown ``113-2-85 (57.0 %)``), its ``score`` (a draw counts half) with a 95 %
confidence interval ``score_low``-``score_high`` (normal approximation on the games' scores) and ``wall_s``;
beside them the digest of each agent's weights file and the games.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import asdict
from pathlib import Path

from provenance import write_result

import agents
from agents.base import weights_digest
from awale_env.games import DEFAULT_GAME
from competition.arena import play_match

Z_95 = 1.959964


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """The score (wins + draws / 2) / games and its 95 % interval."""
    games = wins + draws + losses
    score = (wins + 0.5 * draws) / games
    variance = (wins + 0.25 * draws) / games - score**2
    half = Z_95 * math.sqrt(max(variance, 0.0) / games)
    return score, max(score - half, 0.0), min(score + half, 1.0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent")
    parser.add_argument("opponent")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        result = play_match(args.agent, args.opponent, args.games, args.seed, args.workers, progress=False)
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    (pair,) = [p for p in result.pairs if p["agent"] == args.agent]
    score, low, high = score_interval(pair["wins"], pair["draws"], pair["losses"])
    figures = {
        "wins": pair["wins"],
        "draws": pair["draws"],
        "losses": pair["losses"],
        "games": args.games,
        "score": round(score, 4),
        "score_low": round(low, 4),
        "score_high": round(high, 4),
        "wall_s": round(time.monotonic() - started, 1),
    }
    digests = {spec: weights_digest(agents.make(spec), DEFAULT_GAME) for spec in (args.agent, args.opponent)}
    print(f"{args.agent} vs {args.opponent}: {pair['wins']}-{pair['draws']}-{pair['losses']}, score {score:.1%} "
          f"[{low:.1%}, {high:.1%}] over {args.games} games")  # fmt: skip
    write_result(Path(args.out), figures, agent=args.agent, opponent=args.opponent, seed=args.seed,
                 weights_sha256=digests, game_records=[asdict(game) for game in result.games])  # fmt: skip


if __name__ == "__main__":
    main()
