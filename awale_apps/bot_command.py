"""The ``awale bot`` command: its options (parsed with the standard library's argparse, so that a fresh bot answers
before any command-line framework, numpy, numba or torch loads) and what runs a game or the one-time preparation.

A game: the bot checks the agent's spec, starts the agent's own process (:mod:`awale_apps.bot_engine`: its load
takes longest, so it goes first), reads its rules in plain Python (:func:`awale_apps.bot_fallback.plain_rules`) and
its opening book, and answers the referee from the book, then from the agent once it is ready, else from the
fallback player. A game without plain rules loads its compiled rules before the first line (and has no fallback until
they are there).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

from awale_apps.bot import (
    DEFAULT_BUDGET,
    BotGame,
    LineReader,
    ProtocolError,
    claim_stdout,
    parse_seat,
    process_start,
    spec_budget,
)
from awale_apps.bot_engine import EnginePlayer, EngineProcess
from awale_apps.bot_fallback import CompiledRules, plain_rules
from awale_apps.game_settings import MAX_PLIES_LIMIT, rule_values
from awale_apps.opening_book import load_book

#: The default agent: alpha-beta with 2 s per move, a second below the course's 3 s per answer.
DEFAULT_AGENT = f"alphabeta:time={DEFAULT_BUDGET:g}"
#: One writer on standard error at a time: the engine's reader thread logs while the main one answers.
STDERR_LOCK = threading.Lock()


def say(text: str) -> None:
    """``text`` and a newline on standard error in one write, flushed, never interleaved with another thread's."""
    with STDERR_LOCK:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def log(message: str) -> None:
    say(f"awale bot: {message}")


class BotExit(Exception):
    """The bot stops with ``code`` after one line on standard error (already written)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def fail(message: str, code: int = 2) -> NoReturn:
    """One line ``error: ...`` on standard error, then exit ``code``."""
    say("error: " + " ".join(message.split()))
    raise BotExit(code)


class OneLineParser(argparse.ArgumentParser):
    """argparse with its errors on one line (the referee's log shows one line per problem)."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message}; see awale bot --help")


def parser() -> argparse.ArgumentParser:
    bot = OneLineParser(
        prog="awale bot",
        description="A player program for the course's referee: one game over standard input and output "
        "(docs/editions.md).",
    )
    bot.add_argument("seat", nargs="?", help="the seat: JoueurA or JoueurB, 1 or 2; none: START decides")
    bot.add_argument("--game", help="the edition's game, required (awale play --help lists the games)")
    bot.add_argument("--agent", default=DEFAULT_AGENT,
                     help=f"agent spec; its time= is each answer's budget from the arrival of the line "
                          f"(default {DEFAULT_AGENT})")  # fmt: skip
    bot.add_argument("--rule", action="append", help="a rule flag of the game as name=value, repeatable")
    bot.add_argument("--max-plies", type=int,
                     help="ply limit (default none: the referee ends the game; a rule's limit holds)")  # fmt: skip
    bot.add_argument("--result-lines", action="store_true",
                     help="write its own game-ending move as RESULT <move> <score A> <score B>")  # fmt: skip
    bot.add_argument("--seed", type=int, help="seed of the agent")
    bot.add_argument("--book", action=argparse.BooleanOptionalAction, default=True,
                     help="answer the first plies from the game's opening book, if any")  # fmt: skip
    bot.add_argument("--fallback", action=argparse.BooleanOptionalAction, default=True,
                     help="while the agent loads (or is late), answer from the plain rules' shallow search; "
                          "--no-fallback waits for the agent (for a referee that allows its load)")  # fmt: skip
    bot.add_argument(
        "--prepare",
        action="store_true",
        help="compile and cache what the agent needs for the game, then exit (once per install)",
    )
    return bot


def main(argv: list[str] | None = None) -> None:
    """``awale bot ...``: exit code 0 at the end of a game, 2 for bad options or a refused line, 1 for an agent
    that cannot load for want of something installed, 130 on Ctrl-C, 143 on SIGTERM."""
    launched = process_start()
    try:
        run(parser().parse_args(argv), launched)
    except BotExit as stop:
        raise SystemExit(stop.code) from None
    except KeyboardInterrupt:
        say("\ninterrupted")
        raise SystemExit(130) from None


def run(args: argparse.Namespace, launched: float) -> None:
    if args.game is None:
        from awale_env.games import GAMES

        fail(f"--game is required: the edition's rules ({', '.join(GAMES)})")
    try:
        seat = None if args.seat is None else parse_seat(args.seat)
        spec = check_agent(args.agent)
        if args.max_plies is not None and not 0 <= args.max_plies <= MAX_PLIES_LIMIT:
            raise ValueError(f"--max-plies must be 0 (no limit) to {MAX_PLIES_LIMIT:,}, got {args.max_plies}")
    except ValueError as error:
        fail(str(error))
    budget = spec_budget(spec)
    engine_argv = ["--game", args.game, "--agent", spec, "--max-plies", str(args.max_plies or 0),
                   "--budget", str(budget), *(["--seed", str(args.seed)] if args.seed is not None else []),
                   *(word for rule in args.rule or [] for word in ("--rule", rule))]  # fmt: skip
    if args.prepare:
        prepare(engine_argv, args.game, launched)
        return

    def on_error(message: str, code: int) -> None:
        """The agent cannot load: one line, and the bot ends at once, whatever the main thread waits for."""
        say("error: " + message)
        engine.close()
        os._exit(code)

    signal.signal(signal.SIGTERM, terminated)
    engine = EngineProcess(engine_argv, log, on_error, launched)  # first: the agent's load is the longest
    try:
        rules = game_rules(args.game, args.rule, args.max_plies, launched)
        book = load_book(rules, log) if args.book and not args.rule else None  # a book of the default rules
        play(engine, rules, seat, book, args, budget, launched)
    finally:
        engine.close()


def check_agent(spec: str) -> str:
    """``spec``, checked without building the agent: a known agent, parameters of the right kinds, and a weights
    file (``path=``) that exists (its format and game are checked as the agent loads); ValueError naming what is
    wrong."""
    from agents.registry import WEIGHTS_PARAMETER, check_spec

    _, params = check_spec(spec)
    if WEIGHTS_PARAMETER in params:
        path = Path(params[WEIGHTS_PARAMETER]).expanduser()
        if not path.exists():
            raise ValueError(f"the agent's weights file {str(path)!r} (path= of {spec!r}) does not exist")
        if not (path.is_file() or path.is_dir()) or not os.access(path, os.R_OK):
            raise ValueError(f"the agent's weights {str(path)!r} (path= of {spec!r}) are no readable file")
    return spec


def game_rules(game: str, rules: list[str] | None, max_plies: int | None, launched: float) -> Any:
    """The rules the bot keeps the position with: the game's plain rules, else its compiled ones (loaded now); one
    line for a bad name, flag or limit."""
    rules_type = plain_rules(game)
    try:
        if rules_type is not None:
            plain = rules_type(max_plies, **rule_values(rules, game, tuple(rules_type.flags)))
            log(f"the rules of {game} are ready (plain Python), {time.monotonic() - launched:.2f} s after the start")
            return plain
        started = time.monotonic()
        log(f"{game} has no plain-Python rules: waiting for its compiled rules (no fallback before them)")
        from awale_apps import check_packages
        from awale_apps.game_settings import game_settings

        check_packages()
        compiled = CompiledRules(*game_settings(game, rules, 0 if max_plies is None else max_plies))
        log(f"the rules of {game} are ready (compiled, loaded in {time.monotonic() - started:.2f} s), "
            f"{time.monotonic() - launched:.2f} s after the start")  # fmt: skip
        return compiled
    except ImportError as error:
        fail(str(error), code=1)
    except ValueError as error:
        fail(str(error))


def prepare(engine_argv: list[str], game: str, launched: float) -> None:
    """``--prepare``: load the agent as a game would (numba compiles its kernels into its cache) and exit; one line
    for a bad spec."""
    from awale_apps.bot_engine import load, parse_engine_args

    try:
        load(parse_engine_args(engine_argv))
    except ImportError as error:
        fail(str(error), code=1)
    except ValueError as error:
        fail(str(error))
    book = "an opening book" if (Path(__file__).parent / "books" / f"{game}.json").is_file() else "no opening book"
    fallback = "a fallback player" if plain_rules(game) is not None else "no fallback player (no plain-Python rules)"
    log(f"{engine_argv[3]} is ready for {game} in {time.monotonic() - launched:.1f} s; {book}, {fallback}")


def terminated(signum: int, frame: Any) -> NoReturn:
    """SIGTERM: exit with code 143 through the ``finally`` blocks, which end the agent's process."""
    raise SystemExit(143)


def play(engine: EngineProcess, rules: Any, seat: int | None, book: Any, args: argparse.Namespace, budget: float,
         launched: float) -> None:  # fmt: skip
    """Play one game on standard input and output with the agent of ``engine`` (the caller ends its process)."""
    moves = claim_stdout()
    session = BotGame(rules, EnginePlayer(engine, rules, log, args.fallback), moves, log, seat, book,
                      args.result_lines, budget)  # fmt: skip
    log(f"{args.agent} for {rules.name}, {'with' if book else 'without'} an opening book, reading the referee "
        f"{time.monotonic() - launched:.2f} s after the start")  # fmt: skip

    def refused(error: ProtocolError) -> None:
        say(f"error: {error}; moves so far: {' '.join(session.history) or 'none'}")

    session.on_refusal = refused
    try:
        session.play(LineReader(sys.stdin.buffer), launched)
    except ProtocolError:
        raise BotExit(2) from None
    except BrokenPipeError:
        say("error: the referee closed the bot's standard output")
        engine.close()
        os._exit(1)  # not through the interpreter's exit, which would flush the closed output again
