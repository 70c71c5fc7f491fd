"""Where the suite's time goes: ``pytest --suite-profile FILE`` records, for every test, the wall time and the CPU
time of each phase (setup, call, teardown) and appends it to ``FILE`` as one JSON line; off by default.

The CPU time is the test process's own (user + system) plus that of its children reaped meanwhile
(``resource.getrusage``): a program a test starts and waits for counts for that test, as does its own children's
work once they are reaped. A module or session fixture counts for the test whose setup builds it. Under xdist each
worker appends its own lines (``worker`` says which, ``start`` when the test began, for how the tests packed onto the
workers). ``python tests/suite_profile.py FILE`` sums them by file and lists the costliest tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

PHASES = ("setup", "call", "teardown")


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and of its reaped children so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class SuiteProfile:
    """The plugin: times each test's phases and appends one JSON line per test to ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.record: dict = {}

    def _timed(self, phase: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), cpu_seconds()
        yield
        self.record[phase] = {"wall": time.perf_counter() - wall, "cpu": cpu_seconds() - cpu}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.record = {"test": item.nodeid, "worker": self.worker, "start": time.time()}
        yield
        self.record["wall"] = sum(self.record.get(phase, {}).get("wall", 0.0) for phase in PHASES)
        self.record["cpu"] = sum(self.record.get(phase, {}).get("cpu", 0.0) for phase in PHASES)
        with self.path.open("a") as out:  # one short append per line: the workers' lines do not mix
            out.write(json.dumps(self.record) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self) -> Iterator[None]:
        yield from self._timed("setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self) -> Iterator[None]:
        yield from self._timed("call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self) -> Iterator[None]:
        yield from self._timed("teardown")


def read(path: Path) -> list[dict]:
    """The records of a profile file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summary(records: list[dict], top: int) -> str:
    """A Markdown summary: totals, each worker's span, the files by CPU time, the ``top`` tests and setups."""
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for record in records:
        totals = by_file[record["test"].split("::")[0]]
        totals[0] += record["wall"]
        totals[1] += record["cpu"]
        totals[2] += 1
    lines = [f"{len(records)} tests, {sum(r['wall'] for r in records):.0f} s of test wall time, "
             f"{sum(r['cpu'] for r in records):.0f} CPU-s (tests and their reaped programs)", ""]  # fmt: skip
    for worker in sorted({r["worker"] for r in records}):
        mine = [r for r in records if r["worker"] == worker]
        span = max(r["start"] + r["wall"] for r in mine) - min(r["start"] for r in mine)
        lines.append(f"- worker {worker}: {len(mine)} tests, {sum(r['wall'] for r in mine):.0f} s in tests, "
                     f"{span:.0f} s from its first test's start to its last test's end")  # fmt: skip
    lines += ["", f"## Files by CPU-s (top {top})", "", "| file | tests | wall s | CPU-s |", "| --- | ---: | ---: | ---: |"]
    ranked = sorted(by_file.items(), key=lambda kv: -kv[1][1])[:top]
    lines += [f"| {name} | {count} | {wall:.1f} | {cpu:.1f} |" for name, (wall, cpu, count) in ranked]
    lines += ["", f"## Tests by CPU-s (top {top})", "", "| test | worker | setup wall/CPU | call wall/CPU | total wall | total CPU |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for r in sorted(records, key=lambda r: -r["cpu"])[:top]:
        setup, call = r.get("setup", {"wall": 0, "cpu": 0}), r.get("call", {"wall": 0, "cpu": 0})
        lines.append(f"| {r['test']} | {r['worker']} | {setup['wall']:.1f} / {setup['cpu']:.1f} | "
                     f"{call['wall']:.1f} / {call['cpu']:.1f} | {r['wall']:.1f} | {r['cpu']:.1f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="Sum a --suite-profile file by test file and list the costliest tests.")
    parser.add_argument("profile", type=Path, help="the file pytest --suite-profile wrote")
    parser.add_argument("--top", type=int, default=40, help="how many files and tests to list (default 40)")
    args = parser.parse_args()
    try:
        records = read(args.profile)
        print(summary(records, args.top), end="")
    except (OSError, ValueError, KeyError, TypeError) as error:
        parser.error(f"{args.profile} is not a --suite-profile file: {error!r}")


if __name__ == "__main__":
    main()
