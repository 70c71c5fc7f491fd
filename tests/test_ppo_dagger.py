"""``--teacher-games`` with ``--init-from`` (DAgger): the starting policy plays one seat of the teacher's games, the
teacher says what it would play in the student's positions, and the policy learns those moves, kept near its start."""

from __future__ import annotations

import csv
import hashlib
import json
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.ppo import PPOAgent  # noqa: E402
from agents.ppo.checkpoint import policy_from_npz  # noqa: E402
from agents.ppo.policy import observe  # noqa: E402
from awale_env.games import get_game  # noqa: E402
from training import teacher_games  # noqa: E402
from training.alphazero import imitation  # noqa: E402
from training.ppo import teacher as ppo_teacher  # noqa: E402
from training.ppo.trainer import Args, train  # noqa: E402


def tiny_args(run_dir, **changes) -> Args:
    base = dict(
        run_dir=str(run_dir), seed=4, total_timesteps=256, n_envs=2, n_steps=64, batch_size=32, n_epochs=1,
        net_arch=(32,), snapshot_every=1, eval_every=256, eval_games=2, eval_opponents=("random",),
        checkpoint_every=256, progress=False, teacher_games_per_chunk=2, teacher_workers=0,
    )  # fmt: skip
    return Args(**{**base, **changes})


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A finished tiny run: the starting policy of the DAgger runs."""
    return train(tiny_args(tmp_path_factory.mktemp("source") / "run"))


def test_the_student_plays_its_seat_and_the_teacher_labels_every_position():
    config = imitation.ImitationConfig(
        run_dir="unused", seed=2, games=4, teacher_depth=1, games_per_chunk=2, max_plies=400
    )
    asked = []

    def lowest(state):  # a student that plays its lowest legal move, remembering where it was asked
        asked.append(state)
        return min(state.legal_actions())

    teacher = ppo_teacher.RecordingTeacher("alphabeta:depth=1", "tactics")
    rows = teacher_games.play_teacher_game(config, 3, teacher, lowest)
    assert rows["student"].any() and not rows["student"].all()
    # the student's rows are the positions it was asked about, all of seat 3 % 2, and the teacher labelled them
    student_obs = rows["obs"][rows["student"]]
    assert len(asked) == len(student_obs) and all(s.to_move == 1 for s in asked)
    for state, obs in zip(asked, student_obs):
        np.testing.assert_array_equal(obs, state.observation_tensor())
    # the game went on with the student's move, not the teacher's: the next row is the position after it
    following = np.flatnonzero(rows["student"])[:-1] + 1
    for state, obs in zip(asked, rows["obs"][following]):
        np.testing.assert_array_equal(obs, state.play(min(state.legal_actions())).observation_tensor())
    # and without a student the teacher plays both seats, as before
    assert not teacher_games.play_teacher_game(config, 3, teacher)["student"].any()


@pytest.mark.parametrize("spec", ["mcts:simulations=20,seed=1", "alphazero:pretrained,simulations=8"])
def test_a_teacher_without_a_search_value_leaves_the_critic_to_the_outcomes(spec):
    config = imitation.ImitationConfig(
        run_dir="unused", seed=2, games=2, teacher_depth=1, games_per_chunk=2, max_plies=60
    )
    rows = teacher_games.play_teacher_game(config, 1, ppo_teacher.RecordingTeacher(spec, "board"))
    assert len(rows["action"]) and not rows["scored"].any() and not rows["score"].any()


def test_dagger_learns_the_teachers_moves_in_the_students_positions(tmp_path, source):
    run_dir = tmp_path / "run"
    args = tiny_args(
        run_dir, init_from=str(source), teacher_games=4, teacher="alphabeta:depth=2", teacher_epochs=20,
        teacher_learning_rate=1e-2, teacher_explore=0.2, teacher_anchor=0.01,
    )  # fmt: skip
    train(args)
    teacher_dir = run_dir / "teacher"
    saved = json.loads((teacher_dir / "options.json").read_text())
    student = (teacher_dir / "student.npz").read_bytes()
    assert saved["teacher"] == "alphabeta:depth=2" and saved["explore"] == 0.2
    assert saved["student"] == hashlib.sha256(student).hexdigest()
    start = PPOAgent.load(source)
    np.testing.assert_array_equal(policy_from_npz(student, "student").weights[0], start.net.weights[0])

    options = ppo_teacher.TeacherOptions(
        "awale16", "tactics", 4, 4, 6, 400, 2, "alphabeta:depth=2", saved["student"], 0.2
    )  # fmt: skip
    samples = ppo_teacher.read_games(options, teacher_dir)
    mine = {name: array[samples["student"]] for name, array in samples.items()}
    assert 0.3 < samples["student"].mean() < 0.7  # one seat of every game

    def agreement(agent):
        moves = [agent.net.relative_action(o, m, None) for o, m in zip(mine["obs"], mine["mask"])]
        return float(np.mean(np.array(moves) == mine["action"]))

    cloned = PPOAgent.load(run_dir / "checkpoints" / "step_000000000.zip")
    assert agreement(cloned) > agreement(start) + 0.1
    with (run_dir / "teacher.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert "kl" in rows[0] and "value_loss" not in rows[0] and float(rows[-1]["kl"]) > 0

    # games played with another starting policy are not mixed in: the same directory refuses them
    other = ppo_teacher.TeacherOptions(
        "awale16", "tactics", 4, 4, 6, 400, 2, "alphabeta:depth=2", "0" * 64, 0.2
    )  # fmt: skip
    with pytest.raises(ValueError, match="remove it or choose another --run-dir"):
        ppo_teacher.play_games(other, teacher_dir, 0, None)


def test_the_anchor_keeps_the_policy_near_its_start(tmp_path, source):
    def final_kl(anchor, name):
        run_dir = tmp_path / name
        train(tiny_args(run_dir, init_from=str(source), teacher_games=2, teacher_depth=2, teacher_epochs=10,
                        teacher_learning_rate=1e-2, teacher_explore=0.0, teacher_anchor=anchor))  # fmt: skip
        with (run_dir / "teacher.csv").open() as file:
            return float(list(csv.DictReader(file))[-1]["kl"])  # the KL divergence from the starting policy

    assert final_kl(100.0, "anchored") < final_kl(0.0, "free") / 3


def test_a_ring_policy_from_the_alphazero_network_is_corrected_by_alphazero_with_search(tmp_path):
    run_dir = tmp_path / "ring"
    train(tiny_args(
        run_dir, network="ring", features="board", learning_rate=1e-3, total_timesteps=64, n_steps=32,
        init_from="alphazero:pretrained", teacher_games=2, teacher="alphazero:pretrained,simulations=16",
        teacher_epochs=2, teacher_learning_rate=1e-3,
    ))  # fmt: skip
    student = (run_dir / "teacher" / "student.npz").read_bytes()
    with zipfile.ZipFile(run_dir / "checkpoints" / "step_000000000.zip") as archive:
        cloned = archive.read("policy.npz")
    assert cloned != student  # the network that starts self-play is the corrected one
    state = get_game("awale16").initial(seed=2)
    before, after = policy_from_npz(student, "student"), policy_from_npz(cloned, "cloned")
    observation = observe(state, 0, "board")[None]
    assert not np.allclose(before.logits(observation), after.logits(observation))
    with (run_dir / "teacher.csv").open() as file:
        assert [row["epoch"] for row in csv.DictReader(file)] == ["1", "2"]


def test_a_student_file_that_is_not_the_one_the_games_were_played_with_is_refused(tmp_path, source):
    policy = PPOAgent.load(source).net
    digest = ppo_teacher.save_student(tmp_path, policy)
    options = ppo_teacher.TeacherOptions("awale16", "tactics", 1, 2, 1, 400, 2, None, digest, 0.0)
    assert ppo_teacher.read_student(tmp_path, options).weights[0].shape == policy.weights[0].shape
    (tmp_path / ppo_teacher.STUDENT_FILE).write_bytes(b"something else")
    with pytest.raises(ValueError, match="not the starting policy"):
        ppo_teacher.read_student(tmp_path, options)
