"""How long the quick start's ``awale demo`` takes, step by step: the self-play PPO run and the arena, each timed by
the demo itself (its ``N/2 done in H:MM:SS`` lines), plus the whole command with its start-up (imports, kernels).

    python benchmarks/bench_demo.py --out                      # the demo as the README runs it
    python benchmarks/bench_demo.py --steps 4096 --games 2     # a quick check that it works

The demo runs as a separate process (``python -m awale_apps demo``) into a temporary run directory, deleted after;
``--out`` writes benchmarks/results/demo.json (``ppo_seconds``, ``arena_seconds``, ``total_seconds``), from which
``benchmarks/update_docs.py`` writes the README's durations.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import ROOT, add_out_option, write_result

DONE = re.compile(r"^(?P<step>[12])/2 done in (?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d)$", re.M)


def step_seconds(output: str) -> dict[str, int]:
    """``{"ppo_seconds": ..., "arena_seconds": ...}`` from the demo's output; ValueError if a step line is missing."""
    found = {m["step"]: int(m["h"]) * 3600 + int(m["m"]) * 60 + int(m["s"]) for m in DONE.finditer(output)}
    if set(found) != {"1", "2"}:
        raise ValueError(f"the demo's output lacks its 'N/2 done in' lines:\n{output[-2000:]}")
    return {"ppo_seconds": found["1"], "arena_seconds": found["2"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None, help="the demo's --steps (default: its own)")
    parser.add_argument("--games", type=int, default=None, help="the demo's --games (default: its own)")
    add_out_option(parser, "demo")
    args = parser.parse_args(argv)
    options = [f"--{name}={value}" for name, value in (("steps", args.steps), ("games", args.games)) if value]
    with tempfile.TemporaryDirectory() as scratch:
        command = [sys.executable, "-m", "awale_apps", "demo", "--run-dir", str(Path(scratch) / "demo"), *options]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, start_new_session=True)
        total = time.monotonic() - started
    if done.returncode != 0:
        print(f"error: the demo failed ({done.returncode}):\n{done.stderr[-2000:]}", file=sys.stderr)
        return 1
    figures = {**step_seconds(done.stdout), "total_seconds": round(total)}
    print(", ".join(f"{key} {value:,}" for key, value in figures.items()))
    write_result(args.out, figures, demo_options=options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
