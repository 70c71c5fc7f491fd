"""What the ``awale`` commands share: the one-line failures (:func:`fail`), the game options (``--game``,
``--rule``, ``--max-plies``) and their checks, agents built from specs, the results store opened for writing, folders
checked before the work, and the Ray options and session of the arena and the tournament (:func:`ray_session`)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from awale_apps.game_settings import game_settings
from awale_env.games import GAMES, Game


def one_line(text: str) -> str:
    """``text`` on one line (a message that wraps is joined with single spaces)."""
    return " ".join(text.split())


def describe_os_error(error: OSError) -> str:
    """What an OSError says without its errno prefix: ``No space left on device: 'runs/x/results.json'``."""
    if error.strerror is None:
        return str(error)
    return error.strerror + ("" if error.filename is None else f": {str(error.filename)!r}")


GAME_HELP = f"the game: {', '.join(GAMES)}"
RULE_HELP = "a rule flag of the game as name=value, repeatable; the flags: " + "; ".join(
    f"{name}: {', '.join(game.rule_options)}" for name, game in GAMES.items() if game.rule_options
)
MAX_PLIES_HELP = (
    "ply limit of each game (0 for none; default: the game's own: "
    + ", ".join(f"{game.default_max_plies} for {name}" for name, game in GAMES.items())
    + ")"
)
#: Help pages in click's plain layout: rich's reads ``[[player]]`` as markup and shows ``<bool>`` beside every flag.
HELP_MARKUP = None
#: The Ray options of the commands that play on Ray actors (the arena and the tournament), declared once.
Backend = Annotated[str, typer.Option(help="process (processes here) or ray (--workers Ray actors)")]
Address = Annotated[str | None, typer.Option(help="with --backend ray: the cluster to join (auto: here)")]
RuntimeEnv = Annotated[
    str | None, typer.Option(help="with --backend ray: Ray's runtime environment, a JSON object or a JSON/YAML file")
]


def fail(message: str, code: int = 2) -> None:
    """A one-line error on stderr and exit ``code`` (2: bad usage), no traceback."""
    typer.echo("error: " + one_line(message), err=True)
    raise typer.Exit(code)


def write_arena_results(result: Any, out: Path) -> list[Path]:
    """The arena's result files in ``out``; a failed write (a full disk) is a one-line error naming the folder."""
    from competition.arena import write_results

    try:
        return write_results(result, out)
    except OSError as error:
        fail(f"cannot write the results into {out}: {describe_os_error(error)}", code=1)


@contextmanager
def open_writable_store(path: Path | None) -> Iterator[Any]:
    """The results store at ``path`` open for writing (None: no store); a file that is not one, or one another
    process writes, is a one-line error."""
    if path is None:
        yield None
        return
    from competition.store import StoreBusy, StoreError, open_store

    try:
        store = open_store(path, write=True)
    except (StoreError, StoreBusy) as error:
        fail(str(error), code=1)
    try:
        yield store
    except StoreError as error:
        fail(str(error), code=1)
    finally:
        store.close()


def game_options(name: str, rules: list[str] | None, max_plies: int | None) -> tuple[Game, dict[str, Any], int | None]:
    """The game, its rule flags and the ply limit (:func:`awale_apps.game_settings.game_settings`); a bad name, flag
    or value is a one-line error naming what is allowed."""
    try:
        return game_settings(name, rules, max_plies)
    except ValueError as error:
        fail(str(error))


def build_agent(spec: str, seed: int | None = None) -> Any:
    """The agent of ``spec``; a bad spec raises AgentSpecError (a one-line error)."""
    from agents import make

    return make(spec) if seed is None else make(spec, seed=seed)


def writable_directory(path: Path) -> Path:
    """Create ``path`` (and its parents) and check that a file can be written there, so that a command that writes
    its results at the end fails before its work rather than after; OSError names what is wrong."""
    path.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=path):
        pass
    return path


def check_backend(backend: str, runtime_env: str | None) -> None:
    """A one-line error for an unknown ``--backend``, a ``--runtime-env`` without Ray, or Ray missing (what to pip
    install), before anything starts."""
    from competition.pool import BACKENDS

    if backend not in BACKENDS:
        fail(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "ray":
        import competition.ray_backend  # noqa: F401  (without Ray: one line before anything starts)
    elif runtime_env is not None:
        fail("--runtime-env is for --backend ray")


@contextmanager
def ray_session(backend: str, address: str | None, runtime_env: str | None) -> Iterator[None]:
    """With ``--backend ray``, Ray joined at ``address`` (or started here) with ``runtime_env`` for the command's
    work, and shut down after it if this command started it; a bad runtime env or no cluster at the address is one
    line before any game. Nothing with ``--backend process``."""
    if backend != "ray":
        yield
        return
    from competition.ray_backend import connect

    started = connect(address, runtime_env)
    try:
        yield
    finally:
        if started:
            import ray

            ray.shutdown()
