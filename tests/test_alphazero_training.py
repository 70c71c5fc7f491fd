"""A tiny end-to-end AlphaZero run: self-play in a worker process, training, gating, references, checkpoints, resume,
and the run directory's conventions (resume options, cumulative time, progress in a log, Ctrl-C)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from agents.alphazero.network import load_network, read_checkpoint  # noqa: E402
from training.alphazero.trainer import AlphaZeroConfig, Run, main, resolved, train  # noqa: E402

TINY_RUN = [
    "--channels", "8", "--blocks", "1", "--value-hidden", "8", "--simulations", "6", "--games-per-worker", "6",
    "--moves-per-generation", "61", "--max-plies", "60", "--min-replay", "20", "--batch-size", "16",
    "--sample-reuse", "0.5", "--gate-every", "1", "--gate-games", "4", "--gate-simulations", "4",
    "--reference-every", "0", "--no-progress", "--seed", "3",
]  # fmt: skip


def config(run_dir, *args: str) -> AlphaZeroConfig:
    import tyro

    return tyro.cli(AlphaZeroConfig, args=[*TINY_RUN, "--run-dir", str(run_dir), *args])


def weights(path):
    return read_checkpoint(path)


def assert_same(got, saved, where: str = "") -> None:
    """``got`` equals ``saved`` exactly: tensors, numbers, strings and the dicts and lists that hold them."""
    if isinstance(saved, dict):
        assert set(got) == set(saved), where
        for key in saved:
            assert_same(got[key], saved[key], f"{where}.{key}")
    elif isinstance(saved, (list, tuple)):
        assert len(got) == len(saved), where
        for i, (item, saved_item) in enumerate(zip(got, saved)):
            assert_same(item, saved_item, f"{where}[{i}]")
    elif isinstance(saved, torch.Tensor):
        torch.testing.assert_close(torch.as_tensor(got), saved, rtol=0, atol=0, msg=where)
    else:
        assert got == saved, where


def metrics(run_dir) -> list[dict[str, str]]:
    with (run_dir / "metrics.csv").open() as file:
        return list(csv.DictReader(file))


def test_end_to_end_run_is_deterministic_and_resumes(tmp_path):
    in_worker = train(config(tmp_path / "a", "--generations", "2", "--workers", "1"))
    in_process = train(
        config(tmp_path / "b", "--generations", "2", "--workers", "0", "--reference-every", "2",
               "--references", "greedy", "--reference-games", "2", "--reference-simulations", "4")
    )  # fmt: skip
    assert in_worker.totals["games"] > 0 and in_worker.totals["steps"] > 0
    # one worker process or self-play in the learner: the same games, the same training, the same networks
    assert in_worker.totals == in_process.totals
    a, b = weights(tmp_path / "a" / "state.pt"), weights(tmp_path / "b" / "state.pt")
    for key in a["state_dict"]:
        torch.testing.assert_close(a["state_dict"][key], b["state_dict"][key], rtol=0, atol=0)
    rows = metrics(tmp_path / "b")
    assert [int(r["generation"]) for r in rows] == [1, 2]
    assert rows[1]["gate_score"] != ""  # a gating match was played once there were training steps
    assert 0.0 <= float(rows[1]["vs_greedy"]) <= 1.0
    assert load_network(tmp_path / "b" / "best.pt").config.channels == 8
    assert any((tmp_path / "b" / "tb").glob("events.out.tfevents.*"))  # TensorBoard in tb/, as every trainer

    # a resume may run longer and with other workers: honoured; its time goes on from the checkpoint's
    payload = torch.load(tmp_path / "a" / "state.pt", weights_only=True)
    torch.save({**payload, "elapsed": 1000.0}, tmp_path / "a" / "state.pt")  # as if it had trained 1000 s
    # it restores everything a generation ends with: both networks, the optimizer, both random generators, the replay
    # buffer and the counters
    restored = Run(resolved(config(tmp_path / "a", "--generations", "3", "--workers", "0", "--resume")))
    restored.writer.close()
    assert_same(restored.candidate.state_dict(), payload["state_dict"], "state_dict")
    assert_same(restored.best.state_dict(), payload["best_state_dict"], "best_state_dict")
    assert_same(restored.optimizer.state_dict(), payload["optimizer"], "optimizer")
    assert_same(restored.buffer.state(), payload["replay"], "replay")
    assert payload["replay"]["value"].numel() > 0 and payload["optimizer"]["state"]  # there was something to restore
    assert restored.rng.bit_generator.state == json.loads(payload["rng"])
    assert torch.equal(torch.get_rng_state(), payload["torch_rng"])
    assert (restored.generation, restored.best_generation, restored.totals) == (2, payload["best_generation"],
                                                                                payload["totals"])  # fmt: skip
    assert restored.clock.elapsed() >= 1000.0
    resumed = train(config(tmp_path / "a", "--generations", "3", "--workers", "0", "--resume"))
    assert resumed.generation == 3
    assert resumed.totals["games"] >= in_worker.totals["games"]
    rows = metrics(tmp_path / "a")
    assert [int(r["generation"]) for r in rows] == [1, 2, 3]
    assert float(rows[1]["elapsed_s"]) < 1000 <= float(rows[2]["elapsed_s"])
    saved = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (saved["generations"], saved["workers"]) == (3, 0)


def test_best_pt_records_the_search_it_was_trained_with_and_the_agent_plays_by_it(tmp_path):
    """The reference matches play ``best.pt`` through the agent: they measure the network as it was trained."""
    from agents import make

    train(config(tmp_path / "run", "--generations", "1", "--workers", "0", "--c-puct", "2.5", "--fpu-reduction", "0"))
    search = read_checkpoint(tmp_path / "run" / "best.pt")["search"]
    assert (search["simulations"], search["c_puct"], search["fpu_reduction"]) == (6, 2.5, 0.0)
    agent = make(f"alphazero:path={tmp_path / 'run' / 'best.pt'},simulations=4")
    assert (agent.config.c_puct, agent.config.fpu_reduction, agent.config.simulations) == (2.5, 0.0, 4)


def test_cli_errors_are_one_line_and_a_resume_refuses_what_it_may_not_change(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*TINY_RUN, "--run-dir", str(tmp_path / "none"), "--resume", "--workers", "0"])
    assert exit_info.value.code == 1  # a file that cannot be read, as in the awale command
    assert capsys.readouterr().err.startswith("error: no checkpoint to resume from: ")
    run = tmp_path / "run"
    train(config(run, "--generations", "1", "--workers", "0"))
    with pytest.raises(SystemExit):
        main([*TINY_RUN, "--run-dir", str(run), "--workers", "0"])
    assert "already holds a run: add --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["--run-dir", str(run), "--resume", "--channels", "16"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --channels cannot change when resuming") and err.count("\n") == 1
    assert "a resume may change only --generations, --workers, " in err


def test_a_run_that_fails_to_start_leaves_no_directory_behind(tmp_path, monkeypatch):
    """Self-play that cannot start (no Ray cluster at --address, an actor that cannot start on its node: here a pool
    that raises as they do) ends the run before its first checkpoint: the run directory it made is removed, one
    that was there before is kept."""
    import training.alphazero.trainer

    def no_cluster(*args, **kwargs):
        raise ConnectionError("no Ray cluster answers at 10.0.0.5:6379")

    monkeypatch.setattr(training.alphazero.trainer, "SelfPlayPool", no_cluster)
    for run in (tmp_path / "new" / "run", tmp_path):
        with pytest.raises(ConnectionError, match="no Ray cluster"):
            train(config(run, "--generations", "1", "--workers", "0"))
    assert not (tmp_path / "new" / "run").exists()
    assert (tmp_path / "new").is_dir() and tmp_path.is_dir()  # only the run directory itself goes


def test_a_generation_that_finishes_no_game_says_so_in_plain_lines(tmp_path, capsys):
    """Games of up to 60 plies, 5 moves per generation: the first generations finish no game and train nothing."""
    short = [*TINY_RUN, "--moves-per-generation", "5", "--generations", "2", "--workers", "0", "--progress"]
    main([*short, "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err  # stderr is no terminal here: a plain line per generation
    assert "\r" not in err
    lines = err.splitlines()
    assert lines[0].startswith("alphazero: 1/2 generations (50%), ")
    assert "generation 1: no game finished (a game outlasts the 5 moves of a generation)" in lines[0]
    assert "no training yet (0 of the 20 samples it needs)" in lines[0]
    rows = metrics(tmp_path / "run")
    assert rows[0]["generation_games"] == "0" and rows[0]["mean_game_plies"] == rows[0]["policy_loss"] == ""


def test_the_generation_that_fills_the_buffer_says_training_starts_next(tmp_path, capsys):
    """A generation's steps are decided before its games land: the first fills the buffer and trains nothing."""
    main([*TINY_RUN, "--generations", "1", "--workers", "0", "--progress", "--run-dir", str(tmp_path / "run")])
    (line,) = capsys.readouterr().err.splitlines()
    samples = int(metrics(tmp_path / "run")[0]["samples"])
    assert samples >= 20
    assert f"no training yet ({samples:,} samples, 20 needed: next generation)" in line


def test_ctrl_c_stops_a_run_and_its_workers_with_one_line(tmp_path):
    run = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "training.alphazero.trainer", *TINY_RUN, "--run-dir", str(run), "--generations", "1000",
         "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not (run / "state.pt").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # say where it hangs: faulthandler dumps every thread's stack on SIGABRT
        process.send_signal(signal.SIGABRT)
        threads = process.communicate(timeout=60)[1][-8000:]
        pytest.fail(f"no exit 120 s after Ctrl-C; its threads:\n{threads}")
    assert process.returncode == 130
    assert err == f"stopped; resume with: awale train alphazero --run-dir {run} --resume\n"


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="gate_games must be even"):
        AlphaZeroConfig(gate_games=5)
    for options, message in (
        ({"simulations": 0}, "--simulations must be a positive integer, got 0"),
        ({"simulations": 10**7}, "--simulations must be at most 1,000,000, got 10000000"),
        ({"search": "uct"}, "--search must be one of puct, gumbel, got 'uct'"),
        ({"c_puct": 0.0}, r"--c-puct must be a finite number > 0, got 0.0"),
        ({"noise_fraction": 1.5}, r"--noise-fraction must be in \[0, 1\], got 1.5"),
        ({"leaves": True}, "--leaves must be an integer"),
    ):
        with pytest.raises(ValueError, match=message):
            AlphaZeroConfig(**options)
    assert AlphaZeroConfig(search="gumbel", c_puct=2.0).search_config(8).to_dict() == {
        **AlphaZeroConfig().search_config().to_dict(),
        "search": "gumbel",
        "c_puct": 2.0,
        "simulations": 8,
    }


def test_a_run_can_start_from_a_checkpoints_network(tmp_path):
    """--init-from: the run's first networks are the checkpoint's (no training step in generation 1: the replay
    buffer is still filling); a checkpoint of another shape or game is refused; a resume does not read it again."""
    from agents.alphazero.network import CheckpointError, NetworkConfig, RingNet, save_checkpoint

    torch.manual_seed(11)
    start = RingNet(NetworkConfig(channels=8, blocks=1, value_hidden=8))
    save_checkpoint(tmp_path / "start.pt", start)
    run = train(
        config(tmp_path / "run", "--generations", "1", "--workers", "0", "--init-from", str(tmp_path / "start.pt"))
    )
    assert run.totals["steps"] == 0
    for name in ("state.pt", "best.pt"):
        saved = weights(tmp_path / "run" / name)["state_dict"]
        for key, value in start.state_dict().items():
            torch.testing.assert_close(saved[key], value, rtol=0, atol=0)
    (tmp_path / "start.pt").unlink()
    resume = ("--generations", "2", "--workers", "0", "--resume", "--init-from", str(tmp_path / "start.pt"))
    assert train(config(tmp_path / "run", *resume)).generation == 2

    save_checkpoint(tmp_path / "wide.pt", RingNet(NetworkConfig(channels=16, blocks=1, value_hidden=8)))
    with pytest.raises(CheckpointError, match="give its --channels, --blocks and --value-hidden"):
        train(
            config(tmp_path / "wide", "--generations", "1", "--workers", "0", "--init-from", str(tmp_path / "wide.pt"))
        )
    save_checkpoint(tmp_path / "oware.pt", RingNet(NetworkConfig(channels=8, blocks=1, value_hidden=8, game="oware")))
    with pytest.raises(CheckpointError, match="plays oware only"):
        train(
            config(
                tmp_path / "other", "--generations", "1", "--workers", "0", "--init-from", str(tmp_path / "oware.pt")
            )
        )
