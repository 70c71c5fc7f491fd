"""The arena's results: its games with the standings and per-pair counts (:func:`summarize`, one
:class:`~competition.ratings.Standing` per agent), the text table, the result files and the plot of the ratings.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from awale_env.games import DEFAULT_GAME
from competition.ratings import Outcome, Standing, tally
from competition.tasks import GameResult


@dataclass
class TournamentResult:
    """All games of a tournament, the table of standings, and per-pair win/draw/loss counts."""

    agents: list[str]
    seed: int
    games: list[GameResult]
    standings: list[Standing] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    game: str = DEFAULT_GAME
    #: Games played again whole because the Ray actor playing them was lost (``backend="ray"``).
    replayed_games: int = 0

    def table(self) -> list[dict[str, Any]]:
        """The standings as JSON-safe rows, best Elo first, in the result files' columns (``agent`` names the player;
        an arena's agents commit no fault)."""
        columns = ("games", "wins", "draws", "losses", "elo", "elo_low", "elo_high", "score")
        rows = [standing.to_dict() for standing in self.standings]
        return [{"agent": row["player"], **{column: row[column] for column in columns}} for row in rows]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "agents": self.agents,
            "seed": self.seed,
            "standings": self.table(),
            "pairs": self.pairs,
            "replayed_games": self.replayed_games,
            "games": [asdict(g) for g in self.games],
        }


def summarize(
    specs: list[str], seed: int, games: list[GameResult], prior_draws: float = 1.0, anchor: str | None = None
) -> TournamentResult:
    """Standings (best Elo first), per-pair counts and Elo from a list of games (mean 1500, or agent ``anchor`` at 0:
    :func:`competition.ratings.elo`)."""
    table = tally(specs, (Outcome(g.specs, g.winner) for g in games), prior_draws, anchor)
    standings = sorted(table.standings, key=lambda s: -s.elo)
    return TournamentResult(list(specs), seed, list(games), standings, table.pair_rows())


# --- reporting ---------------------------------------------------------------------------------------------------


def format_table(result: TournamentResult) -> str:
    """The standings (best Elo first) and the cross table of wins-draws-losses of each row against each column."""
    names = [s.player for s in result.standings]
    width = max(len("agent"), *(len(n) for n in names))
    lines = [f"{'agent':<{width}}  games   wins  draws losses  score     Elo   95% CI"]
    for s in result.standings:
        lines.append(
            f"{s.player:<{width}}  {s.games:5d}  {s.wins:5d}  {s.draws:5d}  {s.losses:5d}  {s.score:6.1%}"
            f"  {s.elo:6.0f}   [{s.elo_low:.0f}, {s.elo_high:.0f}]"
        )
    counts = {(p["agent"], p["opponent"]): f"{p['wins']}-{p['draws']}-{p['losses']}" for p in result.pairs}
    cell = max(11, *(len(c) for c in counts.values()))
    header = "  ".join(f"{f'#{k + 1}':>{cell}}" for k in range(len(names)))
    lines += ["", f"{'wins-draws-losses':<{width + 3}}{header}"]
    for k, row in enumerate(names):
        cells = ("" if row == col else counts.get((row, col), "") for col in names)
        lines.append(f"{f'#{k + 1} {row}':<{width + 3}}" + "  ".join(f"{c:>{cell}}" for c in cells))
    return "\n".join(lines)


def write_results(result: TournamentResult, out: Path) -> list[Path]:
    """Write ``results.json`` (everything), ``standings.csv``, ``games.csv`` and ``elo.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "standings.csv", out / "games.csv", out / "elo.png"]
    paths[0].write_text(json.dumps(result.to_json(), indent=1))
    rows = result.table()
    with paths[1].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with paths[2].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "seat0", "seat1", "winner", "store0", "store1", "plies", "end_reason", "opening"])
        for g in result.games:
            winner = "" if g.winner is None else g.winner
            opening = " ".join(map(str, g.opening))
            writer.writerow([g.index, *g.specs, winner, *g.stores, g.plies, g.end_reason, opening])
    plot_elo(result, paths[3])
    return paths


def plot_elo(result: TournamentResult, path: Path) -> None:
    """Elo ratings as points with their 95 % confidence intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    standings = result.standings[::-1]
    width = 5 + 0.09 * max(len(s.player) for s in standings)  # room for long specs (paths) on the left
    fig, ax = plt.subplots(figsize=(width, 0.5 * len(standings) + 1.5))
    y = np.arange(len(standings))
    elos = np.array([s.elo for s in standings])
    errors = np.array([[s.elo - s.elo_low for s in standings], [s.elo_high - s.elo for s in standings]])
    ax.errorbar(elos, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(y, [s.player for s in standings])
    ax.set_ylim(-0.5, len(standings) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("Elo (95 % CI)")
    ax.set_title(f"Round robin, {len(result.games)} games, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
