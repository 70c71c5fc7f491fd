"""What the ``awale`` commands share: the one-line failures (:func:`fail`), the game options (``--game``,
``--rule``, ``--max-plies``) and their checks, agents built from specs, the results store opened for writing, folders
checked before the work, and the Ray options and session of the arena and the tournament (:func:`ray_session`).

The help texts that list the games hold placeholders (``{games}``, ``{rule_flags}``, ``{max_plies}``,
``{default_game}``) filled when a help page is shown (:class:`GameHelp`) from the games' facts kept by
:mod:`awale_env.games.facts`: importing every game's package, and numba, is what a command that plays one game (or
none: ``awale --help``) does not need, nor its help page."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from awale_apps.game_settings import game_settings

if TYPE_CHECKING:
    from awale_env.games import Game


def one_line(text: str) -> str:
    """``text`` on one line (a message that wraps is joined with single spaces)."""
    return " ".join(text.split())


def describe_os_error(error: OSError) -> str:
    """What an OSError says without its errno prefix: ``No space left on device: 'runs/x/results.json'``."""
    if error.strerror is None:
        return str(error)
    return error.strerror + ("" if error.filename is None else f": {str(error.filename)!r}")


GAME_HELP = "the game: {games}  [default: {default_game}]"
RULE_HELP = "a rule flag of the game as name=value, repeatable; the flags: {rule_flags}"
MAX_PLIES_HELP = "ply limit of each game (0 for none; default: the game's own: {max_plies})"
#: The game options of the commands that play a game, declared once (``--game`` unset: the default game).
GameName = Annotated[str | None, typer.Option(help=GAME_HELP, show_default=False)]
RuleFlags = Annotated[list[str] | None, typer.Option(help=RULE_HELP)]
MaxPlies = Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)]


def game_facts() -> dict[str, str]:
    """What the help pages say about the games, by placeholder, from the registry's facts
    (:func:`awale_env.games.facts.game_list`: no game's package loaded once they are kept)."""
    from awale_env.games.facts import game_list

    listing = game_list()
    return {
        "{games}": ", ".join(listing.names),
        "{rule_flags}": "; ".join(
            f"{game.name}: {', '.join(game.rule_options)}" for game in listing.games if game.rule_options
        ),
        "{max_plies}": ", ".join(f"{game.default_max_plies} for {game.name}" for game in listing.games),
        "{default_game}": listing.default,
    }


def with_game_facts(text: Any) -> Any:
    """``text`` with the placeholders of :func:`game_facts` filled (anything but a string as it is)."""
    if not isinstance(text, str) or "{" not in text:
        return text
    for placeholder, fact in game_facts().items():
        text = text.replace(placeholder, fact)
    return text


def fill_game_facts(command: TyperCommand) -> None:
    """Fill the placeholders of ``command``'s help and of its options' help, before its help page is drawn."""
    command.help = with_game_facts(command.help)
    for param in command.params:
        if hasattr(param, "help"):
            param.help = with_game_facts(param.help)


class GameHelp(TyperCommand):
    """A command whose help page names the games (:func:`fill_game_facts`, only when it is shown)."""

    def format_help(self, ctx: typer.Context, formatter: Any) -> None:
        fill_game_facts(self)
        super().format_help(ctx, formatter)


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


def game_options(
    name: str | None, rules: list[str] | None, max_plies: int | None
) -> tuple[Game, dict[str, Any], int | None]:
    """The game (None: the default game), its rule flags and the ply limit
    (:func:`awale_apps.game_settings.game_settings`); a bad name, flag or value is a one-line error naming what is
    allowed."""
    if name is None:
        from awale_env.games import DEFAULT_GAME

        name = DEFAULT_GAME
    try:
        return game_settings(name, rules, max_plies)
    except ValueError as error:
        fail(str(error))


def build_agent(spec: str, seed: int | None = None) -> Any:
    """The agent of ``spec``; a bad spec raises AgentSpecError (a one-line error)."""
    from agents import make

    return make(spec) if seed is None else make(spec, seed=seed)


def writable_directory(path: Path, option: str = "--out") -> Path:
    """Create ``path`` (and its parents) and check that a file can be written there, so that a command that writes
    its results at the end fails before its work rather than after: a one-line error for a file where the directory
    should be (``option`` names it), OSError for the rest."""
    for folder in (path, *path.parents):
        if folder.exists():
            if not folder.is_dir():
                fail(f"{option} {path}: {folder} is a file, not a directory")
            break
    path.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=path):
        pass
    return path


def writable_file(path: Path, option: str = "--out") -> Path:
    """Check before the work that the file ``path`` can be written (its folder made if missing): a one-line error
    for a directory, or a file where its folder should be."""
    if path.is_dir():
        fail(f"{option} {path} is a directory: give a file name in it, e.g. {path / 'results.json'}")
    writable_directory(path.parent, option)
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
