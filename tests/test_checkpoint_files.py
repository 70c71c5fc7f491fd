"""Crafted checkpoint files: each fails with a CheckpointError naming the file and what is wrong, runs no code from
the file, allocates nothing the file's tensors do not fill, and gives one error line in the CLI."""

from __future__ import annotations

import io
import json
import pickle
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cli_runner import awale  # noqa: E402
from robustness.malicious import CreatesFile, replace_member, torch_file_running_code  # noqa: E402

import agents.ppo  # noqa: E402
from agents import AgentSpecError, make  # noqa: E402
from agents.alphazero.architecture import NETWORK_LIMITS  # noqa: E402
from agents.alphazero.network import (  # noqa: E402
    CHECKPOINT_FORMAT,
    NetworkConfig,
    RingNet,
    load_network,
    save_checkpoint,
)
from agents.checkpoint import load_tensors  # noqa: E402
from agents.ppo import PPOAgent, pretrained_path, sb3_model  # noqa: E402
from agents.ppo.checkpoint import read_training_checkpoint  # noqa: E402
from agents.ppo.policy import PolicyNet, input_size  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import get_game  # noqa: E402
from training.baselines import ppo_checkpoints  # noqa: E402
from training.ppo.checkpoints import saved_options  # noqa: E402

TINY = NetworkConfig(channels=8, blocks=2, value_hidden=8)
PRETRAINED_ALPHAZERO = sorted((Path(__file__).parents[1] / "agents" / "alphazero" / "pretrained").glob("*.pt"))
PRETRAINED_PPO = sorted((Path(__file__).parents[1] / "agents" / "ppo" / "pretrained").glob("ppo_*.zip"))


def raw_pickle_running_code(path: Path, marker: Path, protocol: int) -> Path:
    """A plain pickle (not a torch.save zip) of an object whose unpickling creates ``marker``."""
    path.write_bytes(pickle.dumps(CreatesFile(marker), protocol=protocol))
    return path


# --- torch files: not one at all, or one holding other objects ----------------------------------------------------


@pytest.mark.parametrize("content", [b"garbage", b"", b"hello world, not a checkpoint"])
def test_a_file_that_is_no_torch_file_says_so(tmp_path, content):
    path = tmp_path / "c.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=r"c\.pt' is not a readable torch file, not a checkpoint at all") as error:
        load_network(path)
    assert "other than tensors" not in str(error.value)
    assert "zip header" in str(error.value)


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_raw_pickle_is_refused_without_running_its_code_or_warning(tmp_path, recwarn, protocol):
    marker = tmp_path / "code-ran"
    path = raw_pickle_running_code(tmp_path / "evil.pt", marker, protocol)
    with pytest.raises(CheckpointError, match=r"evil\.pt'.* holds serialized Python objects other than tensors"):
        load_network(path)
    assert not marker.exists(), "loading the checkpoint ran its code"
    assert not [w for w in recwarn if "torch" in str(w.filename)], [str(w.message) for w in recwarn]


def test_a_torch_file_holding_an_object_names_what_it_would_build(tmp_path):
    marker = tmp_path / "code-ran"
    path = torch_file_running_code(tmp_path / "net.pt", marker)
    with pytest.raises(CheckpointError, match=r"holds serialized Python objects other than tensors.*GLOBAL"):
        load_tensors(path, "net.pt")
    assert not marker.exists()


def test_a_directory_is_not_a_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="is a directory; an AlphaZero checkpoint is a .pt file"):
        load_network(tmp_path)


# --- the network a file describes is checked against its tensors before it is built -------------------------------


def checkpoint_of(path: Path, network: dict, state_dict: dict) -> Path:
    torch.save({"format": CHECKPOINT_FORMAT, "network": network, "state_dict": state_dict}, path)
    return path


@pytest.mark.parametrize("field", ["channels", "blocks", "value_hidden"])
def test_a_config_beyond_the_limits_is_refused(tmp_path, field):
    path = checkpoint_of(tmp_path / "huge.pt", {field: NETWORK_LIMITS[field] + 1}, {})
    with pytest.raises(CheckpointError, match=rf"NetworkConfig.{field} must be at most {NETWORK_LIMITS[field]:,}"):
        load_network(path)
    with pytest.raises(ValueError, match=f"at most {NETWORK_LIMITS[field]:,}, got {NETWORK_LIMITS[field] + 1}"):
        NetworkConfig(**{field: NETWORK_LIMITS[field] + 1})
    with pytest.raises(ValueError, match=f"NetworkConfig.{field} must be an integer from 1 to {NETWORK_LIMITS[field]}"):
        NetworkConfig(**{field: "8"})


def test_a_large_config_with_no_tensors_fails_before_building_the_network(tmp_path):
    """The largest config allowed (a 1.6 GB network) with an empty state dict: refused, with no memory spent."""
    path = checkpoint_of(tmp_path / "big.pt", dict(NETWORK_LIMITS), {})
    script = (
        "import resource, torch\n"
        "from agents.alphazero.network import load_network\n"
        "from awale_env.errors import CheckpointError\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        f"    load_network({str(path)!r})\n"
        "except CheckpointError as error:\n"
        "    print(error)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message, grown_kb = done.stdout.strip().splitlines()
    assert "does not match the AlphaZero network it describes" in message
    assert "tensor 'stem.weight' (a torch.float32 tensor of shape (1024, " in message and "is missing" in message
    assert int(grown_kb) < 100 * 1024, f"loading grew the process by {int(grown_kb) // 1024} MB"


def tiny_state(tmp_path: Path) -> dict:
    save_checkpoint(tmp_path / "tiny.pt", RingNet(TINY))
    return torch.load(tmp_path / "tiny.pt", weights_only=True)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda s: s.__setitem__("trunk.1.conv2.weight", torch.zeros(8, 8, 5)), "'trunk.1.conv2.weight' should be a"),
        (lambda s: s.pop("value_fc1.bias"), "'value_fc1.bias' (a torch.float32 tensor of shape (8,)) is missing"),
        (lambda s: s.__setitem__("extra.weight", torch.zeros(1)), "'extra.weight' is not one of its tensors"),
        (lambda s: s["stem_bn.running_var"].fill_(float("nan")), "'stem_bn.running_var' holds non-finite values"),
        (lambda s: s.__setitem__("stem.weight", s["stem.weight"].long()), "'stem.weight' should be a torch.float32"),
        (lambda s: s.__setitem__("policy_conv.bias", [0.0, 0.0]), "'policy_conv.bias' should be a torch.float32"),
    ],
)
def test_a_state_dict_not_matching_its_config_names_the_tensor(tmp_path, damage, message):
    payload = tiny_state(tmp_path)
    damage(payload["state_dict"])
    torch.save(payload, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match=r"bad\.pt' does not match the AlphaZero network") as error:
        load_network(tmp_path / "bad.pt")
    assert message in str(error.value)


@pytest.mark.parametrize("path", PRETRAINED_ALPHAZERO, ids=lambda p: p.name)
def test_the_shipped_alphazero_networks_load(path):
    net = load_network(path)
    logits, value = net(torch.zeros(1, get_game(net.config.game).obs_size))
    assert logits.shape == (1, net.num_actions) and torch.isfinite(value).all()


# --- PPO policies: every array checked ------------------------------------------------------------------------------


def mlp_policy(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """A checkpoint of an MLP policy (tactics features, two hidden layers of 16; random weights) and its arrays: the
    shipped policy's config.json with those options, and the members an agent reads."""
    with zipfile.ZipFile(pretrained_path()) as archive:
        config = json.loads(archive.read("config.json"))
    config["args"] |= {"network": "mlp", "features": "tactics", "net_arch": [16, 16], "activation": "tanh"}
    sizes = [input_size(get_game("awale16"), "tactics"), 16, 16, get_game("awale16").num_actions]
    rng = np.random.default_rng(0)
    weights = [rng.normal(0, 0.1, (n, m)).astype(np.float32) for n, m in zip(sizes, sizes[1:])]
    net = PolicyNet(weights, [np.zeros(m, np.float32) for m in sizes[1:]], "tanh", "tactics")
    path, npz_data = tmp_path / "mlp.zip", net.to_npz()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("policy.npz", npz_data)
    with np.load(io.BytesIO(npz_data)) as npz:
        return path, {name: npz[name] for name in npz.files}


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def widen_rows(arrays: dict[str, np.ndarray]) -> None:
    arrays["w1"] = np.zeros((arrays["w1"].shape[0] + 3, arrays["w1"].shape[1]), np.float32)


PPO_DAMAGE = {
    "a middle layer with wrong rows": (widen_rows, "array 'w1' has shape"),
    "a 1-D first layer": (lambda a: a.__setitem__("w0", a["w0"][:, 0].copy()), "array 'w0' has shape"),
    "a short bias": (lambda a: a.__setitem__("b0", a["b0"][:-1].copy()), "array 'b0' has"),
    "a 2-D bias": (lambda a: a.__setitem__("b1", a["b1"][None]), "array 'b1' has shape"),
    "integer weights": (lambda a: a.__setitem__("w1", a["w1"].astype(np.int32)), "array 'w1' holds int32"),
    "a NaN": (lambda a: a["w0"].__setitem__((0, 0), np.nan), "array 'w0' holds non-finite values"),
    "an infinity": (lambda a: a["b1"].__setitem__(0, np.inf), "array 'b1' holds non-finite values"),
    "a missing bias": (lambda a: a.pop("b1"), "array 'b1' is missing"),
    "an extra array": (lambda a: a.__setitem__("x", np.zeros(2)), "array 'x' is not part of a policy"),
}


@pytest.mark.parametrize("kind", PPO_DAMAGE)
def test_a_damaged_ppo_policy_names_its_member_and_array(tmp_path, kind):
    path, arrays = mlp_policy(tmp_path)
    PPOAgent.load(path)  # whole, it loads
    damage, message = PPO_DAMAGE[kind]
    damage(arrays)
    bad = replace_member(path, tmp_path / "bad.zip", "policy.npz", npz_bytes(arrays))
    with pytest.raises(CheckpointError, match=r"bad\.zip: policy\.npz: ") as error:
        PPOAgent.load(bad)
    assert message in str(error.value)


def test_the_policy_arrays_round_trip(tmp_path):
    _, arrays = mlp_policy(tmp_path)
    net = PolicyNet.from_npz(npz_bytes(arrays))
    assert PolicyNet.from_npz(net.to_npz()).weights[1].shape == arrays["w1"].shape


@pytest.mark.parametrize("args", ["nope", None, [1], "missing"], ids=["a string", "null", "a list", "missing"])
def test_a_ppo_config_whose_args_is_no_object_is_refused_alike_by_every_reader(tmp_path, args):
    """A config.json whose ``args`` (the run's options) is not an object: every reader of a PPO checkpoint's
    configuration (the agent, training from it, sb3_model, a resume, the learning curves) raises the same
    CheckpointError naming the file and what args must be, where the agent, --init-from and a resume raised
    AttributeError; each command prints it in one line and leaves the run directory as it was."""
    with zipfile.ZipFile(pretrained_path()) as archive:
        config = json.loads(archive.read("config.json"))
    if args == "missing":
        del config["args"]
    else:
        config["args"] = args
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    path = replace_member(pretrained_path(), run / "checkpoints" / "step_000000512.zip", "config.json",
                          json.dumps(config).encode())  # fmt: skip
    found = "none" if args == "missing" else repr(args)
    message = (
        f"{path}: config.json lacks or mangles args: it must be an object of the run's options (game, features, ...), "
        f"got {found}"
    )
    readers = {
        "the agent": lambda: PPOAgent.load(path),
        "training from it": lambda: read_training_checkpoint(path),
        "sb3_model": lambda: sb3_model(path),
        "a resume of a directory holding only the checkpoint": lambda: saved_options(run),
        "the learning curves": lambda: ppo_checkpoints(run),
    }
    for reader, read in readers.items():
        with pytest.raises(CheckpointError) as error:
            read()
        assert str(error.value) == message, reader
    with pytest.raises(AgentSpecError) as error:
        make(f"ppo:path={path}")
    assert str(error.value) == f"bad agent spec 'ppo:path={path}': {message}"
    commands = [
        ["play", "--opponent", f"ppo:path={path}"],
        ["train", "ppo", "--run-dir", str(tmp_path / "new"), "--init-from", str(path), "--no-progress"],
        ["train", "ppo", "--run-dir", str(run), "--resume", "--no-progress"],
    ]
    for command in commands:
        done = awale(*command)
        assert done.exit_code == 2, done.output
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
        assert done.stderr.endswith(f"{message}\n"), done.stderr
    assert not (tmp_path / "new").exists()
    assert sorted(run.rglob("*")) == [run / "checkpoints", path]


@pytest.mark.parametrize("network", ["x", 3, ["ring"], None])
def test_a_ppo_config_naming_no_network_kind_is_refused_naming_it(tmp_path, network):
    """``args.network`` must name a kind of network: another value was refused, but by a size check of the policy
    file computed for no network (a message about a zip bomb)."""
    with zipfile.ZipFile(pretrained_path()) as archive:
        config = json.loads(archive.read("config.json"))
    config["args"]["network"] = network
    path = replace_member(pretrained_path(), tmp_path / "bad.zip", "config.json", json.dumps(config).encode())
    with pytest.raises(CheckpointError) as error:
        PPOAgent.load(path)
    assert str(error.value) == f"{path}: config.json's args.network is {network!r}, not one of mlp, ring"


def shipped_ppo_config() -> dict:
    with zipfile.ZipFile(pretrained_path()) as archive:
        return json.loads(archive.read("config.json"))


#: What the messages say of an option of config.json that is wrong, and of one that differs from policy.npz.
ARG, DIFFER = "config.json's args.", "config.json and policy.npz declare different policies: "
PPO_BAD_ARGS = {
    "an unknown game": ({"game": "nope"}, f"{ARG}game is 'nope', not one of awale16, "),
    "a game as a number": ({"game": 16}, f"{ARG}game is 16, not one of awale16, "),
    "features as a list": ({"features": ["board"]}, f"{ARG}features is ['board'], not one of board, tactics"),
    "unknown features": ({"features": "x"}, f"{ARG}features is 'x', not one of board, tactics"),
    "channels as text": ({"ring_channels": "64"}, f"{ARG}ring_channels must be an integer from 1 to 1024, got '64'"),
    "channels as a bool": ({"ring_channels": True}, f"{ARG}ring_channels must be an integer"),
    "no blocks": ({"ring_blocks": None}, f"{ARG}ring_blocks must be an integer"),
    "another game than the policy's": ({"game": "kalah"}, f"{DIFFER}game 'kalah' in config.json, 'awale16' in"),
    "other features": ({"features": "board"}, f"{DIFFER}features 'board' in config.json, 'tactics' in policy.npz"),
    "more channels": ({"ring_channels": 96}, f"{DIFFER}channels 96 in config.json, 64 in policy.npz"),
    "an MLP for a ring network": (
        {"network": "mlp", "net_arch": [4096, 4096]},  # room for the ring network's arrays: no size check refuses it
        f"{DIFFER}network 'mlp' in config.json, 'ring' in policy.npz",
    ),
}


@pytest.mark.parametrize("kind", PPO_BAD_ARGS)
def test_a_ppo_config_declaring_another_policy_than_it_holds_is_refused_naming_it(tmp_path, kind):
    """The agent plays policy.npz: a config.json whose game, features or network shape are of no policy, or not of the
    one policy.npz holds, played all the same. Now refused, naming the file, the option and what it allows."""
    change, message = PPO_BAD_ARGS[kind]
    config = shipped_ppo_config()
    config["args"] |= change
    path = replace_member(pretrained_path(), tmp_path / "bad.zip", "config.json", json.dumps(config).encode())
    with pytest.raises(CheckpointError) as error:
        PPOAgent.load(path)
    assert str(error.value).startswith(f"{path}: {message}")
    done = awale("play", "--opponent", f"ppo:path={path}")
    assert done.exit_code == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_an_mlp_config_of_another_shape_than_its_policy_is_refused(tmp_path):
    path, _ = mlp_policy(tmp_path)
    with zipfile.ZipFile(path) as archive:
        config, npz_data = json.loads(archive.read("config.json")), archive.read("policy.npz")
    for change, message in [
        ({"net_arch": [16]}, "net_arch [16] in config.json, [16, 16] in policy.npz"),
        ({"activation": "relu"}, "activation 'relu' in config.json, 'tanh' in policy.npz"),
        ({"net_arch": "16"}, "config.json's args.net_arch is '16', not a list of 1 to 16 widths of 1 to 4096"),
        ({"activation": None}, "config.json's args.activation is None, not one of tanh, relu"),
    ]:
        bad = tmp_path / "bad.zip"
        with zipfile.ZipFile(bad, "w") as archive:
            archive.writestr("config.json", json.dumps({**config, "args": config["args"] | change}))
            archive.writestr("policy.npz", npz_data)
        with pytest.raises(CheckpointError, match=re.escape(message)):
            PPOAgent.load(bad)


def test_a_shipped_ppo_policy_of_another_game_is_refused_naming_both(tmp_path, monkeypatch):
    """``ppo:pretrained`` loads the file shipped for the game it meets: one holding another game's policy is refused,
    naming the file and both games."""
    agent = PPOAgent(pretrained=True)  # plays the default game's policy
    shutil.copy(pretrained_path(), tmp_path / "ppo_kalah.zip")
    monkeypatch.setattr(agents.ppo, "PRETRAINED_DIR", tmp_path)
    with pytest.raises(CheckpointError) as error:
        agent.act(get_game("kalah").initial())
    message = f"{tmp_path / 'ppo_kalah.zip'} is a checkpoint of awale16, not of kalah, the game it is loaded to play"
    assert str(error.value) == message


@pytest.mark.parametrize("path", PRETRAINED_PPO, ids=lambda p: p.name)
def test_the_shipped_ppo_policies_load(path):
    agent = PPOAgent.load(path)
    state = agent.game.initial()
    assert state.is_legal(agent.act(state))


# --- the CLI: one line, exit code 2 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["garbage", "pickle"])
def test_the_arena_gives_one_error_line_for_a_bad_torch_file(tmp_path, kind, recwarn):
    marker = tmp_path / "code-ran"
    path = tmp_path / "c.pt"
    if kind == "garbage":
        path.write_bytes(b"garbage")
    else:
        raw_pickle_running_code(path, marker, protocol=4)  # torch warns about protocol 4 before refusing
    done = awale("arena", "--agents", f"alphazero:path={path}", "random", "--games", "2", "--no-progress")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith("error: bad agent spec") and done.stderr.count("\n") == 1, done.stderr
    assert ("not a checkpoint at all" if kind == "garbage" else "other than tensors") in done.stderr
    assert not marker.exists()
    assert not recwarn.list, [str(warning.message) for warning in recwarn]  # nothing but the line reaches the user
