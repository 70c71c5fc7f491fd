"""The ``awale bot`` command: its options (one typer function, which the ``awale`` command and the lean launcher of
:mod:`awale_apps.launch` both register) and what runs a game or the one-time preparation.

Nothing here imports numpy, numba or torch at load, so that the bot answers its first line from the opening book
before they load; the game's registry is imported only when there is no book for the game (a name not in the book
folder is checked against it at once) or the game has rule flags or a ply limit.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Annotated, Any

import typer

from awale_apps import check_packages
from awale_apps.bot import (
    DEFAULT_BUDGET,
    BotGame,
    Engine,
    LineReader,
    ProtocolError,
    claim_stdout,
    parse_seat,
    spec_budget,
)
from awale_apps.opening_book import load_book

#: When the process started, as near as Python can tell: the course's referee times the first answer from launch.
LAUNCHED = time.monotonic()
#: The default agent: alpha-beta with 2 s per move, a second below the course's 3 s per answer.
DEFAULT_AGENT = f"alphabeta:time={DEFAULT_BUDGET:g}"


#: One writer on standard error at a time: the engine's thread logs while the main one answers.
STDERR_LOCK = threading.Lock()


def say(text: str) -> None:
    """``text`` and a newline on standard error in one write, flushed, never interleaved with another thread's."""
    with STDERR_LOCK:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def log(message: str) -> None:
    say(f"awale bot: {message}")


def fail(message: str, code: int = 2) -> None:
    """One line ``error: ...`` on standard error and exit ``code``."""
    say("error: " + " ".join(message.split()))
    raise typer.Exit(code)


def bot(
    seat: Annotated[
        str | None, typer.Argument(help="the seat (last argument): JoueurA or JoueurB, 1 or 2; none: START decides")
    ] = None,
    game: Annotated[
        str | None, typer.Option(help="the edition's game, required (awale --help lists the games)")
    ] = None,
    agent: Annotated[
        str, typer.Option(help="agent spec; its time= is each answer's budget from the arrival of the line")
    ] = DEFAULT_AGENT,
    rule: Annotated[list[str] | None, typer.Option(help="a rule flag of the game as name=value, repeatable")] = None,
    max_plies: Annotated[
        int | None, typer.Option(help="ply limit (default none: the referee ends the game; a rule's limit holds)")
    ] = None,
    result_lines: Annotated[
        bool, typer.Option(help="write its own game-ending move as RESULT <move> <score A> <score B>")
    ] = False,
    seed: Annotated[int | None, typer.Option(help="seed of the agent")] = None,
    use_book: Annotated[
        bool, typer.Option("--book/--no-book", help="answer the first plies from the game's opening book, if any")
    ] = True,
    prepare: Annotated[
        bool, typer.Option(help="compile and cache what the agent needs for the game, then exit (once per install)")
    ] = False,
) -> None:
    """A player program for the course's referee: one game over standard input and output (docs/editions.md)."""
    if game is None:
        from awale_env.games import GAMES

        fail(f"--game is required: the edition's rules ({', '.join(GAMES)})")
    try:
        seat_index = None if seat is None else parse_seat(seat)
        book = None if rule or max_plies is not None or not use_book else load_book(game)
    except ValueError as error:
        fail(str(error))
    resolve = _settings(game, rule, max_plies)
    if book is None:
        resolve = _resolved(*resolve())  # an unknown game, rule or limit: one line at once, before any input
    if prepare:
        _prepare(agent, resolve, seed, book is not None)
        return
    run_bot(agent, resolve, seat_index, book, result_lines, seed)


def _settings(name: str, rules: list[str] | None, max_plies: int | None):
    """What loads the game and its settings (in the engine's thread): a function giving (game, options, ply limit);
    exits with one line for a bad name, flag or limit."""

    def resolve() -> tuple[Any, dict[str, Any], int | None]:
        try:
            check_packages()  # a folder called agents/ in the working directory would hide ours
        except ImportError as error:
            fail(str(error), code=1)
        from awale_apps.game_settings import game_settings

        try:
            return game_settings(name, rules, 0 if max_plies is None else max_plies)
        except ValueError as error:
            fail(str(error))

    return resolve


def _resolved(*settings: Any):
    return lambda: settings


def _prepare(spec: str, resolve, seed: int | None, has_book: bool) -> None:
    """``--prepare``: load the engine as a game would (the rules, the fallback, the agent warmed up: numba compiles
    their kernels into its cache) and exit; one line for a bad spec."""
    started = time.monotonic()
    engine = Engine(spec, resolve, seed)
    engine.load()
    if isinstance(engine.error, ValueError):
        fail(str(engine.error))
    if engine.error is not None:
        raise engine.error  # a bad name or flag (already one line), Ctrl-C, or a bug
    book = "an opening book" if has_book else "no opening book (its first answer waits for the engine)"
    log(f"{spec} is ready for {engine.game.name} in {time.monotonic() - started:.1f} s; {book}")


def run_bot(
    spec: str,
    resolve,
    seat: int | None,
    book,
    result_lines: bool = False,
    seed: int | None = None,
) -> None:
    """Play one game on standard input and output: the book answers while the engine loads; exit code 2 after a
    refused line, 1 if the engine cannot load (a bad spec: one line)."""
    moves = claim_stdout()

    def on_error(error: BaseException) -> None:
        """The engine cannot load: one line and exit at once, whatever the main thread waits for."""
        if not isinstance(error, typer.Exit):
            say("error: " + " ".join(str(error).split()))
        os._exit(error.exit_code if isinstance(error, typer.Exit) else 2)

    engine = Engine(spec, resolve, seed, on_error, log)
    engine.start()  # the book answers while it loads
    session = BotGame(engine, moves, log, seat, book, result_lines, spec_budget(spec))
    log(f"{spec}, {'with' if book else 'without'} an opening book, reading the referee")

    def refused(error: ProtocolError) -> None:
        position = "" if session.state is None else f"\n{session.state}"
        say(f"error: {error}; moves so far: {' '.join(session.history) or 'none'}{position}")

    session.on_refusal = refused
    try:
        session.play(LineReader(sys.stdin.buffer), LAUNCHED)
    except ProtocolError:
        raise typer.Exit(2) from None
    except BrokenPipeError:
        say("error: the referee closed the bot's standard output")
        os._exit(1)  # not through the interpreter's exit, which would flush the closed output again
