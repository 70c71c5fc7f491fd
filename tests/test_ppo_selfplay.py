"""Self-play PPO: the learner's view of the env, a tiny run end to end (train, evaluate, checkpoint, resume, play),
the run directory's conventions (resume options, progress in a log, Ctrl-C), and the checkpoint checks of the PPO
agent."""

from __future__ import annotations

import csv
import dataclasses
import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
from agents.ppo import CheckpointError, PPOAgent, pretrained_path, sb3_model  # noqa: E402
from agents.ppo.checkpoint import CHECKPOINT_FORMAT, open_checkpoint  # noqa: E402
from agents.ppo.policy import PolicyNet, input_size, observe  # noqa: E402
from agents.ppo.sb3 import LearnerView  # noqa: E402
from awale_env import State  # noqa: E402
from awale_env.games import GAMES, get_game  # noqa: E402
from awale_env.games.awale16 import kernels as core  # noqa: E402
from awale_env.gym_env import AwaleEnv  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402
from training.ppo.trainer import Args, train  # noqa: E402

TACTICS_SIZE = input_size("awale16", "tactics")


class RecordingOpponent:
    """Plays random legal moves and records the states it was asked to move in."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.seen: list[State] = []

    def act(self, state: State) -> int:
        self.seen.append(state)
        return int(self.rng.choice(state.legal_actions()))


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_sees_only_its_own_view_and_rewards(seat):
    opponent = RecordingOpponent(seed=seat)
    env = LearnerView(AwaleEnv(opponent=opponent, learner_seat=seat), shaping=0.5, features="tactics")
    assert env.observation_space.shape == (TACTICS_SIZE,)
    observation, _ = env.reset(seed=3)
    rng = np.random.default_rng(seat)
    games = 0
    while games < 5:
        state = env.unwrapped.game
        assert state.to_move == seat  # the learner is only ever asked to move in its own turn
        assert env.observation_space.contains(observation)
        np.testing.assert_array_equal(observation[: core.OBS_SIZE], state.observation_tensor(seat))
        np.testing.assert_array_equal(observation, observe(state, seat, "tactics"))
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, np.roll(state.legal_mask(), -2 * seat))
        relative = int(rng.choice(np.flatnonzero(mask)))
        absolute = int(core.absolute_action(relative, seat))
        assert state.is_legal(absolute)
        after_learner = state.play(absolute)
        observation, reward, terminated, truncated, info = env.step(relative)
        final = env.unwrapped.game
        # the learner's move is the absolute action its relative action names
        if after_learner.is_terminal:
            assert final == after_learner
        else:
            assert opponent.seen[-1] == after_learner and opponent.seen[-1].to_move == 1 - seat
        diff = (final.stores[seat] - state.stores[seat]) - (final.stores[1 - seat] - state.stores[1 - seat])
        result = 0.0 if not terminated or final.winner is None else (1.0 if final.winner == seat else -1.0)
        assert reward == pytest.approx(result + 0.5 * diff / core.TOTAL_SEEDS)
        if terminated or truncated:
            games += 1
            observation, _ = env.reset()
    assert all(s.to_move == 1 - seat for s in opponent.seen)


@pytest.mark.parametrize("game", GAMES)
def test_tactical_features_are_the_captures_of_each_move_and_of_the_best_reply(game):
    spec = get_game(game)
    n = spec.num_actions
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 300:
        state = spec.initial(max_plies=60, seed=int(rng.integers(1 << 30)))
        while not state.is_terminal:
            player = state.to_move
            features = observe(state, player, "tactics")[spec.obs_size :]
            expected = np.zeros(2 * n)
            for move in state.legal_actions():
                r = (move - spec.action_shift(player)) % n
                after = state.play(move)
                expected[r] = after.last_capture / 16
                if not after.is_terminal and after.to_move != player:  # the opponent's best reply (no extra turn)
                    expected[n + r] = max(after.play(b).last_capture for b in after.legal_actions()) / 16
            np.testing.assert_allclose(features, expected, rtol=0, atol=1e-6)
            checked += 1
            state = state.play(int(rng.choice(state.legal_actions())))


def find_losing_reply(seed: int) -> tuple[State, int, int]:
    """A position, a move of the player to move, and the opponent's reply to it that ends the game, won by the
    opponent (found by random play)."""
    rng = np.random.default_rng(seed)
    while True:
        state = State.initial()
        while not state.is_terminal:
            for move in state.legal_actions():
                after = state.play(move)
                if after.is_terminal:
                    continue
                for reply in after.legal_actions():
                    end = after.play(reply)
                    if end.is_terminal and end.winner == after.to_move:
                        return state, move, reply
            state = state.play(int(rng.choice(state.legal_actions())))


def test_a_game_lost_on_the_opponents_move_reaches_the_learner():
    position, move, reply = find_losing_reply(seed=0)
    seat = position.to_move
    target = position.play(move)

    def opponent(state: State) -> int:
        return reply if state == target else state.legal_actions()[0]

    env = LearnerView(AwaleEnv(opponent=opponent, learner_seat=seat), shaping=0.0)
    env.reset(seed=0)
    env.unwrapped.game = position  # start from the found position
    _, reward, terminated, _, info = env.step(int(core.relative_action(move, seat)))
    assert terminated and info["winner"] == 1 - seat
    assert reward == -1.0


def tiny_args(run_dir: Path, **changes) -> Args:
    base = dict(
        run_dir=str(run_dir),
        total_timesteps=1024,
        n_envs=2,
        n_steps=64,
        batch_size=64,
        n_epochs=2,
        net_arch=(16,),
        snapshot_every=2,
        pool_size=3,
        eval_every=512,
        eval_games=4,
        eval_opponents=("random", "greedy"),
        checkpoint_every=512,
        keep_checkpoints=2,
        progress=False,
    )
    return Args(**{**base, **changes})


def read_rows(run_dir: Path) -> list[dict]:
    with (run_dir / "eval.csv").open() as file:
        return list(csv.DictReader(file))


def config_of(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("config.json"))


def test_tiny_run_trains_evaluates_checkpoints_resumes_and_plays(tmp_path):
    # uninterrupted: 2048 moves; interrupted: 1024 moves (its last checkpoint), then resumed to 2048
    whole = train(tiny_args(tmp_path / "whole", total_timesteps=2048))
    half = train(tiny_args(tmp_path / "parts"))
    assert config_of(half)["num_timesteps"] == 1024
    half_bytes, half_eval = half.read_bytes(), (tmp_path / "parts" / "eval.csv").read_bytes()
    with (tmp_path / "parts" / "eval.csv").open("a") as file:  # as if killed after evaluating past its checkpoint
        file.write("1536,9.9,random,4,4,0,0,1.0\n")
    resumed = train(tiny_args(tmp_path / "parts", resume=True, total_timesteps=2048))  # a longer run may resume
    assert resumed == tmp_path / "parts" / "checkpoints" / "last.zip"
    assert json.loads((tmp_path / "parts" / "config.json").read_text())["total_timesteps"] == 2048

    # the same schedule of evaluations, snapshots, updates and learning rate as the uninterrupted run
    rows_whole, rows_parts = read_rows(tmp_path / "whole"), read_rows(tmp_path / "parts")
    assert [(r["steps"], r["opponent"]) for r in rows_whole] == [(r["steps"], r["opponent"]) for r in rows_parts]
    assert {r["opponent"] for r in rows_whole} == {"random", "greedy"}
    assert all(int(r["games"]) == 4 and 0 <= float(r["win_rate"]) <= 1 for r in rows_whole)
    a, b = config_of(whole), config_of(resumed)
    assert a["num_timesteps"] == b["num_timesteps"] == 2048
    assert a["trainer"]["updates"] == b["trainer"]["updates"] == 16
    with open_checkpoint(whole) as x, open_checkpoint(resumed) as y:
        assert x.read("pool/index.json") == y.read("pool/index.json") == b"[1536, 1792, 2048]"
    assert len(list((tmp_path / "parts" / "checkpoints").glob("step_*.zip"))) == 2
    assert (tmp_path / "parts" / "tb").is_dir()

    # resuming is deterministic: the same checkpoint resumed twice gives the same network
    again = tmp_path / "again"
    (again / "checkpoints").mkdir(parents=True)
    half_copy = again / "checkpoints" / "last.zip"
    half_copy.write_bytes(half_bytes)
    (again / "eval.csv").write_bytes(half_eval)
    train(tiny_args(again, resume=True, total_timesteps=2048))
    net_a, net_b = PPOAgent.load(resumed).net, PPOAgent.load(half_copy).net
    for w, v in zip(net_a.weights, net_b.weights):
        np.testing.assert_array_equal(w, v)

    # the numpy policy of the checkpoint is exactly SB3's policy
    model = sb3_model(resumed)
    net = PolicyNet.from_sb3(model.policy, "tanh", "tactics")
    rng = np.random.default_rng(0)
    observations = rng.random((50, TACTICS_SIZE), dtype=np.float32)
    masks = rng.random((50, core.NUM_ACTIONS)) < 0.4
    masks[:, 0] = True
    expected, _ = model.predict(observations, action_masks=masks, deterministic=True)
    got = [net.relative_action(o, m, None) for o, m in zip(observations, masks)]
    assert got == expected.tolist()

    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(resumed.read_bytes()[:-100])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        PPOAgent.load(truncated)

    # the checkpoint plays a legal game as an agent from its spec string
    agent = agents.make(f"ppo:path={resumed}")
    opponent = agents.make("random", seed=0)
    state = State.initial()
    while not state.is_terminal:
        mover = agent if state.to_move == 0 else opponent
        state = state.play(mover.act(state))  # play() raises on an illegal move
    assert state.ply > 0


def test_a_new_run_refuses_an_existing_run_dir(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "last.zip").write_bytes(b"")
    with pytest.raises(FileExistsError, match="--resume"):
        train(tiny_args(tmp_path))


def test_bad_options_are_refused_before_training(tmp_path):
    with pytest.raises(ValueError, match="--n-envs"):
        train(tiny_args(tmp_path, n_envs=0))
    with pytest.raises(ValueError, match="activation"):
        train(tiny_args(tmp_path, activation="sigmoid"))
    with pytest.raises(ValueError, match="unknown agent"):
        train(tiny_args(tmp_path, eval_opponents=("nobody",)))
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        train(tiny_args(tmp_path / "missing", resume=True))
    assert not (tmp_path / "eval.csv").exists()


def test_cli_reports_errors_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        ppo_trainer.main(["--run-dir", str(tmp_path / "missing"), "--resume"])
    assert exit_info.value.code == 1  # a file that cannot be read (FileNotFoundError), as in the awale command
    err = capsys.readouterr().err
    assert err.startswith("error: no checkpoint") and err.count("\n") == 1


def test_loading_checks_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        PPOAgent.load(tmp_path / "missing.zip")
    with pytest.raises(CheckpointError, match="directory"):
        PPOAgent.load(tmp_path)
    text = tmp_path / "notes.zip"
    text.write_text("not a zip at all")
    with pytest.raises(CheckpointError, match="not a readable zip"):
        PPOAgent.load(text)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("data", "{}")
        archive.writestr("policy.pth", b"\0" * 10)
    with pytest.raises(CheckpointError, match="not a PPO checkpoint of awale_env"):
        PPOAgent.load(foreign)
    with pytest.raises(agents.AgentSpecError, match="needs a checkpoint"):
        agents.make("ppo")


@pytest.mark.skipif(not pretrained_path().exists(), reason="no shipped checkpoint")
def test_pretrained_checkpoint_truncated_is_refused_and_whole_beats_greedy(tmp_path):
    truncated = tmp_path / "truncated.zip"
    data = pretrained_path().read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        PPOAgent.load(truncated)
    agent = agents.make("ppo:pretrained")
    opponent = agents.make("greedy", seed=1)
    for seat in (0, 1):  # the shipped agent beat greedy 200-0 over the arena's 200 games
        state = State.initial()
        while not state.is_terminal:
            state = state.play((agent if state.to_move == seat else opponent).act(state))
        assert state.winner == seat


@pytest.mark.skipif(not pretrained_path().exists(), reason="no shipped checkpoint")
@pytest.mark.usefixtures("temporary_files_in_tmp_path")
def test_your_own_sb3_code_loads_evaluates_and_fine_tunes_the_shipped_policy_in_three_lines():
    import torch
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    model = sb3_model(pretrained_path(), n_steps=16, batch_size=64)  # 1. load: MaskablePPO on its envs, vs random
    mean_reward, _ = evaluate_policy(model, model.get_env(), n_eval_episodes=16)  # 2. evaluate: +1 a win, -1 a loss
    before = {key: value.clone() for key, value in model.policy.state_dict().items()}
    model.learn(256)  # 3. fine-tune

    assert mean_reward > 0.8  # the shipped policy beat random in 200 games of 200
    assert model.num_timesteps >= 256
    assert any(not torch.equal(before[key], value) for key, value in model.policy.state_dict().items())
    with pytest.raises(ValueError, match="sb3_model cannot change net_arch; it may change learning_rate, "):
        sb3_model(pretrained_path(), net_arch=(8,))
    shapes = r"the env's observations have shape \(15,\), the policy .* sees \(99,\) \(awale16, features='tactics'\)"
    with pytest.raises(ValueError, match=shapes):
        sb3_model(pretrained_path(), env=AwaleEnv(game="oware"))


@pytest.mark.parametrize("game", ["oware", "hawalis", "kalah"])
def test_tiny_run_on_another_game_records_it_and_plays_it(tmp_path, game):
    spec = get_game(game)
    view = LearnerView(AwaleEnv(game=game, learner_seat=1, opponent="random"), shaping=1.0)
    obs, _ = view.reset(seed=0)
    assert obs.shape == (spec.obs_size,) and view.action_space.n == spec.num_actions
    np.testing.assert_array_equal(view.action_masks(), view.env.game.legal_mask())  # actions are the mover's already
    path = train(
        tiny_args(tmp_path, game=game, total_timesteps=256, eval_every=256, checkpoint_every=256, eval_games=2)
    )
    saved = config_of(path)["args"]
    assert (saved["game"], saved["features"], saved["max_plies"]) == (game, "tactics", spec.default_max_plies)
    agent = agents.make(f"ppo:path={path}", seed=0)
    assert agent.game is spec and agent.net.weights[-1].shape[1] == spec.num_actions
    assert agent.net.weights[0].shape[0] == spec.obs_size + 2 * spec.num_actions
    state, opponent = spec.initial(seed=0), agents.make("random", seed=0)
    while not state.is_terminal:
        state = state.play((agent if state.to_move == 0 else opponent).act(state))  # play() raises on an illegal move
    with pytest.raises(ValueError, match=f"plays {game} only, not 'awale16'"):
        agent.act(State.initial())


def test_tactics_need_the_games_search_kernels():
    without_search = dataclasses.replace(get_game("oware"), package=None)  # a game with no compiled parts
    assert input_size(without_search, "board") == without_search.obs_size
    with pytest.raises(ValueError, match="compiled search kernels, which oware lacks; a oware policy sees 'board'"):
        input_size(without_search, "tactics")


def test_checkpoints_of_the_default_game_stay_its_own(tmp_path):
    with pytest.raises(ValueError, match=f"--game must be one of {', '.join(GAMES)}"):
        train(tiny_args(tmp_path, game="chess"))
    pretrained = agents.make("ppo:pretrained")
    assert pretrained.game is get_game("awale16")  # a weights file without a game is the default game's
    assert pretrained.games == ("awale16",)  # the games a policy is shipped for (ppo_<game>.zip)
    message = "agent 'ppo:pretrained' plays awale16 only, not 'oware': no PPO policy is shipped for it"
    with pytest.raises(ValueError, match=message):
        pretrained.act(get_game("oware").initial())


# --- the run directory ---------------------------------------------------------------------------------------------


def test_a_resume_takes_the_options_it_may_change_refuses_the_others_and_logs_plain_lines(tmp_path, capsys):
    run = tmp_path / "run"
    train(tiny_args(run))  # 1024 moves, no progress shown
    capsys.readouterr()
    resume = ["--run-dir", str(run), "--resume"]
    with pytest.raises(SystemExit) as stop:
        ppo_trainer.main([*resume, "--n-envs", "4"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --n-envs cannot change when resuming") and err.count("\n") == 1
    assert "a resume may change only --total-timesteps, " in err
    ppo_trainer.main([*resume, "--total-timesteps", "1536", "--progress"])
    saved = json.loads((run / "config.json").read_text())
    assert saved["total_timesteps"] == 1536 and saved["progress"] is True  # what the resume changed
    assert saved["n_envs"] == 2 and saved["net_arch"] == [16]  # the rest is the run's, not the command line's defaults
    assert config_of(run / "checkpoints" / "last.zip")["num_timesteps"] == 1536
    err = capsys.readouterr().err  # stderr is no terminal here: progress as plain lines
    assert "\r" not in err
    last = err.splitlines()[-1]
    assert last.startswith("ppo: 1,536/1,536 moves (100%), ") and "; win rates at 1,536 moves: random=" in last


def test_ctrl_c_stops_a_run_with_one_line_saying_how_to_resume(tmp_path):
    run = tmp_path / "run"
    options = ["--run-dir", str(run), "--total-timesteps", "100000000", "--n-envs", "2", "--n-steps", "64",
               "--batch-size", "64", "--net-arch", "16", "--eval-opponents", "random", "--eval-games", "2",
               "--eval-every", "100000000", "--checkpoint-every", "128", "--no-progress"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "training.ppo.trainer", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not (run / "checkpoints" / "last.zip").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert err == f"stopped; resume with: awale train ppo --run-dir {run} --resume\n"


def test_an_mlp_policy_plays_in_a_process_without_torch(tmp_path):
    """agents/ppo's MLP player needs numpy alone: a checkpoint's config.json and policy.npz play in a process where
    importing torch, SB3 or sb3-contrib fails."""
    game = get_game("awale16")
    rng = np.random.default_rng(0)
    sizes = [input_size(game, "board"), 16, game.num_actions]
    weights = [rng.normal(size=shape).astype(np.float32) for shape in zip(sizes, sizes[1:])]
    net = PolicyNet(weights, [np.zeros(size, np.float32) for size in sizes[1:]], "tanh", "board", game)
    args = {"game": game.name, "features": "board", "net_arch": [16], "activation": "tanh"}
    path = tmp_path / "mlp.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", json.dumps({"format": CHECKPOINT_FORMAT, "args": args}))
        archive.writestr("policy.npz", net.to_npz())
    script = (
        "import sys\n"
        "for name in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "    sys.modules[name] = None  # importing it fails\n"
        "from agents import make\n"
        "from awale_env.games import get_game\n"
        "game = get_game('awale16')\n"
        "print(game.format_move(make(f'ppo:path={sys.argv[1]}').act(game.initial())))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert game.parse_move(done.stdout.strip()) == PPOAgent.load(path).act(game.initial())
