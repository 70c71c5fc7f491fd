"""AlphaZero played without torch: checkpoints read by :mod:`agents.torch_file` give what ``torch.load`` gives and
refuse what it refuses, without running code; :class:`~agents.alphazero.inference.NumpyNet` computes the torch
network's outputs (the recorded tolerance) and the agent's searches choose the same moves; a fresh process plays
without ever importing torch."""

from __future__ import annotations

import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

import random_positions  # noqa: E402
from robustness.malicious import CreatesFile, torch_file_running_code  # noqa: E402

from agents.alphazero import network  # noqa: E402
from agents.alphazero.agent import PRETRAINED_DIR, AlphaZeroAgent  # noqa: E402
from agents.alphazero.architecture import NetworkConfig, state_shapes  # noqa: E402
from agents.alphazero.folded import FoldedNet  # noqa: E402
from agents.alphazero.inference import NumpyNet, load_player  # noqa: E402
from agents.alphazero.network import RingNet, save_checkpoint  # noqa: E402
from agents.torch_file import load_tensor_arrays  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import GAMES  # noqa: E402

#: The tolerance of the recorded outputs (tests/test_alphazero.py): float32 sums in another order.
OUTPUTS_TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}
SHIPPED = sorted(PRETRAINED_DIR.glob("*.pt"))


def same(numpy_side, torch_side) -> None:
    """``numpy_side`` (read without torch) holds what ``torch_side`` (``torch.load``) holds, tensors as arrays."""
    if isinstance(torch_side, torch.Tensor):
        expected = torch_side.detach().numpy()
        assert isinstance(numpy_side, np.ndarray) and numpy_side.dtype == expected.dtype
        np.testing.assert_array_equal(numpy_side, expected)
    elif isinstance(torch_side, dict):
        assert isinstance(numpy_side, dict) and list(numpy_side) == list(torch_side)
        for key in torch_side:
            same(numpy_side[key], torch_side[key])
    elif isinstance(torch_side, (list, tuple)):
        assert type(numpy_side) is type(torch_side) and len(numpy_side) == len(torch_side)
        for a, b in zip(numpy_side, torch_side):
            same(a, b)
    else:
        assert numpy_side == torch_side and type(numpy_side) is type(torch_side)


def observations(game: str, count: int, seed: int) -> np.ndarray:
    return np.stack([s.observation_tensor() for s in random_positions.random_states(game, count, seed, (0, 60))])


# --- reading torch files without torch ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_shipped_checkpoints_read_as_torch_reads_them(path):
    same(load_tensor_arrays(path, path.name), torch.load(path, map_location="cpu", weights_only=True))


def test_every_kind_of_value_a_checkpoint_may_hold_reads_as_torch_reads_it(tmp_path):
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    content = {
        "floats": torch.randn(3, 5),
        "transposed": base.t(),  # strided: a view of another tensor's storage
        "slice": base[1:3, 2:],  # an offset into a shared storage
        "kinds": [
            torch.ones(2, dtype=dtype)
            for dtype in (torch.float16, torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool)
        ],  # fmt: skip
        "scalar": torch.tensor(7),
        "empty": torch.zeros(0, 3),
        "plain": {"text": "x", "number": 2.5, "count": 3, "flag": True, "none": None, "pair": (1, "a")},
        "parameter": torch.nn.Parameter(torch.ones(2)),
    }
    torch.save(content, tmp_path / "all.pt")
    same(load_tensor_arrays(tmp_path / "all.pt", "all.pt"), torch.load(tmp_path / "all.pt", weights_only=True))


def test_a_torch_file_running_code_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "code-ran"
    path = torch_file_running_code(tmp_path / "evil.pt", marker)
    with pytest.raises(CheckpointError, match=r"evil\.pt holds serialized Python objects other than tensors.*names "):
        load_tensor_arrays(path, "evil.pt")
    assert not marker.exists()


def with_pickle(path: Path, data: bytes, storages: dict[str, bytes] | None = None) -> Path:
    """A zip laid out as torch lays out its files, whose data.pkl is ``data``."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", data)
        archive.writestr("archive/version", "3\n")
        archive.writestr("archive/byteorder", "little")
        for key, raw in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", raw)
    return path


@pytest.mark.parametrize(
    "data, storages, message",
    [
        (b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.", {}, "names os.system"),
        (b"\x80\x02(i__builtin__\nobject\n.", {}, "opcode INST"),
        (b"\x80\x02}\x81.", {}, "opcode NEWOBJ"),
        (b"\x80\x02ctorch\nFloatStorage\n}b.", {}, "changes a storage class"),
        (b"\x80\x02}q\x00", {}, "truncated or corrupted"),
    ],
    ids=["os.system", "INST", "NEWOBJ", "BUILD on a storage class", "truncated"],
)
def test_a_pickle_of_anything_but_tensors_is_refused(tmp_path, data, storages, message):
    with pytest.raises(CheckpointError, match=message):
        load_tensor_arrays(with_pickle(tmp_path / "bad.pt", data, storages), "bad.pt")


def tensor_pickle(size: tuple, stride: tuple, count: int) -> bytes:
    """The pickle torch writes for ``{"t": tensor}``, a float tensor of ``size`` and ``stride`` over storage ``0`` of
    ``count`` elements, written opcode by opcode."""
    opcode = lambda value: pickle.dumps(value, protocol=2)[2:-1]  # noqa: E731  (its opcodes, no PROTO or STOP)
    return (
        b"\x80\x02}" + opcode("t") + b"ctorch._utils\n_rebuild_tensor_v2\n(("
        + opcode("storage") + b"ctorch\nFloatStorage\n" + opcode("0") + opcode("cpu") + opcode(count) + b"tQ"
        + opcode(0) + opcode(size) + opcode(stride) + b"\x89}tRs."
    )  # fmt: skip


def test_the_tensor_pickle_written_here_is_the_one_torch_reads(tmp_path):
    path = with_pickle(tmp_path / "t.pt", tensor_pickle((2, 3), (3, 1), 6), {"0": np.arange(6, dtype="<f4").tobytes()})
    np.testing.assert_array_equal(torch.load(path, weights_only=True)["t"].numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(load_tensor_arrays(path, "t.pt")["t"], np.arange(6).reshape(2, 3))


@pytest.mark.parametrize(
    "size, stride, count, stored, message",
    [
        ((2, 2), (8, 1), 8, 32, "reaches element 10 of a storage of 8"),
        ((10**12,), (0,), 1, 4, "more elements than its storage"),
        ((2,), (1,), 2, 32, "would unpack to 32 bytes, more than the 8 a storage of 2 elements may hold"),
        ((2,), (1,), 2, 4, "holds 4 bytes, not the 8 it declares"),
    ],
    ids=["beyond its storage", "broadcast", "member larger than its storage", "member shorter than its storage"],
)
def test_a_tensor_or_storage_that_does_not_fit_is_refused_before_allocating(tmp_path, size, stride, count, stored,
                                                                           message):  # fmt: skip
    path = with_pickle(tmp_path / "bad.pt", tensor_pickle(size, stride, count), {"0": bytes(stored)})
    with pytest.raises(CheckpointError, match=message):
        load_tensor_arrays(path, "bad.pt")


@pytest.mark.parametrize("content", [b"", b"garbage"])
def test_a_file_that_is_no_torch_file_says_so(tmp_path, content):
    (tmp_path / "c.pt").write_bytes(content)
    with pytest.raises(CheckpointError, match=r"c\.pt' is not a readable torch file, not a checkpoint at all"):
        load_player(tmp_path / "c.pt")


def test_a_raw_pickle_is_refused_unread(tmp_path):
    marker = tmp_path / "code-ran"
    (tmp_path / "raw.pt").write_bytes(pickle.dumps(CreatesFile(marker)))
    with pytest.raises(CheckpointError, match="other than tensors.*refused unread \\(a raw pickle"):
        load_player(tmp_path / "raw.pt")
    assert not marker.exists()


def tiny_checkpoint(tmp_path: Path, damage) -> Path:
    save_checkpoint(tmp_path / "tiny.pt", RingNet(NetworkConfig(channels=8, blocks=2, value_hidden=8)))
    payload = torch.load(tmp_path / "tiny.pt", weights_only=True)
    damage(payload)
    torch.save(payload, tmp_path / "tiny.pt")
    return tmp_path / "tiny.pt"


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda p: p["state_dict"].__setitem__("trunk.1.conv2.weight", torch.zeros(8, 8, 5)),
            "'trunk.1.conv2.weight' should be a float tensor of shape \\(8, 8, 3\\), found shape \\(8, 8, 5\\)",
        ),
        (
            lambda p: p["state_dict"].pop("value_fc1.bias"),
            "'value_fc1.bias' \\(a float tensor of shape \\(8,\\)\\) is missing",
        ),
        (lambda p: p["state_dict"].__setitem__("extra.weight", torch.zeros(1)), "'extra.weight' is not one of its"),
        (
            lambda p: p["state_dict"]["stem_bn.running_var"].fill_(float("nan")),
            "'stem_bn.running_var' holds non-finite",
        ),
        (
            lambda p: p["state_dict"].__setitem__("stem.weight", p["state_dict"]["stem.weight"].long()),
            "'stem.weight' should be a float tensor of shape .* found int64",
        ),
        (lambda p: p["network"].__setitem__("blocks", 10**6), "NetworkConfig.blocks must be at most 64, got 1000000"),
        (lambda p: p.__setitem__("format", "other"), "is not an 'awale_env.alphazero/1' checkpoint"),
        (lambda p: p.__setitem__("search", {"c_puct": -1.0}), "its search settings are not ones the search takes"),
    ],
    ids=["shape", "missing", "unexpected", "nan", "integers", "config", "format", "search"],
)
def test_a_checkpoint_not_matching_its_network_names_what_is_wrong(tmp_path, damage, message):
    path = tiny_checkpoint(tmp_path, damage)
    with pytest.raises(CheckpointError, match=message):
        load_player(path)
    with pytest.raises(CheckpointError):  # and the torch loader refuses it as well
        network.load_player(path)


def test_a_network_of_another_game_is_refused_for_that_game(tmp_path):
    path = tiny_checkpoint(tmp_path, lambda p: None)
    other = next(name for name in GAMES if name != "awale16")
    with pytest.raises(CheckpointError, match=f"plays awale16 only, not '{other}': train a network for it"):
        load_player(path, other)


# --- the network's shapes and outputs ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("tactics", [False, True])
def test_the_shapes_known_without_torch_are_the_networks(game, tactics):
    config = NetworkConfig(channels=8, blocks=3, value_hidden=5, game=game, tactics=tactics)
    with torch.device("meta"):
        state = RingNet(config).state_dict()
    expected = {name: (tuple(t.shape), t.is_floating_point()) for name, t in state.items()}
    assert state_shapes(config) == expected
    assert list(state_shapes(config)) == list(expected)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_numpy_network_computes_the_torch_networks_outputs(game):
    with torch.random.fork_rng():  # the other tests' random networks stay as they were
        torch.manual_seed(3)
        net = RingNet(NetworkConfig(channels=16, blocks=2, value_hidden=8, game=game))
        for module in net.modules():  # batch norms away from the identity, as a trained network's are
            if isinstance(module, torch.nn.BatchNorm1d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.data.uniform_(0.5, 1.5)
                module.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    numpy_net = NumpyNet({name: t.numpy() for name, t in net.state_dict().items()}, net.config)
    obs = observations(game, 40, seed=2)
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
    for size in (40, 1, 8, 40):  # the work buffers grow and shrink with the batch without mixing calls up
        got_logits, got_values = numpy_net(obs[:size])
        np.testing.assert_allclose(got_logits, logits.numpy()[:size], **OUTPUTS_TOLERANCE)
        np.testing.assert_allclose(got_values, values.numpy()[:size], **OUTPUTS_TOLERANCE)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_network_plays_the_moves_it_plays_through_torch(path):
    """The outputs of the shipped network equal torch's, and the agent's searches (a fixed number of simulations)
    choose the same moves through numpy as through torch."""
    numpy_net, settings = load_player(path)
    torch_net, torch_settings = network.load_player(path)
    assert settings == torch_settings and numpy_net.config == torch_net.config
    obs = observations(numpy_net.config.game, 64, seed=5)
    with torch.inference_mode():
        logits, values = torch_net(torch.from_numpy(obs))
    got_logits, got_values = numpy_net(obs)
    np.testing.assert_allclose(got_logits, logits.numpy(), **OUTPUTS_TOLERANCE)
    np.testing.assert_allclose(got_values, values.numpy(), **OUTPUTS_TOLERANCE)
    numpy_agent = AlphaZeroAgent(path=str(path), simulations=200)
    torch_agent = AlphaZeroAgent(net=torch_net, **{**settings, "simulations": 200})
    assert type(numpy_agent.evaluate) is NumpyNet and type(torch_agent.evaluate) is FoldedNet
    states = random_positions.random_states(numpy_net.config.game, 12, 8, (0, 60))
    assert [numpy_agent.act(s) for s in states] == [torch_agent.act(s) for s in states]


# --- a fresh process ----------------------------------------------------------------------------------------------


def test_a_fresh_process_plays_the_shipped_network_without_torch():
    script = (
        "import sys\n"
        "sys.modules['torch'] = None  # importing torch fails\n"
        "from agents import make\n"
        "from awale_env.games import get_game\n"
        "game = get_game(sys.argv[1])\n"
        "print(game.format_move(make('alphazero:pretrained,simulations=32').act(game.initial())))\n"
    )
    game = SHIPPED[-1].stem
    done = subprocess.run([sys.executable, "-c", script, game], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    GAMES[game].parse_move(done.stdout.strip())
