"""The imitation trainer: the teacher's samples are true to its games, a run trains a network the AlphaZero agent and
trainer take, a resume goes on without playing the games again, and damaged files are refused."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agents.alphabeta import AlphaBetaAgent
from agents.alphazero import AlphaZeroAgent
from agents.alphazero.network import CheckpointError, load_network
from agents.alphazero.selfplay import absolute_of_relative
from awale_env.games import DEFAULT_GAME, get_game
from competition.progress import Clock, Progress
from training import teacher_games
from training.alphazero import imitation


def small_config(tmp_path, **options) -> imitation.ImitationConfig:
    settings = {"run_dir": str(tmp_path / "run"), "games": 4, "games_per_chunk": 2, "teacher_depth": 2,
                "workers": 0, "epochs": 2, "batch_size": 32, "validation_every": 2, "progress": False,
                "channels": 8, "blocks": 1, "value_hidden": 8, "torch_threads": 1}  # fmt: skip
    return imitation.resolved(imitation.ImitationConfig(**(settings | options)))


def test_a_teacher_game_records_the_teachers_moves_and_the_outcome_for_the_mover(tmp_path):
    config = small_config(tmp_path)
    game = get_game(config.game)
    rows = teacher_games.play_teacher_game(config, 3, AlphaBetaAgent(depth=2))
    again = teacher_games.play_teacher_game(config, 3, AlphaBetaAgent(depth=2))
    assert all(np.array_equal(rows[name], again[name]) for name in imitation.CHUNK_ARRAYS)  # seeded by (seed, game)
    # Replay the game: every row's observation is the position's, its move legal, its outcome the mover's.
    rng = np.random.default_rng([config.seed, 3])
    state = game.initial(max_plies=config.max_plies, seed=int(rng.integers(1 << 62)))
    for _ in range(int(rng.integers(config.opening_min, config.opening_max + 1))):
        state = state.play(int(rng.choice(state.legal_actions())))
    absolute = absolute_of_relative(game)
    movers = []
    for obs, action in zip(rows["obs"], rows["action"], strict=True):
        assert np.array_equal(obs, state.observation_tensor())
        move = int(absolute[state.to_move][action])
        assert move in state.legal_actions()
        movers.append(state.to_move)
        state = state.play(move)
    assert state.is_terminal
    expected = [0.0 if state.winner is None else (1.0 if p == state.winner else -1.0) for p in movers]
    assert rows["outcome"].tolist() == expected
    assert set(rows["game"].tolist()) == {3}
    assert rows["scored"].any()


def test_the_score_scale_fitted_is_the_one_the_outcomes_follow():
    rng = np.random.default_rng(0)
    score = rng.normal(0, 300, 20_000)
    outcome = np.where(rng.random(20_000) < (1 + np.tanh(score / 150)) / 2, 1.0, -1.0)
    assert 120 <= teacher_games.fit_score_scale(score, outcome) <= 190
    samples = {"score": np.array([150, 150]), "outcome": np.array([1.0, -1.0]), "scored": np.array([True, False])}
    mixed = teacher_games.value_targets(samples, 150.0, 0.5)
    assert mixed.tolist() == pytest.approx([0.5 + 0.5 * np.tanh(1.0), -1.0])


def test_a_run_trains_a_network_the_agent_plays_and_a_resume_goes_on_without_replaying(tmp_path):
    config = small_config(tmp_path)
    run = imitation.train(config)
    files = sorted((run.dir / teacher_games.CHUNKS_DIR).glob("chunk-*.npz"))
    assert len(files) == 2
    written = [f.stat().st_mtime_ns for f in files]
    assert len(run.metrics._read()[1]) == 2
    best = run.dir / imitation.BEST_FILE
    assert load_network(best, DEFAULT_GAME).config == config.network_config()
    agent = AlphaZeroAgent(path=str(best), simulations=16)
    state = get_game(DEFAULT_GAME).initial()
    assert agent.act(state) in state.legal_actions()

    resumed = imitation.train(small_config(tmp_path, epochs=3, games=6, resume=True))
    assert resumed.epoch == 3 and len(resumed.metrics._read()[1]) == 3
    assert [f.stat().st_mtime_ns for f in files] == written  # the games played are kept
    assert len(list((run.dir / teacher_games.CHUNKS_DIR).glob("chunk-*.npz"))) == 3  # and the two more played


def test_the_runs_training_time_counts_the_teachers_games(tmp_path, monkeypatch):
    # A learning curve adds the imitation run's time (metrics.csv's elapsed_s) to the AlphaZero run it started: the
    # teacher's games are part of it, not only the epochs. The games are made to take 1 s more than they do.
    play_chunks = imitation.play_chunks

    def slow_play_chunks(*args, **kwargs):
        play_chunks(*args, **kwargs)
        time.sleep(1.0)

    monkeypatch.setattr(imitation, "play_chunks", slow_play_chunks)
    run = imitation.train(small_config(tmp_path, epochs=1))
    (row,) = run.metrics._read()[1]
    assert float(row["elapsed_s"]) >= 1.0
    # A resume that plays no game adds only its own epochs to the saved time.
    monkeypatch.undo()
    resumed = imitation.train(small_config(tmp_path, epochs=2, resume=True))
    assert float(resumed.metrics._read()[1][1]["elapsed_s"]) >= float(row["elapsed_s"])


def test_a_resume_with_more_games_completes_the_last_chunk_of_fewer(tmp_path):
    imitation.train(small_config(tmp_path, games=3, epochs=1))  # chunk 1 holds game 2 alone
    assert teacher_games.missing_chunks(small_config(tmp_path, games=3)) == []
    assert teacher_games.missing_chunks(small_config(tmp_path, games=5)) == [1, 2]
    imitation.train(small_config(tmp_path, games=5, epochs=1, resume=True))
    assert sorted(set(imitation.read_chunks(small_config(tmp_path, games=5))["game"].tolist())) == [0, 1, 2, 3, 4]


def test_a_resume_may_not_change_the_teacher(tmp_path):
    imitation.train(small_config(tmp_path, epochs=1))
    with pytest.raises(ValueError, match="--teacher-depth cannot change"):
        imitation.train(small_config(tmp_path, teacher_depth=3, resume=True))


def test_a_damaged_or_crafted_chunk_is_refused_with_its_name(tmp_path):
    config = small_config(tmp_path)
    imitation.play_chunks(config, [0, 1], Progress("", 2, 0, "chunk", Clock(), False))
    path = teacher_games.chunk_path(tmp_path / "run", 1)
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    with pytest.raises(CheckpointError, match="chunk-00001.npz"):
        imitation.read_chunks(config)
    arrays = {name: np.zeros(3, np.int16) for name in imitation.CHUNK_ARRAYS}  # observations of the wrong shape
    with path.open("wb") as file:
        np.savez(file, **arrays)
    with pytest.raises(CheckpointError, match=r"chunk-00001.npz'?: array 'obs' is of shape \(3,\), not \(3, "):
        imitation.read_chunks(config)
    arrays["obs"] = np.zeros((3, get_game(config.game).obs_size), np.float32)
    arrays["outcome"], arrays["scored"] = np.zeros(3, np.float32), np.zeros(3, np.bool_)
    arrays["action"] = np.array([0, 1, 999], np.int16)
    with path.open("wb") as file:
        np.savez(file, **arrays)
    with pytest.raises(CheckpointError, match="moves outside"):
        imitation.read_chunks(config)
    with path.open("wb") as file:  # an object array would need unpickling: refused, never loaded
        np.savez(file, obs=np.array([object()], dtype=object))
    with pytest.raises(CheckpointError):
        imitation.read_chunks(config)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"opening_min": 5, "opening_max": 2}, "--opening-max must be at least"),
        ({"score_weight": 1.5}, "--score-weight"),
        ({"games": 0}, "--games must be a positive integer"),
        ({"validation_every": 1}, "--validation-every"),
        ({"game": "nope"}, "--game must be one of"),
    ],
)
def test_bad_options_raise_value_error(tmp_path, options, message):
    with pytest.raises(ValueError, match=message):
        imitation.ImitationConfig(run_dir=str(tmp_path / "run"), **options)
    assert not (tmp_path / "run").exists()
