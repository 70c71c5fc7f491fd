"""The imitation trainer under damaged chunks and kill -9 (issue 29): a chunk of teacher samples holding NaN or
infinity, values no game gives or arrays of the wrong kind is refused with one line naming the file and the array
(never trained into a NaN network, never a traceback), and the pool workers playing the teacher's games end with the
trainer's process even when it is killed with SIGKILL."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from test_imitation import small_config  # noqa: E402

from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import get_game  # noqa: E402
from competition.progress import Clock, Progress  # noqa: E402
from training import teacher_games  # noqa: E402
from training.alphazero import imitation  # noqa: E402


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A run directory holding the two chunks of four teacher games, and its configuration."""
    config = small_config(tmp_path_factory.mktemp("imitation"))
    progress = Progress("", 2, 0, "chunk", Clock(), False)
    imitation.play_chunks(config, [0, 1], progress)
    return config


def damaged(arrays: dict[str, np.ndarray], name: str, how: str) -> dict[str, np.ndarray]:
    """``arrays`` with the array ``name`` damaged ``how``."""
    array = arrays[name].copy()
    if how == "nan":
        array.flat[len(array) // 2] = np.nan
    elif how == "inf":
        array.flat[0] = -np.inf
    elif how == "half":
        array[0] = 0.5
    else:  # another dtype
        array = array.astype(how)
    return arrays | {name: array}


@pytest.mark.parametrize(
    ("name", "how", "message"),
    [
        ("obs", "nan", "array 'obs' holds non-finite values (NaN or infinity)"),
        ("obs", "inf", "array 'obs' holds non-finite values (NaN or infinity)"),
        ("outcome", "nan", "array 'outcome' holds non-finite values (NaN or infinity)"),
        ("outcome", "inf", "array 'outcome' holds non-finite values (NaN or infinity)"),
        ("outcome", "half", "array 'outcome' holds values other than -1, 0 and 1"),
        ("obs", "int64", "array 'obs' holds int64, not floats"),
        ("obs", "<U3", "array 'obs' holds <U3, not floats"),
        ("action", "float32", "array 'action' holds float32, not integers"),
        ("scored", "float64", "array 'scored' holds float64, not booleans"),
        ("game", "complex64", "array 'game' holds complex64, not integers"),
    ],
)
def test_a_damaged_chunk_is_one_line_naming_the_file_and_the_array(played, tmp_path, capsys, name, how, message):
    run_dir = tmp_path / "run"
    (run_dir / teacher_games.CHUNKS_DIR).mkdir(parents=True)
    for chunk in range(2):
        source = teacher_games.chunk_path(Path(played.run_dir), chunk)
        teacher_games.chunk_path(run_dir, chunk).write_bytes(source.read_bytes())
    path = teacher_games.chunk_path(run_dir, 1)
    with np.load(path) as npz:
        arrays = {key: npz[key] for key in npz.files}
    with path.open("wb") as file:
        np.savez(file, **damaged(arrays, name, how))
    config = small_config(tmp_path)
    with pytest.raises(CheckpointError) as raised:
        imitation.read_chunks(config)
    assert str(raised.value) == f"{str(path)!r}: {message}"
    with pytest.raises(SystemExit) as exit_info:  # the command: the chunks are there, the run goes on to read them
        imitation.main(["--run-dir", str(run_dir), "--resume", "--games", "4", "--games-per-chunk", "2",
                        "--workers", "0", "--channels", "8", "--blocks", "1", "--value-hidden", "8",
                        "--no-progress"])  # fmt: skip
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err == f"error: {str(path)!r}: {message}\n"
    assert not (run_dir / imitation.STATE_FILE).exists()


def test_a_chunk_of_float64_samples_is_trained_in_float32(played, tmp_path, capsys):
    """Chunks written by another tool in float64 (obs and outcome): read as float32 and trained on; a float64
    value beyond float32's range is refused as an infinity, naming the file and the array."""
    run_dir = tmp_path / "run"
    (run_dir / teacher_games.CHUNKS_DIR).mkdir(parents=True)
    for chunk in range(2):
        with np.load(teacher_games.chunk_path(Path(played.run_dir), chunk)) as npz:
            arrays = {key: npz[key] for key in npz.files}
        with teacher_games.chunk_path(run_dir, chunk).open("wb") as file:
            np.savez(file, **damaged(damaged(arrays, "obs", "float64"), "outcome", "float64"))
    samples = imitation.read_chunks(small_config(tmp_path))
    assert samples["obs"].dtype == samples["outcome"].dtype == np.float32
    imitation.main(["--run-dir", str(run_dir), "--resume", "--games", "4", "--games-per-chunk", "2", "--workers",
                    "0", "--channels", "8", "--blocks", "1", "--value-hidden", "8", "--epochs", "1",
                    "--no-progress"])  # fmt: skip
    assert (run_dir / imitation.STATE_FILE).exists()
    path = teacher_games.chunk_path(run_dir, 1)
    with np.load(path) as npz:
        arrays = {key: npz[key] for key in npz.files}
    arrays["obs"].flat[0] = 1e300
    with path.open("wb") as file:
        np.savez(file, **arrays)
    with pytest.raises(CheckpointError, match="array 'obs' holds non-finite values"):
        imitation.read_chunks(small_config(tmp_path))


def test_a_chunk_of_good_samples_passes(played):
    samples = imitation.read_chunks(played)
    assert len(samples["action"]) == len(samples["obs"]) > 0
    assert samples["obs"].shape[1] == get_game(played.game).obs_size


#: CPU seconds after which a pool worker is playing its chunk: importing the trainer takes about 2.3.
PLAYING_CPU_SECONDS = 4.0


def busy_seconds(process) -> float:
    """The CPU seconds ``process`` has used (0 once it is gone)."""
    try:
        times = process.cpu_times()
    except Exception:  # psutil.NoSuchProcess: it ended
        return 0.0
    return times.user + times.system


TEACHER_GAMES = {
    "imitation": (["training.alphazero.imitation", "--games", "400", "--games-per-chunk", "200", "--workers", "2"],
                  teacher_games.CHUNKS_DIR),
    "ppo cloning": (["training.ppo.trainer", "--teacher-games", "400", "--teacher-games-per-chunk", "200",
                     "--teacher-workers", "2"], "teacher/games"),
}  # fmt: skip


@pytest.mark.parametrize("trainer", TEACHER_GAMES)
def test_the_pool_workers_end_when_the_trainer_is_killed(tmp_path, trainer):
    """Chunks of 200 games at depth 6 take minutes: the workers must not play them to the end for a dead trainer."""
    psutil = pytest.importorskip("psutil")
    options, chunks_dir = TEACHER_GAMES[trainer]
    command = [sys.executable, "-m", *options, "--run-dir", str(tmp_path / "run"), "--teacher-depth", "6",
               "--no-progress"]  # fmt: skip
    with open(tmp_path / "log", "wb") as log:  # a file, not a pipe: orphans must not hold up this test
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    trainer = psutil.Process(process.pid)
    deadline = time.monotonic() + 300
    workers: list = []
    while len(workers) < 2 or min(busy_seconds(worker) for worker in workers) < PLAYING_CPU_SECONDS:
        assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "log").read_text()
        time.sleep(0.2)
        workers = [p for p in trainer.children() if "resource_tracker" not in " ".join(p.cmdline())]
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    _, alive = psutil.wait_procs(workers, timeout=20)
    assert not alive, "a pool worker outlived the killed trainer"
    assert not list((tmp_path / "run" / chunks_dir).glob("chunk-*.npz"))  # no chunk was finished
