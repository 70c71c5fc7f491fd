"""The opening books of ``awale bot`` (awale_apps/books/): each is a book of the game it is named after, every line
of it replays legally through the engine, its moves never end the game, and it covers every legal reply of the
opponent for the plies it claims, so that either seat's first answer comes from it."""

from __future__ import annotations

import json
import sys

import pytest

from awale_apps.opening_book import BOOKS, OpeningBook, build_book, load_book
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
    book = load_book(name)
    assert book is not None and book.game == name and name in GAMES
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


def test_missing_odd_and_damaged_books(tmp_path):
    assert load_book("no_such_game", tmp_path) is None
    assert load_book("../awale16", tmp_path) is None
    (tmp_path / "awale16.json").write_text('{"game": "awale16", "plies": 2, "moves": {"": 3}}')
    with pytest.raises(ValueError, match=r"the opening book .*awale16.json is damaged: its moves are not text"):
        load_book("awale16", tmp_path)
    (tmp_path / "awale16.json").write_text("[1, 2")
    with pytest.raises(ValueError, match="is damaged"):
        load_book("awale16", tmp_path)


def test_looking_up_a_book_imports_no_engine():
    """The lookup half runs before numpy loads: the bot's command and reading a book import none of the engine's
    libraries."""
    import subprocess

    code = ("import sys, awale_apps.launch, awale_apps.bot_command; from awale_apps.opening_book import load_book; "
            "load_book('awale16_2025'); "
            "print(sorted({'numpy', 'numba', 'torch', 'awale_env'} & set(sys.modules)))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
