"""The teacher's games, shared by the imitation trainer (:mod:`training.alphazero.imitation`) and PPO's cloning
(:mod:`training.ppo.teacher`): a search agent plays itself from random openings (or, with a student, DAgger: the
student plays one seat and the teacher says what it would play), every position recorded with the teacher's move, the
outcome and the search's value; the games are written in chunks of files a resumed run does not play again, by
worker processes that end with the trainer however it ends."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agents.alphabeta import AlphaBetaAgent
from agents.alphazero.selfplay import absolute_of_relative
from awale_env.games import get_game
from competition.parent_death import die_with_parent

#: The folder of a run's chunk files.
CHUNKS_DIR = "games"


class TeacherGames(Protocol):
    """The settings the games are played from (the imitation trainer's options; PPO's cloning builds them)."""

    game: str
    seed: int
    max_plies: int
    opening_min: int
    opening_max: int
    games: int
    games_per_chunk: int
    run_dir: str

    @property
    def chunks(self) -> int: ...


def chunk_path(run_dir: Path, chunk: int) -> Path:
    return run_dir / CHUNKS_DIR / f"chunk-{chunk:05d}.npz"


def play_teacher_game(
    config: TeacherGames, index: int, teacher: AlphaBetaAgent, student: Callable[[Any], int] | None = None
) -> dict[str, np.ndarray]:
    """Game ``index`` of the run: a random opening, then ``teacher`` for both players; one row per teacher move:
    the observation, the move (relative to the mover, as the network numbers them), the outcome for the mover,
    the teacher's search value and whether it searched (a lone legal move is not searched). With ``student`` (a
    State to the move it plays), the student plays the seat ``index % 2`` and the teacher only says there what it
    would play (the row's ``student`` is true): the positions are those the student reaches (DAgger)."""
    game = get_game(config.game)
    rng = np.random.default_rng([config.seed, index])
    state = game.initial(max_plies=config.max_plies, seed=int(rng.integers(1 << 62)))
    for _ in range(int(rng.integers(config.opening_min, config.opening_max + 1))):
        if state.is_terminal:
            break
        state = state.play(int(rng.choice(state.legal_actions())))
    teacher.reset(int(rng.integers(1 << 31)))
    relative = np.argsort(absolute_of_relative(game), axis=1)  # relative[player][absolute action]
    obs, action, player, score, scored, students = [], [], [], [], [], []
    while not state.is_terminal:
        move = teacher.act(state)
        obs.append(state.observation_tensor())
        action.append(relative[state.to_move][move])
        player.append(state.to_move)
        score.append(teacher.last_search["value"])
        scored.append(teacher.last_search["depth"] > 0)
        students.append(student is not None and state.to_move == index % 2)
        state = state.play(student(state) if students[-1] else move)
    winner = state.winner
    outcome = [0.0 if winner is None else (1.0 if p == winner else -1.0) for p in player]
    return {
        "obs": np.asarray(obs, np.float32).reshape(-1, game.obs_size),
        "action": np.asarray(action, np.int16),
        "outcome": np.asarray(outcome, np.float32),
        "score": np.asarray(score, np.int32),
        "scored": np.asarray(scored, np.bool_),
        "game": np.full(len(action), index, np.int32),
        "student": np.asarray(students, np.bool_),
    }


def chunk_games(config: TeacherGames, chunk: int) -> range:
    """The indices of the games of ``chunk``."""
    first = chunk * config.games_per_chunk
    return range(first, min(first + config.games_per_chunk, config.games))


def missing_chunks(config: TeacherGames) -> list[int]:
    """The chunks still to play: no file yet, or a file from a run with fewer ``--games`` that holds only the first
    of this chunk's games (a file that cannot be read is left for :func:`read_chunks` to name)."""
    missing = []
    for chunk in range(config.chunks):
        path = chunk_path(Path(config.run_dir), chunk)
        if not path.exists():
            missing.append(chunk)
            continue
        try:
            with np.load(path, allow_pickle=False) as npz:
                played = len(np.unique(npz["game"]))
        except Exception:  # numpy raises ValueError, KeyError, BadZipFile, ... depending on the damage
            continue
        if played < len(chunk_games(config, chunk)):
            missing.append(chunk)
    return missing


def worker_pool(processes: int) -> Any:
    """A pool of ``processes`` spawned workers that end with this process however it ends
    (:func:`competition.parent_death.die_with_parent`):
    the teacher's games of the imitation trainer and of PPO's cloning are played in one."""
    return mp.get_context("spawn").Pool(processes, initializer=die_with_parent, initargs=(os.getpid(),))


def fit_score_scale(score: np.ndarray, outcome: np.ndarray) -> float:
    """The scale ``s`` for which ``tanh(score / s)`` best predicts the outcomes (least squares over a grid)."""
    scales = np.geomspace(1, 10_000, 161)
    errors = [np.mean((np.tanh(score / s) - outcome) ** 2) for s in scales]
    return float(scales[int(np.argmin(errors))])


def value_targets(samples: dict[str, np.ndarray], scale: float, weight: float) -> np.ndarray:
    """The outcome, mixed with ``tanh(score / scale)`` with ``weight`` where the teacher searched."""
    searched = np.tanh(samples["score"] / scale).astype(np.float32)
    mixed = (1 - weight) * samples["outcome"] + weight * searched
    return np.where(samples["scored"], mixed, samples["outcome"]).astype(np.float32)
