"""``awale bot`` under a stand-in of the course's own referee (tests/course_referee.py: no move checked, no ``END``,
the game over at the first line containing ``RESULT``, both programs killed): every game ends with a ``RESULT``
line, and the line says what happened, whoever ended the game and however.

The opponents are tests/scripted_player.py; the random games are found here first (seeds for which the scripted
player and the bot's ``random`` agent reach the ending wanted), then played through the stand-in, several at once.
The stand-in's time per answer is the course's 3 s times ``AWALE_TEST_TIME_SCALE`` (default 10: the bots start
together on a loaded machine; the 1-s start-up is measured by benchmarks/bench_bot_startup.py, not here).
"""

from __future__ import annotations

import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from course_referee import CourseGame, play_course_game

from agents import make
from awale_env.games import get_game

GAME = get_game("awale16_2025")
SEEDS_IN_GAME = 96
TESTS = Path(__file__).resolve().parent
SECONDS = 3.0 * float(os.environ.get("AWALE_TEST_TIME_SCALE", "10"))
BOT = [sys.executable, "-m", "awale_apps", "bot", "--game", GAME.name]


def scripted(mode: str, number: int = 1) -> list[str]:
    return [sys.executable, str(TESTS / "scripted_player.py"), GAME.name, mode, str(number)]


def random_ending(bot_seat: int, ender: str, ending: str) -> tuple[int, list[str]]:
    """A seed for which ``awale bot --agent random --seed S --no-book`` at ``bot_seat`` against the scripted
    ``random`` player seeded ``S`` reaches ``ending`` (an end reason, or ``starving``: every seed captured) by a move
    of ``ender`` (``bot`` or ``opponent``); and the moves of that game."""
    for seed in range(200):
        bot, rng, state, moves = make("random", seed=seed), random.Random(seed), GAME.initial(max_plies=None), []
        while not state.is_terminal:
            bots_turn = (state.ply % 2 == 0) == (bot_seat == 0)
            action = bot.act(state) if bots_turn else rng.choice(state.legal_actions())
            moves.append(GAME.format_move(action))
            state = state.play(action)
        reached = "starving" if sum(state.stores) == SEEDS_IN_GAME else state.end_reason
        if reached == ending and bots_turn == (ender == "bot"):
            return seed, moves
    raise AssertionError(f"no seed below 200 ends by {ending} from a move of the {ender}")


def random_game(bot_seat: int, ender: str, ending: str, *flags: str) -> tuple[list[str], list[str], list[str]]:
    """The two commands (JoueurA's first) of such a game and its moves."""
    seed, moves = random_ending(bot_seat, ender, ending)
    commands = [
        [*BOT, "--agent", "random", "--seed", str(seed), "--no-book", "--no-fallback", *flags],
        scripted("random", seed),
    ]
    return (*(commands if bot_seat == 0 else commands[::-1]), moves)


def scores(moves: list[str]) -> str:
    state = GAME.initial(max_plies=None)
    for move in moves:
        state = state.play(move)
    return f"{state.stores[0]} {state.stores[1]}"


#: Each case: JoueurA's command, JoueurB's command, the moves expected (None: not checked).
CASES = {
    "our final move": random_game(0, "bot", "score"),
    "our final move, --result-lines": random_game(1, "bot", "score", "--result-lines"),
    "the opponent's final move": random_game(1, "opponent", "score"),
    "the opponent's starving move": random_game(0, "opponent", "starving"),
    "an illegal move": ([*BOT, "--agent", "alphabeta:time=0.1"], scripted("illegal", 2), None),
    "garbage": (scripted("garbage", 1), [*BOT, "--agent", "greedy"], None),
    "a 50 MB line": ([*BOT, "--agent", "greedy"], scripted("huge", 3), None),
    "a crash": (scripted("crash", 2), [*BOT, "--agent", "alphabeta:time=0.1"], None),
}


@pytest.fixture(scope="module")
def course_games() -> dict[str, CourseGame]:
    with ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(play_course_game, a, b, SECONDS) for name, (a, b, _) in CASES.items()}
        return {name: future.result() for name, future in futures.items()}


def answers(game: CourseGame) -> list[str]:
    return [line for _, line in game.answers]


@pytest.mark.parametrize("case", ["our final move", "our final move, --result-lines", "the opponent's final move",
                                  "the opponent's starving move"])  # fmt: skip
def test_every_ending_is_answered_with_the_result_line(course_games, case):
    """The game is played as found in-process; its last line is ``RESULT <final move> <score A> <score B>``, from
    the bot when the opponent's move ended it (or with --result-lines its own), else from the student's program."""
    game, moves = course_games[case], CASES[case][2]
    bot_ends, result_lines = case.startswith("our final move"), case.endswith("--result-lines")
    bot_writes = result_lines or not bot_ends
    assert game.result == f"RESULT {moves[-1]} {scores(moves)}", game.stderr
    assert answers(game)[:-1] == (moves[:-1] if bot_ends and result_lines else moves)
    assert (game.answers[-1][0] == bot_seat(case)) == bot_writes, game.answers[-3:]


def bot_seat(case: str) -> str:
    return "JoueurA" if CASES[case][0][:3] == BOT[:3] else "JoueurB"


@pytest.mark.parametrize(
    ("case", "refused", "reason"),
    [
        ("an illegal move", "RESULT REFUSED ", "JoueurB's move at ply 4 refused: illegal move"),
        ("garbage", "RESULT REFUSED 'hello referee' ", "one line is one move (or START, END): got several words"),
        ("a 50 MB line", "RESULT REFUSED 9999999999999999999999999999999999999999... ", "a line longer than 4096"),
    ],
)
def test_a_bad_line_is_answered_with_a_refusal_naming_it(course_games, case, refused, reason):
    """The bot answers ``RESULT REFUSED <the line, 40 characters at most> (<why>)``, the referee stops there."""
    game = course_games[case]
    assert game.result.startswith(refused) and reason in game.result, game.result
    seat = bot_seat(case)
    assert game.answers[-1] == (seat, game.result) and len(game.result) < 300
    assert f"error: {reason.split(':')[0]}" in game.stderr[seat] and "Traceback" not in game.stderr[seat]


def test_an_opponent_that_crashes_ends_the_game_as_the_referee_says(course_games):
    """The crash loses by the referee's own RESULT line; the bot answered every move it was sent in time."""
    game = course_games["a crash"]
    assert game.result == "RESULT Joueur A disqualifié (timeout)"
    assert [seat for seat, _ in game.answers] == ["JoueurA", "JoueurB"]
    assert "Traceback" not in game.stderr["JoueurB"]
