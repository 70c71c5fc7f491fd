"""The standings and ratings of a competition, one record for all: a player's wins, draws, losses and the games it
lost by each kind of fault, with its games, points and score derived, and its Elo in the event. The arena's table,
the results store's standings and the referee's table are all :class:`Standing` rows, tallied in one place
(:func:`tally`) from the games' :class:`Outcome`.

Elo is the maximum-likelihood Bradley-Terry model on scores (win 1, draw 0.5, loss 0), with ``prior_draws`` virtual
drawn games added between every two players, met or not (so an agent that won or lost every game still gets a finite
rating, and the ratings of any results table are defined: one where some pairs have not met yet, or some player has
no game, as a tournament's while it runs; a complete round robin's are those of the pairs that met), 95 % confidence
intervals from the inverse Hessian of the log-likelihood, and ratings anchored so that their mean is 1500 (or, with
``anchor=name``, so that agent is at 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)
Z_95 = 1.959964
#: The Elo of a player before any game: the mean of every event's ratings.
MEAN_ELO = 1500.0


@dataclass
class Standing:
    """A player's line of an event's standings: W-D-L (win 1 point, draw 0.5), the games it lost by each fault kind,
    and its Elo with a 95 % interval (Bradley-Terry, :func:`elo`)."""

    player: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    elo: float = MEAN_ELO
    elo_low: float = MEAN_ELO
    elo_high: float = MEAN_ELO

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per game (0 before a game)."""
        return self.points / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-safe values, the derived ones included (the web page's and the result files' form)."""
        return {"player": self.player, "games": self.games, "points": self.points, "score": round(self.score, 4),
                "wins": self.wins, "draws": self.draws, "losses": self.losses, "faults": dict(self.faults),
                "elo": self.elo, "elo_low": self.elo_low, "elo_high": self.elo_high}  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    """How one game ended for the standings: the players in seat 0 and 1, the winner's seat (None: a draw), and the
    seat and kind of a fault that lost it (None: no fault)."""

    players: tuple[str, str]
    winner: int | None
    fault: tuple[int, str] | None = None


@dataclass
class Table:
    """The standings of an event in the order its players were given, and each ordered pair's wins, draws and
    losses (``pairs[i, j]``: player i against player j)."""

    standings: list[Standing]
    pairs: np.ndarray

    def pair_rows(self) -> list[dict[str, Any]]:
        """Each pair that met, from each side: ``agent``, ``opponent``, ``wins``, ``draws``, ``losses``."""
        names = [s.player for s in self.standings]
        return [
            {"agent": names[i], "opponent": names[j], "wins": int(self.pairs[i, j, 0]),
             "draws": int(self.pairs[i, j, 1]), "losses": int(self.pairs[i, j, 2])}
            for i in range(len(names)) for j in range(len(names)) if i != j and self.pairs[i, j].any()
        ]  # fmt: skip


def tally(
    players: list[str], outcomes: Iterable[Outcome], prior_draws: float = 1.0, anchor: str | None = None
) -> Table:
    """The standings of ``players`` after ``outcomes``, rated (:func:`elo`: mean 1500, or
    ``anchor`` at 0). KeyError for an outcome naming a player not in ``players``."""
    index = {name: i for i, name in enumerate(players)}
    standings = [Standing(name) for name in players]
    pairs = np.zeros((len(players), len(players), 3), dtype=np.int64)  # wins, draws, losses of row against column
    for outcome in outcomes:
        seats = [index[name] for name in outcome.players]
        for seat in (0, 1):
            me, other = seats[seat], seats[1 - seat]
            result = 1 if outcome.winner is None else (0 if outcome.winner == seat else 2)
            pairs[me, other, result] += 1
        if outcome.fault is not None:
            seat, kind = outcome.fault
            faults = standings[seats[seat]].faults
            faults[kind] = faults.get(kind, 0) + 1
    for standing, counts in zip(standings, pairs.sum(axis=1)):
        standing.wins, standing.draws, standing.losses = (int(count) for count in counts)
    if players:
        points = pairs[:, :, 0] + 0.5 * pairs[:, :, 1]
        ratings, low, high = elo(points, pairs.sum(axis=2), prior_draws, None if anchor is None else index[anchor])
        for i, standing in enumerate(standings):
            standing.elo, standing.elo_low, standing.elo_high = (
                round(float(ratings[i]), 1), round(float(low[i]), 1), round(float(high[i]), 1))  # fmt: skip
    return Table(standings, pairs)


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
