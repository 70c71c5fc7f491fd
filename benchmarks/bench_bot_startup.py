"""How soon a fresh ``awale bot`` process answers its first line, as the course's referee times it: from the launch
of the process to its first answer line, as JoueurA (``START`` sent at launch) and as JoueurB (the opponent's first
move sent at launch, as from an opponent that answers at once). Each agent is prepared first (``awale bot
--prepare``, the one-time step of docs/editions.md), then launched ``--launches`` times per seat, one process at a
time; the medians are printed and written with the date, the command, the load average and the machine.

    python benchmarks/bench_bot_startup.py --game awale16_2025 --out benchmarks/results/bot_startup_awale16_2025.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from awale_env.games import get_game

#: The agents measured by default: the bot's default and the shipped network.
AGENTS = ("alphabeta:time=2", "alphazero:pretrained,time=2")


def first_answer(command: list[str], line: str) -> tuple[float, str]:
    """Seconds from the launch of ``command`` to its first answer line to ``line`` (sent at launch), and the line."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    try:
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
        answer = process.stdout.readline(4096)
        seconds = time.perf_counter() - started
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return seconds, answer.decode().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="the game (registry name)")
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), help="agent specs")
    parser.add_argument("--launches", type=int, default=10, help="launches per agent and seat")
    parser.add_argument("--out", type=Path, help="write the results (Markdown) to this file")
    args = parser.parse_args()
    game = get_game(args.game)
    opening = game.format_move(game.initial().legal_actions()[0])
    bot = [sys.executable, "-m", "awale_apps", "bot", "--game", game.name]
    load_before = os.getloadavg()
    rows = []
    for spec in args.agents:
        subprocess.run([*bot, "--agent", spec, "--prepare"], check=True, stderr=subprocess.DEVNULL)
        for seat, line in (("JoueurA", "START"), ("JoueurB", opening)):
            times = []
            for _ in range(args.launches):
                seconds, answer = first_answer([*bot, "--agent", spec, seat], line)
                if not answer or answer.startswith("RESULT"):
                    raise SystemExit(f"{spec} as {seat} answered {answer!r}")
                times.append(seconds)
            row = (spec, seat, statistics.median(times), min(times), max(times))
            rows.append(row)
            print(f"{spec:32} {seat}: median {row[2]:.3f} s (min {row[3]:.3f}, max {row[4]:.3f})", flush=True)
    load_after = os.getloadavg()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python "
    machine += platform.python_version()
    table = ["| agent | seat | median | min | max |", "|---|---|---|---|---|"]
    table += [
        f"| `{spec}` | {seat} | {med:.2f} s | {low:.2f} s | {high:.2f} s |" for spec, seat, med, low, high in rows
    ]
    report = "\n".join([
        f"# `awale bot` launch to first answer, {game.name}",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `python {shlex.join(sys.argv)}`",
        f"- machine: {machine}",
        f"- load average (1, 5, 15 min) before: {' '.join(f'{x:.2f}' for x in load_before)}; after: "
        f"{' '.join(f'{x:.2f}' for x in load_after)}",
        f"- {args.launches} launches per agent and seat, one at a time, after `awale bot --prepare`; the first line "
        "sent at launch (`START` to JoueurA, the opponent's first move to JoueurB)",
        "",
        *table,
        "",
    ])  # fmt: skip
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
