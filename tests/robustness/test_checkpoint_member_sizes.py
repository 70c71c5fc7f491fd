"""Each member of a checkpoint is bounded by what it may hold (issue 29): a JSON member by kilobytes, the pickle of a
torch file's structure by megabytes, a policy's tensors by the network its config.json declares. A small file
declaring more is refused at once with one line, before anything is unpacked: a 0.5 MB PPO checkpoint whose
config.json unpacks to 512 MiB neither loads nor costs memory."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from robustness.malicious import replace_member, zip_bomb  # noqa: E402
from test_ppo_selfplay import tiny_args  # noqa: E402

from agents.alphazero.network import load_network  # noqa: E402
from agents.checkpoint import MAX_JSON_BYTES  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from agents.ppo.checkpoint import read_training_checkpoint  # noqa: E402
from agents.ppo.policy import PolicyNet  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import DEFAULT_GAME  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402

MIB = 1 << 20


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """The last checkpoint of a tiny PPO run (net_arch [16])."""
    run = tmp_path_factory.mktemp("ppo") / "run"
    ppo_trainer.train(tiny_args(run, total_timesteps=512, eval_every=512, checkpoint_every=512))
    return run / "checkpoints" / "last.zip"


def with_large_config(source: Path, destination: Path, size: int) -> Path:
    """``source`` with a valid config.json padded with spaces to ``size`` bytes (deflated: a few hundred KB)."""
    with zipfile.ZipFile(source) as archive:
        config = json.loads(archive.read("config.json"))
    text = json.dumps(config).encode()
    with (
        zipfile.ZipFile(source) as original,
        zipfile.ZipFile(destination, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as copy,
    ):
        for info in original.infolist():
            if info.filename != "config.json":
                copy.writestr(info, original.read(info))
        with copy.open("config.json", "w", force_zip64=True) as member:
            member.write(text[:-1])
            spaces = b" " * MIB
            for _ in range((size - len(text)) // MIB):
                member.write(spaces)
            member.write(b"}")
    return destination


def refused_fast(load, match: str) -> None:
    """``load()`` raises CheckpointError matching ``match`` having unpacked nothing: under 2 s of this process's CPU
    time (unpacking the member would take several; other processes on the machine do not count)."""
    start = time.process_time()
    with pytest.raises(CheckpointError, match=match):
        load()
    assert time.process_time() - start < 2


def test_a_config_json_of_512_mib_is_refused_at_once_without_memory(checkpoint, tmp_path):
    hostile = with_large_config(checkpoint, tmp_path / "hostile.zip", 512 * MIB)
    assert hostile.stat().st_size < 2 * MIB
    message = (
        rf"member 'config.json' would unpack to 5[\d,]+ bytes, more than the {MAX_JSON_BYTES:,} a checkpoint's "
        r"JSON member \(kilobytes of settings\) may hold"
    )
    refused_fast(lambda: PPOAgent.load(hostile), message)
    refused_fast(lambda: read_training_checkpoint(hostile), message)
    # In a fresh process: one line from the command, and no more memory than loading nothing.
    probe = (
        "import resource, sys\nfrom agents.ppo import PPOAgent\nfrom awale_env.errors import CheckpointError\n"
        "try:\n    PPOAgent.load(sys.argv[1]) if sys.argv[1] else None\nexcept CheckpointError as error:\n"
        "    print(error, file=sys.stderr)\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    peaks = []
    for path in ("", str(hostile)):
        done = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True, timeout=120)
        peaks.append(int(done.stdout.split()[-1]) * 1024)
    assert peaks[1] - peaks[0] < 64 * MIB, peaks
    done = subprocess.run([sys.executable, "-m", "awale_apps", "arena", "--agents", f"ppo:path={hostile}", "random"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "member 'config.json' would unpack to" in lines[0], done.stderr


def test_a_policy_larger_than_its_declared_network_is_refused_unread(checkpoint, tmp_path):
    big = PolicyNet([np.zeros((input_width(checkpoint), 512), np.float32), np.zeros((512, 32), np.float32)],
                    [np.zeros(512, np.float32), np.zeros(32, np.float32)], "tanh", "tactics", DEFAULT_GAME)  # fmt: skip
    hostile = replace_member(checkpoint, tmp_path / "big.zip", "policy.npz", big.to_npz())
    declared = r"an array file of the policy config.json declares \(awale16, tactics, net_arch \[16\]\) may hold"
    refused_fast(lambda: PPOAgent.load(hostile), rf"member 'policy.npz' would unpack to [\d,]+ bytes, .* {declared}")
    padded = io.BytesIO()
    padded.write(b"\0" * (3 * MIB))
    hostile = replace_member(checkpoint, tmp_path / "optimizer.zip", "policy.optimizer.pth", padded.getvalue())
    refused_fast(lambda: read_training_checkpoint(hostile), r"member 'policy.optimizer.pth' .* the optimizer's tensors")


def input_width(checkpoint: Path) -> int:
    with zipfile.ZipFile(checkpoint) as archive, np.load(io.BytesIO(archive.read("policy.npz"))) as npz:
        return int(npz["w0"].shape[0])


def test_the_pickle_of_a_torch_file_is_bounded_by_what_a_structure_takes(tmp_path):
    bomb = zip_bomb(tmp_path / "best.pt", name="best/data.pkl", size=32 * MIB)
    refused_fast(lambda: load_network(bomb), r"member 'best/data.pkl' would unpack to 33,554,432 bytes, more than the "
                 r"16,777,216 the pickle of a torch file's structure")  # fmt: skip


def test_the_checkpoints_written_here_load(checkpoint):
    assert PPOAgent.load(checkpoint).net.game.name == DEFAULT_GAME
    assert read_training_checkpoint(checkpoint).num_timesteps == 512
