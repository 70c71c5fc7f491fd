"""The strength table: a round robin of every agent at each time per move, Elo with 95 % CIs, one plot, and the
command, date, machine and load that made them (for docs/strength.md).

An agent is given as a spec template, ``{t}`` standing for the time per move (``mcts:time={t}``); a template without
``{t}`` (``random``, ``greedy``, ``ppo:pretrained``) plays the same at every budget and anchors the scale: each
budget's ratings are fitted with ``--anchor`` (default ``random``) at Elo 0, so that they compare across budgets.
Each budget is one arena round robin (:func:`competition.arena.round_robin`) in its own folder of ``--out-dir``
(``0.1s/``, ...) with the arena's files (``results.json``, ``standings.csv``, ``games.csv``, ``elo.png``) and its
journal ``games.jsonl``: ``--resume`` continues each budget's journal, so a killed run loses at most the games under
way (one per worker); those files carry the anchored ratings. Writes the tables as markdown (``--markdown``) and Elo
against time per move as a PNG (``--plot``), both again after each budget.

Usage (the real table, hours of CPU; the workers should not outnumber the free cores, or the timed agents get less
than their budget):
    python benchmarks/strength.py --times 0.1 0.3 1 --games 40 40 20 --workers 2 --seed 1 \\
        --markdown benchmarks/results/strength/strength.md --plot docs/strength.png [--resume]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from awale_env.games import DEFAULT_GAME
from competition.arena import (
    GAME_DEFAULT,
    JOURNAL_NAME,
    Standing,
    TournamentResult,
    check_specs,
    forget_network_games,
    format_table,
    round_robin,
    summarize,
    write_results,
)

#: The agents of the table; ``{t}`` is the time per move in seconds.
DEFAULT_AGENTS = [
    "random",
    "greedy",
    "ppo:pretrained",
    "mcts:time={t}",
    "alphabeta:time={t},eval=reference",
    "alphabeta:time={t}",
    "alphazero:pretrained,time={t}",
]
TIME_FIELD = "{t}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=DEFAULT_AGENTS, metavar="TEMPLATE",
                        help="agent spec templates, {t} for the time per move (default: %(default)s)")  # fmt: skip
    parser.add_argument("--times", nargs="+", type=float, default=[0.1, 0.3, 1.0], metavar="SECONDS",
                        help="times per move (default: %(default)s)")  # fmt: skip
    parser.add_argument("--games", nargs="+", type=int, default=[40], metavar="N",
                        help="games per pair, even: one for every budget or one per time (default: 40)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="arena worker processes (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default: %(default)s)")
    parser.add_argument("--game", default=DEFAULT_GAME, help="game (default: %(default)s)")
    parser.add_argument("--opening-plies", type=int, default=4, help="random opening plies (default: %(default)s)")
    parser.add_argument("--max-plies", type=int, default=None, help="ply limit (default: the game's own)")
    parser.add_argument("--anchor", default="random", help="timeless agent at Elo 0 (default: %(default)s)")
    parser.add_argument("--out-dir", type=Path, default=Path("benchmarks/results/strength"),
                        help="one folder per budget in it (default: %(default)s)")  # fmt: skip
    parser.add_argument("--resume", action="store_true", help="continue each budget's games.jsonl")
    parser.add_argument("--replay", action="append", default=[], metavar="TEMPLATE",
                        help="with --resume: play again the games of this agent (a changed network file)")  # fmt: skip
    parser.add_argument("--markdown", type=Path, default=None, help="the tables (default: OUT_DIR/strength.md)")
    parser.add_argument("--plot", type=Path, default=None, help="Elo against time (default: OUT_DIR/strength.png)")
    args = parser.parse_args(argv)
    if args.anchor not in args.agents:
        parser.error(f"--anchor {args.anchor!r} is not one of the agents {args.agents}")
    if args.replay and not args.resume:
        parser.error("--replay changes the games of a journal: it needs --resume")
    if not set(args.replay) <= set(args.agents):
        parser.error(f"--replay {sorted(set(args.replay) - set(args.agents))} is not one of the agents {args.agents}")
    if TIME_FIELD in args.anchor:
        parser.error(f"--anchor {args.anchor!r} has {TIME_FIELD}: the anchor plays alike at every time")
    if min(args.times) <= 0 or len(set(args.times)) < len(args.times):
        parser.error(f"times per move must be positive and distinct, got {args.times}")
    if len(args.games) not in (1, len(args.times)):
        parser.error(f"--games takes one number or one per time ({len(args.times)}), got {len(args.games)}")
    # Games per pair by time per move, in increasing time.
    args.games = dict(sorted(zip(args.times, args.games * len(args.times) if len(args.games) == 1 else args.games)))
    args.times = list(args.games)
    args.markdown = args.markdown or args.out_dir / "strength.md"
    args.plot = args.plot or args.out_dir / "strength.png"
    return args


@dataclass
class BudgetRun:
    """One budget's round robin (ratings anchored) and how it was run."""

    seconds_per_move: float
    result: TournamentResult
    folder: Path
    games_from_journal: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    wall_seconds: float

    def standing(self, template: str) -> Standing:
        spec = spec_at(template, self.seconds_per_move)
        return next(s for s in self.result.standings if s.player == spec)


def seconds_text(seconds: float) -> str:
    return f"{seconds:g}"


def spec_at(template: str, seconds: float) -> str:
    """The spec of ``template`` at ``seconds`` per move (``str.replace``: braces elsewhere, as in a path, stay)."""
    return template.replace(TIME_FIELD, seconds_text(seconds))


def anchor_ratings(result: TournamentResult, anchor: str) -> TournamentResult:
    """``result`` with ``anchor`` at Elo 0 instead of a mean of 1500 (same games, same model), so that budgets with
    other agents share a scale; its confidence intervals become those of differences from the anchor."""
    anchored = summarize(result.agents, result.seed, result.games, anchor=anchor)
    anchored.game = result.game
    return anchored


def journal_games(journal: Path, resume: bool) -> int:
    """How many games a resume finds in ``journal`` (whole lines after the settings line)."""
    return max(0, journal.read_bytes().count(b"\n") - 1) if resume and journal.exists() else 0


def run_budget(args: argparse.Namespace, seconds: float) -> BudgetRun:
    """The round robin at ``seconds`` per move, its files written into its folder of ``--out-dir``."""
    folder = args.out_dir / f"{seconds_text(seconds)}s"
    journal = folder / JOURNAL_NAME
    specs = [spec_at(template, seconds) for template in args.agents]
    if args.replay and journal.exists():
        replayed = [spec_at(template, seconds) for template in args.replay]
        dropped = forget_network_games(journal, replayed, check_specs(specs, args.game))
        print(f"{dropped} games of {', '.join(replayed)} to play again with its current network file", flush=True)
    from_journal = journal_games(journal, args.resume)
    load_before, start = os.getloadavg(), time.perf_counter()
    result = round_robin(
        specs,
        args.games[seconds],
        args.seed,
        args.workers,
        opening_plies=args.opening_plies,
        max_plies=GAME_DEFAULT if args.max_plies is None else args.max_plies,
        game=args.game,
        journal=journal,
        resume=args.resume,
    )
    wall, load_after = time.perf_counter() - start, os.getloadavg()
    result = anchor_ratings(result, spec_at(args.anchor, seconds))
    write_results(result, folder)
    return BudgetRun(seconds, result, folder, from_journal, load_before, load_after, wall)


# --- reporting ---------------------------------------------------------------------------------------------------


def cpu_model() -> str:
    """The processor's name (Linux's /proc/cpuinfo), else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def games_text(args: argparse.Namespace, runs: list[BudgetRun]) -> str:
    """Games per pair: "10 games" if every budget played as many, else one count per budget ("10 / 6 games at 0.3 /
    1 s")."""
    counts = [args.games[run.seconds_per_move] for run in runs]
    if len(set(counts)) == 1:
        return f"{counts[0]} games"
    times = " / ".join(seconds_text(run.seconds_per_move) for run in runs)
    return f"{' / '.join(map(str, counts))} games at {times} s"


def load_text(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.2f}" for x in load)


def elo_text(standing: Standing) -> str:
    return f"{standing.elo:.0f} [{standing.elo_low:.0f}, {standing.elo_high:.0f}]"


def markdown(args: argparse.Namespace, argv: list[str], runs: list[BudgetRun], started: datetime) -> str:
    """The summary table (every agent at every budget), then each budget's standings and how it was run."""
    times = ", ".join(f"{seconds_text(run.seconds_per_move)}" for run in runs)
    plot = os.path.relpath(args.plot, args.markdown.parent)
    max_plies = "the game's own" if args.max_plies is None else args.max_plies
    lines = [
        f"# Strength of the agents at {times} s per move",
        "",
        f"Made by `python benchmarks/strength.py {shlex.join(argv)}`, started {started:%Y-%m-%d %H:%M} UTC on "
        f"{os.cpu_count()} cores ({cpu_model()}, Python {platform.python_version()}). Game {args.game}; each pair "
        f"of agents plays {games_text(args, runs)} (mirrored pairs from random openings of "
        f"{args.opening_plies} plies), "
        f"seed {args.seed}, max plies {max_plies}, {args.workers} worker process(es). Elo: maximum-likelihood "
        f"Bradley-Terry fit of `competition.arena.elo` (one virtual draw per pair), 95 % confidence intervals, "
        f"`{args.anchor}` at 0 at every budget (the intervals are those of the difference from it).",
        "",
        f"![Elo against time per move]({plot})",
        "",
        "| agent | " + " | ".join(f"{seconds_text(run.seconds_per_move)} s" for run in runs) + " |",
        "| --- |" + " ---: |" * len(runs),
    ]
    best_last = sorted(args.agents, key=lambda template: -runs[-1].standing(template).elo)
    for template in best_last:
        lines.append(f"| `{template}` | " + " | ".join(elo_text(run.standing(template)) for run in runs) + " |")
    for run in runs:
        played, kept = len(run.result.games) - run.games_from_journal, run.games_from_journal
        resumed = f"; {kept} games from the journal, {played} played" if kept else ""
        lines += [
            "",
            f"## {seconds_text(run.seconds_per_move)} s per move",
            "",
            f"{len(run.result.games)} games in {duration_text(run.wall_seconds)}{resumed}; load average (1 / 5 / 15 "
            f"min) {load_text(run.load_before)} before, {load_text(run.load_after)} after; files in "
            f"`{run.folder}/`.",
            "",
            "| agent | Elo [95 % CI] | W-D-L | games | score |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        for s in run.result.standings:
            lines.append(f"| `{s.player}` | {elo_text(s)} | {s.wins}-{s.draws}-{s.losses} | {s.games} | "
                         f"{s.score:.1%} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def plot_strength(args: argparse.Namespace, runs: list[BudgetRun]) -> None:
    """Each agent's Elo (95 % CI) against the time per move, log scale; the timeless agents dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seconds = np.array([run.seconds_per_move for run in runs])
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, template in enumerate(args.agents):
        standings = [run.standing(template) for run in runs]
        elos = np.array([s.elo for s in standings])
        errors = np.array([[s.elo - s.elo_low for s in standings], [s.elo_high - s.elo for s in standings]])
        dodge = 10 ** (0.012 * (k - (len(args.agents) - 1) / 2))  # side by side, so the error bars do not overlap
        timeless = TIME_FIELD not in template
        ax.errorbar(seconds * dodge, elos, yerr=errors, capsize=3, marker="s" if timeless else "o",
                    linestyle="--" if timeless else "-", alpha=0.6 if timeless else 1.0, label=template)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xticks(seconds, [f"{seconds_text(s)} s" for s in seconds])
    ax.minorticks_off()
    ax.grid(alpha=0.3)
    ax.set_xlabel("time per move")
    ax.set_ylabel(f"Elo (95 % CI), {args.anchor} = 0")
    ax.set_title(f"{args.game}, {games_text(args, runs)} per pair, seed {args.seed}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[BudgetRun]:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.workers > (os.cpu_count() or 1):
        print(f"warning: {args.workers} workers on {os.cpu_count()} cores: timed agents get less than their budget",
              file=sys.stderr)  # fmt: skip
    started = datetime.now(UTC)
    runs = []
    for seconds in args.times:
        print(f"\n== {seconds_text(seconds)} s per move ==", flush=True)
        runs.append(run_budget(args, seconds))
        print(format_table(runs[-1].result), flush=True)
        # After each budget, so that a run of hours shows the tables so far.
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(args, argv, runs, started))
        plot_strength(args, runs)
    print(f"\n{args.markdown.read_text()}\nwrote {args.markdown} and {args.plot}")
    return runs


if __name__ == "__main__":
    main()
