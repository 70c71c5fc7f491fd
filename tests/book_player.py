"""An opponent that answers at once, as a student's program that has nothing to load: ``python tests/book_player.py
GAME MAX_PLIES SEAT``. It plays the game's opening book, then the first legal move, with the plain-Python rules
(no numpy: it starts in a fraction of a second even on a busy machine), and answers a move that ends the game with
``RESULT <that move> <score A> <score B>``, as the students' programs do."""

from __future__ import annotations

import sys

from awale_apps.bot_fallback import plain_rules
from awale_apps.opening_book import load_book


def main() -> None:
    game, max_plies = sys.argv[1], int(sys.argv[2])
    rules = plain_rules(game)(max_plies or None)
    book = load_book(rules, lambda line: print(line, file=sys.stderr))
    state, history = rules.initial(), []
    first = state.to_move
    for line in sys.stdin:
        line = line.strip()
        if line == "END":
            return
        if line != "START":
            state = state.play(state.to_action(line))
            history.append(line)
            if state.is_terminal:
                print(f"RESULT {line} {state.stores[first]} {state.stores[1 - first]}", flush=True)
                return
        move = (book.move(history) if book else None) or rules.format_move(state.legal_actions()[0])
        state = state.play(state.to_action(move))
        history.append(move)
        print(move, flush=True)


if __name__ == "__main__":
    main()
