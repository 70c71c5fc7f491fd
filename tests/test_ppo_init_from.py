"""``awale train ppo --init-from``: a run that starts from another run's (or the shipped) policy and value network."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.ppo import PPOAgent, pretrained_path  # noqa: E402
from agents.ppo.checkpoint import read_training_checkpoint  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402
from training.ppo.trainer import Args, train  # noqa: E402


def tiny_args(run_dir, **changes) -> Args:
    base = dict(
        run_dir=str(run_dir), total_timesteps=256, n_envs=2, n_steps=64, batch_size=64, n_epochs=1, net_arch=(16,),
        snapshot_every=1, eval_every=256, eval_games=2, eval_opponents=("random",), checkpoint_every=256,
        progress=False,
    )  # fmt: skip
    return Args(**{**base, **changes})


def same_networks(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.weights + a.biases, b.weights + b.biases, strict=True))


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A finished tiny run whose last checkpoint the tests start from."""
    return train(tiny_args(tmp_path_factory.mktemp("source") / "run", seed=5))


def test_a_run_starts_from_the_given_networks_and_a_fresh_optimizer(tmp_path, source):
    final = train(tiny_args(tmp_path / "run", init_from=str(source), learning_rate=3e-4, seed=9))
    first = tmp_path / "run" / "checkpoints" / "step_000000000.zip"
    assert same_networks(PPOAgent.load(first).net, PPOAgent.load(source).net)  # move 0 is the source's policy
    start, given = read_training_checkpoint(first), read_training_checkpoint(source)
    for name, tensor in given.policy.items():  # the value network came along too
        assert np.array_equal(start.policy[name].numpy(), tensor.numpy()), name
    assert start.num_timesteps == 0 and start.optimizer["state"] == {}  # the optimizer starts afresh
    assert start.pool and same_networks(start.pool[0][1], PPOAgent.load(source).net)  # and plays in the pool
    assert not same_networks(PPOAgent.load(final).net, PPOAgent.load(source).net)  # then it trains on
    rows = (tmp_path / "run" / "eval.csv").read_text().splitlines()
    assert rows[1].startswith("0,") and rows[-1].startswith("256,")  # evaluated before training, as a cloned start

    # a resume goes on from the run's own checkpoint and does not start from the source again
    resumed = train(
        tiny_args(tmp_path / "run", init_from=str(source), resume=True, total_timesteps=512, learning_rate=3e-4, seed=9)
    )
    assert read_training_checkpoint(resumed).num_timesteps == 512


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (dict(net_arch=(32,)), r"another shape: it has --net-arch \[16\] \(this run: \[32\]\)"),
        (dict(activation="relu"), "--activation tanh"),
        (dict(features="board"), "--features tactics"),
        (dict(teacher="alphabeta:depth=2"), "--teacher plays the teacher's games: give --teacher-games too"),
        (dict(teacher_games=2, teacher="alphabeta:dept=2"), "dept"),
        (dict(teacher_games=2, teacher_explore=1.5), r"--teacher-explore must be in \[0, 1\]"),
        (dict(teacher_games=2, teacher_anchor=-1.0), "--teacher-anchor"),
    ],
)
def test_a_source_of_another_network_is_refused_before_anything_is_written(tmp_path, source, changes, message):
    with pytest.raises(ValueError, match=message):
        train(tiny_args(tmp_path / "run", init_from=str(source), **changes))
    assert not (tmp_path / "run").exists()


def test_a_file_that_is_no_training_checkpoint_is_refused_in_one_line(tmp_path, source, capsys):
    broken = tmp_path / "broken.zip"
    broken.write_bytes(source.read_bytes()[:-200])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        train(tiny_args(tmp_path / "run", init_from=str(broken)))
    with pytest.raises(SystemExit):
        ppo_trainer.main(["--run-dir", str(tmp_path / "run"), "--init-from", str(tmp_path / "missing.zip")])
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "missing.zip" in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_pretrained_names_the_policy_shipped_for_the_game(tmp_path):
    with pytest.raises(ValueError, match="another shape"):  # the shipped policy is 256 x 256: found and read
        train(tiny_args(tmp_path / "run", init_from="pretrained"))
    assert pretrained_path("awale16").is_file()
    with pytest.raises(ValueError, match="no PPO policy is shipped for oware"):
        train(tiny_args(tmp_path / "run", init_from="pretrained", game="oware"))
    assert not (tmp_path / "run").exists()


def test_only_the_options_of_the_runs_own_network_must_match(tmp_path, source):
    """An MLP run starts from an MLP checkpoint whatever its (unused) ring options say."""
    final = train(tiny_args(tmp_path / "run", init_from=str(source), channels=32, blocks=1, seed=9))
    assert read_training_checkpoint(final).num_timesteps == 256
