"""A student's player program as the course's referee sees it, scripted for the tests of ``awale bot``:
``python tests/scripted_player.py GAME MODE [N] SEAT``.

It plays legal moves of GAME (the engine's, chosen by ``MODE``) and answers a move that ends the game with
``RESULT <that move> <score A> <score B>``, as the students' programs do; at its answer number ``N`` it misbehaves
as ``MODE`` says:

- ``first``: no misbehaviour, the first legal move every time; ``random``: a random legal move (``N`` is the
  seed of Python's ``random.Random``); ``passive``: the legal move that captures least;
- ``illegal``: a well-formed move that is not legal (a hole of the other player, else an empty one);
- ``garbage``: a line that is no move; ``huge``: a line of 50 MB;
- ``crash``: exits with code 3 without answering.
"""

from __future__ import annotations

import random
import sys

from awale_env.games import get_game


def scores(state, first: int) -> str:
    return f"{state.stores[first]} {state.stores[1 - first]}"


def passive(state) -> int:
    """The legal move after which the mover has captured least (ties: the first)."""
    return min(state.legal_actions(), key=lambda action: state.play(action).stores[state.to_move])


def choose(mode: str, state, rng: random.Random) -> int:
    """The move of a well-behaved answer."""
    if mode == "random":
        return rng.choice(state.legal_actions())
    return passive(state) if mode == "passive" else state.legal_actions()[0]


def illegal(game, state) -> str:
    """A well-formed move that is not legal in ``state``."""
    legal = set(state.legal_actions())
    return game.format_move(next(action for action in range(game.num_actions) if action not in legal))


def main() -> None:
    game_name, mode = sys.argv[1], sys.argv[2]  # the seat, last, comes from the first line
    number = int(sys.argv[3]) if len(sys.argv) > 4 else 1
    rng = random.Random(number)
    game = get_game(game_name)
    state = game.initial(max_plies=None)
    first = state.to_move
    answers = 0
    for line in sys.stdin:
        line = line.strip()
        if line == "END":
            return
        if line != "START":
            state = state.play(state.to_action(game.parse_move(line)))
            if state.is_terminal:
                print(f"RESULT {line} {scores(state, first)}", flush=True)
                return
        answers += 1
        if answers == number and mode in ("illegal", "garbage", "huge", "crash"):
            if mode == "crash":
                print("scripted crash", file=sys.stderr, flush=True)
                sys.exit(3)
            reply = {"illegal": illegal(game, state), "garbage": "hello referee", "huge": "9" * 50_000_000}[mode]
            print(reply, flush=True)
            continue
        action = choose(mode, state, rng)
        state = state.play(action)
        print(game.format_move(action), flush=True)


if __name__ == "__main__":
    main()
