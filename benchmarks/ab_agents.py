"""Alpha-beta's speed in two or more checkouts of the project, alternated in one run (issue 43: before and after a
change of the shared search or a game's kernels, on the same machine under the same load): nodes per CPU second of
fixed-depth searches of the same positions (``bench_agents.py --depth``), per evaluation.

Each round runs every checkout once, in a fresh process whose imports come from that checkout, the order reversed
every other round (:func:`ab_vector_env.alternated`); this tree's ``bench_agents.py`` measures, so an old checkout is
measured as it is. The node counts must agree between checkouts (the same trees searched), else the rates do not
compare: the script says so. The figures are the medians over the rounds and each checkout's ratio to the first.

Usage: python benchmarks/ab_agents.py BEFORE_DIR AFTER_DIR [...] [--game NAME] [--depth D] [--positions N]
       [--evals E ...] [--rounds 5] [--out [PATH]]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ab_vector_env import alternated, run_json
from provenance import add_out_option, write_result

from agents.evaluation import EVALUATIONS
from awale_env.games import DEFAULT_GAME

BENCH_AGENTS = Path(__file__).with_name("bench_agents.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="project checkouts (worktrees), the first the baseline")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--game", default=DEFAULT_GAME, help="a registered game (default: the default game)")
    parser.add_argument("--depth", type=int, default=10, help="the depth of every search")
    parser.add_argument("--positions", type=int, default=100, help="the positions searched per run")
    parser.add_argument("--evals", nargs="+", choices=EVALUATIONS, default=list(EVALUATIONS))
    add_out_option(parser, "agents_ab")
    args = parser.parse_args()
    command = [sys.executable, str(BENCH_AGENTS), "--game", args.game, "--depth", str(args.depth), "--positions",
               str(args.positions), "--json", "--evals", *args.evals]  # fmt: skip

    def measure(checkout: Path) -> dict[str, float]:
        figures = run_json(checkout, command)
        return {key: value for key, value in figures.items() if key.startswith(("nodes_", "cpu_seconds_"))}

    result = alternated(args.checkouts, args.rounds, measure)
    counts = {name: [run[f"nodes_{e}"] for e in args.evals] for name, (run, *_) in result["runs"].items()}
    if len({tuple(c) for c in counts.values()}) > 1:
        print(f"the checkouts searched different trees (nodes {counts}): their rates do not compare", flush=True)
    for name, ratios in result["ratios"].items():
        rates = ", ".join(f"{e} {result['medians'][name][f'nodes_per_cpu_s_{e}']:,.0f} "
                          f"({ratios[f'nodes_per_cpu_s_{e}']:.2f})" for e in args.evals)  # fmt: skip
        print(f"{name}: nodes/CPU-s {rates}")
    write_result(args.out, result | {"same_trees": len({tuple(c) for c in counts.values()}) == 1},
                 options={k: str(v) for k, v in vars(args).items() if k != "out"})  # fmt: skip


if __name__ == "__main__":
    main()
