"""Result files of the benchmarks: the figures a script measured with when, how, where and under what load.

Every script of benchmarks/ takes ``--out [PATH]`` (:func:`add_out_option`): with it, the script writes its result as
JSON (``PATH``, or its default file under benchmarks/results/) through :func:`write_result`, which adds the
provenance beside the figures: the UTC date, the command as typed from the repository's root, the machine (CPU model,
cores, memory, Python, torch), the git commit and the load average (1 min) before and after the measurement. The
docs take their figures from these files only (``python benchmarks/update_docs.py``).

A command that writes a folder of results itself (``awale arena --out DIR``) is run through this module, which
records its provenance beside them in ``DIR/provenance.json``:

    python benchmarks/provenance.py DIR -- awale arena --agents random greedy --games 100 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: The load average (1 min) when this module was imported, i.e. when the benchmark started.
LOAD_AT_START = os.getloadavg()[0]


#: A process spinning on the CPU while its parent (the PID given as its argument) lives, checked every million loops:
#: a benchmark killed with ``kill -9`` leaves none spinning.
BUSY_SOURCE = "import os, sys\nwhile os.getppid() == int(sys.argv[1]):\n    for _ in range(1_000_000):\n        pass\n"


@contextmanager
def busy_processes(count: int) -> Iterator[list[int]]:
    """``count`` processes spinning on the CPU beside a measurement (``--busy 8``: load 8 on 2 cores, a student's
    laptop), each in its own process group, ended by PID on every way out; their PIDs."""
    command = [sys.executable, "-c", BUSY_SOURCE, str(os.getpid())]
    busy = [subprocess.Popen(command, start_new_session=True) for _ in range(count)]
    try:
        yield [process.pid for process in busy]
    finally:
        for process in busy:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()


def add_out_option(parser: argparse.ArgumentParser, name: str) -> None:
    """``--out [PATH]``: write the result file, by default benchmarks/results/``name``.json."""
    default = RESULTS / f"{name}.json"
    parser.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=default,
        default=None,
        help=f"write the figures and their provenance as JSON (default file: {default.relative_to(ROOT)})",
    )


def cpu_model() -> str:
    """The CPU's model name (Linux), else what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    found: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": memory_gb(),
        "python": platform.python_version(),
        "system": platform.system(),
    }
    if "torch" in sys.modules:
        found["torch"] = sys.modules["torch"].__version__
    return found


def git_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


#: The commit measured: read when the script starts, as a commit made during a long run (an hour of CI) is not it.
COMMIT_AT_START = git_commit()


def command_line(argv: list[str] | None = None) -> str:
    """The command that ran, as typed from the repository's root (``python benchmarks/x.py ...``)."""
    argv = sys.argv if argv is None else argv
    script = Path(argv[0]).resolve()
    shown = str(script.relative_to(ROOT)) if script.is_relative_to(ROOT) else argv[0]
    return shlex.join(["python", shown, *argv[1:]])


def provenance(argv: list[str] | None = None, load_before: float | None = None) -> dict[str, Any]:
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command_line(argv),
        "machine": machine(),
        "commit": COMMIT_AT_START,
        "load_before": round(LOAD_AT_START if load_before is None else load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def write_result(path: Path | None, figures: dict[str, Any], **context: Any) -> None:
    """Write ``figures`` with their provenance (and any ``context``, e.g. the script's options) to ``path``; nothing
    when ``path`` is None (no ``--out``)."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"provenance": provenance(), **context, "figures": figures}
    path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    print(f"wrote {path}")


def run_and_record(folder: Path, command: list[str]) -> int:
    """Run ``command`` (in its own process group, ended with us on Ctrl-C or SIGTERM), then, if it succeeded, write
    its provenance to ``folder``/provenance.json; its exit status."""
    load_before = os.getloadavg()[0]
    started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    beside = Path(sys.executable).parent / command[0]  # `awale` of this environment when it is not on the PATH
    program = command[0] if shutil.which(command[0]) or not beside.is_file() else str(beside)
    try:
        process = subprocess.Popen([program, *command[1:]], start_new_session=True)
    except OSError as error:
        print(f"error: cannot run {command[0]!r}: {error.strerror}", file=sys.stderr)
        return 127
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        status = process.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
    if status == 0:
        record = provenance([command[0], *command[1:]], load_before) | {"date": started}
        record["command"] = shlex.join(command)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "provenance.json").write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {folder / 'provenance.json'}")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a command that writes results to DIR; record its provenance.")
    parser.add_argument("folder", type=Path, help="the results folder (gets provenance.json)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command: python benchmarks/provenance.py DIR -- COMMAND ...")
    return run_and_record(args.folder, command)


if __name__ == "__main__":
    sys.exit(main())
