"""Speed of the web page's post-game review (``POST /api/reviews``) at its default setting: positions reviewed per
second, through the app (FastAPI's test client, one agent worker process, so one core searches), on games of
alpha-beta at depth 2 against random for each game the page shows.

Each figure is the median of ``--repeats`` reviews of the same games after a warm-up review; the default engine
(``awale_apps.web.reviews.DEFAULT_REVIEW_ENGINE``) searches each position for 0.05 s, so the target is about 20
positions a second. Usage: python benchmarks/bench_review.py [--games NAME ...] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from fastapi.testclient import TestClient

from agents import make
from awale_apps.web import create_app
from awale_apps.web.live import web_games
from awale_apps.web.reviews import DEFAULT_REVIEW_ENGINE
from awale_env import GameRecord
from awale_env.games import get_game


def record_of(game: str, seed: int) -> str:
    """A game of alpha-beta (depth 2) against random, as record text."""
    state = get_game(game).initial(seed=0)
    options = {"first_player": state.to_move} if "first_player" in get_game(game).rule_options else {}
    players = [make("alphabeta:depth=2", seed=seed), make("random", seed=seed)]
    moves = []
    while not state.is_terminal and len(moves) < 200:
        moves.append(int(players[state.to_move].act(state)))
        state = state.play(moves[-1])
    return GameRecord(moves, state.max_plies, game, options).to_text()


def review_seconds(client: TestClient, record: str) -> tuple[int, float]:
    """(positions, seconds) of one review of ``record`` by the default engine."""
    start = time.perf_counter()
    review = client.post("/api/reviews", json={"record": record}).json()
    while review["status"] == "running":
        time.sleep(0.02)
        review = client.get(f"/api/reviews/{review['id']}").json()
    if review["status"] != "done":
        raise RuntimeError(f"the review {review['status']}: {review['error']}")
    return review["total"], time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=sorted(web_games()))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    result: dict[str, object] = {"engine": DEFAULT_REVIEW_ENGINE}
    with TestClient(create_app(max_think_seconds=5.0, max_client_queue=8)) as client:
        records = {game: record_of(game, 1) for game in args.games}
        review_seconds(client, records[args.games[0]])  # warm-up: the worker starts, the search compiles
        for game, record in records.items():
            runs = [review_seconds(client, record) for _ in range(args.repeats)]
            positions = runs[0][0]
            seconds = statistics.median(run[1] for run in runs)
            result[f"{game}_positions"] = positions
            result[f"{game}_positions_per_s"] = round(positions / seconds, 1)
    result |= {"repeats": args.repeats, "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}
    for key, value in result.items():
        print(f"{key}: {value}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
