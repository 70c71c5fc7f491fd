"""How soon a fresh ``awale bot`` process answers its first line, as the course's referee times it: from the launch
of the process to its first answer line, as JoueurA (``START`` sent at launch) and as JoueurB (the opponent's first
move sent at launch, as from an opponent that answers at once). Each agent is prepared first (``awale bot
--prepare``, the one-time step of docs/editions.md), then launched ``--launches`` times per seat, one process at a
time, and once more as JoueurA without its opening book (``--no-book``: a game without one). Also measured: the
launch to the bot's log line saying that its agent is loaded. The medians are printed and written with the date,
the command, the load average and the machine.

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
#: The launches of each agent: the seat, the bot's extra flags, the first line (None: the opponent's first move).
SEATS = (("JoueurA", [], "START"), ("JoueurB", [], None), ("JoueurA", ["--no-book"], "START"))


def first_answer(command: list[str], line: str, spec: str) -> tuple[float, float, str]:
    """Seconds from the launch of ``command`` to its first answer line to ``line`` (sent at launch) and to its log
    line saying that the agent of ``spec`` is loaded (the engine ready for a search), and the answer."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)  # fmt: skip
    try:
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
        answer = process.stdout.readline(4096)
        seconds = time.perf_counter() - started
        while (log := process.stderr.readline(4096)) and f"{spec} loaded in".encode() not in log:
            pass
        loaded = time.perf_counter() - started
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return seconds, loaded, answer.decode().strip()


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
        for seat, flags, line in SEATS:
            times, loads = [], []
            for _ in range(args.launches):
                seconds, loaded, answer = first_answer([*bot, "--agent", spec, *flags, seat], line or opening, spec)
                if not answer or answer.startswith("RESULT"):
                    raise SystemExit(f"{spec} as {seat} answered {answer!r}")
                times.append(seconds)
                loads.append(loaded)
            name = " ".join([seat, *flags])
            row = (spec, name, statistics.median(times), min(times), max(times), statistics.median(loads))
            rows.append(row)
            print(f"{spec:28} {name:18} first answer: median {row[2]:.3f} s (min {row[3]:.3f}, max {row[4]:.3f}); "
                  f"agent loaded: median {row[5]:.3f} s", flush=True)  # fmt: skip
    load_after = os.getloadavg()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python "
    machine += platform.python_version()
    table = ["| agent | seat | first answer: median | min | max | agent loaded: median |", "|---|---|---|---|---|---|"]
    table += [f"| `{spec}` | {seat} | {median:.2f} s | {low:.2f} s | {high:.2f} s | {loaded:.2f} s |"
              for spec, seat, median, low, high, loaded in rows]  # fmt: skip
    report = "\n".join([
        f"# `awale bot` launch to first answer, {game.name}",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `python {shlex.join(sys.argv)}`",
        f"- machine: {machine}",
        f"- load average (1, 5, 15 min) before: {' '.join(f'{x:.2f}' for x in load_before)}; after: "
        f"{' '.join(f'{x:.2f}' for x in load_after)}",
        f"- {args.launches} launches per agent and seat, one at a time, after `awale bot --prepare`; the first line "
        "sent at launch (`START` to JoueurA, the opponent's first move to JoueurB); `--no-book`: the first answer "
        "waits for the engine (a game without a book); agent loaded: launch to the bot's log line saying so",
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
