"""Post-game reviews: every live position of a replay analysed by one engine in an agent worker, one position per
request to the worker (so other people's moves are answered in between), each move classed by the expected score it
lost against the engine's best move (:mod:`agents.analysis`).

A review runs as a background task (:func:`run_review`) that holds one place in the server's queue of thinks
(``Server.queue_place``) from start to end, so it counts against its client's share like a move does; the page
polls its progress.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agents.analysis import THRESHOLDS, classify, score_for
from awale_apps.web import analyst
from awale_apps.web.live import GameStore
from awale_apps.web.opponents import THINK_GRACE_SECONDS, Thinkers
from awale_apps.web.replays import Replay
from awale_env.games import game_of

#: The engine a review uses unless asked for another: alpha-beta for 0.05 s a position (20 positions a second).
DEFAULT_REVIEW_ENGINE = "alphabeta:time=0.05"
#: The length of each position's line a review keeps.
REVIEW_LINE_PLIES = 6


@dataclass(eq=False)
class Review:
    """The review of ``replay`` by ``engine``: the analysis of each of its positions (None until made, and for a
    finished position), and how far it is."""

    id: str
    engine: str
    replay: Replay
    states: list[Any]
    analyses: list[dict[str, Any] | None] = field(init=False)
    status: str = "running"  # then "done", "failed" or "cancelled"
    error: str | None = None
    task: asyncio.Task | None = None

    def __post_init__(self) -> None:
        self.analyses = [None] * len(self.states)

    @property
    def total(self) -> int:
        """The positions to analyse: the live ones."""
        return sum(not state.is_terminal for state in self.states)

    @property
    def done(self) -> int:
        return sum(analysis is not None for analysis in self.analyses)

    def player0_score(self, index: int) -> float | None:
        """Player 0's expected score at position ``index`` (the result at a finished one), None until analysed."""
        state, analysis = self.states[index], self.analyses[index]
        if not state.is_terminal and analysis is None:
            return None
        return score_for(state, None if analysis is None else analysis["score"], 0)

    def to_json(self) -> dict[str, Any]:
        """Progress, the graph (player 0's expected score at each position) and each move: its loss of expected
        score and class once both its positions are analysed, with the engine's best move beside a classed one."""
        kind = game_of(self.states[0])
        moves = []
        for i, action in enumerate(self.replay.moves):
            before, after = self.states[i], self.states[i + 1]
            entry: dict[str, Any] = {"ply": before.ply + 1, "move": kind.format_move(action), "player": before.to_move}
            analysis = self.analyses[i]
            if analysis is not None and (after.is_terminal or self.analyses[i + 1] is not None):
                after_score = None if after.is_terminal else self.analyses[i + 1]["score"]
                played = score_for(after, after_score, before.to_move)
                loss = 0.0 if action == analysis["best"] else max(0.0, analysis["score"] - played)
                label = classify(loss)
                entry |= {
                    "loss": round(loss, 4),
                    "class": label,
                    "best_move": analysis["best_move"],
                    "best_line": analysis["line_moves"],
                }
            moves.append(entry)
        counts = [{name: 0 for name, _ in THRESHOLDS} for _ in range(2)]
        for entry in moves:
            if entry.get("class"):
                counts[entry["player"]][entry["class"]] += 1
        return {
            "id": self.id,
            "engine": self.engine,
            "status": self.status,
            "error": self.error,
            "done": self.done,
            "total": self.total,
            "game": kind.name,
            "title": self.replay.title,
            "players": self.replay.players,
            "graph": [self.player0_score(i) for i in range(len(self.states))],
            "moves": moves,
            "counts": counts,
            "thresholds": dict(THRESHOLDS),
        }


async def run_review(review: Review, thinkers: Thinkers, worker: int, max_seconds: float) -> None:
    """Analyse the review's positions not yet analysed, in order, on ``worker``."""
    try:
        for index, state in enumerate(review.states):
            if state.is_terminal or review.analyses[index] is not None:
                continue
            review.analyses[index] = await thinkers.run(
                worker, max_seconds + THINK_GRACE_SECONDS, analyst.analyse_position,
                review.engine, max_seconds, state.to_dict(), REVIEW_LINE_PLIES,
            )  # fmt: skip
        review.status = "done"
    except asyncio.CancelledError:
        review.status = "cancelled"
        raise
    except Exception as error:  # a worker that failed or timed out, an engine's error on a later position
        review.status, review.error = "failed", f"the review stopped: {error}"


class ReviewStore:
    """The reviews kept (running or finished), least recently used first; one more than ``max_reviews`` evicts the
    oldest, cancelling it if it still runs."""

    def __init__(self, max_reviews: int) -> None:
        self.max_reviews = max_reviews
        self._reviews = GameStore(max_reviews, "review", "start one with POST /api/reviews")

    def add(self, review: Review) -> None:
        for evicted in self._reviews.add(review):
            self.cancel(evicted)

    def get(self, review_id: str) -> Review:
        return self._reviews.get(review_id)

    def remove(self, review_id: str) -> Review:
        review = self._reviews.remove(review_id)
        self.cancel(review)
        return review

    @staticmethod
    def cancel(review: Review) -> None:
        if review.task is not None and not review.task.done():
            review.task.cancel()

    def cancel_all(self) -> None:
        for review in self._reviews.games():
            self.cancel(review)
