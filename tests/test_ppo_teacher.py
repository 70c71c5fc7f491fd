"""PPO's stronger start and opponents: behaviour cloning on alpha-beta's moves (--teacher-games), the league of fixed
opponents in the pool (--league), SB3's target_kl."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from agents.ppo import PPOAgent  # noqa: E402
from agents.ppo.checkpoint import read_training_checkpoint  # noqa: E402
from agents.ppo.policy import input_size, relative_legal_mask  # noqa: E402
from agents.ppo.sb3 import new_sb3_model, sb3_env  # noqa: E402
from awale_env.games import get_game  # noqa: E402
from training.ppo import teacher as ppo_teacher  # noqa: E402
from training.ppo.checkpoints import without_pool  # noqa: E402
from training.ppo.config import resolved  # noqa: E402
from training.ppo.pool import OpponentPool, PoolOpponent  # noqa: E402
from training.ppo.trainer import Args, train  # noqa: E402


def teacher_args(run_dir: Path, **changes) -> Args:
    base = dict(
        run_dir=str(run_dir), seed=3, total_timesteps=512, n_envs=2, n_steps=128, batch_size=32, n_epochs=1,
        net_arch=(64, 64), snapshot_every=1, eval_every=512, eval_games=2, eval_opponents=("random",),
        checkpoint_every=512, progress=False, teacher_games=4, teacher_depth=2, teacher_epochs=30,
        teacher_learning_rate=1e-2, teacher_games_per_chunk=2, teacher_workers=0,
        league=("alphabeta:depth=1",), pool_league=0.5, target_kl=0.05,
    )  # fmt: skip
    return Args(**{**base, **changes})


def agreement(agent: PPOAgent, samples: dict[str, np.ndarray]) -> float:
    """Share of the teacher's moves the policy plays (from the recorded inputs and masks)."""
    moves = [agent.net.relative_action(o, m, None) for o, m in zip(samples["obs"], samples["mask"])]
    return float(np.mean(np.array(moves) == samples["action"]))


def test_cloning_starts_the_run_from_the_teachers_moves_and_a_resume_does_not_clone_again(tmp_path):
    run_dir = tmp_path / "run"
    final = train(teacher_args(run_dir))
    options = ppo_teacher.TeacherOptions("awale16", "tactics", 3, 4, 2, 400, 2)
    samples = ppo_teacher.read_games(options, run_dir / "teacher")
    assert len(samples["action"]) > 100 and samples["obs"].shape[1] == input_size("awale16", "tactics")

    # the inputs recorded are the network's own, and the teacher's moves are legal
    assert samples["mask"][np.arange(len(samples["action"])), samples["action"]].all()

    # the checkpoint of move 0 is the cloned policy: it plays the teacher's moves far more often than chance
    first = PPOAgent.load(run_dir / "checkpoints" / "step_000000000.zip")
    legal_share = float(np.mean(1 / samples["mask"].sum(1)))
    assert agreement(first, samples) > max(0.7, 3 * legal_share)
    with (run_dir / "teacher.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert [int(r["epoch"]) for r in rows] == list(range(1, 31))
    assert float(rows[-1]["agreement"]) > float(rows[0]["agreement"])
    with (run_dir / "eval.csv").open() as file:
        assert [r["steps"] for r in csv.DictReader(file)][:1] == ["0"]  # the cloned policy is evaluated
    with zipfile.ZipFile(final) as archive:
        assert json.loads(archive.read("pool/index.json"))[0] == 0  # and joins the pool
        assert json.loads(archive.read("config.json"))["args"]["league"] == ["alphabeta:depth=1"]

    # the file to ship: the same policy and tensors without the pool
    shipped = tmp_path / "shipped.zip"
    without_pool(final, shipped)
    with zipfile.ZipFile(shipped) as archive:
        assert json.loads(archive.read("pool/index.json")) == [] and not any(
            n.endswith(".npz") and n.startswith("pool/") for n in archive.namelist()
        )
    assert read_training_checkpoint(shipped).policy.keys() == read_training_checkpoint(final).policy.keys()
    for w, v in zip(PPOAgent.load(shipped).net.weights, PPOAgent.load(final).net.weights):
        np.testing.assert_array_equal(w, v)

    # a resume goes on from the checkpoint without playing or cloning again
    chunk = run_dir / "teacher" / "games" / "chunk-00000.npz"
    before = chunk.stat().st_mtime_ns, (run_dir / "teacher.csv").read_bytes()
    train(teacher_args(run_dir, resume=True, total_timesteps=1024))
    assert (chunk.stat().st_mtime_ns, (run_dir / "teacher.csv").read_bytes()) == before


def test_teacher_games_are_reused_when_a_run_starts_again_and_refused_when_played_otherwise(tmp_path):
    options = ppo_teacher.TeacherOptions("awale16", "tactics", 5, 4, 1, 400, 2)
    teacher_dir = tmp_path / "teacher"

    class Quiet:
        def note(self, text: str) -> None:
            pass

    ppo_teacher.play_games(options, teacher_dir, 0, Quiet())
    first = ppo_teacher.read_games(options, teacher_dir)
    kept = teacher_dir / "games" / "chunk-00000.npz"
    stamp = kept.stat().st_mtime_ns
    (teacher_dir / "games" / "chunk-00001.npz").unlink()  # as if killed while playing it
    (teacher_dir / "games" / "chunk-00001.npz.tmp").write_bytes(b"half")
    ppo_teacher.play_games(options, teacher_dir, 0, Quiet())
    assert kept.stat().st_mtime_ns == stamp and not list((teacher_dir / "games").glob("*.tmp"))
    again = ppo_teacher.read_games(options, teacher_dir)
    for name in ppo_teacher.ARRAYS:
        np.testing.assert_array_equal(first[name], again[name])
    more = ppo_teacher.TeacherOptions("awale16", "tactics", 5, 6, 1, 400, 2)  # more games: the first are reused
    ppo_teacher.play_games(more, teacher_dir, 0, Quiet())
    assert kept.stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="remove it or choose another --run-dir"):
        ppo_teacher.play_games(
            ppo_teacher.TeacherOptions("awale16", "tactics", 5, 4, 2, 400, 2), teacher_dir, 0, Quiet()
        )
    kept.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="chunk-00000"):
        ppo_teacher.read_games(options, teacher_dir)


def test_recording_teacher_records_the_networks_input_and_plays_alpha_beta():
    from agents.ppo.policy import observe

    teacher = ppo_teacher.RecordingTeacher("alphabeta:depth=2", "tactics")
    state = get_game("awale16").initial(seed=1)
    move = teacher.act(state)
    inputs, masks = teacher.take()
    np.testing.assert_array_equal(inputs[0], observe(state, 0, "tactics"))
    np.testing.assert_array_equal(masks[0], relative_legal_mask(state))
    assert state.is_legal(move) and teacher.last_search["depth"] == 2
    assert teacher.take()[0].shape[0] == 0


def test_the_league_joins_the_pool_in_its_share_of_games():
    args = resolved(Args(run_dir="unused", league=("alphabeta:depth=1", "greedy"), pool_league=0.5, pool_random=0.5,
                         pool_greedy=0, pool_snapshots=0))  # fmt: skip
    opponent = PoolOpponent(OpponentPool(args), seed=0)
    labels = []
    for game in range(400):
        opponent.reset(seed=game if game == 0 else None)
        labels.append(opponent.label)
    counts = {label: labels.count(label) for label in set(labels)}
    assert set(counts) == {"random", "greedy", "alphabeta:depth=1"}
    assert 160 < counts["random"] < 240 and 60 < counts["alphabeta:depth=1"] < 140
    opponent.label, opponent.player = "alphabeta:depth=1", opponent.fixed["alphabeta:depth=1"]
    state = get_game("awale16").initial(seed=2)
    assert opponent.act(state) == opponent.fixed["alphabeta:depth=1"].act(state)


def test_bad_teacher_and_league_options_are_refused_with_the_option_named(tmp_path):
    for changes, message in [
        (dict(pool_league=0.5, league=()), "--pool-league needs agents in --league"),
        (dict(league=("nobody",)), "unknown agent"),
        (dict(teacher_depth=99), "--teacher-depth must be at most"),
        (dict(teacher_games=-1), "--teacher-games must not be negative"),
        (dict(teacher_epochs=0), "--teacher-epochs must be a positive integer"),
        (dict(target_kl=0.0), "--target-kl"),
        (dict(teacher_learning_rate=-1.0), "--teacher-learning-rate"),
        (dict(teacher_anchor=0.5), "--teacher-anchor: for DAgger only"),
        (dict(teacher_games=2, teacher_explore=0.0), "--teacher-explore: for DAgger only.*--init-from"),
    ]:
        with pytest.raises(ValueError, match=message):
            train(teacher_args(tmp_path / "bad", **changes))
    assert not (tmp_path / "bad").exists()


def test_target_kl_reaches_sb3_and_older_options_without_it_still_build():
    options = {**vars(resolved(Args(run_dir="unused", target_kl=0.03)))}
    torch.set_num_threads(1)
    assert new_sb3_model(options, sb3_env()).target_kl == 0.03
    del options["target_kl"]
    assert new_sb3_model(options, sb3_env()).target_kl is None
