"""Checkpoints and run directories under attack and accident (issue 17): no checkpoint runs code (a PPO resume,
``sb3_model``, ``ppo:path=``, AlphaZero's ``.pt`` files), a zip bomb fails at once, and after a full disk or a kill -9
at any moment a run resumes from its newest complete checkpoint with its files describing the same point.

The hostile files come from ``tests/robustness/malicious.py``; their payload creates a marker file, so each test
checks that loading refused the file and that the marker does not exist.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
torch.set_num_threads(1)

from robustness.malicious import (  # noqa: E402
    CreatesFile,
    replace_member,
    sb3_zip_running_code,
    torch_file_running_code,
    zip_bomb,
)
from test_alphazero_training import TINY_RUN, metrics  # noqa: E402
from test_alphazero_training import config as alphazero_config  # noqa: E402
from test_imitation import small_config as imitation_config  # noqa: E402
from test_ppo_selfplay import config_of, read_rows, tiny_args  # noqa: E402

import agents  # noqa: E402
import agents.checkpoint  # noqa: E402
from agents.alphazero.network import RingNet, load_network, read_checkpoint, save_checkpoint  # noqa: E402
from agents.checkpoint import load_tensors  # noqa: E402
from agents.ppo import PPOAgent, sb3_model  # noqa: E402
from awale_env import State  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from training.alphazero import imitation, selfplay_pool  # noqa: E402
from training.alphazero import trainer as alphazero_trainer  # noqa: E402
from training.ppo import checkpoints as ppo_checkpoints  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402


def one_error_line(capsys) -> str:
    """What a trainer's command printed on stderr: one line ``error: ...``."""
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def files_of(directory: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``directory`` with its bytes (None for a folder): what a refused command must
    leave exactly as it was."""
    return {str(path.relative_to(directory)): path.read_bytes() if path.is_file() else None
            for path in sorted(directory.rglob("*"))}  # fmt: skip


# --- a checkpoint never runs code ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory) -> Path:
    """A tiny finished PPO run of 512 moves (a checkpoint holding two pool snapshots)."""
    run = tmp_path_factory.mktemp("ppo") / "run"
    ppo_trainer.train(tiny_args(run, total_timesteps=512, eval_every=512, checkpoint_every=512))
    return run


def npz_running_code(marker: Path) -> bytes:
    """An ``.npz`` whose array ``w0`` is an object array, unpickling an object that creates ``marker``."""
    buffer = io.BytesIO()
    np.savez(buffer, w0=np.array([CreatesFile(marker)], dtype=object))
    return buffer.getvalue()


def hostile_ppo_checkpoint(kind: str, good: Path, directory: Path, marker: Path) -> Path:
    """A copy of the checkpoint ``good`` carrying code that creates ``marker`` when unpickled, in ``directory``."""
    path, step = directory / "hostile.zip", directory / "step.zip"
    if kind == "format 1 with SB3's pickled model":  # the attack of the issue, on the format before this one
        config = {**config_of(good), "format": "awale_env.ppo_selfplay/1"}
        replace_member(good, step, "config.json", json.dumps(config).encode())
        return replace_member(step, path, "model.zip", sb3_zip_running_code(marker))
    if kind == "SB3's pickled model added":
        return replace_member(good, path, "model.zip", sb3_zip_running_code(marker))
    if kind == "a pickled policy.pth":
        with zipfile.ZipFile(good) as archive:
            base = load_tensors(archive.read("policy.pth"), "policy.pth")
        tensors = torch_file_running_code(directory / "policy.pth", marker, base).read_bytes()
        return replace_member(good, path, "policy.pth", tensors)
    assert kind == "a pickled pool snapshot"
    return replace_member(good, path, "pool/0.npz", npz_running_code(marker))


HOSTILE_PPO = {
    "format 1 with SB3's pickled model": "format 'awale_env.ppo_selfplay/1': its SB3 model (model.zip) is pickled",
    "SB3's pickled model added": "carries members a PPO checkpoint never holds (model.zip): refused",
    "a pickled policy.pth": "policy.pth holds serialized Python objects other than tensors",
    "a pickled pool snapshot": "pool/0.npz is not a readable array file: Object arrays cannot be loaded",
}


@pytest.mark.parametrize("kind", HOSTILE_PPO)
def test_a_ppo_resume_and_sb3_model_refuse_a_checkpoint_carrying_code(ppo_run, tmp_path, capsys, kind):
    marker = tmp_path / "code-ran"
    run = tmp_path / "run"
    shutil.copytree(ppo_run, run)
    for checkpoint in (run / "checkpoints").iterdir():
        checkpoint.unlink()
    hostile = hostile_ppo_checkpoint(kind, ppo_run / "checkpoints" / "last.zip", tmp_path, marker)
    shutil.copy(hostile, run / "checkpoints" / "last.zip")
    with pytest.raises(SystemExit) as stop:
        ppo_trainer.main(["--run-dir", str(run), "--resume", "--total-timesteps", "1024"])
    assert stop.value.code == 2
    err = one_error_line(capsys)
    assert err.startswith(f"error: no complete checkpoint to resume from in {run / 'checkpoints'}: ")
    assert HOSTILE_PPO[kind] in err
    with pytest.raises(CheckpointError, match=re.escape(HOSTILE_PPO[kind])):
        sb3_model(hostile)
    assert not marker.exists(), "loading the checkpoint ran its code"
    if kind != "a pickled pool snapshot":  # the agent reads only config.json and policy.npz: it plays them
        agent = agents.make(f"ppo:path={hostile}")
        assert State.initial().is_legal(agent.act(State.initial()))
    assert not marker.exists()


def test_ppo_path_refuses_a_policy_carrying_code(ppo_run, tmp_path):
    marker = tmp_path / "code-ran"
    hostile = replace_member(ppo_run / "checkpoints" / "last.zip", tmp_path / "hostile.zip", "policy.npz",
                             npz_running_code(marker))  # fmt: skip
    with pytest.raises(CheckpointError, match="policy.npz is not a readable array file: Object arrays"):
        PPOAgent.load(hostile)
    with pytest.raises(agents.AgentSpecError, match="Object arrays cannot be loaded"):
        agents.make(f"ppo:path={hostile}")
    assert not marker.exists()


@pytest.fixture(scope="module")
def alphazero_run(tmp_path_factory) -> Path:
    """A tiny AlphaZero run of one generation."""
    run = tmp_path_factory.mktemp("alphazero") / "run"
    alphazero_trainer.train(alphazero_config(run, "--generations", "1", "--workers", "0"))
    return run


def test_alphazero_files_carrying_code_are_refused(alphazero_run, tmp_path, capsys):
    marker = tmp_path / "code-ran"
    best = torch_file_running_code(tmp_path / "best.pt", marker, read_checkpoint(alphazero_run / "best.pt"))
    with pytest.raises(CheckpointError, match="holds serialized Python objects other than tensors"):
        load_network(best)
    with pytest.raises(agents.AgentSpecError, match="holds serialized Python objects"):
        agents.make(f"alphazero:path={best}")
    run = tmp_path / "run"
    shutil.copytree(alphazero_run, run)
    torch_file_running_code(run / "state.pt", marker, read_checkpoint(alphazero_run / "state.pt"))
    before = files_of(run)
    with pytest.raises(SystemExit) as stop:
        alphazero_trainer.main([*TINY_RUN, "--run-dir", str(run), "--resume", "--generations", "2", "--workers", "0"])
    assert stop.value.code == 2
    assert "state.pt' holds serialized Python objects other than tensors" in one_error_line(capsys)
    assert not marker.exists(), "loading the checkpoint ran its code"
    assert files_of(run) == before  # config.json (--generations 2) and best.pt not rewritten, no tb/ events added


def test_a_truncated_replay_buffer_of_an_older_run_is_one_line(alphazero_run, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(alphazero_run, run)
    state = read_checkpoint(run / "state.pt")
    replay = state.pop("replay")  # a run written when replay.npz held the buffer
    torch.save(state, run / "state.pt")
    buffer = io.BytesIO()
    np.savez(buffer, **{key: np.asarray(value) for key, value in replay.items()})
    (run / "replay.npz").write_bytes(buffer.getvalue()[:-100])
    with pytest.raises(SystemExit) as stop:
        alphazero_trainer.main([*TINY_RUN, "--run-dir", str(run), "--resume", "--generations", "2", "--workers", "0"])
    assert stop.value.code == 2
    assert "replay.npz' is not a readable zip file (truncated or corrupted?)" in one_error_line(capsys)
    (run / "replay.npz").write_bytes(buffer.getvalue())  # whole, it is read
    alphazero_trainer.train(alphazero_config(run, "--resume", "--generations", "2", "--workers", "0"))
    assert [row["generation"] for row in metrics(run)] == ["1", "2"]
    assert not (run / "replay.npz").exists() and "replay" in read_checkpoint(run / "state.pt")


@pytest.mark.parametrize(("field", "value"), [("generation", -1), ("best_generation", 10**30), ("totals", "games")])
def test_a_counter_out_of_range_in_a_checkpoint_is_one_line_naming_the_file_and_field(
    alphazero_run, tmp_path, capsys, field, value
):
    """A negative generation ended in numpy's 'expected non-negative integer', a huge one in TensorBoard's 'Value
    out of range': neither named the file or the field."""
    run = tmp_path / "run"
    shutil.copytree(alphazero_run, run)
    state = read_checkpoint(run / "state.pt")
    if field == "totals":
        field, state["totals"][value] = f"totals.{value}", -5
    else:
        state[field] = value
    torch.save(state, run / "state.pt")
    before = files_of(run)
    with pytest.raises(SystemExit) as stop:
        alphazero_trainer.main([*TINY_RUN, "--run-dir", str(run), "--resume", "--generations", "2", "--workers", "0"])
    assert stop.value.code == 2
    line = one_error_line(capsys)
    assert "state.pt" in line and f"field {field!r} of the training state must be an integer in [0, 2**62]" in line
    assert files_of(run) == before


# --- a refused command leaves the run directory exactly as it was -----------------------------------------------


def truncate_checkpoints(run: Path) -> None:
    for path in (run / "checkpoints").glob("*.zip"):
        path.write_bytes(path.read_bytes()[:500])


BAD_DEPTH = "bad agent spec 'alphabeta:depth=0': depth must be a positive int, got 0"
#: Resumes of a finished PPO run of 512 moves that are refused, and the line each ends with: before, the run's
#: config.json took the new options (and a bad spec that a plain resume then failed on) and tb/ a new events file.
REFUSED_PPO_RESUMES = {
    "a bad evaluation opponent with a longer run": (
        ["--total-timesteps", "1024", "--eval-every", "256", "--eval-opponents", "alphabeta:depth=0"],
        f"error: --eval-opponents: {BAD_DEPTH}",
    ),
    "a bad evaluation opponent alone (nothing to train)": (  # was exit code 0, the bad spec saved
        ["--eval-opponents", "random", "alphabeta:depth=0"],
        f"error: --eval-opponents: {BAD_DEPTH}",
    ),
    "a missing evaluation opponent": (
        ["--eval-opponents", "ppo:path=MISSING"],
        "error: --eval-opponents: bad agent spec 'ppo:path=MISSING': PPO checkpoint not found: MISSING",
    ),
    "no complete checkpoint": (
        ["--total-timesteps", "1024"],
        "error: no complete checkpoint to resume from in RUN/checkpoints: RUN/checkpoints/last.zip is not a readable "
        "zip file (truncated or corrupted?)",
    ),
}


@pytest.mark.parametrize("case", REFUSED_PPO_RESUMES)
def test_a_refused_ppo_resume_leaves_the_run_exactly_as_it_was(ppo_run, tmp_path, capsys, case):
    run = tmp_path / "run"
    shutil.copytree(ppo_run, run)
    if case == "no complete checkpoint":
        truncate_checkpoints(run)
    before = files_of(run)
    options, message = REFUSED_PPO_RESUMES[case]
    options = [option.replace("MISSING", str(tmp_path / "none.zip")) for option in options]
    message = message.replace("MISSING", str(tmp_path / "none.zip")).replace("RUN", str(run))
    with pytest.raises(SystemExit) as stop:
        ppo_trainer.main(["--run-dir", str(run), "--resume", "--no-progress", *options])
    assert stop.value.code == 2
    assert one_error_line(capsys).startswith(message)
    assert files_of(run) == before  # config.json, checkpoints, eval.csv and tb/ byte for byte, nothing added


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--league", "alphabeta:depth=0"], f"error: --league: {BAD_DEPTH}\n"),
        (["--eval-opponents", "ppo:path=/nonexistent.zip"],
         "error: --eval-opponents: bad agent spec 'ppo:path=/nonexistent.zip': PPO checkpoint not found: "
         "/nonexistent.zip\n"),
        (["--game", "oware", "--eval-opponents", "alphazero:pretrained"],  # no AlphaZero network is shipped for oware
         "error: --eval-opponents: agent 'alphazero:pretrained' plays "),
    ],
)  # fmt: skip
def test_a_refused_new_ppo_run_makes_no_directory(tmp_path, capsys, options, message):
    """Refused before the directory is made: before, config.json and tb/ were written first (an evaluation opponent
    at the first evaluation, a league agent as the games started)."""
    run = tmp_path / "new" / "run"
    with pytest.raises(SystemExit) as stop:
        ppo_trainer.main(["--run-dir", str(run), "--no-progress", *options])
    assert stop.value.code == 2
    assert one_error_line(capsys).startswith(message)
    assert not (tmp_path / "new").exists()


def test_a_refused_alphazero_or_imitation_resume_leaves_the_run_exactly_as_it_was(alphazero_run, tmp_path, capsys):
    """A damaged state.pt: before, config.json took the resume's options, an imitation resume had played the games
    it asked for more and an AlphaZero one created a tb/ events file."""
    run = tmp_path / "alphazero"
    shutil.copytree(alphazero_run, run)
    (run / "state.pt").write_bytes((run / "state.pt").read_bytes()[:1000])
    before = files_of(run)
    with pytest.raises(SystemExit) as stop:
        alphazero_trainer.main(["--run-dir", str(run), "--resume", "--generations", "3", "--workers", "0"])
    assert stop.value.code == 2
    assert "state.pt' is not a readable torch file (truncated or corrupted?)" in one_error_line(capsys)
    assert files_of(run) == before

    imitation.train(imitation_config(tmp_path, epochs=1))
    run = tmp_path / "run"
    whole = (run / "state.pt").read_bytes()
    (run / "state.pt").write_bytes(whole[:1000])
    before = files_of(run)
    with pytest.raises(CheckpointError, match="state.pt' is not a readable torch file"):
        imitation.train(imitation_config(tmp_path, epochs=3, games=6, resume=True))
    assert files_of(run) == before  # the third chunk of games is not played, config.json not rewritten
    (run / "state.pt").write_bytes(whole)
    chunk = run / "games" / "chunk-00001.npz"
    chunk.write_bytes(chunk.read_bytes()[:-100])
    before = files_of(run)
    with pytest.raises(CheckpointError, match="chunk-00001.npz' is not a readable zip file"):
        imitation.train(imitation_config(tmp_path, epochs=3, games=6, resume=True))
    assert files_of(run) == before


# --- zip bombs ----------------------------------------------------------------------------------------------------


def fails_fast(load, match: str, error: type[Exception] = CheckpointError) -> None:
    """``load()`` raises ``error`` matching ``match`` having unpacked nothing: within 2 s of this process's CPU time
    (unpacking would take several; other processes on the machine do not count)."""
    start = time.process_time()
    with pytest.raises(error, match=match):
        load()
    assert time.process_time() - start < 2


def test_zip_bombs_fail_at_once(ppo_run, tmp_path):
    message = r"would unpack to 2,147,483,648 bytes, more than the 1,073,741,824 a checkpoint member may hold"
    bomb = zip_bomb(tmp_path / "bomb.zip", name="policy.npz")  # a 2 MB file declaring a 2 GiB member
    fails_fast(lambda: PPOAgent.load(bomb), message)
    fails_fast(lambda: agents.make(f"ppo:path={bomb}"), message, agents.AgentSpecError)
    inner = zip_bomb(tmp_path / "inner.zip", name="w0.npy")  # a checkpoint whose policy.npz is the bomb
    hostile = replace_member(ppo_run / "checkpoints" / "last.zip", tmp_path / "hostile.zip", "policy.npz", inner)
    declared = r"an array file of the policy config.json declares \(awale16, tactics, net_arch \[16\]\) may hold"
    fails_fast(lambda: PPOAgent.load(hostile), rf"hostile.zip: member 'policy.npz' would unpack to .* {declared}")
    torch_bomb = zip_bomb(tmp_path / "best.pt", name="best/data/0")  # torch's files are zips too
    fails_fast(lambda: load_network(torch_bomb), message)


# --- a full disk ------------------------------------------------------------------------------------------------


class FillingFile(io.FileIO):
    """A file on a disk with ``room`` bytes left: the write that would pass them writes what fits, then fails with
    ENOSPC, as a full disk does."""

    room = 0

    def write(self, data) -> int:
        fits = max(self.room - self.tell(), 0)
        if len(data) > fits:
            super().write(bytes(data)[:fits])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(data)


def fill_disk(monkeypatch, name: str, room: int = 1000) -> None:
    """From now on, the disk is full after ``room`` bytes of any file written as ``name`` (all of a run's files are
    written through :func:`agents.checkpoint.atomic_write`)."""

    def opener(file, mode="r", *args, **kwargs):
        if Path(file).name != f"{name}.tmp":
            return open(file, mode, *args, **kwargs)
        handle = FillingFile(file, "w")
        handle.room = room
        return handle

    monkeypatch.setattr(agents.checkpoint, "open", opener, raising=False)


def test_a_full_disk_during_a_ppo_checkpoint_leaves_a_run_that_resumes_from_its_newest_complete_one(
    tmp_path, monkeypatch
):
    run, checkpoints = tmp_path / "run", tmp_path / "run" / "checkpoints"
    fill_disk(monkeypatch, "step_000001024.zip")  # the second checkpoint, after 512 moves
    with pytest.raises(OSError) as failure:
        ppo_trainer.train(tiny_args(run))
    assert failure.value.errno == errno.ENOSPC
    assert sorted(p.name for p in checkpoints.iterdir()) == ["last.zip", "step_000000512.zip"]  # no temporary file
    assert os.path.samefile(checkpoints / "last.zip", checkpoints / "step_000000512.zip")  # a second name, no copy
    monkeypatch.undo()  # room again
    ppo_trainer.train(tiny_args(run, resume=True))
    assert config_of(checkpoints / "last.zip")["num_timesteps"] == 1024
    steps = [int(row["steps"]) for row in read_rows(run)]
    assert steps == [128, 128, 512, 512, 1024, 1024]  # the evaluation logged before the failure was made again

    # last.zip damaged (its own file: the link broken first): the resume goes on from the newest complete step_*.zip
    data = (checkpoints / "last.zip").read_bytes()
    (checkpoints / "last.zip").unlink()
    (checkpoints / "last.zip").write_bytes(data[: len(data) // 2])
    ppo_trainer.train(tiny_args(run, resume=True, total_timesteps=1536))
    assert config_of(checkpoints / "last.zip")["num_timesteps"] == 1536
    assert [int(row["steps"]) for row in read_rows(run)] == [128, 128, 512, 512, 1024, 1024, 1536, 1536]


def test_a_full_disk_during_an_alphazero_generation_loses_nothing(tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    alphazero_trainer.train(alphazero_config(run, "--generations", "1", "--workers", "0"))
    fill_disk(monkeypatch, "state.pt")  # generation 2 wrote best.pt and its metrics row, then the disk is full
    with pytest.raises(SystemExit) as stop:
        alphazero_trainer.main([*TINY_RUN, "--run-dir", str(run), "--resume", "--generations", "2", "--workers", "0"])
    assert stop.value.code == 1 and "No space left on device" in one_error_line(capsys)  # as the awale command
    assert not list(run.glob("*.tmp")) and read_checkpoint(run / "state.pt")["generation"] == 1
    save_checkpoint(run / "best.pt", RingNet(alphazero_config(run).network_config()))  # as if gating had promoted one
    monkeypatch.undo()

    # a resume goes on from state.pt and first brings best.pt and metrics.csv back to it
    resumed = alphazero_trainer.Run(alphazero_trainer.resolved(alphazero_config(run, "--resume", "--workers", "0")))
    resumed.writer.close()
    assert [row["generation"] for row in metrics(run)] == ["1"]
    state, best = read_checkpoint(run / "state.pt"), read_checkpoint(run / "best.pt")
    for key, value in state["best_state_dict"].items():
        torch.testing.assert_close(best["state_dict"][key], value, rtol=0, atol=0)
    assert best["generation"] == state["best_generation"]
    alphazero_trainer.train(alphazero_config(run, "--resume", "--generations", "2", "--workers", "0"))
    assert [row["generation"] for row in metrics(run)] == ["1", "2"]


# --- kill -9 ---------------------------------------------------------------------------------------------------


def start_and_kill(command: list[str], ready: Path, log: Path) -> list:
    """Run ``command`` (its output to ``log``), SIGKILL it once ``ready`` exists (and a little later), return its
    children (psutil)."""
    psutil = pytest.importorskip("psutil")
    with open(log, "wb") as output:  # a file, not a pipe: its orphaned children must not hold up this test
        process = subprocess.Popen([sys.executable, *command], stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    time.sleep(0.5)  # into the next checkpoint, or writing it
    children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    return children


def test_ppo_killed_mid_run_resumes(tmp_path):
    run = tmp_path / "run"
    options = ["--run-dir", str(run), "--total-timesteps", "100000000", "--n-envs", "2", "--n-steps", "64",
               "--batch-size", "64", "--net-arch", "16", "--eval-opponents", "random", "--eval-games", "2",
               "--eval-every", "256", "--checkpoint-every", "128", "--no-progress"]  # fmt: skip
    start_and_kill(["-m", "training.ppo.trainer", *options], run / "checkpoints" / "last.zip", tmp_path / "log")
    newest = ppo_checkpoints.newest_checkpoint(run).num_timesteps
    ppo_trainer.main(["--run-dir", str(run), "--resume", "--total-timesteps", str(newest + 256)])
    assert config_of(run / "checkpoints" / "last.zip")["num_timesteps"] == newest + 256
    steps = [int(row["steps"]) for row in read_rows(run)]
    assert steps == sorted(set(steps)) and steps[-1] == newest + 256  # nothing logged twice, nothing past the end
    assert not list((run / "checkpoints").glob("*.tmp"))


def test_alphazero_killed_mid_run_resumes_and_its_workers_end(tmp_path):
    psutil = pytest.importorskip("psutil")
    run = tmp_path / "run"
    command = [
        "-m",
        "training.alphazero.trainer",
        *TINY_RUN,
        "--run-dir",
        str(run),
        "--generations",
        "1000",
        "--workers",
        "1",
    ]
    workers = start_and_kill(command, run / "state.pt", tmp_path / "log")
    assert workers
    _, alive = psutil.wait_procs(workers, timeout=3 * selfplay_pool.WORKER_POLL_SECONDS + 10)
    assert not alive, "a self-play worker outlived its killed learner"
    generation = read_checkpoint(run / "state.pt")["generation"]
    alphazero_trainer.main([*TINY_RUN, "--run-dir", str(run), "--resume", "--generations", str(generation + 1),
                    "--workers", "0"])  # fmt: skip
    assert [int(row["generation"]) for row in metrics(run)] == list(range(1, generation + 2))
    state, best = read_checkpoint(run / "state.pt"), read_checkpoint(run / "best.pt")
    for key, value in state["best_state_dict"].items():
        torch.testing.assert_close(best["state_dict"][key], value, rtol=0, atol=0)
