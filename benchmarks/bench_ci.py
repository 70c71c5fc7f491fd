"""How long CI takes on this machine and how many tests it runs: ``CI=true bash .ci/run`` from a fresh clone of this
commit (both virtual environments built, ruff, the main suite on one worker per core, then Ray's tests).

    python benchmarks/bench_ci.py --out                 # benchmarks/results/ci.json, for the README's quick start
    python benchmarks/bench_ci.py --busy 8 --out        # beside 8 busy processes: benchmarks/results/ci_busy8.json

The clone goes to a temporary directory (deleted after), so the figures are a newcomer's: kernels compiled afresh,
packages installed from the index. Figures: ``main_tests`` and ``main_seconds`` (pytest's own count and time of the
main suite), ``ray_tests`` and ``ray_seconds``, and ``total_seconds`` (the whole command, installs included).
``--busy N`` runs N busy processes beside it (load 8 on 2 cores with 8: a student's laptop, issue 41's goal), and
``--runs K`` runs CI K times in a row from fresh clones (the figures of each; it stops at the first that fails; the
result file is written after each run, ``runs_passed`` saying how many in a row passed so far).
Each run's whole output is kept in the temporary directory's ``bench_ci_runK.log`` (its stages' times, the slowest
tests).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import RESULTS, ROOT, add_out_option, busy_processes, write_result

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


def run_ci(clone: Path) -> tuple[int, str, float]:
    """``CI=true bash .ci/run`` in a fresh clone of this commit made at ``clone``: its exit code, output and
    seconds."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    started = time.monotonic()
    ci = subprocess.Popen(["bash", ".ci/run"], cwd=clone, env={**os.environ, "CI": "true"}, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        output = ci.communicate()[0]
    finally:  # on every way out (SIGTERM included) .ci/run's group goes, pip or pytest with it, before the clone
        with contextlib.suppress(ProcessLookupError):
            os.killpg(ci.pid, signal.SIGKILL)
        ci.wait()
    return ci.returncode, output, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_out_option(parser, "ci")
    parser.add_argument("--busy", type=int, default=0, help="busy processes running beside CI (default: none)")
    parser.add_argument("--runs", type=int, default=1, help="runs in a row, each from a fresh clone (default: 1)")
    args = parser.parse_args(argv)
    if args.busy and args.out == RESULTS / "ci.json":
        args.out = RESULTS / f"ci_busy{args.busy}.json"
    runs = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the busy processes are ended on the way out
    # The clones (2 GB of virtual environments each) are deleted once the busy processes have ended: beside them
    # deleting one took minutes.
    with tempfile.TemporaryDirectory() as scratch, busy_processes(args.busy):
        for run in range(1, args.runs + 1):
            code, output, total = run_ci(Path(scratch) / f"clone{run}")
            log = Path(tempfile.gettempdir()) / f"bench_ci_run{run}.log"  # the clone is gone: its whole output, kept
            log.write_text(output)  # for its stages' times and the slowest tests, whether it passed or not
            if code != 0:
                print(f"error: CI run {run} of {args.runs} failed ({code}), its output in {log}:\n{output[-3000:]}",
                      file=sys.stderr)  # fmt: skip
                return 1
            runs.append({**suites(output), "total_seconds": round(total)})
            summary = ", ".join(f"{key} {value:,}" for key, value in runs[-1].items())
            print(f"run {run}: {summary} (its output: {log})", flush=True)
            # after each run: one stopped in the middle of the next (hours in, beside busy processes) keeps these
            figures = runs[0] if len(runs) == 1 else {**runs[-1], "runs": runs}
            write_result(args.out, figures, options={"busy": args.busy, "runs": args.runs}, runs_passed=len(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
