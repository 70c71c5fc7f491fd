"""Games per hour of ``awale tournament``: four course programs (``awale bot`` with agents thinking ``--think``
seconds a move) in a round robin, with ``--workers`` 1 and 2, each run ``--runs`` times in a fresh store; prints
the median and writes a result file (date, command, load average before and after each run).

    python benchmarks/bench_tournament.py --game awale16_2025 --runs 1 --out benchmarks/results/tournament/bench.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from awale_env.games import DEFAULT_GAME

AWALE = str(Path(sys.executable).with_name("awale"))


def players_toml(game: str, think: float) -> str:
    agents = [f"alphabeta:time={think}", f"mcts:time={think}", "greedy", "random"]
    bot = f"{AWALE} bot --game {game} --seed 1 --agent"
    return "".join(f'[[player]]\nname = "{agent.split(":")[0]}"\ncommand = "{bot} {agent}"\n\n' for agent in agents)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--think", type=float, default=0.1, help="seconds each agent thinks per move")
    parser.add_argument("--time", type=float, default=1.0, help="the referee's limit per move (a margin over --think)")
    parser.add_argument("--games-per-pair", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="a Markdown result file to write")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        players = Path(folder) / "players.toml"
        players.write_text(players_toml(args.game, args.think))
        for workers in args.workers:
            rates, loads = [], []
            for run in range(args.runs):
                db = Path(folder) / f"w{workers}-{run}.db"
                command = [AWALE, "tournament", str(players), "--game", args.game, "--games-per-pair",
                           str(args.games_per_pair), "--time", str(args.time), "--startup", "30", "--workers",
                           str(workers), "--db", str(db), "--no-progress"]  # fmt: skip
                before = os.getloadavg()[0]
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True)
                seconds = time.perf_counter() - started
                if done.returncode:
                    sys.exit(f"the tournament failed: {done.stderr.strip()}")
                games = 6 * args.games_per_pair
                rates.append(games / seconds * 3600)
                loads.append((before, os.getloadavg()[0]))
                print(f"workers {workers}, run {run + 1}: {games} games in {seconds:.0f} s = {rates[-1]:.0f} games/h, "
                      f"load {before:.1f} -> {loads[-1][1]:.1f}", flush=True)  # fmt: skip
            rows.append((workers, statistics.median(rates), rates, loads))
    text = [
        f"# awale tournament: games per hour ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Made by `python benchmarks/bench_tournament.py {' '.join(argv or sys.argv[1:])}` on {os.cpu_count()} cores "
        f"({platform.processor() or platform.machine()}, Python {platform.python_version()}). Four programs (`awale "
        f"bot --game {args.game}` with alphabeta and mcts at time={args.think}, greedy, random), "
        f"{args.games_per_pair} games per pair (12 games), referee limit {args.time} s per move; each program started "
        "afresh for each game. The machine is shared: the load average (1 min) before and after each run is given.",
        "",
        "| workers | games/hour (median) | runs | load before -> after |",
        "| ---: | ---: | --- | --- |",
    ]
    for workers, median, rates, loads in rows:
        runs = ", ".join(f"{rate:.0f}" for rate in rates)
        load = "; ".join(f"{a:.1f} -> {b:.1f}" for a, b in loads)
        text.append(f"| {workers} | {median:.0f} | {runs} | {load} |")
    print("\n".join(text))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
