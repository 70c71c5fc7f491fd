"""The opening books of ``awale bot`` (awale_apps/books/): each is a book of the game it is named after, every line
of it replays legally through the engine, its moves never end the game, and it covers every legal reply of the
opponent for the plies it claims, so that either seat's first answer comes from it."""

from __future__ import annotations

import json
import os
import sys

import pytest

from awale_apps.bot_fallback import CompiledRules, plain_rules
from awale_apps.opening_book import BOOKS, MAX_BOOK_BYTES, OpeningBook, build_book, load_book
from awale_env.games import GAMES

SHIPPED = sorted(path.stem for path in BOOKS.glob("*.json"))


def test_the_course_s_2025_edition_has_a_book():
    assert "awale16_2025" in SHIPPED


def expected_keys(game, book: OpeningBook) -> set[str]:
    """The positions a book of ``book.plies`` plies must answer, following its own moves for its side and every
    legal move for the other, for both seats."""
    keys: set[str] = set()

    def follow(state, history: list[str], book_player: int) -> None:
        if state.ply >= book.plies:
            return
        assert not state.is_terminal, history
        if state.to_move == book_player:
            keys.add(" ".join(history))
            move = book.move(history)
            assert move is not None, f"no book move after {' '.join(history) or 'the start'}"
            follow(state.play(state.to_action(game.parse_move(move))), [*history, move], book_player)
        else:
            for action in state.legal_actions():
                follow(state.play(action), [*history, game.format_move(action)], book_player)

    initial = game.initial(max_plies=None)
    for book_player in (initial.to_move, 1 - initial.to_move):
        follow(initial, [], book_player)
    return keys


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_book_is_legal_complete_and_of_its_game(name):
    logged = []
    book = load_book(CompiledRules(GAMES[name], {}, None), logged.append)
    assert (
        book is not None
        and not logged
        and load_book(plain_rules(name)(), logged.append).moves == book.moves
        and book.game == name
        and name in GAMES
    )
    game = GAMES[name]
    for key, move in book.moves.items():  # every line is legal and none ends the game
        state = game.initial(max_plies=None)
        for played in [*key.split(), move]:
            assert not state.is_terminal
            state = state.play(state.to_action(game.parse_move(played)))
            assert game.format_move(game.parse_move(played)) == played  # written as the game writes it
        assert not state.is_terminal, key
    assert set(book.moves) == expected_keys(game, book)
    assert book.plies >= 2  # both seats' first answers
    assert (BOOKS / f"{name}.json").stat().st_size < 100_000
    made_by = json.loads((BOOKS / f"{name}.json").read_text())["made_by"]
    assert made_by.startswith(f"python -m awale_apps.opening_book --game {name} --agent ")


def test_a_small_book_is_built_for_both_seats():
    game = GAMES["awale16"]
    book = build_book(game.name, "greedy", 2, progress=lambda _: None)
    assert set(book.moves) == expected_keys(game, book)
    assert len(book.moves) == 1 + len(game.initial().legal_actions())


def damaged_books(folder) -> dict:
    """Each kind of bad book of awale16: (how it is made in ``folder``, what the log line says)."""
    path = folder / "awale16.json"
    good = json.loads((BOOKS / "awale16.json").read_text())

    def book(**changes):
        return lambda: path.write_text(json.dumps({**good, **changes}))

    def fifo():
        os.mkfifo(path)

    return {
        "not JSON": (lambda: path.write_text("[1, 2"), "is not JSON"),
        "deeply nested": (lambda: path.write_text("[" * 100_000 + "]" * 100_000), "is not JSON"),
        "a directory": (path.mkdir, "is not a regular file"),
        "a FIFO": (fifo, "is not a regular file"),
        "too large": (lambda: path.write_text(" " * (MAX_BOOK_BYTES + 1)), f"larger than {MAX_BOOK_BYTES} bytes"),
        "not a book": (lambda: path.write_text("[]"), "is not a book"),
        "another game's": (book(game="awale16_2025"), "is a book of 'awale16_2025', not of awale16"),
        "a move not text": (book(moves={"": 3}), "is not text: 3"),
        "an illegal move": (book(moves={"": "2R"}), "illegal move 2R for player 0"),
        "an illegal line": (book(moves={"2R": "1R"}), "illegal move 2R for player 0"),
        "two moves in one": (book(moves={"": "1R 3R"}), "malformed move '1R 3R'"),
        "two lines in one": (book(moves={"": "1R\n3R"}), "malformed move"),
        "a 100 kB move": (book(moves={"": "1R" * 50_000}), "malformed move"),
        "another spelling": (book(moves={"": "1r"}), "is not written as the game writes it"),
        "past its plies": (book(plies=1, moves={"1R": "2R"}), "goes beyond its 1 plies"),
        "bad plies": (book(plies="3"), "'plies' must be an integer"),
    }


@pytest.mark.parametrize("case", list(damaged_books(BOOKS)))
def test_a_bad_book_is_ignored_with_one_log_line_and_never_hangs(case, tmp_path):
    make, message = damaged_books(tmp_path)[case]
    make()
    logged = []
    assert load_book(plain_rules("awale16")(), logged.append, tmp_path) is None
    assert len(logged) == 1 and "the opening book" in logged[0] and "awale16.json is ignored: it" in logged[0]
    assert message in logged[0] and len(logged[0]) < 400, logged


def test_missing_books_are_none_without_a_word(tmp_path):
    logged = []
    assert load_book(plain_rules("awale16")(), logged.append, tmp_path) is None and not logged


def test_looking_up_a_book_imports_no_engine():
    """The lookup half runs before numpy loads: the bot's command and reading a book import none of the engine's
    libraries."""
    import subprocess

    code = ("import sys, awale_apps.launch, awale_apps.bot_command; from awale_apps.opening_book import load_book; "
            "from awale_apps.bot_fallback import plain_rules; assert load_book(plain_rules('awale16_2025')()); "
            "print(sorted({'numpy', 'numba', 'torch', 'awale_env'} & set(sys.modules)))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
