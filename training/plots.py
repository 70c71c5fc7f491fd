"""Learning curves of PPO runs: win rate against each evaluation opponent vs learner moves, drawn to a PNG.

    python -m training.plots runs/ppo-awale16                                   # writes runs/ppo-awale16/curves.png
    python -m training.plots runs/ppo-awale16 runs/other --out compared.png    # several runs: --out is required

Reads the ``eval.csv`` that :mod:`training.ppo.trainer` writes in every run directory; the shaded band is one
binomial standard error of each win rate (it shrinks with the game count of the evaluation).
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tyro

#: The figure's name in the run directory when there is one run and no ``--out``.
DEFAULT_NAME = "curves.png"


@dataclass
class PlotArgs:
    """Draw the win-rate curves of one or more PPO runs to a PNG."""

    runs: tyro.conf.Positional[tuple[str, ...]]
    """run directories (each holding an eval.csv)"""
    out: str | None = None
    """the PNG to write (default: curves.png in the run directory; required for several runs)"""
    title: str = "Self-play PPO on Awale: win rate of the learner"


def read_eval(run_dir: Path) -> dict[str, dict[str, np.ndarray]]:
    """``{opponent: {"steps", "win_rate", "games"}}`` from a run's eval.csv, sorted by steps."""
    path = run_dir / "eval.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: is {run_dir} a PPO run directory?")
    rows: dict[str, list[tuple[int, float, int]]] = {}
    with path.open(newline="") as file:
        for row in csv.DictReader(file):
            rows.setdefault(row["opponent"], []).append((int(row["steps"]), float(row["win_rate"]), int(row["games"])))
    curves = {}
    for opponent, values in rows.items():
        values.sort()
        steps, rate, games = (np.array(column) for column in zip(*values))
        curves[opponent] = {"steps": steps, "win_rate": rate, "games": games}
    return curves


def plot(runs: list[Path], out: Path, title: str) -> None:
    from matplotlib.figure import Figure  # only to draw: not for --help (a second of CPU)

    figure = Figure(figsize=(8, 5))
    axis = figure.subplots()
    for run in runs:
        for opponent, curve in read_eval(run).items():
            label = opponent if len(runs) == 1 else f"{run.name}: {opponent}"
            rate = curve["win_rate"]
            error = np.sqrt(rate * (1 - rate) / curve["games"])
            (line,) = axis.plot(curve["steps"], rate, marker=".", label=label)
            axis.fill_between(curve["steps"], rate - error, rate + error, color=line.get_color(), alpha=0.2)
    axis.set_xlabel("learner moves")
    axis.set_ylabel("win rate (deterministic policy)")
    axis.set_ylim(-0.02, 1.02)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    axis.set_title(title)
    figure.tight_layout()
    figure.savefig(out, dpi=120)


def output(args: PlotArgs) -> Path:
    """Where the figure goes: ``--out``, else beside the one run's eval.csv (never the current directory)."""
    if args.out is not None:
        return Path(args.out)
    if len(args.runs) != 1:
        raise ValueError(f"{len(args.runs)} runs drawn on one figure: say where it goes with --out FILE.png")
    return Path(args.runs[0]) / DEFAULT_NAME


def main(argv: list[str] | None = None) -> None:
    args = tyro.cli(PlotArgs, args=argv)
    try:
        out = output(args)
        plot([Path(run) for run in args.runs], out, args.title)
    except (FileNotFoundError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
