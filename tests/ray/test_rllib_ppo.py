"""The RLlib trainer on a local Ray: one PPO iteration, its checkpoint, a resume, and the checkpoint's policy playing
legal games as an agent of the registry."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import shlex
import shutil

import pytest

pytest.importorskip("ray.rllib")

import agents
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, get_game
from competition.arena import play_game
from training.rllib.files import TRAINER_FILE
from training.rllib.trainer import CHECKPOINT, CHECKPOINT_DIR, RLlibPPOConfig, main, train

TINY = dict(
    iterations=1,
    env_runners=0,
    envs_per_runner=2,
    train_batch_size=400,
    minibatch_size=100,
    num_epochs=1,
    hidden=(32,),
    eval_every=1,
    eval_games=2,
    progress=False,
)


def command_line(config: RLlibPPOConfig) -> list[str]:
    """The options of ``awale train rllib`` that give ``config``."""
    argv = []
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        option = "--" + field.name.replace("_", "-")
        if isinstance(value, bool):
            argv.append(option if value else f"--no-{field.name.replace('_', '-')}")
        elif isinstance(value, tuple):
            argv += [option, *map(str, value)]
        elif value is not None:
            argv += [option, str(value)]
    return argv


def test_one_iteration_saves_resumes_and_plays_legal_games(local_ray, tmp_path, capsys):
    config = RLlibPPOConfig(run_dir=str(tmp_path / "run, with a comma"), **TINY)
    main(command_line(config))  # awale train rllib: ends with the spec that plays its policy
    last = capsys.readouterr().out.splitlines()[-1]
    (spec,) = shlex.split(last.removeprefix("play it with the agent spec "))
    checkpoint = tmp_path / "run, with a comma" / "checkpoint"
    assert spec == f'rllib:path="{checkpoint}"'

    with open(tmp_path / "run, with a comma" / "metrics.csv") as file:
        (row,) = list(csv.DictReader(file))
    assert int(row["env_steps"]) >= 400
    assert 0 <= float(row["vs_random"]) <= 1 and 0 <= float(row["vs_greedy"]) <= 1

    agent = agents.make(spec, deterministic=False, seed=0)
    assert agent.games == (DEFAULT_GAME,)
    for opponent in ("random", "greedy"):
        final = play_game((agent, agents.make(opponent, seed=1)), get_game(DEFAULT_GAME).initial())
        assert final.is_terminal  # play_game raises on an illegal move

    train(dataclasses.replace(config, resume=True, iterations=2))
    assert json.loads((tmp_path / "run, with a comma" / CHECKPOINT).read_text())["iteration"] == 2
    with open(tmp_path / "run, with a comma" / "metrics.csv") as file:
        assert [int(row["iteration"]) for row in csv.DictReader(file)] == [1, 2]


def test_a_failed_resume_shuts_down_the_ray_it_started_and_only_that(tmp_path, capsys):
    """A resume whose Algorithm state is gone fails in RLlib's restore, after Ray is up: a CheckpointError naming the
    checkpoint (one line from the command), the Ray the trainer started shut down (it was left running); one the
    caller started stays up, as Ray's conventions expect."""
    import ray

    config = RLlibPPOConfig(run_dir=str(tmp_path / "run"), **TINY)
    train(config)
    checkpoint = tmp_path / "run" / CHECKPOINT_DIR
    for path in checkpoint.iterdir():
        if path.name != TRAINER_FILE:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    resume = dataclasses.replace(config, resume=True, iterations=2)
    refused = re.escape(f"{checkpoint.resolve()}: RLlib cannot restore the run from it (FileNotFoundError: ")
    assert not ray.is_initialized()
    try:
        with pytest.raises(CheckpointError, match=refused):
            train(resume)
        assert not ray.is_initialized()
        ray.init(address="local", num_cpus=2, include_dashboard=False)
        with pytest.raises(CheckpointError, match=refused):
            train(resume)
        assert ray.is_initialized()
    finally:
        ray.shutdown()
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        main(["--run-dir", str(tmp_path / "run"), "--resume", "--iterations", "2"])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert stopped.value.code == 2 and re.match("error: " + refused, last), last
    assert not ray.is_initialized()


def test_a_lost_env_runner_is_said_and_counted(local_ray):
    """A dead env runner: RLlib takes it out of service (and restores it only once Ray has restarted its process);
    the trainer's metrics count the healthy ones and its line says so."""
    from training.rllib.trainer import env_runners_note, metrics_row, ppo_config

    config = RLlibPPOConfig(**{**TINY, "env_runners": 1, "eval_every": 100})
    algorithm = ppo_config(config).build_algo()
    try:
        assert metrics_row(algorithm.train())["env_runners_healthy"] == 1
        (runner,) = algorithm.env_runner_group._worker_manager.actors().values()  # RLlib keeps no public handle
        local_ray.kill(runner, no_restart=False)  # as its process crashing
        rows = [metrics_row(algorithm.train()) for _ in range(2)]  # the first call notices the loss
        assert rows[-1]["env_runners_healthy"] == 0
        assert env_runners_note(0, 1, rows[-1]).startswith("ray: 1 of 1 env runners lost")
    finally:
        algorithm.stop()
