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


def table(header: str, rows: list[list[str]]) -> list[str]:
    """A Markdown table: ``header`` its column names separated by "|", the first column left-aligned."""
    columns = header.count("|") + 1
    return [f"| {header} |", "| --- |" + " ---: |" * (columns - 1), *(f"| {' | '.join(row)} |" for row in rows)]


def summary(records: list[dict], top: int) -> str:
    """A Markdown summary: totals, each worker's span, the files by CPU time, the ``top`` tests by CPU time and by
    time waited (wall beyond CPU: a worker's core idle unless another program uses it)."""
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for record in records:
        totals = by_file[record["test"].split("::")[0]]
        totals[0] += record["wall"]
        totals[1] += record["cpu"]
        totals[2] += 1
    wall, cpu = sum(r["wall"] for r in records), sum(r["cpu"] for r in records)
    lines = [f"{len(records)} tests, {wall:.0f} s of test wall time, {cpu:.0f} CPU-s (tests and their reaped programs)"]
    lines.append("")
    for worker in sorted({r["worker"] for r in records}):
        mine = [r for r in records if r["worker"] == worker]
        span = max(r["start"] + r["wall"] for r in mine) - min(r["start"] for r in mine)
        busy = sum(r["wall"] for r in mine)
        lines.append(
            f"- worker {worker}: {len(mine)} tests, {busy:.0f} s in tests, {span:.0f} s first start to last end"
        )
    ranked = sorted(by_file.items(), key=lambda item: -item[1][1])[:top]
    rows = [[name, str(count), f"{wall:.1f}", f"{cpu:.1f}"] for name, (wall, cpu, count) in ranked]
    lines += ["", f"## Files by CPU-s (top {top})", "", *table("file | tests | wall s | CPU-s", rows)]

    def phase(record: dict, name: str) -> str:
        times = record.get(name, {"wall": 0.0, "cpu": 0.0})
        return f"{times['wall']:.1f} / {times['cpu']:.1f}"

    def test_rows(chosen: list[dict]) -> list[list[str]]:
        return [[r["test"], r["worker"], phase(r, "setup"), phase(r, "call"), f"{r['wall']:.1f}", f"{r['cpu']:.1f}"]
                for r in chosen]  # fmt: skip

    header = "test | worker | setup wall / CPU | call wall / CPU | wall s | CPU-s"
    lines += [
        "",
        f"## Tests by CPU-s (top {top})",
        "",
        *table(header, test_rows(sorted(records, key=lambda r: -r["cpu"])[:top])),
    ]
    waited = sorted(records, key=lambda r: r["cpu"] - r["wall"])[:top]
    lines += ["", f"## Tests by wall beyond CPU (top {top})", "", *table(header, test_rows(waited))]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="Sum a --suite-profile file by test file; the costliest tests.")
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
