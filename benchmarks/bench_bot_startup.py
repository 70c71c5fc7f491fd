"""How soon a fresh ``awale bot`` process is ready, as the course's referee times it: from the launch of the process
to its first answer line (``START`` sent at launch to JoueurA; the opponent's first move to JoueurB, as from an
opponent that answers at once), to the bot's log line saying that its rules are ready (a legal search possible: the
plain-Python rules, or the compiled ones of a game without them) and to the one saying that its agent is ready (its
own process has loaded and warmed it up), with where the agent's process spent its seconds (the phases its ready
line gives: ``python`` (the interpreter), ``rules`` (numpy, numba and the game's compiled rules), ``agent`` (its
modules and network) and ``warm-up`` (its first searches: numba's cached kernels)). Each agent is prepared first
(``awale bot --prepare``, the one-time step of docs/editions.md: caches filled), then launched ``--launches`` times
per seat, one process at a time, and as JoueurA without its opening book (``--no-book``: the first answer is the
fallback's). ``--busy N`` runs N busy processes beside it (each in its own process group, ended by PID on every way
out): ``--busy 8`` is load 8 on 2 cores.

    python benchmarks/bench_bot_startup.py --game awale16_2025 --out
    python benchmarks/bench_bot_startup.py --game awale16_2025 --busy 8 --out

The figures (medians, min, max in seconds; where the first answer came from) go to
``benchmarks/results/bot_startup_<game>[_busy<N>].json`` with their provenance (benchmarks/provenance.py).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from provenance import RESULTS, busy_processes, write_result

from awale_apps.bot_fallback import plain_rules

#: The agents measured by default: the bot's default, the docs' tournament setting and the shipped network.
AGENTS = ("alphabeta:time=2", "alphabeta:time=2.5", "alphazero:pretrained,time=2")
#: The launches of each agent: their name in the results, the seat, the bot's extra flags, the first line (None:
#: the opponent's first move).
LAUNCHES = (("JoueurA", "JoueurA", [], "START"), ("JoueurB", "JoueurB", [], None),
            ("JoueurA --no-book", "JoueurA", ["--no-book"], "START"))  # fmt: skip
#: The log lines timed: the rules ready, the agent ready.
MARKS = {"rules_ready": "are ready (", "agent_ready": "the agent is ready"}
#: Seconds a launch may take to get its agent ready.
TIMEOUT = 300
#: The phases of the agent's process in its ready line (``... its own process's: python 0.05 s, rules 1.10 s, ...``).
PHASE = re.compile(r"([a-z][a-z-]*) ([0-9.]+) s")


def launch(command: list[str], line: str) -> dict[str, float | str]:
    """Seconds from the launch of ``command`` to its first answer to ``line`` (sent at launch) and to each log line
    of :data:`MARKS`, and where the first answer came from (the bot's log)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)  # fmt: skip
    times: dict[str, float | str] = {}

    def read_log() -> None:
        for text in iter(lambda: process.stderr.readline(4096).decode(errors="replace"), ""):
            for name, mark in MARKS.items():
                if mark in text and name not in times:
                    times[name] = time.perf_counter() - started
            if MARKS["agent_ready"] in text and "process's: " in text:
                phases = text.split("process's: ", 1)[1]
                times.update({f"phase {name}": float(seconds) for name, seconds in PHASE.findall(phases)})
            if "ply " in text and " from " in text and "source" not in times:
                times["source"] = text.split(" from ", 1)[1].split(",")[0]

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
        answer = process.stdout.readline(4096).decode().strip()
        times["first_answer"] = time.perf_counter() - started
        if not answer or answer.startswith("RESULT"):
            raise SystemExit(f"{command} answered {answer!r}")
        deadline = time.monotonic() + TIMEOUT
        while "agent_ready" not in times and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        reader.join(5)
    return times


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def measure(game: str, agents: list[str], launches: int) -> dict[str, dict]:
    rules = plain_rules(game)
    if rules is None:
        raise SystemExit(f"{game} has no plain-Python rules: its bot has no fallback to measure")
    opening = rules().format_move(rules().initial().legal_actions()[0])
    bot = [sys.executable, "-m", "awale_apps", "bot", "--game", game]
    figures: dict[str, dict] = {}
    for spec in agents:
        subprocess.run([*bot, "--agent", spec, "--prepare"], check=True, stderr=subprocess.DEVNULL)
        for name, seat, flags, line in LAUNCHES:
            runs = [launch([*bot, "--agent", spec, *flags, seat], line or opening) for _ in range(launches)]
            phases = list(dict.fromkeys(key for run in runs for key in run if key.startswith("phase ")))
            row = {key: summary([run[key] for run in runs if key in run]) for key in ("first_answer", *MARKS, *phases)}
            row["first_answer_from"] = sorted({str(run.get("source")) for run in runs})
            figures.setdefault(spec, {})[name] = row
            spent = ", ".join(f"{key.removeprefix('phase ')} {row[key]['median']:.2f} s" for key in phases)
            print(f"{spec:28} {name:18} first answer {row['first_answer']['median']:.2f} s "
                  f"({', '.join(row['first_answer_from'])}); rules ready {row['rules_ready']['median']:.2f} s; "
                  f"agent ready {row['agent_ready']['median']:.2f} s (medians of {launches}; its process: {spent})",
                  flush=True)  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="the game (registry name)")
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), help="agent specs")
    parser.add_argument("--launches", type=int, default=10, help="launches per agent and seat")
    parser.add_argument("--busy", type=int, default=0, help="busy processes running beside the bot")
    parser.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=True,
        default=None,
        help="write the result file (default: benchmarks/results/bot_startup_<game>[_busy<N>].json)",
    )
    args = parser.parse_args()
    if args.out is True:
        args.out = RESULTS / f"bot_startup_{args.game}{f'_busy{args.busy}' if args.busy else ''}.json"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with busy_processes(args.busy):
        figures = measure(args.game, args.agents, args.launches)
    options = {"game": args.game, "agents": args.agents, "launches": args.launches, "busy": args.busy}
    write_result(args.out, figures, options=options)


if __name__ == "__main__":
    main()
