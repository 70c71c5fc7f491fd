"""Bad trainer options and missing extras end a command with one line on stderr, never a traceback or tyro's box;
the Python API raises ValueError (MissingExtraError for a missing extra). Every case fails before any training."""

from __future__ import annotations

import importlib.metadata
import json
import math
import subprocess
import sys

import pytest
from cli_runner import awale

from agents.extras import MissingExtraError, needs_extra
from training import runs
from training.alphazero import trainer as alphazero_trainer
from training.ppo import trainer as ppo_trainer


def installed(distribution: str) -> bool:
    """Whether ``distribution`` is installed (not whether ``import`` finds a folder: tests/ray is one)."""
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


HAS_RAY = installed("ray")


@pytest.mark.parametrize(
    ("trainer", "options", "named"),
    [
        ("alphazero", ["--workers", "-1"], "--workers"),
        ("alphazero", ["--learning-rate", "nan"], "--learning-rate"),
        ("alphazero", ["--game", "nope"], "--game"),
        ("imitation", ["--opening-min", "9", "--opening-max", "3"], "--opening-max must be at least"),
        ("imitation", ["--score-weight", "2"], "--score-weight must be in [0, 1]"),
        ("imitation", ["--teacher-depth", "0"], "--teacher-depth"),
        ("ppo", ["--gamma", "5"], "--gamma must be in [0, 1]"),
        ("ppo", ["--clip-range", "-1"], "--clip-range must be a finite number > 0"),
        ("ppo", ["--learning-rate", "nan"], "--learning-rate must be a finite number > 0"),
        ("ppo", ["--network", "ring", "--ring-channels", "32"], "(perhaps you meant --channels)"),  # the old name
        ("alphazero", ["--simulations", "0"], "--simulations must be a positive integer, got 0"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_code_2(tmp_path, trainer, options, named):
    done = awale("train", trainer, *options, "--run-dir", "run", cwd=tmp_path)
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0], done.stderr
    assert not (tmp_path / "run").exists()


def test_a_bad_value_in_a_resumed_runs_config_names_the_field_and_the_file(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / alphazero_trainer.STATE_FILE).write_bytes(b"")
    (run / runs.CONFIG_FILE).write_text(json.dumps({"workers": "x"}))
    done = awale("train", "alphazero", "--run-dir", str(run), "--resume", cwd=tmp_path)
    assert done.exit_code == 2, done.output
    assert done.stderr.strip() == f"error: {run / runs.CONFIG_FILE}: --workers must be an integer, got 'x'"


@pytest.mark.skipif(HAS_RAY, reason="Ray is installed: the commands run")
@pytest.mark.parametrize(
    "command",
    [
        ["train", "rllib", "--help"],
        ["arena", "--agents", "rllib:path=.", "random"],
        ["arena", "--agents", "random", "greedy", "--backend", "ray", "--games", "2"],
    ],
)
def test_a_command_needing_ray_without_it_says_what_to_install(tmp_path, command):
    done = awale(*command, cwd=tmp_path)
    assert done.exit_code == 1, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith('needs Ray: pip install "awale_env[rllib]"'), done.stderr


@pytest.mark.skipif(HAS_RAY, reason="Ray is installed: the modules run")
@pytest.mark.parametrize(
    "module",
    [
        ["training.rllib.trainer", "--help"],
        ["training.rllib.tune_sweep", "--help"],
        ["training.alphazero.trainer", "--backend", "ray", "--generations", "1", "--run-dir", "run"],
    ],
)
def test_a_module_needing_ray_run_without_it_says_what_to_install(tmp_path, module):
    """One line saying what to install, before torch loads unless the module needs it itself (seconds of CPU)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", *module], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)  # fmt: skip
    assert done.returncode == 1
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("import time:")]
    assert len(lines) == 1 and lines[0].endswith('needs Ray: pip install "awale_env[rllib]"'), done.stderr
    assert not (tmp_path / "run").exists()
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert ("torch" in imported) == (module[0] == "training.alphazero.trainer")


def test_needs_extra_keeps_the_error_of_another_missing_module():
    with pytest.raises(MissingExtraError, match=r'^--backend ray needs Ray: pip install "awale_env\[rllib\]"$'):
        with needs_extra("--backend ray"):
            raise ModuleNotFoundError("No module named 'ray.rllib'", name="ray.rllib")
    with pytest.raises(ModuleNotFoundError) as raised:
        with needs_extra("--backend ray"):
            raise ModuleNotFoundError("No module named 'numpyy'", name="numpyy")
    assert not isinstance(raised.value, MissingExtraError)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": "x"}, "--workers must be an integer, got 'x'"),
        ({"workers": True}, "--workers must be an integer, got True"),
        ({"learning_rate": math.nan}, "--learning-rate must be a finite number > 0, got nan"),
        ({"gate_threshold": 2.0}, r"--gate-threshold must be in \[0, 1\], got 2.0"),
        ({"weight_decay": math.inf}, "--weight-decay must be a finite number >= 0, got inf"),
    ],
)
def test_alphazero_config_raises_value_error(options, message):
    with pytest.raises(ValueError, match=message):
        alphazero_trainer.AlphaZeroConfig(**options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"gamma": 5.0}, r"--gamma must be in \[0, 1\], got 5.0"),
        ({"gae_lambda": -0.1}, r"--gae-lambda must be in \[0, 1\]"),
        ({"clip_range": -1.0}, "--clip-range must be a finite number > 0"),
        ({"learning_rate": math.nan}, "--learning-rate must be a finite number > 0, got nan"),
        ({"ent_coef": math.inf}, "--ent-coef must be a finite number >= 0"),
        ({"vf_coef": -1.0}, "--vf-coef must be a finite number >= 0"),
        ({"max_grad_norm": 0.0}, "--max-grad-norm must be a finite number > 0"),
        ({"pool_random": 0.0, "pool_greedy": 0.0, "pool_snapshots": 0.0}, "must not all be 0"),
        ({"recent_bias": 0.0}, r"--recent-bias must be in \(0, 1\]"),
        ({"n_envs": True}, "--n-envs must be an integer, got True"),
    ],
)
def test_ppo_train_raises_value_error_before_writing_anything(tmp_path, options, message):
    run = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        ppo_trainer.train(ppo_trainer.Args(run_dir=str(run), progress=False, **options))
    assert not run.exists()


def test_options_are_declared_once_with_their_bounds_on_their_fields():
    """Every trainer starts with the shared run options, and those with a ring network share its options; every
    numeric option carries its bounds on its field (tyro metadata, or for AlphaZero's search settings the agents'
    :func:`agents.bounds.setting`), which the checks apply and --help shows."""
    import dataclasses
    import typing

    from agents.bounds import field_bounds
    from training.alphazero.config import AlphaZeroConfig
    from training.alphazero.imitation import ImitationConfig
    from training.options import NetworkOptions, RunOptions, hints
    from training.ppo.config import Args

    shared = [field.name for field in dataclasses.fields(RunOptions)]
    for config_type in (AlphaZeroConfig, ImitationConfig, Args):
        assert issubclass(config_type, RunOptions) and issubclass(config_type, NetworkOptions)
        types = typing.get_type_hints(config_type)
        numbers = {name for name, hint in types.items() if hint in (int, float, int | None, float | None)}
        bounded = set(hints(config_type)) | set(field_bounds(config_type))
        assert numbers <= bounded, numbers - bounded
        assert [field.name for field in dataclasses.fields(config_type)][: len(shared)] == shared
    with pytest.raises(ValueError, match="--games-per-worker must be at most 4,096, got 5000"):
        AlphaZeroConfig(games_per_worker=5000)
    with pytest.raises(ValueError, match="--channels must be a positive integer, got 0"):
        ImitationConfig(channels=0)
    with pytest.raises(ValueError, match=r"--weight-decay must be a finite number >= 0, got -1"):
        ImitationConfig(weight_decay=-1)
    assert "(default: 128; from 1 to 4096)" in hints(AlphaZeroConfig)["games_per_worker"]("128")


def test_help_shows_each_option_s_bounds(tmp_path):
    done = awale("train", "imitation", "--help", cwd=tmp_path)
    text = " ".join(done.stdout.replace("│", " ").split())
    assert done.exit_code == 0 and "(default: 6; from 1 to" in text and "(default: 0; from 0 to 4294967295)" in text
    assert "(default: runs/imitation-<game>)" in text


def test_help_shows_the_search_settings_bounds_and_each_help_as_one_paragraph(tmp_path):
    """AlphaZero's search settings declare their bounds in the agents' layer (no tyro there); --help shows them as it
    shows the trainer's own, and a help wrapped over lines in the source reads as one paragraph."""
    wide = {"COLUMNS": "400"}  # no help wraps: a break in one is the source's
    done = awale("train", "alphazero", "--help", cwd=tmp_path, env=wide)
    text = " ".join(done.stdout.replace("│", " ").split())
    assert done.exit_code == 0 and "(default: runs/alphazero-<game>)" in text
    for shown in ("(default: 100; from 1 to 1000000)", "(default: 1.5; a finite number > 0)",
                  "(default: 16; from 1 to 256)", "(default: 50.0; in [0, 1000000])"):  # fmt: skip
        assert shown in text, shown
    wrapped = "sequential halving over the simulations, completed Q-values"
    assert any(wrapped in line for line in done.stdout.splitlines())


#: Ray's modules as empty stand-ins, for a process that only imports them (the sweep refuses its options before Ray
#: is used): each attribute is a new class, ``ray.remote`` a decorator that changes nothing.
STAND_IN_RAY = """
import importlib, importlib.abc, importlib.machinery, sys, types

class Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "tune":
            return importlib.import_module(self.__name__ + ".tune")
        if name == "remote":
            return lambda *args, **kwargs: (lambda function: function)
        value = type(name, (), {"__init__": lambda self, *args, **kwargs: None})
        setattr(self, name, value)
        return value

class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "ray":
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        module = Stub(spec.name)
        module.__path__ = []
        return module
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, Finder())
"""


#: Bad options of the sweep and the line that refuses each.
SWEEP_REFUSALS = [
    (["--game", "nope"], "error: --game must be one of awale16, "),
    (["--seed", "-1"], "error: --seed must not be negative, got -1"),
    (["--train-batch-size", "0"], "error: --train-batch-size must be a positive integer, got 0"),
    (["--iterations", "7"], "error: --iterations must be a positive multiple of --eval-every (5), got 7"),
    (["--seed", "x"], "error: Error parsing --seed: invalid literal"),
]
#: The sweep's ``main`` on each command line of argv[1] (JSON), each in a folder of its own under argv[2], its exit
#: code and standard error printed as JSON; then the last command line again as the process's own, uncaught.
SWEEP_EACH = """
import contextlib, io, json, os, sys
from training.rllib.tune_sweep import main
refusals = []
for n, options in enumerate(json.loads(sys.argv[1])):
    os.chdir(os.path.join(sys.argv[2], str(n)))
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        try:
            main(options)
        except SystemExit as exit:
            refusals.append([exit.code, printed.getvalue()])
        else:
            refusals.append([0, printed.getvalue()])
print(json.dumps(refusals), flush=True)
main(options)
"""


def test_the_tune_sweep_refuses_a_bad_option_in_one_line_before_ray_starts(tmp_path):
    """The sweep checks its options as the RLlib trainer does (and tyro's refusals are one line too), before it
    connects to Ray: Ray's modules are stand-ins here when it is not installed. One process tries every bad command
    line (importing the sweep is most of a process's seconds), the last one as its own command line."""
    for n in range(len(SWEEP_REFUSALS)):
        (tmp_path / str(n)).mkdir()
    script = ("" if HAS_RAY else STAND_IN_RAY) + SWEEP_EACH
    argv = json.dumps([options for options, _ in SWEEP_REFUSALS])
    done = subprocess.run([sys.executable, "-c", script, argv, str(tmp_path)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and done.stdout.strip(), done.stderr
    refusals = json.loads(done.stdout)
    for (options, message), (code, printed), n in zip(SWEEP_REFUSALS, refusals, range(len(refusals)), strict=True):
        assert code == 2 and printed.startswith(message) and len(printed.splitlines()) == 1, (options, printed)
        assert not list((tmp_path / str(n)).iterdir()), options  # no storage made
    assert done.stderr == refusals[-1][1]  # the last one again, as the program's own one line
