"""A run is touched only by the trainer that made it (issue 29): every trainer refuses, with one line and before it
writes anything, to resume or start over a run of another trainer (AlphaZero, imitation, PPO, RLlib: every pair),
whether the run names its trainer in config.json or is a run saved before it did (told by its files and options);
AlphaZero's ``--init-from`` refuses what is not an AlphaZero network. The runs are tiny real ones (the RLlib run,
whose trainer needs Ray, is its directory's files)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from test_alphazero_training import config as alphazero_config  # noqa: E402
from test_imitation import small_config  # noqa: E402
from test_ppo_selfplay import tiny_args  # noqa: E402

from training import runs  # noqa: E402
from training.alphazero import imitation  # noqa: E402
from training.alphazero import trainer as alphazero_trainer  # noqa: E402
from training.ppo import trainer as ppo_trainer  # noqa: E402

#: The trainers that run here (the RLlib trainer needs Ray: its refusals are :func:`runs.check_run_kind`'s, tested
#: below without it, and with it in tests/ray).
MAINS = {"alphazero": alphazero_trainer.main, "imitation": imitation.main, "ppo": ppo_trainer.main}
KINDS = ("alphazero", "imitation", "ppo", "rllib")


def rllib_run(run_dir: Path) -> None:
    """The files of an RLlib run (its trainer's checkpoint directory, config.json as runs.prepare writes it)."""
    (run_dir / "checkpoint").mkdir(parents=True)
    (run_dir / "checkpoint" / "trainer.json").write_text(json.dumps({"iteration": 1, "elapsed": 1.0}))
    options = {"game": "awale16", "iterations": 1, "env_runners": 0, "seed": 0}
    (run_dir / runs.CONFIG_FILE).write_text(json.dumps({"trainer": "rllib", "run_format": 1, **options}))


@pytest.fixture(scope="module")
def made_runs(tmp_path_factory) -> dict[str, Path]:
    """A finished tiny run of each trainer."""
    root = tmp_path_factory.mktemp("runs")
    alphazero_trainer.train(alphazero_config(root / "alphazero", "--generations", "1", "--workers", "0"))
    imitation.train(small_config(root, run_dir=str(root / "imitation"), games=2, epochs=1))
    ppo_trainer.train(tiny_args(root / "ppo", total_timesteps=512, eval_every=512, checkpoint_every=512))
    rllib_run(root / "rllib")
    return {kind: root / kind for kind in KINDS}


@pytest.fixture(params=["marked", "unmarked"])
def runs_of_each(request, made_runs, tmp_path) -> dict[str, Path]:
    """Copies of the runs: as this version writes them (config.json names the trainer) or as earlier versions did."""
    copies = {}
    for kind, source in made_runs.items():
        copies[kind] = shutil.copytree(source, tmp_path / kind)
        if request.param == "unmarked":
            config = copies[kind] / runs.CONFIG_FILE
            saved = json.loads(config.read_text())
            assert saved["trainer"] == kind and saved["run_format"] == runs.RUN_FORMAT
            config.write_text(json.dumps({k: v for k, v in saved.items() if k not in runs.RUN_KEYS}))
    return copies


def snapshot(directory: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``directory``: its content's digest and modification time."""
    return {
        str(path.relative_to(directory)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("resume", [True, False], ids=["resume", "new-run"])
@pytest.mark.parametrize(("trainer", "other"), [(t, o) for t in MAINS for o in KINDS if o != t])
def test_a_trainer_refuses_another_trainers_run_with_one_line_and_writes_nothing(
    runs_of_each, capsys, trainer, other, resume
):
    run_dir = runs_of_each[other]
    before = snapshot(run_dir)
    with pytest.raises(SystemExit) as exit_info:
        MAINS[trainer](["--run-dir", str(run_dir), *(["--resume"] if resume else []), "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"error: {run_dir} holds a run of `awale train {other}`, not of `awale train {trainer}`")
    assert f"resume it with `awale train {other} --run-dir {run_dir} --resume`" in err
    assert snapshot(run_dir) == before


@pytest.mark.parametrize("other", ["alphazero", "imitation", "ppo"])
def test_the_rllib_trainer_refuses_another_trainers_run(runs_of_each, other):
    """The check the RLlib trainer makes first (its command needs Ray; tests/ray runs it whole)."""
    for resume in (True, False):
        with pytest.raises(ValueError, match=rf"holds a run of `awale train {other}`, not of `awale train rllib`"):
            runs.check_run_kind("rllib", runs_of_each[other], resume)


def test_each_run_is_told_by_its_marker_or_its_files_and_resumes_with_its_own_trainer(runs_of_each, capsys):
    for kind, run_dir in runs_of_each.items():
        assert runs.run_kind(run_dir) == kind
        runs.check_run_kind(kind, run_dir, resume=True)  # its own trainer goes on
    before = snapshot(runs_of_each["imitation"])
    imitation.main(["--run-dir", str(runs_of_each["imitation"]), "--resume", "--epochs", "2", "--no-progress"])
    saved = json.loads((runs_of_each["imitation"] / runs.CONFIG_FILE).read_text())
    assert saved["trainer"] == "imitation" and saved["epochs"] == 2 and saved["teacher_depth"] == 2
    assert {name for name in before if name.startswith("games/")} <= set(snapshot(runs_of_each["imitation"]))
    assert "network: " in capsys.readouterr().out


def test_a_run_whose_files_belong_to_two_trainers_is_refused_as_ambiguous(made_runs, tmp_path, capsys):
    mixed = shutil.copytree(made_runs["ppo"], tmp_path / "mixed")
    (mixed / runs.CONFIG_FILE).unlink()
    shutil.copy(made_runs["alphazero"] / alphazero_trainer.STATE_FILE, mixed / alphazero_trainer.STATE_FILE)
    before = snapshot(mixed)
    for main in MAINS.values():
        with pytest.raises(SystemExit):
            main(["--run-dir", str(mixed), "--resume", "--no-progress"])
        err = capsys.readouterr().err
        assert err.startswith(f"error: cannot tell which trainer made the run in {mixed}: ")
        assert "alphazero and ppo" in err and err.count("\n") == 1
    assert snapshot(mixed) == before


def test_a_run_of_a_newer_format_or_an_unknown_trainer_is_refused(made_runs, tmp_path, capsys):
    run_dir = shutil.copytree(made_runs["alphazero"], tmp_path / "run")
    config = run_dir / runs.CONFIG_FILE
    saved = json.loads(config.read_text())
    for marker, message in [
        ({"run_format": runs.RUN_FORMAT + 1}, "written by a newer version of awale_env"),
        ({"trainer": "dqn"}, "'trainer' must be one of alphazero, imitation, ppo, rllib, got 'dqn'"),
        ({"run_format": "1"}, "'run_format' must be a positive integer, got '1'"),
    ]:
        config.write_text(json.dumps(saved | marker))
        before = snapshot(run_dir)
        with pytest.raises(SystemExit):
            alphazero_trainer.main(["--run-dir", str(run_dir), "--resume", "--no-progress"])
        err = capsys.readouterr().err
        assert err.startswith(f"error: {config}: ") and message in err and err.count("\n") == 1, err
        assert snapshot(run_dir) == before


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("ppo/checkpoints/last.zip", "is a PPO checkpoint (`awale train ppo`)"),
        ("rllib", "is the directory of an `awale train rllib` run"),
        ("alphazero", "is the directory of an `awale train alphazero` run: it takes an AlphaZero network"),
        ("imitation", "is the directory of an `awale train imitation` run"),
    ],
)
def test_init_from_refuses_what_is_not_an_alphazero_network_before_making_the_run(
    made_runs, tmp_path, capsys, source, message
):
    run_dir = tmp_path / "new"
    init = made_runs["alphazero"].parent / source
    with pytest.raises(SystemExit) as exit_info:
        alphazero_trainer.main(["--run-dir", str(run_dir), "--init-from", str(init), "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --init-from {str(init)!r} {message}") and err.count("\n") == 1, err
    if source in ("alphazero", "imitation"):
        assert f"({init / alphazero_trainer.BEST_FILE})" in err
    assert not run_dir.exists()


def test_init_from_an_imitation_runs_network_starts_an_alphazero_run(made_runs, tmp_path):
    best = made_runs["imitation"] / imitation.BEST_FILE
    run = alphazero_trainer.train(
        alphazero_config(tmp_path / "az", "--generations", "1", "--workers", "0", "--init-from", str(best))
    )
    assert runs.run_kind(run.dir) == "alphazero"


def test_the_rllib_command_refuses_another_trainers_run(runs_of_each, capsys):
    pytest.importorskip("ray.rllib")
    from training.rllib import trainer as rllib_trainer

    before = snapshot(runs_of_each["alphazero"])
    with pytest.raises(SystemExit) as exit_info:
        rllib_trainer.main(["--run-dir", str(runs_of_each["alphazero"]), "--resume"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {runs_of_each['alphazero']} holds a run of `awale train alphazero`, not of ")
    assert snapshot(runs_of_each["alphazero"]) == before
