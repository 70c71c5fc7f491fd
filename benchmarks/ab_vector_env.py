"""Vector env speed of two or more checkouts of the project, alternated in one run (issue 43: before and after a
change, on the same machine under the same load): ``AwaleVectorEnv.step`` alone, its actions drawn outside the timing,
in steps per CPU-second, self-play and against the built-in random opponent.

Each round runs every checkout once, in a fresh process whose imports come from that checkout (``PYTHONPATH``), in an
order that alternates between rounds; a run reports the median of its timed batches. The figures are the medians over
the rounds, and each checkout's ratio to the first. The measurement uses only ``AwaleVectorEnv``'s public API, which
every version since the vector env's first has, so an old commit's worktree can be measured as it is.

Usage: python benchmarks/ab_vector_env.py BEFORE_DIR AFTER_DIR [...] [--rounds 3] [--game NAME] [--out [PATH]]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

from provenance import add_out_option, write_result

from awale_env.games import DEFAULT_GAME

#: The measurement run inside each checkout: prints {"self": steps/CPU-s, "random": steps/CPU-s} as one JSON line.
MEASURE = """
import json, statistics, sys, time
import numpy as np
from awale_env.vector import AwaleVectorEnv
game, num_envs, batches, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
out = {}
for mode, opponent in (("self", None), ("random", "random")):
    env = AwaleVectorEnv(num_envs, opponent=opponent, game=game)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    rates = []
    for batch in range(batches + 1):
        spent = 0.0
        for _ in range(steps):
            masks = env.action_masks()
            actions = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1)
            start = time.process_time()
            env.step(actions)
            spent += time.process_time() - start
        if batch:  # the first batch warms up
            rates.append(num_envs * steps / spent)
    out[mode] = statistics.median(rates)
print(json.dumps(out))
"""

#: At most this many bytes of a measurement's output are read.
TAIL = 4096


def tail(file: IO[bytes]) -> str:
    """The last :data:`TAIL` bytes a program wrote into ``file``."""
    file.seek(max(0, file.seek(0, os.SEEK_END) - TAIL))
    return file.read().decode(errors="replace").strip()


def measure(checkout: Path, game: str, num_envs: int, batches: int, steps: int) -> dict[str, float]:
    """One run of :data:`MEASURE` in a fresh process importing from ``checkout``, in its own process group, which is
    ended however this run ends."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-c", MEASURE, game, str(num_envs), str(batches), str(steps)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, env=env, cwd=checkout, stdout=out, stderr=err, start_new_session=True)
        try:
            code = process.wait()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if code != 0:
            raise SystemExit(f"the measurement failed in {checkout}: {tail(err)}")
        return json.loads(tail(out).splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="project checkouts (worktrees), the first the baseline")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default=DEFAULT_GAME, help="a registered game (default: the default game)")
    parser.add_argument("--vector-envs", type=int, default=4096)
    parser.add_argument("--batches", type=int, default=5, help="timed batches per run (after one warm-up batch)")
    parser.add_argument("--steps", type=int, default=100, help="step() calls per batch")
    add_out_option(parser, "vector_env_ab")
    args = parser.parse_args()
    names = [str(path.resolve()) for path in args.checkouts]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    loads = []
    for round_ in range(args.rounds):
        order = names if round_ % 2 == 0 else names[::-1]
        for name in order:
            loads.append(round(os.getloadavg()[0], 2))
            runs[name].append(measure(Path(name), args.game, args.vector_envs, args.batches, args.steps))
            print(f"round {round_ + 1} {name}: {runs[name][-1]} (load {loads[-1]})", flush=True)
    medians = {name: {mode: statistics.median(run[mode] for run in runs[name]) for mode in ("self", "random")}
               for name in names}  # fmt: skip
    base = medians[names[0]]
    ratios = {name: {mode: medians[name][mode] / base[mode] for mode in base} for name in names}
    for name in names:
        print(f"{name}: self-play {medians[name]['self']:,.0f} ({ratios[name]['self']:.2f}), "
              f"vs random {medians[name]['random']:,.0f} ({ratios[name]['random']:.2f}) steps/CPU-s")  # fmt: skip
    result = {"medians": medians, "ratios": ratios, "runs": runs, "loads_1min": loads}
    write_result(args.out, result, options={k: str(v) for k, v in vars(args).items() if k != "out"})


if __name__ == "__main__":
    main()
