"""How long CI takes on this machine and how many tests it runs: ``CI=true bash .ci/run`` from a fresh clone of this
commit (both virtual environments built, ruff, the main suite on one worker per core, then Ray's tests).

    python benchmarks/bench_ci.py --out        # benchmarks/results/ci.json, for the README's quick start

The clone goes to a temporary directory (deleted after), so the figures are a newcomer's: kernels compiled afresh,
packages installed from the index. Figures: ``main_tests`` and ``main_seconds`` (pytest's own count and time of the
main suite), ``ray_tests`` and ``ray_seconds``, and ``total_seconds`` (the whole command, installs included).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import ROOT, add_out_option, write_result

#: pytest's summary line: ``1660 passed, 3 skipped, 2 warnings in 345.12s (0:05:45)``.
SUMMARY = re.compile(r"^(?:\d+ \w+, )*?(?P<passed>\d+) passed[^\n]*? in (?P<seconds>[\d.]+)s\b", re.M)


def suites(output: str) -> dict[str, float]:
    """The main suite's and Ray's counts and times, from the output of ``.ci/run`` (in that order)."""
    found = [(int(m["passed"]), float(m["seconds"])) for m in SUMMARY.finditer(output)]
    if len(found) != 2:
        raise ValueError(f"expected two pytest summaries (the main suite, then Ray's), found {len(found)}")
    (main_tests, main_seconds), (ray_tests, ray_seconds) = found
    return {"main_tests": main_tests, "main_seconds": round(main_seconds), "ray_tests": ray_tests,
            "ray_seconds": round(ray_seconds)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_out_option(parser, "ci")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        clone = Path(scratch) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        started = time.monotonic()
        done = subprocess.run(["bash", ".ci/run"], cwd=clone, env={**os.environ, "CI": "true"}, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        total = time.monotonic() - started
    if done.returncode != 0:
        print(f"error: CI failed ({done.returncode}):\n{done.stdout[-3000:]}", file=sys.stderr)
        return 1
    figures = {**suites(done.stdout), "total_seconds": round(total)}
    print(", ".join(f"{key} {value:,}" for key, value in figures.items()))
    write_result(args.out, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
