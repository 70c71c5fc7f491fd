"""Opening books of ``awale bot``: the first plies of a game answered without the engine, so that a fresh bot
process answers its first line before numpy, numba or torch have loaded.

A book is a JSON file ``books/<game>.json`` beside this module, made once by the strongest agent of the game (the
command is in the file, ``made_by``, and in docs/editions.md)::

    python -m awale_apps.opening_book --game GAME --agent SPEC --plies 3

It maps the moves played so far from the initial position (as the game writes them, separated by spaces; ``""``
for none) to the move to play there. For every ply it covers it holds both seats' positions: the book's own first
move, an answer to **every legal** first move of the opponent, an answer to every legal reply to the book's first
move, and so on; so a move that is not a key is either illegal or written another way (the engine decides), and a
bot at either seat gets its first answer from the book. A book is checked as it is read (and as it is built): each key
replays legally and each move is legal there, or the book is ignored with one log line. Only this module's lookup half
runs in a bot before its engine loads: it imports nothing but the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The folder of the shipped books, one ``<game>.json`` each (the game's registry name).
BOOKS = Path(__file__).resolve().parent / "books"
#: The largest book file read (the shipped ones are a few KB): a bigger file is not a book.
MAX_BOOK_BYTES = 1 << 20
#: The most plies a book may cover (the shipped ones cover 3 or 4; each ply multiplies its size).
MAX_BOOK_PLIES = 12


class OpeningBook:
    """The book of one game: :meth:`move` is the book's move after ``history``, or None outside the book."""

    def __init__(self, game: str, plies: int, moves: dict[str, str], agent: str = "") -> None:
        self.game, self.plies, self.moves, self.agent = game, plies, moves, agent

    def move(self, history: list[str]) -> str | None:
        """The move the book plays after ``history`` (the moves from the initial position, as the game writes
        them), None when the book has none there."""
        return self.moves.get(" ".join(history))

    def to_json(self, made_by: str) -> dict[str, Any]:
        return {"game": self.game, "plies": self.plies, "agent": self.agent, "made_by": made_by, "moves": self.moves}


def book_path(game: str, folder: Path = BOOKS) -> Path:
    """Where the book of ``game`` (a registry name) is."""
    return folder / f"{game}.json"


class BookError(ValueError):
    """A file that is not a valid opening book of its game."""


def read_book(path: Path) -> Any:
    """The JSON content of the book file ``path`` (None if there is none), read without ever blocking: a directory,
    FIFO or device is refused before reading, and so is a file over :data:`MAX_BOOK_BYTES`; BookError naming why."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise BookError(f"cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise BookError("is not a regular file")
        if info.st_size > MAX_BOOK_BYTES:
            raise BookError(f"is larger than {MAX_BOOK_BYTES} bytes")
        data = os.read(descriptor, MAX_BOOK_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > MAX_BOOK_BYTES:
        raise BookError(f"is larger than {MAX_BOOK_BYTES} bytes")
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise BookError(f"is not JSON ({str(error)[:80]})") from None


def check_book(content: Any, rules: Any) -> OpeningBook:
    """The book of ``content`` (a book file's JSON) for ``rules`` (a game's rules: ``name``, ``initial()``, its
    states' ``to_action`` and ``play``, ``format_move``): each key replays legally from the initial position as the
    game writes its moves, and each move is one legal move there; BookError naming the first fault."""
    if not isinstance(content, dict) or not isinstance(content.get("moves"), dict):
        raise BookError("is not a book (a JSON object with 'game', 'plies' and 'moves')")
    moves, plies = content["moves"], content.get("plies")
    if content.get("game") != rules.name:
        raise BookError(f"is a book of {excerpt(content.get('game'))}, not of {rules.name}")
    if type(plies) is not int or not 0 <= plies <= MAX_BOOK_PLIES:
        raise BookError(f"'plies' must be an integer 0-{MAX_BOOK_PLIES}, got {excerpt(plies)}")
    positions = {"": rules.initial()}  # the position after each line replayed so far, so each move is played once

    def position(line: str) -> Any:
        if line not in positions:
            before, _, played = line.rpartition(" ")
            state = position(before)
            try:
                action = state.to_action(played)
            except ValueError as error:
                raise BookError(f"after {excerpt(before)}: {str(error)[:120]}") from None
            if rules.format_move(action) != played or state.is_terminal:
                raise BookError(f"after {excerpt(before)}: {excerpt(played)} is not written as the game writes it")
            positions[line] = state.play(action)
        return positions[line]

    for key, move in moves.items():
        if not isinstance(move, str):
            raise BookError(f"its move after {excerpt(key)} is not text: {excerpt(move)}")
        if key.count(" ") + 1 + bool(key) > plies:
            raise BookError(f"its line {excerpt(key)} goes beyond its {plies} plies")
        state = position(key)
        try:
            action = state.to_action(move)
        except ValueError as error:
            raise BookError(f"after {excerpt(key)}: {str(error)[:120]}") from None
        if rules.format_move(action) != move:
            raise BookError(f"after {excerpt(key)}: {excerpt(move)} is not written as the game writes it")
    return OpeningBook(rules.name, plies, moves, str(content.get("agent", ""))[:200])


def excerpt(value: Any) -> str:
    """At most 40 characters of ``value``'s repr, for messages about a file that may hold anything."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def load_book(rules: Any, log: Callable[[str], Any] = print, folder: Path = BOOKS) -> OpeningBook | None:
    """The shipped book of the game of ``rules`` (see :func:`check_book`), None if there is none; a bad one is
    ignored with one line to ``log`` naming the file and its fault."""
    path = book_path(rules.name, folder)
    try:
        content = read_book(path)
        return None if content is None else check_book(content, rules)
    except BookError as error:
        log(f"the opening book {path} is ignored: it {error}")
        return None


def build_book(
    game_name: str, spec: str, plies: int, progress: Callable[[str], Any] = print, seed: int = 0
) -> OpeningBook:
    """The book of ``game_name`` (default rules) over its first ``plies`` plies, each move chosen by the agent of
    ``spec`` (reset with ``seed`` before each position, so the book does not depend on the order of the search):
    for the seat that moves first, the book's move at ply 0, then at ply 2 after every legal reply, ...; for the
    other seat, a move after every legal first move, then after every legal reply to it, ..."""
    from agents import make, reset_agent
    from agents.base import game_refusal
    from agents.registry import AgentSpecError
    from awale_env.games import get_game

    game = get_game(game_name)
    agent = make(spec, seed=seed)
    refusal = game_refusal(agent, spec, game.name)
    if refusal is not None:
        raise AgentSpecError(refusal)
    moves: dict[str, str] = {}

    def follow(state: Any, history: list[str], book_player: int) -> None:
        if state.ply >= plies:
            return
        if state.is_terminal:
            raise ValueError(f"{game.name} can end within {plies} plies ({' '.join(history)}): make a shorter book")
        if state.to_move == book_player:
            reset_agent(agent, seed)
            started = time.perf_counter()
            action = agent.act(state)
            move = game.format_move(action)
            moves[" ".join(history)] = move
            seconds = time.perf_counter() - started
            progress(f"{len(moves):>5}  {' '.join(history) or '(start)'} -> {move} ({seconds:.1f} s)")
            follow(state.play(action), [*history, move], book_player)
        else:
            for action in state.legal_actions():
                follow(state.play(action), [*history, game.format_move(action)], book_player)

    initial = game.initial(max_plies=None)
    for book_player in (initial.to_move, 1 - initial.to_move):  # the bot moves first, then second
        follow(initial, [], book_player)
    book = OpeningBook(game.name, plies, moves, spec)
    from awale_apps.bot_fallback import CompiledRules

    return check_book(book.to_json(""), CompiledRules(game, {}, None))


def main(argv: list[str] | None = None) -> None:
    """``python -m awale_apps.opening_book --game GAME --agent SPEC --plies N``: write ``books/<game>.json``."""
    parser = argparse.ArgumentParser(prog="python -m awale_apps.opening_book", description=main.__doc__)
    parser.add_argument("--game", required=True, help="the game (registry name)")
    parser.add_argument("--agent", required=True, help="the agent that chooses the moves, with its budget")
    parser.add_argument("--plies", type=int, default=3, help="plies covered (3: both seats' first answer and more)")
    parser.add_argument("--out", type=Path, default=BOOKS, help="the folder of the books")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    book = build_book(args.game, args.agent, args.plies, lambda line: print(line, file=sys.stderr, flush=True))
    made_by = shlex.join(["python", "-m", "awale_apps.opening_book", *(sys.argv[1:] if argv is None else argv)])
    path = book_path(book.game, args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(book.to_json(made_by), indent=0, sort_keys=True) + "\n"
    path.with_suffix(".tmp").write_text(text, encoding="utf-8")
    path.with_suffix(".tmp").replace(path)
    print(f"wrote {path}: {len(book.moves)} positions in {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
