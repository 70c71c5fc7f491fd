"""Standings and ratings of a competition's games: wins, draws and losses, per-pair counts, and Elo as the
maximum-likelihood Bradley-Terry model on scores (win 1, draw 0.5, loss 0), with ``prior_draws`` virtual drawn games
added between every two players, met or not (so an agent that won or lost every game still gets a finite rating, and
the ratings of any results table are defined: one where some pairs have not met yet, or some player has no game,
as a tournament's while it runs; a complete round robin's are those of the pairs that met), 95 % confidence intervals
from the inverse Hessian of the log-likelihood, and ratings anchored so that their mean is 1500 (or, with
``anchor=name``, so that agent is at 0). Then the tables, result files and the plot of the arena.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from awale_env.games import DEFAULT_GAME
from competition.tasks import GameResult

ELO_SCALE = 400.0 / math.log(10.0)
Z_95 = 1.959964


@dataclass
class Standing:
    """One agent's line of the result table."""

    agent: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: float = 0.0
    elo_low: float = 0.0
    elo_high: float = 0.0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


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
        """The standings as JSON-safe rows, best Elo first."""
        return [{**asdict(s), "score": round(s.score, 4)} for s in self.standings]

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
    """Standings, per-pair counts and Elo from a list of games (mean 1500, or agent ``anchor`` at 0: :func:`elo`)."""
    index = {s: i for i, s in enumerate(specs)}
    n = len(specs)
    points = np.zeros((n, n))
    played = np.zeros((n, n))
    standings = [Standing(s) for s in specs]
    wdl = np.zeros((n, n, 3), dtype=np.int64)  # wins, draws, losses of row against column
    for g in games:
        for seat in (0, 1):
            me, other = index[g.specs[seat]], index[g.specs[1 - seat]]
            s = g.score(seat)
            points[me, other] += s
            played[me, other] += 1
            outcome = 0 if s == 1.0 else (1 if s == 0.5 else 2)
            wdl[me, other, outcome] += 1
    ratings, low, high = elo(points, played, prior_draws, None if anchor is None else index[anchor])
    for i, st in enumerate(standings):
        st.wins, st.draws, st.losses = (int(x) for x in wdl[i].sum(axis=0))
        st.games = st.wins + st.draws + st.losses
        st.elo, st.elo_low, st.elo_high = round(ratings[i], 1), round(low[i], 1), round(high[i], 1)
    pairs = [
        {"agent": specs[i], "opponent": specs[j], "wins": int(wdl[i, j, 0]), "draws": int(wdl[i, j, 1]),
         "losses": int(wdl[i, j, 2])}
        for i in range(n) for j in range(n) if i != j and played[i, j]
    ]  # fmt: skip
    standings.sort(key=lambda s: -s.elo)
    return TournamentResult(list(specs), seed, list(games), standings, pairs)


def elo(
    points: np.ndarray, played: np.ndarray, prior_draws: float = 1.0, anchor: int | None = None, iterations: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximum-likelihood Elo ratings and 95 % confidence bounds (see the module docstring).

    ``points[i, j]`` is what agent i scored against j (win 1, draw 0.5) in ``played[i, j]`` games. Ratings have
    mean 1500, or agent ``anchor`` at 0. Returns (ratings, lower bounds, upper bounds).
    """
    points = np.asarray(points, dtype=float)
    played = np.asarray(played, dtype=float)
    n = len(played)
    if n == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    pairs = 1.0 - np.eye(n)  # the virtual draws: between every two players, met or not
    points = points + 0.5 * prior_draws * pairs
    played = played + prior_draws * pairs
    if prior_draws < 0:
        raise ValueError(f"prior_draws must not be negative, got {prior_draws}")
    if prior_draws == 0 and not _connected(played):
        raise ValueError("without virtual draws (prior_draws=0) ratings need games that connect every player")
    theta = np.zeros(n)
    centre = np.full((n, n), 1.0 / n)  # fixes the free shift: solve on the sum-zero subspace
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        gradient = (points - played * p).sum(axis=1)
        weights = played * p * p.T
        laplacian = np.diag(weights.sum(axis=1)) - weights
        step = np.linalg.solve(laplacian + centre, gradient)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    covariance = np.linalg.inv(laplacian + centre) - centre
    if anchor is None:
        ratings = 1500.0 + ELO_SCALE * theta
        spread = ELO_SCALE * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    else:
        ratings = ELO_SCALE * (theta - theta[anchor])
        var = np.diag(covariance) + covariance[anchor, anchor] - 2 * covariance[:, anchor]
        spread = ELO_SCALE * np.sqrt(np.maximum(var, 0.0))
    return ratings, ratings - Z_95 * spread, ratings + Z_95 * spread


def _connected(played: np.ndarray) -> bool:
    """Whether the games of ``played`` link every player to every other (through opponents in common)."""
    linked = (played + played.T) > 0
    reached, frontier = {0}, [0]
    while frontier:
        for j in np.flatnonzero(linked[frontier.pop()]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    return len(reached) == len(played)


# --- reporting ---------------------------------------------------------------------------------------------------


def format_table(result: TournamentResult) -> str:
    """The standings (best Elo first) and the cross table of wins-draws-losses of each row against each column."""
    names = [s.agent for s in result.standings]
    width = max(len("agent"), *(len(n) for n in names))
    lines = [f"{'agent':<{width}}  games   wins  draws losses  score     Elo   95% CI"]
    for s in result.standings:
        lines.append(
            f"{s.agent:<{width}}  {s.games:5d}  {s.wins:5d}  {s.draws:5d}  {s.losses:5d}  {s.score:6.1%}"
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
    width = 5 + 0.09 * max(len(s.agent) for s in standings)  # room for long specs (paths) on the left
    fig, ax = plt.subplots(figsize=(width, 0.5 * len(standings) + 1.5))
    y = np.arange(len(standings))
    elos = np.array([s.elo for s in standings])
    errors = np.array([[s.elo - s.elo_low for s in standings], [s.elo_high - s.elo for s in standings]])
    ax.errorbar(elos, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(y, [s.agent for s in standings])
    ax.set_ylim(-0.5, len(standings) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("Elo (95 % CI)")
    ax.set_title(f"Round robin, {len(result.games)} games, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
