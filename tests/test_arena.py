"""The arena: Elo on known cases, mirrored openings, identical results whatever the worker count, outputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from competition.arena import elo, format_table, make_tasks, round_robin, write_results
from competition.ratings import Outcome, Standing, tally


def test_elo_of_a_75_percent_score_is_400_log10_3():
    points = np.array([[0.0, 75.0], [25.0, 0.0]])  # A scored 75 of 100 against B
    played = np.array([[0.0, 100.0], [100.0, 0.0]])
    ratings, low, high = elo(points, played, prior_draws=0.0)
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings.mean() == pytest.approx(1500)
    assert np.all(low < ratings) and np.all(ratings < high)


def test_elo_recovers_ratings_from_their_expected_scores():
    true = np.array([0.0, 100.0, 300.0])
    expected = 1 / (1 + 10 ** ((true[None, :] - true[:, None]) / 400))
    played = np.full((3, 3), 1000.0)
    np.fill_diagonal(played, 0)
    ratings, low, high = elo(expected * played, played, prior_draws=0.0, anchor=0)
    assert ratings == pytest.approx(true, abs=1e-6)
    # Ten times the games: intervals about sqrt(10) times narrower.
    _, low10, high10 = elo(expected * played * 10, played * 10, prior_draws=0.0, anchor=0)
    assert (high - low)[1:] / (high10 - low10)[1:] == pytest.approx(math.sqrt(10), rel=1e-6)
    assert high[0] == low[0] == 0.0  # the anchor has no uncertainty


def test_prior_keeps_a_perfect_record_finite():
    ratings, low, high = elo(np.array([[0.0, 10.0], [0.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 0.0]]))
    assert np.all(np.isfinite(ratings)) and ratings[0] > ratings[1] + 200


def test_elo_of_a_disconnected_or_one_sided_table_is_defined_by_the_virtual_draws():
    """Pairs that have not met (two separate groups, a player without a game) or one-sided results: finite
    ratings with intervals around them; a player without games sits at the mean, between the winner and the loser."""
    played = np.zeros((5, 5))
    points = np.zeros((5, 5))
    played[0, 1] = played[1, 0] = 4  # 0 beat 1 four times
    points[0, 1] = 4
    played[2, 3] = played[3, 2] = 2  # 2 and 3 drew twice; 4 has no game
    points[2, 3] = points[3, 2] = 1
    ratings, low, high = elo(points, played)
    assert np.all(np.isfinite(ratings)) and np.all(low < ratings) and np.all(ratings < high)
    assert ratings[2] == pytest.approx(ratings[3]) and ratings[0] > ratings[2] > ratings[1]
    assert ratings[4] == pytest.approx(1500, abs=1e-6) and ratings.mean() == pytest.approx(1500)
    assert elo(np.zeros((1, 1)), np.zeros((1, 1)))[0] == pytest.approx([1500])
    assert len(elo(np.zeros((0, 0)), np.zeros((0, 0)))[0]) == 0
    with pytest.raises(ValueError, match="connect every player"):
        elo(points, played, prior_draws=0.0)


def test_one_record_tallies_wins_draws_losses_faults_and_derives_the_rest():
    """The record the arena, the store and the referee share: W-D-L and faults by kind counted once per game, games,
    points and score derived, each pair's counts from both sides, and the Elo of the same games."""
    outcomes = [Outcome(("a", "b"), 0), Outcome(("b", "a"), None), Outcome(("b", "c"), 1, (0, "timeout")),
                Outcome(("c", "a"), 0, (1, "illegal"))]  # fmt: skip
    table = tally(["a", "b", "c", "idle"], outcomes)
    a, b, c, idle = table.standings
    assert (a.wins, a.draws, a.losses, a.faults) == (1, 1, 1, {"illegal": 1})
    assert (a.games, a.points, a.score) == (3, 1.5, 0.5)
    assert (b.wins, b.draws, b.losses, b.faults) == (0, 1, 2, {"timeout": 1}) and b.points == 0.5
    assert (c.wins, c.losses, c.points) == (2, 0, 2.0)
    assert (idle.games, idle.score) == (0, 0.0) and isinstance(idle, Standing)
    assert {"agent": "a", "opponent": "b", "wins": 1, "draws": 1, "losses": 0} in table.pair_rows()
    assert c.elo > a.elo > b.elo and a.to_dict()["points"] == 1.5 and a.to_dict()["faults"] == {"illegal": 1}
    points = np.array([[0, 1.5, 0, 0], [0.5, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=float)
    points[2, 0] = points[2, 1] = 1
    played = np.array([[0, 2, 1, 0], [2, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=float)
    assert [s.elo for s in table.standings] == pytest.approx(np.round(elo(points, played)[0], 1))


def test_a_complete_round_robin_is_rated_as_before():
    """Every pair met: the virtual draws are those of the pairs that met, so the arena's ratings are unchanged
    (the fit of 3 players whose games and one draw per pair are written out here)."""
    points = np.array([[0, 3, 4], [1, 0, 2], [0, 2, 0]], dtype=float)
    played = np.array([[0, 4, 4], [4, 0, 4], [4, 4, 0]], dtype=float)
    prior = 1.0 - np.eye(3)
    assert np.array(elo(points, played)) == pytest.approx(np.array(elo(points + 0.5 * prior, played + prior, 0.0)))


def test_games_come_in_mirrored_pairs_with_shared_openings():
    tasks = make_tasks(["random", "greedy", "mcts"], 4, seed=3, opening_plies=4, max_plies=400)
    assert len(tasks) == 3 * 4
    for even, odd in zip(tasks[::2], tasks[1::2]):
        assert even.opening == odd.opening and len(even.opening) == 4
        assert even.specs == odd.specs[::-1]
    assert len({t.opening for t in tasks}) == len(tasks) // 2


def test_results_do_not_depend_on_the_worker_count():
    specs = ["random", "greedy", "mcts:simulations=30"]
    one = round_robin(specs, 4, seed=5, workers=1, progress=False)
    two = round_robin(specs, 4, seed=5, workers=2, progress=False)
    assert one.games == two.games
    assert one.table() == two.table()
    assert round_robin(specs, 4, seed=6, workers=1, progress=False).games != one.games


def test_round_robin_table_and_outputs(tmp_path):
    result = round_robin(["random", "alphabeta:depth=2"], 6, seed=0, progress=False)
    best = result.standings[0]
    assert best.player == "alphabeta:depth=2" and best.games == 6 and best.wins >= 5
    assert sum(s.wins for s in result.standings) == sum(s.losses for s in result.standings)
    text = format_table(result)
    assert "alphabeta:depth=2" in text and "95% CI" in text and "wins-draws-losses" in text
    paths = write_results(result, tmp_path)
    assert [p.name for p in paths] == ["results.json", "standings.csv", "games.csv", "elo.png"]
    data = json.loads(paths[0].read_text())
    assert len(data["games"]) == 6 and data["standings"][0]["agent"] == "alphabeta:depth=2"
    assert paths[1].read_text().splitlines()[0].startswith("agent,games,wins,draws,losses,elo")
    assert len(paths[2].read_text().splitlines()) == 7
    assert paths[3].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "specs, games, message",
    [
        (["random"], 2, "at least 2 agents"),
        (["random", "random"], 2, "appear once"),
        (["random", "greedy"], 3, "must be even"),
        (["random", "nosuch"], 2, "unknown agent"),
    ],
)
def test_bad_tournaments_are_refused(specs, games, message):
    with pytest.raises(ValueError, match=message):
        round_robin(specs, games, progress=False)
