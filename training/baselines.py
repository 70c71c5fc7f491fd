"""Baselines: a training run's learning curve as Elo against fixed anchors, over its wall-clock training time.

    python -m training.baselines measure RUN_DIR [--name NAME] [--anchors ...] [--games 20]   # into runs/baselines
    python -m training.baselines plot benchmarks/results/baselines/*.json --out docs/baselines.png

``measure`` finds the checkpoints a run kept (``awale train ppo``: ``checkpoints/step_*.zip``; ``awale train rllib``:
``checkpoints/iter_*/``; ``awale train alphazero --snapshot-every N``: ``snapshots/gen_*.pt``), each with the
training time it was written at (the PPO checkpoint's own clock; the RLlib checkpoint's ``trainer.json``; the
AlphaZero run's ``metrics.csv``), plays each one ``--games`` arena games against every
anchor (:func:`competition.arena.play_match`: mirrored pairs from random openings, seats swapped) and rates it by
maximum likelihood with the anchors' ratings held fixed, so every checkpoint of every run sits on one scale. The
anchors' ratings come from a round robin among them (:func:`competition.arena.round_robin`, ``--anchor-games`` per
pair, the first anchor at 0), played once and kept in ``<out dir>/anchors.json`` (``--out-dir``, by default
``runs/baselines``) for every later curve. With
``--after RUN_DIR`` (an imitation run an AlphaZero run started from) that run's network is the curve's first point
and its training time is added to every later one. It writes ``<out dir>/<name>.json`` (the command, date, load,
anchors, every checkpoint's games and Elo with its 95 % interval), ``<name>.csv`` and ``<name>.png``.

``plot`` draws the curves of several result files on one figure, with the anchors as horizontal lines.
"""

from __future__ import annotations

import csv
import datetime
import json
import math
import os
import platform
import re
import shlex
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import tyro

from agents import format_spec
from agents.extras import MissingExtraError
from awale_env.errors import CheckpointError
from training.rllib.files import TRAINER_FILE, kept_checkpoints

ANCHORS = ("random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4", "alphabeta:depth=6")
#: Where ``measure`` writes by default: beside the runs (``runs/<trainer>-<game>``), never into a source tree.
OUT_DIR = "runs/baselines"
ANCHORS_FILE = "anchors.json"
#: Virtual drawn games against each anchor met, as the arena's Elo adds (a checkpoint that won every game still gets
#: a finite rating).
PRIOR_DRAWS = 1.0
ELO_SCALE = 400.0 / math.log(10.0)
Z_95 = 1.959964
PPO_CHECKPOINT = re.compile(r"step_(\d+)\.zip")
ALPHAZERO_SNAPSHOT = re.compile(r"gen_(\d+)\.pt")


@dataclass
class Measure:
    """Play a run's checkpoints against the anchors and write its learning curve (Elo over training time)."""

    run_dir: tyro.conf.Positional[str]
    """the run directory (awale train ppo, awale train rllib, or awale train alphazero with --snapshot-every)"""
    name: Annotated[str | None, tyro.conf.arg(metavar="NAME")] = None
    """name of the result files (default: the run directory's name)"""
    anchors: tuple[str, ...] = ANCHORS
    """agent specs of the anchors (the first is rated 0)"""
    games: int = 20
    """games of each checkpoint against each anchor (even: mirrored pairs)"""
    anchor_games: int = 100
    """games of each pair of anchors, played once for all runs"""
    seed: int = 0
    """seed of the openings of the checkpoints' games"""
    anchor_seed: int = 0
    """seed of the openings of the anchors' round robin"""
    every: int = 1
    """rate every this many-th checkpoint (the last one always)"""
    simulations: int = 100
    """simulations per move of an AlphaZero checkpoint"""
    after: Annotated[str | None, tyro.conf.arg(metavar="RUN_DIR")] = None
    """an imitation run this AlphaZero run started from (--init-from its best.pt): its network is the first point"""
    workers: int = 1
    """arena worker processes"""
    out_dir: str = OUT_DIR
    """the folder of the result files and of anchors.json, shared by every curve on one scale (the project's own
    curves: benchmarks/results/baselines)"""


@dataclass
class Plot:
    """Draw the curves of result files of ``measure`` on one figure."""

    results: tyro.conf.Positional[tuple[str, ...]]
    """result files (<name>.json) of training.baselines measure"""
    out: str
    """the PNG to write (required: nothing is written where it was not asked for)"""
    title: str = "Learning curves on the two-colour Awale: Elo against fixed anchors"


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint of a run: the agent spec playing it, the training it had (``step`` in ``unit``), the training
    time it was written at."""

    spec: str
    step: int
    unit: str
    elapsed_s: float


# --- finding checkpoints -------------------------------------------------------------------------------------------


def ppo_checkpoints(run_dir: Path) -> list[Checkpoint]:
    """The ``step_*.zip`` files of a PPO run, with the moves and training time their ``config.json`` records."""
    from agents.ppo.checkpoint import open_checkpoint, read_config  # agents.ppo's SB3 helpers: not for --help

    found = []
    for path in sorted((run_dir / "checkpoints").glob("step_*.zip")):
        if not PPO_CHECKPOINT.fullmatch(path.name):
            continue
        with open_checkpoint(path) as archive:
            config = read_config(archive)
        trainer = config.get("trainer", {})
        if not isinstance(trainer.get("elapsed"), (int, float)) or not isinstance(config.get("num_timesteps"), int):
            raise CheckpointError(f"{path}: config.json lacks the training time or moves of the checkpoint")
        spec = format_spec("ppo", {"path": str(path)})
        found.append(Checkpoint(spec, config["num_timesteps"], "moves", float(trainer["elapsed"])))
    return found


def rllib_checkpoints(run_dir: Path) -> list[Checkpoint]:
    """The ``checkpoints/iter_*/`` of an RLlib run (its policy and trainer file), with the iteration and training
    time their ``trainer.json`` records; played by the ``rllib`` agent (which needs Ray)."""
    found = []
    for path in kept_checkpoints(run_dir).values():
        trainer_file = path / TRAINER_FILE
        try:
            trainer = json.loads(trainer_file.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CheckpointError(f"{trainer_file}: not a readable trainer file: {error}") from None
        trainer = trainer if isinstance(trainer, dict) else {}
        iteration, elapsed = trainer.get("iteration"), trainer.get("elapsed")
        if type(iteration) is not int or isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)):
            raise CheckpointError(f"{trainer_file}: lacks the iteration or the training time of the checkpoint")
        found.append(Checkpoint(format_spec("rllib", {"path": str(path)}), iteration, "iterations", float(elapsed)))
    return found


def metrics_times(run_dir: Path, field: str) -> dict[int, float]:
    """``{step: elapsed_s}`` from a run's ``metrics.csv`` (steps in column ``field``)."""
    path = run_dir / "metrics.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: the run's training times are there")
    with path.open(newline="") as file:
        return {int(row[field]): float(row["elapsed_s"]) for row in csv.DictReader(file)}


def alphazero_checkpoints(run_dir: Path, simulations: int) -> list[Checkpoint]:
    """The ``snapshots/gen_*.pt`` of an AlphaZero run, with their generation's training time from metrics.csv."""
    snapshots = sorted((run_dir / "snapshots").glob("gen_*.pt"))
    times = metrics_times(run_dir, "generation") if snapshots else {}
    found = []
    for path in snapshots:
        match = ALPHAZERO_SNAPSHOT.fullmatch(path.name)
        if match is None:
            continue
        generation = int(match.group(1))
        if generation not in times:
            raise CheckpointError(f"{path}: generation {generation} has no row in {run_dir / 'metrics.csv'}")
        spec = format_spec("alphazero", {"path": str(path), "simulations": simulations})
        found.append(Checkpoint(spec, generation, "generations", times[generation]))
    return found


def imitation_checkpoint(run_dir: Path, simulations: int) -> Checkpoint:
    """The network of an imitation run (``best.pt``), at the run's training time (its metrics.csv's last row)."""
    path = run_dir / "best.pt"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: is {run_dir} a finished imitation run?")
    elapsed = max(metrics_times(run_dir, "epoch").values(), default=0.0)
    spec = format_spec("alphazero", {"path": str(path), "simulations": simulations})
    return Checkpoint(spec, 0, "generations", elapsed)


def run_checkpoints(args: Measure) -> list[Checkpoint]:
    """The checkpoints to rate, in training order (every ``args.every``-th and the last), after ``args.after``'s."""
    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir} is not a directory")
    found = ppo_checkpoints(run_dir) or rllib_checkpoints(run_dir) or alphazero_checkpoints(run_dir, args.simulations)
    if not found:
        raise FileNotFoundError(
            f"{run_dir} holds no checkpoints to rate: checkpoints/step_*.zip (awale train ppo), checkpoints/iter_*/ "
            "(awale train rllib) or snapshots/gen_*.pt (awale train alphazero --snapshot-every N)"
        )
    chosen = [c for i, c in enumerate(found) if i % args.every == 0 or i == len(found) - 1]
    if args.after is None:
        return chosen
    first = imitation_checkpoint(Path(args.after), args.simulations)
    return [first] + [Checkpoint(c.spec, c.step, c.unit, c.elapsed_s + first.elapsed_s) for c in chosen]


# --- ratings -------------------------------------------------------------------------------------------------------


def anchor_ratings(args: Measure, out_dir: Path) -> dict[str, Any]:
    """The anchors' ratings (first anchor 0) from their round robin: read from ``anchors.json`` when it holds these
    anchors, games and seed, else played and written there."""
    from competition import arena  # the games' rules and numba: not for --help

    path = out_dir / ANCHORS_FILE
    settings = {"anchors": list(args.anchors), "games_per_pair": args.anchor_games, "seed": args.anchor_seed}
    if path.exists():
        saved = json.loads(path.read_text())
        if {key: saved.get(key) for key in settings} == settings:
            return saved
    result = arena.round_robin(list(args.anchors), args.anchor_games, args.anchor_seed, args.workers, progress=False)
    points, played = pair_matrices(result.pairs, list(args.anchors))
    ratings, low, high = arena.elo(points, played, PRIOR_DRAWS, anchor=0)
    saved = {
        **settings,
        **provenance(),
        "ratings": {a: round(float(r), 1) for a, r in zip(args.anchors, ratings)},
        "ci95": {a: [round(float(lo), 1), round(float(hi), 1)] for a, lo, hi in zip(args.anchors, low, high)},
        "table": arena.format_table(result),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(saved, indent=1) + "\n")
    return saved


def pair_matrices(pairs: list[dict[str, Any]], specs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Points and games of each agent (row) against each other (column) from a tournament's per-pair counts."""
    index = {spec: i for i, spec in enumerate(specs)}
    points, played = np.zeros((len(specs), len(specs))), np.zeros((len(specs), len(specs)))
    for pair in pairs:
        i, j = index[pair["agent"]], index[pair["opponent"]]
        points[i, j] = pair["wins"] + 0.5 * pair["draws"]
        played[i, j] = pair["wins"] + pair["draws"] + pair["losses"]
    return points, played


def fixed_anchor_elo(points: np.ndarray, played: np.ndarray, ratings: np.ndarray) -> tuple[float, float, float]:
    """The maximum-likelihood Elo (with its 95 % interval) of one agent that scored ``points`` in ``played`` games
    against opponents rated ``ratings`` (held fixed), with :data:`PRIOR_DRAWS` virtual draws against each."""
    met = played > 0
    points = points + 0.5 * PRIOR_DRAWS * met
    played = played + PRIOR_DRAWS * met
    theta, anchors = 0.0, ratings / ELO_SCALE
    for _ in range(100):  # Newton's method on a concave log-likelihood
        p = 1.0 / (1.0 + np.exp(anchors - theta))
        gradient, information = float((points - played * p).sum()), float((played * p * (1 - p)).sum())
        step = gradient / max(information, 1e-12)
        theta += float(np.clip(step, -5, 5))
        if abs(step) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(anchors - theta))
    spread = Z_95 / math.sqrt(max(float((played * p * (1 - p)).sum()), 1e-12))
    return tuple(round(ELO_SCALE * x, 1) for x in (theta, theta - spread, theta + spread))  # type: ignore[return-value]


def rate(checkpoint: Checkpoint, args: Measure, ratings: dict[str, float]) -> dict[str, Any]:
    """Play ``checkpoint`` against every anchor; its counts and its Elo with the anchors fixed."""
    from competition import arena

    specs = list(args.anchors)
    points, played, counts = np.zeros(len(specs)), np.zeros(len(specs)), {}
    for i, anchor in enumerate(specs):
        result = arena.play_match(checkpoint.spec, anchor, args.games, args.seed, args.workers, progress=False)
        (pair,) = [p for p in result.pairs if p["agent"] == checkpoint.spec]
        counts[anchor] = [pair["wins"], pair["draws"], pair["losses"]]
        points[i] = pair["wins"] + 0.5 * pair["draws"]
        played[i] = sum(counts[anchor])
    elo, low, high = fixed_anchor_elo(points, played, np.array([ratings[a] for a in specs]))
    return {**asdict(checkpoint), "results": counts, "score": round(points.sum() / played.sum(), 4), "elo": elo,
            "elo_low": low, "elo_high": high}  # fmt: skip


def provenance() -> dict[str, Any]:
    """When, how and where a result was measured: date, command, machine, cores and load."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m training.baselines " + shlex.join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def measure(args: Measure) -> Path:
    """Rate the run's checkpoints and write ``<name>.json``, ``.csv`` and ``.png`` in ``args.out_dir``; the files
    are rewritten after each checkpoint, and checkpoints an earlier result of the same name rated against the same
    anchors, games and seed are not played again (run it again as the run goes on)."""
    if args.games < 2 or args.games % 2 or args.anchor_games < 2 or args.anchor_games % 2:
        raise ValueError(f"--games and --anchor-games must be even and >= 2, got {args.games}, {args.anchor_games}")
    if args.every < 1:
        raise ValueError(f"--every must be a positive integer, got {args.every}")
    if len(set(args.anchors)) < 2:
        raise ValueError(f"--anchors needs at least two different agents, got {args.anchors}")
    checkpoints = run_checkpoints(args)
    out_dir = Path(args.out_dir)
    anchors = anchor_ratings(args, out_dir)
    name = args.name or Path(args.run_dir).resolve().name
    config_file = Path(args.run_dir) / "config.json"
    result = {
        "name": name,
        "run_dir": args.run_dir,
        "run_config": json.loads(config_file.read_text()) if config_file.exists() else None,
        **provenance(),
        "games_per_anchor": args.games,
        "seed": args.seed,
        "anchors": {key: anchors[key] for key in ("anchors", "ratings", "ci95", "games_per_pair", "seed")},
        "checkpoints": [],
    }
    path = out_dir / f"{name}.json"
    rated = earlier_rows(path, result)
    for number, checkpoint in enumerate(checkpoints, 1):
        row = rated.get(row_key(asdict(checkpoint))) or rate(checkpoint, args, anchors["ratings"])
        result["checkpoints"].append(row)
        result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
        write_result(result, out_dir)
        print(f"{number}/{len(checkpoints)} {checkpoint.unit} {checkpoint.step:,} ({checkpoint.elapsed_s / 60:.1f} "
              f"min): Elo {row['elo']:.0f} [{row['elo_low']:.0f}, {row['elo_high']:.0f}]",
              file=sys.stderr, flush=True)  # fmt: skip
    plot([result], out_dir / f"{name}.png", f"{name}: Elo against fixed anchors")
    return path


def row_key(row: dict[str, Any]) -> tuple:
    return row["spec"], row["step"], row["unit"], row["elapsed_s"]


def earlier_rows(path: Path, result: dict[str, Any]) -> dict[tuple, dict[str, Any]]:
    """The checkpoints rated in an earlier result file at ``path`` with the same anchors, games and seed."""
    if not path.exists():
        return {}
    earlier = json.loads(path.read_text())
    same = ("games_per_anchor", "seed", "anchors")
    if any(earlier.get(key) != result[key] for key in same):
        return {}
    return {row_key(row): row for row in earlier.get("checkpoints", [])}


def write_result(result: dict[str, Any], out_dir: Path) -> None:
    """``<name>.json`` (everything) and ``<name>.csv`` (a row per checkpoint: Elo and counts against each anchor)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    name, anchors = result["name"], result["anchors"]["anchors"]
    (out_dir / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    with (out_dir / f"{name}.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["step", "unit", "elapsed_s", "elo", "elo_low", "elo_high", "score", *anchors])
        for row in result["checkpoints"]:
            counts = ["-".join(map(str, row["results"][a])) for a in anchors]
            writer.writerow([row["step"], row["unit"], row["elapsed_s"], row["elo"], row["elo_low"], row["elo_high"],
                             row["score"], *counts])  # fmt: skip


# --- the figure ----------------------------------------------------------------------------------------------------


def plot(results: list[dict[str, Any]], out: Path, title: str) -> None:
    """Elo (95 % band) against training minutes, one curve per result, the anchors as dotted lines."""
    from matplotlib.figure import Figure  # only to draw: not for --help (a second of CPU)

    figure = Figure(figsize=(8, 5))
    axis = figure.subplots()
    anchors = results[0]["anchors"]["ratings"]
    for result in results:
        if result["anchors"]["ratings"] != anchors:
            raise ValueError(f"{result['name']} was rated against other anchors: its curve is on another scale")
        rows = result["checkpoints"]
        minutes = np.array([row["elapsed_s"] for row in rows]) / 60
        (line,) = axis.plot(minutes, [row["elo"] for row in rows], marker=".", label=result["name"])
        low, high = [row["elo_low"] for row in rows], [row["elo_high"] for row in rows]
        axis.fill_between(minutes, low, high, color=line.get_color(), alpha=0.2)
    for anchor, rating in anchors.items():
        axis.axhline(rating, color="grey", linestyle=":", linewidth=1)
        axis.annotate(anchor, (0, rating), xycoords=("axes fraction", "data"), fontsize=8, color="grey",
                      xytext=(2, 2), textcoords="offset points")  # fmt: skip
    axis.set_xlabel("training time (minutes of wall clock)")
    axis.set_ylabel(f"Elo ({next(iter(anchors))} = 0; anchors fixed)")
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    axis.set_title(title)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=120)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``measure`` or ``plot``; bad input ends with one line (exit code 2)."""
    args = tyro.extras.subcommand_cli_from_dict({"measure": Measure, "plot": Plot}, args=argv)
    try:
        if isinstance(args, Measure):
            print(f"wrote {measure(args)} (and its .csv and .png)")
        else:
            results = [json.loads(Path(path).read_text()) for path in args.results]
            plot(results, Path(args.out), args.title)
            print(f"wrote {args.out}")
    except (ValueError, OSError, KeyError, CheckpointError, MissingExtraError) as error:
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
