"""``awale train ppo --network ring``: PPO on the AlphaZero agent's network, from random weights or from an AlphaZero
network (``--init-from alphazero:...``), its file, its play and what it refuses."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from random_positions import random_states  # noqa: E402
from ring_runs import ring_args, run_and_resume  # noqa: E402

import agents  # noqa: E402
from agents.alphazero.agent import pretrained_path as alphazero_path  # noqa: E402
from agents.alphazero.network import build_network, load_network  # noqa: E402
from agents.ppo import PPOAgent, pretrained_path  # noqa: E402
from agents.ppo.checkpoint import member_caps, policy_from_npz, read_training_checkpoint  # noqa: E402
from agents.ppo.policy import observe  # noqa: E402
from agents.ppo.ring import RingPolicyNet  # noqa: E402
from agents.ppo.ring_play import RingPlayer  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import get_game  # noqa: E402
from training.ppo.trainer import main, train  # noqa: E402


@pytest.fixture(scope="module")
def from_alphazero(tmp_path_factory):
    """A tiny run started from the shipped AlphaZero network, resumed once."""
    return run_and_resume(tmp_path_factory.mktemp("ring") / "run", init_from="alphazero:pretrained", seed=3)


def test_move_0_plays_the_alphazero_networks_prior_then_it_trains_on(from_alphazero):
    first = PPOAgent.load(from_alphazero / "checkpoints" / "step_000000000.zip")
    last = PPOAgent.load(from_alphazero / "checkpoints" / "last.zip")
    assert isinstance(first.net, RingPlayer) and isinstance(last.net, RingPlayer)  # read from a file: numpy's
    source = load_network(alphazero_path("awale16"))
    states = random_states("awale16", 12, seed=0)
    observations = np.stack([s.observation_tensor(s.to_move) for s in states])
    with torch.no_grad():
        prior = source(torch.from_numpy(observations))[0].numpy()
    np.testing.assert_allclose(first.net.logits(observations), prior, atol=1e-4)
    for name, tensor in source.state_dict().items():  # the saved network is an AlphaZero network: the same tensors
        assert np.array_equal(first.net.arrays[f"state.{name}"], tensor.numpy()), name
    assert not np.allclose(last.net.logits(observations), prior, atol=1e-4)  # PPO changed it
    for state in states:  # the agent plays the network's best legal move, in the game's own numbering
        legal = state.legal_actions()
        shift = get_game("awale16").action_shift(state.to_move)
        best = max(legal, key=lambda a: prior[states.index(state), (a - shift) % len(state.legal_mask())])
        assert first.act(state) == best


def test_a_resume_goes_on_with_ring_snapshots_in_the_pool(from_alphazero):
    checkpoint = read_training_checkpoint(from_alphazero / "checkpoints" / "last.zip")
    assert checkpoint.num_timesteps == 512 and checkpoint.args["network"] == "ring"
    assert checkpoint.pool and all(isinstance(net, RingPlayer) for _, net in checkpoint.pool)
    # the played network is the trained one: the SB3 policy's tensors under mlp_extractor.net
    played = PPOAgent.load(checkpoint.path).net.arrays
    names = [name.removeprefix("state.") for name in played if name.startswith("state.")]
    assert names and len(names) == sum(key.startswith("mlp_extractor.net.") for key in checkpoint.policy)
    for name in names:
        assert np.array_equal(checkpoint.policy[f"mlp_extractor.net.{name}"].numpy(), played[f"state.{name}"]), name


def with_old_names(args: dict) -> dict:
    """A run's options as they were saved before the ring network took AlphaZero's option names."""
    old = {"ring_channels" if k == "channels" else "ring_blocks" if k == "blocks" else k: v for k, v in args.items()}
    old.pop("value_hidden", None)  # last.zip may be a link to a step_*.zip: already rewritten
    return old


def test_a_run_saved_under_the_old_ring_option_names_resumes(tmp_path):
    """A run written when the ring network's shape was --ring-channels/--ring-blocks (its config.json and checkpoints
    saying so, no value head option: 64 units) resumes from the command line, and its checkpoints read under today's
    names."""
    run = tmp_path / "old"
    train(ring_args(run, channels=8, blocks=1, seed=5))
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps(with_old_names(config)))
    for path in (run / "checkpoints").glob("*.zip"):
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        saved = json.loads(members["config.json"])
        members["config.json"] = json.dumps({**saved, "args": with_old_names(saved["args"])}).encode()
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    old = read_training_checkpoint(run / "checkpoints" / "last.zip").args
    assert (old["channels"], old["blocks"], old["value_hidden"]) == (8, 1, 64) and "ring_channels" not in old
    main(["--run-dir", str(run), "--resume", "--total-timesteps", "512", "--no-progress"])
    assert read_training_checkpoint(run / "checkpoints" / "last.zip").num_timesteps == 512
    saved = json.loads((run / "config.json").read_text())  # saved again, under today's names
    assert (saved["channels"], saved["blocks"], saved["value_hidden"]) == (8, 1, 64) and "ring_channels" not in saved
    assert PPOAgent.load(run / "checkpoints" / "last.zip").net.config.channels == 8


def test_the_shipped_ring_policy_reads_under_todays_names():
    args = read_training_checkpoint(pretrained_path("awale16")).args
    assert args["network"] == "ring" and (args["channels"], args["blocks"], args["value_hidden"]) == (64, 4, 64)


def test_a_ring_run_from_random_weights_on_another_game_plays_it(tmp_path):
    final = train(ring_args(tmp_path / "run", game="oware", channels=8, blocks=1, value_hidden=8, seed=4))
    agent = PPOAgent.load(final)
    assert agent.game.name == "oware" and (agent.net.config.channels, agent.net.config.value_hidden) == (8, 8)
    state, other = get_game("oware").initial(seed=1), agents.make("random", seed=1)
    while not state.is_terminal:  # a whole game, from both seats' moves
        player = agent if state.to_move == 0 else other
        move = player.act(state)
        assert move in state.legal_actions()
        state = state.play(move)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (dict(features="pixels"), "--features: features must be one of board, tactics"),
        (dict(network="cnn"), "--network must be one of mlp, ring"),
        (dict(network="mlp", init_from="alphazero:pretrained"), "needs --network ring"),
        (dict(init_from="alphazero:pretrained", channels=32), r"64 channels x 4 blocks .*--channels 32 --blocks 4"),
        (dict(init_from="alphazero:pretrained,simulations=3"), "alphazero:pretrained .* or alphazero:path=FILE.pt"),
        (dict(teacher_games=4), "--teacher-games from random weights clones into the MLP"),
        (dict(blocks=0), "--blocks must be a positive integer"),
        (dict(value_hidden=5000), "--value-hidden must be at most 4,096"),
    ],
)
def test_bad_ring_options_are_refused_before_anything_is_written(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        train(ring_args(tmp_path / "run", **changes))
    assert not (tmp_path / "run").exists()


def test_a_missing_alphazero_file_is_refused_naming_it(tmp_path):
    with pytest.raises(CheckpointError, match="missing.pt"):
        train(ring_args(tmp_path / "run", init_from=f"alphazero:path={tmp_path / 'missing.pt'}"))


def crafted(policy: bytes, change) -> bytes:
    with np.load(io.BytesIO(policy), allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.update(kind=np.array("transformer")), "policy kind 'transformer' is not one of this toolkit"),
        (lambda a: a.update(extra=np.zeros(3)), "array 'extra' is not part of a ring policy"),
        (lambda a: a.pop("channels"), "array 'channels' is missing"),
        (lambda a: a.update(channels=np.array(5000)), "shape is not one this toolkit builds"),
        (lambda a: a.update({"state.stem.weight": np.zeros((3, 3, 3), np.float32)}), "stem.weight"),
        (lambda a: a.update({"state.stem.weight": np.full_like(a["state.stem.weight"], np.nan)}), "stem.weight"),
        (lambda a: a.pop("state.trunk.0.conv1.weight"), "trunk.0.conv1.weight"),
        (lambda a: a.update(features=np.array("pixels")), "sees 'board' or 'tactics', not 'pixels'"),
        (lambda a: a.update(features=np.array("tactics")), "stem.weight"),  # a board network's tensors
    ],
)
def test_a_crafted_ring_policy_is_refused_naming_what_is_wrong(from_alphazero, change, message):
    with zipfile.ZipFile(from_alphazero / "checkpoints" / "last.zip") as archive:
        policy = archive.read("policy.npz")
    assert isinstance(policy_from_npz(policy, "policy.npz"), RingPlayer)
    with pytest.raises(CheckpointError, match=message):
        policy_from_npz(crafted(policy, change), "policy.npz")


def test_the_size_caps_of_a_ring_checkpoint_hold_its_members_and_little_more(from_alphazero):
    path = from_alphazero / "checkpoints" / "last.zip"
    checkpoint = read_training_checkpoint(path)
    caps = member_caps(checkpoint.config)
    with zipfile.ZipFile(path) as archive:
        sizes = {info.filename: info.file_size for info in archive.infolist()}
    assert sizes["policy.npz"] <= caps["npz"][0] < 2 * sizes["policy.npz"] + (1 << 20)
    assert sizes["policy.pth"] <= caps["policy.pth"][0]
    assert sizes["policy.optimizer.pth"] <= caps["policy.optimizer.pth"][0]


def test_a_ring_policy_read_from_its_file_plays_with_numpy_as_torch_computes_it():
    """The shipped policy (a ring network that sees the tactical features) gives torch's logits to float rounding,
    and writes back the file member it was read from."""
    member = zipfile.ZipFile(pretrained_path("awale16")).read("policy.npz")
    played = policy_from_npz(member, "policy.npz")
    net = build_network(played.config)
    net.load_state_dict(
        {k.removeprefix("state."): torch.from_numpy(a) for k, a in played.arrays.items() if k.startswith("state.")}
    )
    trained = RingPolicyNet(net)  # the network as training holds it, in torch
    assert isinstance(played, RingPlayer) and played.features == trained.features == "tactics"
    observations = np.stack([observe(s, s.to_move, "tactics") for s in random_states("awale16", 24, seed=4)])
    np.testing.assert_allclose(played.logits(observations), trained.logits(observations), rtol=1e-5, atol=1e-4)
    again = dict(np.load(io.BytesIO(played.to_npz())))
    original = dict(np.load(io.BytesIO(member)))
    assert again.keys() == original.keys() and all(np.array_equal(again[k], original[k]) for k in original)


def test_a_fresh_process_plays_the_shipped_policy_without_torch():
    script = (
        "import sys\n"
        "sys.modules['torch'] = None  # importing torch fails\n"
        "from agents import make\n"
        "from awale_env.games import get_game\n"
        "game = get_game('awale16')\n"
        "print(game.format_move(make('ppo:pretrained').act(game.initial())))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    get_game("awale16").parse_move(done.stdout.strip())
