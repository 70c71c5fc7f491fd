"""The Tune sweep: one tiny trial, with the trainer's options; it prints short lines only, and the spec it ends
with plays the best trial's policy although Tune's folder names hold commas and ``=``."""

from __future__ import annotations

import shlex

import pytest

pytest.importorskip("ray.rllib")

import agents
from awale_env.games import DEFAULT_GAME, get_game
from competition.arena import play_game
from training.rllib.tune_sweep import SweepConfig, sweep

#: The longest line the sweep may print (it once printed each trial's whole RLlib config: 12,863 characters).
LONGEST_LINE = 300


def test_sweep_prints_short_lines_and_a_spec_that_plays_its_best_trial(local_ray, tmp_path, capsys):
    config = SweepConfig(iterations=1, eval_every=1, eval_games=2, learning_rates=(3e-4,), entropies=(0.01,),
                         train_batch_size=200, minibatch_size=100, num_epochs=1, hidden=(16,), envs_per_runner=2,
                         storage=str(tmp_path / "tune"))  # fmt: skip
    results = sweep(config)
    assert results.num_errors == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line.replace(str(tmp_path), "")) for line in lines) <= LONGEST_LINE, out  # paths aside
    (last,) = [line for line in lines if line.startswith("play it with the agent spec ")]
    (spec,) = shlex.split(last.removeprefix("play it with the agent spec "))
    assert "," in spec.partition("path=")[2], spec  # Tune's trial folder: lr=...,entropy_coeff=... (quoted)
    agent = agents.make(spec, seed=0)
    assert agent.games == (DEFAULT_GAME,)
    final = play_game((agent, agents.make("random", seed=1)), get_game(DEFAULT_GAME).initial())
    assert final.is_terminal  # play_game raises on an illegal move
