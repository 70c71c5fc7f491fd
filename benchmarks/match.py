"""A match between two agents in the arena, written to a JSON result file with its date, command, machine and load.

    python benchmarks/match.py ppo:pretrained alphabeta:depth=2 --games 200 --seed 0 \\
        --out benchmarks/results/ppo/pretrained_vs_alphabeta2.json

Mirrored pairs of games from random 4-ply openings, seats swapped (:func:`training.arena.play_match`). The file holds
the first agent's wins, draws and losses, its score (a draw counts half) with a 95 % confidence interval (normal
approximation on the games' scores), the digest of each agent's weights file, and the games.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import agents
from agents.base import weights_digest
from awale_env.games import DEFAULT_GAME
from training.arena import play_match

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
    started, load = time.monotonic(), os.getloadavg()
    try:
        result = play_match(args.agent, args.opponent, args.games, args.seed, args.workers, progress=False)
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    (pair,) = [p for p in result.pairs if p["agent"] == args.agent]
    score, low, high = score_interval(pair["wins"], pair["draws"], pair["losses"])
    record = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/match.py " + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average_start": [round(x, 2) for x in load],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(time.monotonic() - started, 1),
        "agent": args.agent,
        "opponent": args.opponent,
        "weights_sha256": {
            spec: weights_digest(agents.make(spec), DEFAULT_GAME) for spec in (args.agent, args.opponent)
        },
        "games": args.games,
        "seed": args.seed,
        "wins": pair["wins"],
        "draws": pair["draws"],
        "losses": pair["losses"],
        "score": round(score, 4),
        "score_ci95": [round(low, 4), round(high, 4)],
        "game_records": [asdict(game) for game in result.games],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{args.agent} vs {args.opponent}: {pair['wins']}-{pair['draws']}-{pair['losses']}, score {score:.1%} "
          f"[{low:.1%}, {high:.1%}] over {args.games} games; load {load[0]:.1f}; wrote {out}")  # fmt: skip


if __name__ == "__main__":
    main()
