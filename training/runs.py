"""Run directories, shared by every trainer so that they follow one convention.

* ``--run-dir DIR`` names the run's directory (default ``runs/<trainer>-<game>``, e.g. ``runs/ppo-awale16``) and
  ``--resume`` continues the run saved there from its last checkpoint. A new run refuses a directory that already
  holds one.
* ``DIR/config.json`` holds the run's options, and which trainer made the run and in which format (:data:`RUN_KEYS`):
  a trainer refuses a directory holding another trainer's run (a resume or a new run) with one line, before it
  writes anything; a run saved before the marker existed is told by its files and options (:func:`run_kind`). A resume
  starts from the options: options given on its command line replace
  them, but only those of the trainer's :attr:`Trainer.resumable` (the run's length, workers, progress display,
  evaluations...); changing any other is refused with a one-line message that lists the ones that may change.
* Every refusal (a bad option, a change a resume may not make, a resume's damaged checkpoint) comes before anything
  in the run directory is written or created (:func:`check_start`, the trainer's reading, then :func:`prepare`): a
  refused command leaves the directory exactly as it was, and a new run's is not made.
* ``DIR/tb/`` holds the TensorBoard events (``tensorboard --logdir DIR/tb``, or ``--logdir runs`` for every run);
  a CSV per run holds its metrics (:mod:`training.run_logs`). A resumed run first forgets what the stopped one logged
  after its last checkpoint, in both.
* Every file of a run is written atomically (:func:`agents.checkpoint.atomic_write`): after a kill or a full disk
  it is the old file or the new one, and a resume first removes the temporary files a killed run left.
* Times are cumulative over resumes, and progress is a bar on a terminal and plain periodic lines in a log
  (:mod:`training.run_logs`). Ctrl-C stops a trainer's command with one line saying how to resume, exit code 130
  (SIGTERM: 143).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import importlib.util
import io
import json
import math
import re
import shlex
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tyro

from agents.checkpoint import atomic_write
from agents.extras import MissingExtraError
from agents.registry import format_spec
from awale_env.errors import CheckpointError
from awale_env.games import get_game
from competition import interrupts
from competition.fast_exit import skip_final_collections
from training import option_help

CONFIG_FILE = "config.json"
#: The keys of config.json that say which trainer made the run, and the format of its directory; never an option.
RUN_KEYS = ("trainer", "run_format")
#: The format of the run directories this version writes and reads; a higher one was written by a newer version.
RUN_FORMAT = 1
#: The most bytes a run's config.json may hold (it holds kilobytes of options): a larger one is refused unread.
MAX_CONFIG_BYTES = 1 << 20
#: Bounds of the options every trainer shares: seeds as numpy's and torch's generators take them, threads a machine
#: can start, plies far beyond any game's limit and counts (generations, moves...) far beyond any run.
MAX_SEED = 2**32 - 1
MAX_TORCH_THREADS = 256
MAX_WORKERS = 256
MAX_PLIES = 1_000_000
MAX_COUNT = 10**12
#: What restoring a checkpoint's saved training state (counters, optimizer, random generators' states) raises when an
#: entry is missing or mangled: a resume turns them into one CheckpointError naming the file.
MANGLED_STATE = (
    KeyError, TypeError, ValueError, RuntimeError, AttributeError, IndexError, OverflowError, RecursionError,
)  # fmt: skip
#: The largest counter (generation, epoch, moves played...) a checkpoint may hold: far beyond any run, and within
#: the 64-bit integers that seeding and TensorBoard's steps take.
MAX_SAVED_COUNT = 2**62
#: Fields of every trainer's configuration that say where the run is and how it starts, not what it is.
PLACE_FIELDS = ("run_dir", "resume")


def default_run_dir(trainer: str, game: str) -> str:
    """Where a run goes when ``--run-dir`` is not given."""
    return f"runs/{trainer}-{game}"


def game_defaults(config: Any, trainer: str) -> dict[str, Any]:
    """The run directory and ply limit of a trainer's ``config`` (its ``game``, ``run_dir`` and ``max_plies``), its
    game's defaults where it leaves them out: for ``dataclasses.replace``."""
    game = get_game(config.game)
    return {
        "run_dir": config.run_dir or default_run_dir(trainer, game.name),
        "max_plies": game.default_max_plies if config.max_plies is None else config.max_plies,
    }


def play_spec(agent: str, path: str | Path) -> str:
    """The spec of ``agent`` playing the weights at ``path`` (:func:`agents.format_spec`: quoted where the path needs
    it, e.g. a Tune trial folder holding commas), quoted for a shell: what a trainer prints at its end."""
    return shlex.quote(format_spec(agent, {"path": str(path)}))


def computed_default(text: str, metavar: str) -> Any:
    """tyro metadata for an option whose default (None) is computed when the run starts: ``--help`` shows ``text`` as
    its default instead of ``None``, and ``metavar`` instead of ``{None}|...``."""
    return tyro.conf.arg(metavar=metavar, help_behavior_hint=option_help.Hint(text))


def resume_option(resumable: tuple[str, ...]) -> Any:
    """tyro metadata of every trainer's ``--resume`` flag: its help lists the options a resume may change."""
    changes = ", ".join(option(name) for name in resumable)
    return tyro.conf.arg(help=f"continue the run in --run-dir from its last checkpoint; a resume may change {changes}")


def option(name: str) -> str:
    """The command-line spelling of a configuration field."""
    return "--" + name.replace("_", "-")


def tag(text: str) -> str:
    """``text`` usable as a TensorBoard tag or column name (no spaces, colons, ...): ``alphabeta:depth=4`` ->
    ``alphabeta_depth_4``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


# --- configuration -------------------------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def save_config(run_dir: Path, config: Any, trainer: str) -> None:
    """Write the run's options to ``run_dir/config.json`` (where the run is and how it started left out), marked as
    a run of ``trainer`` in this version's :data:`RUN_FORMAT`."""
    options = {k: v for k, v in dataclasses.asdict(config).items() if k not in PLACE_FIELDS}
    text = json.dumps({"trainer": trainer, "run_format": RUN_FORMAT, **options}, indent=2) + "\n"
    atomic_write(run_dir / CONFIG_FILE, lambda file: file.write(text.encode()))


def read_json(path: Path, what: str, max_bytes: int = MAX_CONFIG_BYTES) -> Any:
    """The JSON value of the file ``path``; ValueError naming the file (``what`` it should be) for one larger than
    ``max_bytes`` (refused unread), not UTF-8, not JSON, or nested too deep for Python to read."""
    with open(path, "rb") as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{path} is not a readable {what}: larger than the {max_bytes:,} bytes it may hold")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not a readable {what}: not UTF-8 text (byte {error.start})") from None
    except ValueError as error:
        raise ValueError(f"{path} is not a readable {what}: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a readable {what}: its JSON is nested too deep") from None


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """The options saved in ``run_dir/config.json`` (without :data:`RUN_KEYS`), None without one; ValueError for a
    file that is not a JSON object."""
    saved = read_run_file(Path(run_dir))
    return None if saved is None else {k: v for k, v in saved.items() if k not in RUN_KEYS}


def read_run_file(run_dir: Path) -> dict[str, Any] | None:
    """``run_dir/config.json`` as saved (options and :data:`RUN_KEYS`), None without one."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        return None
    saved = read_json(path, "configuration")
    if not isinstance(saved, dict):
        raise ValueError(f"{path} is not a readable configuration: not a JSON object")
    return saved


# --- which trainer made a run --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunKind:
    """How to tell a run of one trainer made before config.json named it: ``files``, glob patterns of the files
    only its runs hold, and ``options``, options only its configuration has."""

    files: tuple[str, ...]
    options: tuple[str, ...]


#: Every trainer's runs (the RLlib trainer's included: its module needs Ray, this table does not). AlphaZero and
#: imitation runs both hold ``state.pt`` and ``best.pt``; only imitation runs hold ``games/``.
RUN_KINDS = {
    "alphazero": RunKind(("state.pt", "best.pt", "replay.npz"), ("gate_every", "simulations", "replay_size")),
    "imitation": RunKind(("games",), ("games_per_chunk", "opening_min", "score_weight")),
    "ppo": RunKind(("checkpoints/last.zip", "checkpoints/step_*.zip"), ("total_timesteps", "n_steps")),
    "rllib": RunKind(("checkpoint", "checkpoint.old"), ("env_runners", "iterations")),
}


def run_kind(run_dir: Path) -> str | None:
    """The trainer that made the run in ``run_dir`` (None: the directory holds no run). Its config.json says so; a
    run made before it did is told by its files and options, and ValueError says so when they are ambiguous (or
    when config.json is unreadable or from a newer version)."""
    saved = read_run_file(run_dir)
    path = run_dir / CONFIG_FILE
    if saved is not None and "trainer" in saved:
        trainer, version = saved["trainer"], saved.get("run_format")
        if not isinstance(trainer, str) or trainer not in RUN_KINDS:
            raise ValueError(f"{path}: 'trainer' must be one of {', '.join(RUN_KINDS)}, got {excerpt(trainer)}")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ValueError(f"{path}: 'run_format' must be a positive integer, got {excerpt(version)}")
        if version > RUN_FORMAT:
            raise ValueError(
                f"{path}: the run is of format {version}, written by a newer version of awale_env (this one reads "
                f"format {RUN_FORMAT}): upgrade awale_env to go on with it"
            )
        return trainer
    by_files = {name for name, kind in RUN_KINDS.items() if any(next(run_dir.glob(p), None) for p in kind.files)}
    if "imitation" in by_files:  # an imitation run holds AlphaZero's files too
        by_files.discard("alphazero")
    by_options = {name for name, kind in RUN_KINDS.items() if saved and any(key in saved for key in kind.options)}
    found = by_files | by_options
    if len(found) == 1:
        return found.pop()
    if found:
        raise ValueError(
            f"cannot tell which trainer made the run in {run_dir}: it holds files or options of "
            f"{' and '.join(sorted(found))} runs (and no config.json naming its trainer); choose another --run-dir"
        )
    return None


def check_run_kind(trainer: str, run_dir: Path, resume: bool) -> None:
    """ValueError (one line) if ``run_dir`` holds a run of another trainer than ``trainer``: neither a resume nor a
    new run may touch it."""
    kind = run_kind(run_dir)
    if kind is None or kind == trainer:
        return
    action = "resumed" if resume else "overwritten"
    raise ValueError(
        f"{run_dir} holds a run of `awale train {kind}`, not of `awale train {trainer}`: it cannot be {action} by "
        f"this trainer; resume it with `awale train {kind} --run-dir {run_dir} --resume`, or choose another --run-dir"
    )


def from_saved(
    config_type: type,
    saved: dict[str, Any],
    source: Path | str = CONFIG_FILE,
    check: Callable[[Any], Any] | None = None,
    **place: Any,
) -> Any:
    """The configuration of saved options (fields the dataclass no longer has are dropped), at ``place``; a saved
    value of the wrong type (``"workers": "x"``) or refused by ``check`` (a trainer's ``resolve``: out of bounds) is
    a ValueError naming the option and ``source``."""
    names = {f.name for f in dataclasses.fields(config_type)} - set(PLACE_FIELDS)
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in names}
    try:
        config = config_type(**options, **place)
        check_types(config)
        if check is not None:
            check(config)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    return config


# --- checking options ----------------------------------------------------------------------------------------------

#: True while tyro builds a configuration from the command line: a configuration's ``__post_init__`` then leaves its
#: checks to :func:`parse`, which runs them once tyro is done, so that a bad option is one line ``error: ...`` rather
#: than tyro's box (tyro catches what ``__post_init__`` raises).
_parsing = contextvars.ContextVar("parsing", default=False)


def parsing() -> bool:
    """Whether tyro is building the configuration (see :data:`_parsing`)."""
    return _parsing.get()


def _type_name(hint: Any) -> str:
    """How a message names the values of the type ``hint``."""
    names = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string", type(None): "none"}
    if hint in names:
        return names[hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(arg) for arg in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return f"a list of {_type_name(typing.get_args(hint)[0]).removeprefix('an ').removeprefix('a ')}s"
    return str(hint)


def _has_type(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` (bool is not a number, a float is finite; a tuple may be a list).
    Types other than those of the trainers' options are not checked."""
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str)
    if hint is type(None):
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_has_type(value, arg) for arg in args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return isinstance(value, (tuple, list)) and all(_has_type(item, args[0]) for item in value)
    return True


def excerpt(value: Any, most: int = 80) -> str:
    """``repr(value)``, cut to ``most`` characters: what a message quotes of a value read from a file."""
    text = repr(value)
    return text if len(text) <= most else f"{text[: most - 5]}...{text[-2:]}"


def saved_count(value: Any, field: str, source: str) -> int:
    """A counter of a checkpoint's training state (``field``: its name in the file) as an int; CheckpointError naming
    ``source`` and the field for anything but an integer in [0, :data:`MAX_SAVED_COUNT`] (a negative generation would
    end in numpy's seeding, a huge one in TensorBoard's writer, neither saying which file and field)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value <= MAX_SAVED_COUNT:
        raise CheckpointError(f"{source}: field {field!r} of the training state must be an integer in [0, 2**62], "
                              f"got {excerpt(value)}")  # fmt: skip
    return int(value)


def check_types(config: Any) -> None:
    """ValueError naming the first option of the dataclass ``config`` whose value is not of the field's type."""
    hints = typing.get_type_hints(type(config))
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if not _has_type(value, hints[field.name]):
            raise ValueError(f"{option(field.name)} must be {_type_name(hints[field.name])}, got {excerpt(value)}")


@dataclass(frozen=True)
class Trainer:
    """What the shared command line needs to know about one trainer.

    ``config_type`` is its dataclass of options (with ``run_dir: str | None``, ``resume: bool`` and ``game: str``);
    ``resolve`` returns a configuration with the game's defaults filled in (``run_dir`` included) or raises
    ValueError for bad options; ``checkpoint`` is the file, relative to the run directory, that a resumable run
    holds; ``resumable`` the options a resume may change; ``saved`` reads a run's saved options (default: its
    ``config.json``); ``other_checkpoints`` are glob patterns of further checkpoint files a run may hold (a resume
    may go on from one of them when ``checkpoint`` is missing or damaged).
    """

    name: str
    config_type: type
    resolve: Callable[[Any], Any]
    train: Callable[[Any], Any]
    checkpoint: str
    resumable: tuple[str, ...]
    saved: Callable[[Path], dict[str, Any] | None] = read_config
    other_checkpoints: tuple[str, ...] = ()

    def checkpoints(self, run_dir: Path) -> list[Path]:
        """The checkpoint files the run in ``run_dir`` holds (complete or not)."""
        main = [run_dir / self.checkpoint] if (run_dir / self.checkpoint).exists() else []
        return main + sorted(path for pattern in self.other_checkpoints for path in run_dir.glob(pattern))

    @property
    def command(self) -> str:
        """The command that runs this trainer (also what ``--help`` shows as its usage)."""
        return trainer_command(self.name)


def trainer_command(name: str) -> str:
    """The command that runs the trainer ``name``."""
    return f"awale train {name}"


def check_resume(trainer: Trainer, config: Any, saved: dict[str, Any]) -> None:
    """ValueError (one line) if ``config`` changes a saved option that a resume may not change."""
    allowed = ", ".join(option(name) for name in trainer.resumable)
    for name, value in saved.items():
        if name in PLACE_FIELDS or name in trainer.resumable or not hasattr(config, name):
            continue
        now = plain(getattr(config, name))
        if now != value:
            raise ValueError(
                f"{option(name)} cannot change when resuming (the run in {config.run_dir} has {value!r}, got {now!r}); "
                f"a resume may change only {allowed}"
            )


def remove_unfinished(trainer: Trainer, run_dir: Path) -> None:
    """Remove the temporary files (``*.tmp``, :func:`agents.checkpoint.atomic_write`) a killed run was writing in its
    directory and beside its checkpoints."""
    patterns = (trainer.checkpoint, *trainer.other_checkpoints)
    for folder in {run_dir, *((run_dir / pattern).parent for pattern in patterns)}:
        for unfinished in folder.glob("*.tmp"):
            unfinished.unlink()


def check_start(trainer: Trainer, config: Any) -> tuple[Any, Path]:
    """Check the run directory of ``config`` (resolved by the trainer) without writing anything in it; return the
    resolved configuration and the directory. FileExistsError for a new run in a directory holding one,
    FileNotFoundError for a resume without a checkpoint, ValueError for a change a resume may not make.

    A trainer then reads and checks what its run starts from (a resume's checkpoint, an existing file it goes on
    with) and only then calls :func:`prepare`: every refusal comes before anything in the directory is written or
    created, so a refused command leaves it exactly as it was (a resume may be run again as it was)."""
    config = trainer.resolve(config)
    run_dir = Path(config.run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise NotADirectoryError(f"--run-dir {run_dir} is a file; a run directory holds the run's files")
    check_run_kind(trainer.name, run_dir, config.resume)
    if config.resume:
        if not trainer.checkpoints(run_dir):
            raise FileNotFoundError(f"no checkpoint to resume from: {run_dir / trainer.checkpoint} does not exist")
        saved = trainer.saved(run_dir)
        if saved is not None:
            check_resume(trainer, config, saved)
    elif trainer.checkpoints(run_dir):
        raise FileExistsError(
            f"{run_dir} already holds a run: add --resume to continue it, or choose another --run-dir"
        )
    return config, run_dir


def prepare(trainer: Trainer, config: Any) -> None:
    """The run's first writes, once :func:`check_start` and the trainer's own reading have passed: a resume's
    leftover temporary files removed, the directory made and the options of ``config`` saved."""
    run_dir = Path(config.run_dir)
    if config.resume:
        remove_unfinished(trainer, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(run_dir, config, trainer.name)


# --- the command line ----------------------------------------------------------------------------------------------


def parse(trainer: Trainer, argv: list[str] | None, description: str) -> Any:
    """The trainer's options from the command line; with ``--resume``, the options the run saved stand in for the
    defaults, so a resume needs only the options it changes."""
    config = trainer_options(trainer.name, trainer.config_type, argv, description)
    if config.resume:
        run_dir = Path(trainer.resolve(config).run_dir)
        check_run_kind(trainer.name, run_dir, resume=True)
        saved = trainer.saved(run_dir)
        if saved is not None:
            source = run_dir / CONFIG_FILE if (run_dir / CONFIG_FILE).exists() else run_dir
            default = from_saved(trainer.config_type, saved, source, trainer.resolve, run_dir=config.run_dir,
                                 resume=True)  # fmt: skip
            config = trainer_options(trainer.name, trainer.config_type, argv, description, default=default)
    return config


def trainer_options(name: str, config_type: type, argv: list[str] | None, description: str, **parse_args: Any) -> Any:
    """The options of the trainer ``name`` (of ``config_type``) on the command line ``argv``, as
    :func:`command_line` reads them; with ``--help``, its help page (``description`` first) and SystemExit."""
    token = option_help.TRAINER.set(name)
    try:
        return command_line(config_type, args=argv, description=description, prog=trainer_command(name), **parse_args)
    finally:
        option_help.TRAINER.reset(token)


def summary(docstring: str) -> str:
    """A trainer's description on its help page: the first paragraph of its module's docstring."""
    return docstring.split("\n\n")[0]


def module_summary(module: str) -> str:
    """:func:`summary` of ``module``'s docstring, read from its source without importing it: a trainer's help page
    needs its options, not its imports (torch, Stable-Baselines3: seconds of CPU)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no module named {module!r}", name=module)
    return summary(ast.get_docstring(ast.parse(Path(spec.origin).read_bytes()), clean=False) or "")


def command_line(config_type: type, **parse_args: Any) -> Any:
    """tyro's configuration of the command line (``parse_args``: ``prog``, ``args``... of ``tyro.cli``; its help as
    :mod:`training.option_help` shows it), its ``__post_init__`` checks run after tyro (:data:`_parsing`); an option
    tyro cannot parse (a word for a number, an unknown option) is a ValueError of one line naming it, not tyro's box
    (:func:`tyro_error`)."""
    token = _parsing.set(True)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed):
            config = tyro.cli(config_type, registry=option_help.REGISTRY, **parse_args)
    except SystemExit as exit:
        if exit.code not in (0, None):
            raise ValueError(tyro_error(printed.getvalue(), parse_args["prog"])) from None
        sys.stderr.write(printed.getvalue())
        raise
    finally:
        _parsing.reset(token)
    sys.stderr.write(printed.getvalue())  # tyro's warnings, if any
    return dataclasses.replace(config)  # builds it again, checks included: a bad option raises ValueError here


def tyro_error(printed: str, prog: str) -> str:
    """One line of what tyro printed in its box when it refused a command line: the error (which names the option)
    and the option it suggests, if any."""
    lines = [line.strip().strip("│|╭╮╰╯+").strip() for line in printed.splitlines()]  # the box's sides gone
    lines = [line for line in lines if line][1:]  # and its title (on its top or a line of its own)
    parts: list[list[str]] = [[]]
    for line in lines:
        if set(line) <= set("─-"):  # a rule between two parts of the box (rich draws it in ASCII or not)
            parts.append([])
        else:
            parts[-1].append(line)
    parts = [part for part in parts if part]
    error = " ".join(parts[0]) if parts else "the command line cannot be parsed"
    suggestion = ""
    for part in parts:
        if part[0] == "Perhaps you meant:" and len(part) > 1:
            suggestion = f" (perhaps you meant {part[1].split()[0]})"
    return f"{error}{suggestion}; see {prog} --help"


def stopped_message(trainer: Trainer, run_dir: str | None) -> str:
    """The one line a trainer's command prints when Ctrl-C or SIGTERM stops it."""
    if run_dir is None:
        return "stopped"
    if trainer.checkpoints(Path(run_dir)):
        return f"stopped; resume with: {trainer.command} --run-dir {run_dir} --resume"
    return f"stopped before the first checkpoint of {run_dir}: nothing to resume, run the command again to start over"


def main(trainer: Trainer, argv: list[str] | None, description: str) -> Any:
    """A trainer's command: parse its options, train, return what ``train`` returns. Bad options, files and
    checkpoints end it with one line ``error: ...`` on stderr (exit code 2); a file that cannot be read or written (a
    full disk) or a missing extra (Ray) too, with exit code 1 as the ``awale`` command's; Ctrl-C with one line saying
    how to resume (exit code 130), SIGTERM too (143)."""
    skip_final_collections()
    run_dir = None
    try:
        with interrupts.caught():
            config = trainer.resolve(parse(trainer, argv, description))
            run_dir = config.run_dir
            return trainer.train(config)
    except (Exception, KeyboardInterrupt) as error:
        if interrupts.interrupted(error):
            print(stopped_message(trainer, run_dir), file=sys.stderr)
            raise SystemExit(interrupts.exit_code(error)) from None
        if not isinstance(error, (ValueError, OSError, MissingExtraError)):
            raise
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        raise SystemExit(2 if isinstance(error, ValueError) else 1) from None
