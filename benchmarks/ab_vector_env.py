"""Vector env speed of two or more checkouts of the project, alternated in one run (issue 43: before and after a
change, on the same machine under the same load): ``AwaleVectorEnv.step`` alone, its actions drawn outside the timing,
in steps per CPU-second, self-play and against the built-in random opponent.

Each round runs every checkout once, in a fresh process whose imports come from that checkout (``PYTHONPATH``), in an
order that alternates between rounds; a run reports the median of its timed batches. The figures are the medians over
the rounds, and each checkout's ratio to the first. The measurement uses only ``AwaleVectorEnv``'s public API, which
every version since the vector env's first has, so an old commit's worktree can be measured as it is.

The other A/B scripts (``ab_agents.py``) run their measurements through :func:`run_json` and :func:`alternated`.

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
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

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


def run_json(checkout: Path, command: list[str]) -> dict[str, Any]:
    """The JSON object on the last line ``command`` prints, run in a fresh process importing from ``checkout``
    (``PYTHONPATH``, also its working folder), in its own process group, which is ended however this run ends."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
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


def alternated(checkouts: list[Path], rounds: int, measure: Callable[[Path], dict[str, float]]) -> dict[str, Any]:
    """Run ``measure`` on every checkout once per round, the order reversed every other round; return the runs by
    checkout, their medians and ratios to the first checkout (figure by figure), and the 1-min load before each run."""
    names = [str(path.resolve()) for path in checkouts]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    loads = []
    for round_ in range(rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            loads.append(round(os.getloadavg()[0], 2))
            runs[name].append(measure(Path(name)))
            print(f"round {round_ + 1} {name}: {runs[name][-1]} (load {loads[-1]})", flush=True)
    figures = list(runs[names[0]][0])
    medians = {name: {key: statistics.median(run[key] for run in runs[name]) for key in figures} for name in names}
    ratios = {name: {key: medians[name][key] / medians[names[0]][key] for key in figures} for name in names}
    return {"medians": medians, "ratios": ratios, "runs": runs, "loads_1min": loads}


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
    command = [sys.executable, "-c", MEASURE, args.game, str(args.vector_envs), str(args.batches), str(args.steps)]
    result = alternated(args.checkouts, args.rounds, lambda checkout: run_json(checkout, command))
    for name, medians in result["medians"].items():
        ratios = result["ratios"][name]
        print(f"{name}: self-play {medians['self']:,.0f} ({ratios['self']:.2f}), "
              f"vs random {medians['random']:,.0f} ({ratios['random']:.2f}) steps/CPU-s")  # fmt: skip
    write_result(args.out, result, options={k: str(v) for k, v in vars(args).items() if k != "out"})


if __name__ == "__main__":
    main()
