"""Every trainer ends a bad command line, configuration or checkpoint with one line naming the file and the field
(issue 29): a config.json nested 100,000 deep, not UTF-8 or asking for 100,000 torch threads, a mangled random state,
an option too large for the machine (refused up front, before the run directory is made), a word where tyro wants a
number, a CSV log with a bad row, a write that fails on a full disk. Never a traceback, a RecursionError, a
MemoryError or a message that names nothing."""

from __future__ import annotations

import errno
import json
import signal
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.checkpoint import atomic_write  # noqa: E402
from agents.ppo.checkpoint import read_training_checkpoint  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from training import run_logs, runs  # noqa: E402
from training.alphazero import imitation  # noqa: E402
from training.alphazero import trainer as alphazero_trainer  # noqa: E402
from training.ppo import checkpoints as ppo_checkpoints  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402

MAINS = {"alphazero": alphazero_trainer.main, "imitation": imitation.main, "ppo": ppo_trainer.main}
HUGE = "1000000000000000000000"
DEEP_JSON = "[" * 100_000 + "]" * 100_000


def one_error_line(capsys, code: int, exit_info) -> str:
    assert exit_info.value.code == code
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.removeprefix("error: ").rstrip("\n")


def resume_with_config(main, run_dir: Path, text: str | bytes, capsys) -> str:
    run_dir.mkdir(exist_ok=True)
    config = run_dir / runs.CONFIG_FILE
    config.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(SystemExit) as exit_info:
        main(["--run-dir", str(run_dir), "--resume", "--no-progress"])
    return one_error_line(capsys, 2, exit_info)


@pytest.mark.parametrize("trainer", MAINS)
def test_a_config_json_nested_100000_deep_or_not_utf8_is_one_line_naming_it(tmp_path, capsys, trainer):
    config = tmp_path / "run" / runs.CONFIG_FILE
    line = resume_with_config(MAINS[trainer], tmp_path / "run", DEEP_JSON, capsys)
    assert line == f"{config} is not a readable configuration: its JSON is nested too deep"
    line = resume_with_config(MAINS[trainer], tmp_path / "run", b'{"seed": "\xe2\x28"}', capsys)
    assert line == f"{config} is not a readable configuration: not UTF-8 text (byte 10)"
    line = resume_with_config(MAINS[trainer], tmp_path / "run", b" " * (runs.MAX_CONFIG_BYTES + 1), capsys)
    assert line == f"{config} is not a readable configuration: larger than the 1,048,576 bytes it may hold"


def test_the_rllib_runs_config_is_read_the_same_way(tmp_path):
    """The RLlib trainer reads its run's config.json with the same function (its command needs Ray)."""
    (tmp_path / runs.CONFIG_FILE).write_text(DEEP_JSON)
    with pytest.raises(ValueError, match="its JSON is nested too deep"):
        runs.read_config(tmp_path)
    (tmp_path / runs.CONFIG_FILE).write_text(json.dumps({"trainer": "rllib", "run_format": 1}))
    assert runs.run_kind(tmp_path) == "rllib"


@pytest.mark.parametrize("trainer", MAINS)
def test_torch_threads_in_a_config_json_are_bounded(tmp_path, capsys, trainer):
    state = {"alphazero": "state.pt", "imitation": "games/chunk-00000.npz", "ppo": "checkpoints/last.zip"}[trainer]
    (tmp_path / "run" / state).parent.mkdir(parents=True)
    (tmp_path / "run" / state).write_bytes(b"")
    line = resume_with_config(MAINS[trainer], tmp_path / "run", json.dumps({"torch_threads": 100_000}), capsys)
    assert line == f"{tmp_path / 'run' / runs.CONFIG_FILE}: --torch-threads must be at most 256, got 100000"


@pytest.mark.parametrize(
    ("trainer", "options", "message"),
    [
        ("alphazero", ["--torch-threads", "100000"], "--torch-threads must be at most 256, got 100000"),
        ("imitation", ["--torch-threads", "100000"], "--torch-threads must be at most 256, got 100000"),
        ("ppo", ["--torch-threads", "100000"], "--torch-threads must be at most 256, got 100000"),
        ("alphazero", ["--seed", "-1"], "--seed must not be negative, got -1"),
        ("imitation", ["--seed", HUGE], f"--seed must be at most 4,294,967,295, got {HUGE}"),
        ("ppo", ["--n-steps", HUGE], f"--n-steps must be at most 1,048,576, got {HUGE}"),
        ("ppo", ["--n-envs", "1024", "--n-steps", "1048576"], "--n-envs x --n-steps must be at most 1,048,576"),
        ("ppo", ["--eval-every", HUGE], f"--eval-every must be at most 1,000,000,000,000, got {HUGE}"),
        ("alphazero", ["--workers", HUGE], f"--workers must be at most 256, got {HUGE}"),
        ("alphazero", ["--replay-size", HUGE], f"--replay-size must be at most 5,000,000, got {HUGE}"),
        ("alphazero", ["--max-plies", HUGE], f"--max-plies must be at most 1,000,000, got {HUGE}"),
        ("alphazero", ["--min-replay", "2000", "--replay-size", "1000"], "--min-replay must be at most --replay-size"),
        ("alphazero", ["--games-per-worker", "4096", "--simulations", "1000"], "--games-per-worker x --simulations"),
        ("imitation", ["--games", HUGE], f"--games must be at most 1,000,000, got {HUGE}"),
        ("imitation", ["--workers", "100000"], "--workers must be at most 256, got 100000"),
        ("alphazero", ["--seed", "abc"], "Error parsing --seed: invalid literal for int() with base 10: 'abc'; see "),
        (
            "ppo",
            ["--sed", "1"],
            "Unrecognized options: --sed, 1 (perhaps you meant --seed); see awale train ppo --help",
        ),
    ],
)
def test_an_option_beyond_what_a_machine_holds_or_unparsable_is_one_line_before_anything(
    tmp_path, capsys, trainer, options, message
):
    with pytest.raises(SystemExit) as exit_info:
        MAINS[trainer]([*options, "--run-dir", str(tmp_path / "run"), "--no-progress"])
    assert message in one_error_line(capsys, 2, exit_info)
    assert not (tmp_path / "run").exists()


def test_a_mangled_random_state_in_a_ppo_checkpoint_is_one_line(tmp_path):
    for numpy_state, kind in ((["MT19937", [], 0, 0, 0.0], "IndexError"), (["MT19937", [0] * 624, 2**70, 0, 0.0],
                                                                           "OverflowError")):  # fmt: skip
        state = {"torch": "", "numpy": numpy_state, "python": "(3, (), None)"}
        state["torch"] = ppo_checkpoints.rng_state()["torch"]
        with pytest.raises(CheckpointError, match=rf"^{tmp_path}: its random states are unreadable: {kind}: "):
            ppo_checkpoints.restore_rng_state(state, tmp_path)
    state = ppo_checkpoints.rng_state() | {"python": "(" * 100_000 + ")" * 100_000}
    with pytest.raises(CheckpointError, match="its random states are unreadable"):
        ppo_checkpoints.restore_rng_state(state, tmp_path)


def test_a_deep_json_in_a_ppo_checkpoint_is_one_line(tmp_path):
    path = tmp_path / "deep.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", DEEP_JSON)
        archive.writestr("policy.npz", b"")
    with pytest.raises(CheckpointError, match=rf"^{path}: config.json is not valid JSON: nested too deep$"):
        read_training_checkpoint(path)


def test_a_csv_log_that_is_damaged_names_the_file_and_the_column(tmp_path):
    log = run_logs.CsvLog(tmp_path / "metrics.csv", "epoch")
    log.path.write_bytes(b"epoch,loss\n1,0.5\n\xe2\x28,0.4\n")
    with pytest.raises(ValueError, match=rf"^{log.path} is not a readable CSV log: not UTF-8 text \(byte 17\)$"):
        log.keep_until(1)
    log.path.write_text("epoch,loss\n1,0.5\nx,0.4\n")
    with pytest.raises(ValueError, match=rf"^{log.path}: column 'epoch' must hold integers, got 'x'$"):
        log.keep_until(1)
    log.path.write_text("step,loss\n1,0.5\n")
    with pytest.raises(ValueError, match=rf"^{log.path} is not a readable CSV log: it lacks its column 'epoch'$"):
        log.keep_until(0)


def test_a_write_that_fails_on_a_full_disk_names_its_file(tmp_path):
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, hard))  # the kernel refuses writes past 1000 bytes
    try:
        with pytest.raises(OSError) as raised:
            atomic_write(tmp_path / "state.pt", lambda file: file.write(b"x" * 5000))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert raised.value.errno in (errno.EFBIG, errno.ENOSPC) and raised.value.filename == str(tmp_path / "state.pt")
    assert str(tmp_path / "state.pt") in str(raised.value)
    assert not list(tmp_path.iterdir())


def test_tensorboard_events_on_a_full_disk_are_one_error_naming_the_folder(tmp_path, capfd):
    """TensorBoard writes in a thread of its own: a full disk there printed that thread's traceback and the trainer's
    line did not say which files failed."""
    resource = pytest.importorskip("resource")
    writer = run_logs.tensorboard_writer(tmp_path, 0)
    writer.add_scalar("eval/win_rate", 0.5, 1)
    writer.flush()
    written = sum(path.stat().st_size for path in (tmp_path / "tb").iterdir())
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (written + 10, hard))  # room for no more events
    try:
        with pytest.raises(OSError) as raised:
            for step in range(2, 500):
                writer.add_scalar("eval/win_rate", 0.5, step)
            writer.flush()
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert raised.value.errno in (errno.EFBIG, errno.ENOSPC)
    assert raised.value.filename == f"{tmp_path / 'tb'} (TensorBoard)"
    assert "Traceback" not in capfd.readouterr().err
