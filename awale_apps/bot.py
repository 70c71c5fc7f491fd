"""``awale bot``: an agent of the toolkit as a player program of the course's referee (docs/editions.md).

The protocol, one line each way per move: the first player receives ``START``, then each player receives the
opponent's last move (``3R``, ``12TB``) and answers with its own on one flushed line, and nothing else on standard
output; ``END`` ends the game; the seat is the program's last argument, ``JoueurA`` (or ``1``: the player who moves
first, player 1 of the rules, player 0 of the code in every game where the rules fix who starts) or ``JoueurB`` (``2``).
With ``result_lines`` a move that ends the game is answered ``RESULT <move> <score1> <score2>`` (JoueurA's score
first). A line the protocol does not allow (a malformed or illegal move, ``START`` out of turn, a move after the end)
raises :class:`ProtocolError`: the bot never guesses.

The agent is warmed up before the first line is read, so that its time budget holds from the first move of a fresh
process: compiling (or loading from numba's cache) the kernels of a search takes seconds that no move can afford.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from agents import make
from agents.base import game_refusal, reset_agent
from agents.registry import AgentSpecError
from awale_env.errors import IllegalMoveError
from awale_env.games import Game

#: The seat arguments the referee may give, in lower case, and the seat each one is (0 moves first).
SEATS = {"joueura": 0, "1": 0, "joueurb": 1, "2": 1}
#: How the protocol names the seats 0 (moves first) and 1.
SEAT_NAMES = ("JoueurA", "JoueurB")
#: The ply limit of the warm-up position: the search of a starting position two plies from the end is tiny.
WARM_UP_PLIES = 2


class ProtocolError(ValueError):
    """A line from the referee that the protocol does not allow where it came."""


def parse_seat(text: str) -> int:
    """The seat (0 moves first, 1) of a seat argument, ``JoueurA`` / ``JoueurB`` (any case) or ``1`` / ``2``."""
    seat = SEATS.get(text.strip().lower())
    if seat is None:
        raise ProtocolError(f"the seat (last argument) must be JoueurA, JoueurB, 1 or 2, got {text!r}")
    return seat


def warmed_up_agent(spec: str, game: Game, options: dict[str, Any], seed: int | None = None) -> Any:
    """The agent of ``spec``, ready to play ``game`` (rule flags ``options``) within its time budget at once.

    A spare agent of the same spec first searches the starting position of a game limited to two plies, which
    compiles (or loads) every kernel of its search; then the agent that plays searches it as well and forgets it. The
    spare one takes the compiling because agents calibrate their budgets on their first searches (alpha-beta measures
    its node rate), which a search that compiled would mislead. Costs at most two moves' budgets besides the
    compiling; AgentSpecError for a bad spec or an agent that does not play ``game``."""
    seeded = {} if seed is None else {"seed": seed}
    agent = make(spec, **seeded)
    refusal = game_refusal(agent, spec, game.name)
    if refusal is not None:
        raise AgentSpecError(refusal)
    position = game.initial(max_plies=WARM_UP_PLIES, **options)
    make(spec, **seeded).act(position)
    agent.act(position)
    reset_agent(agent, seed)
    return agent


def answer(game: Game, state: Any, action: int, first: int, result_lines: bool) -> str:
    """The line answering ``action`` played in ``state``: the move, or ``RESULT <move> <score1> <score2>`` (the
    score of ``first``, the player who moved first, then the other's) when it ends the game and ``result_lines``."""
    move = game.format_move(action)
    after = state.play(action)
    if result_lines and after.is_terminal:
        return f"RESULT {move} {after.stores[first]} {after.stores[1 - first]}"
    return move


def play_protocol(
    agent: Any,
    game: Game,
    state: Any,
    seat: int | None,
    lines: TextIO,
    moves: TextIO,
    log: Callable[[str], Any],
    result_lines: bool = False,
) -> None:
    """Play one game of ``game`` from ``state`` through the protocol, reading ``lines`` and answering on ``moves``.

    ``seat``: the bot's seat (0 moves first, 1), None to learn it from the first line (``START``: the bot moves
    first). Returns at ``END`` or at the end of input; raises :class:`ProtocolError` for any other line that is not
    allowed where it comes, before answering anything to it."""
    first = state.to_move
    player = None
    while True:
        text = lines.readline()
        if not text:
            log("end of input")
            return
        line = text.strip()
        if line == "END":
            log(f"END after {state.ply} plies" + (f" ({state.end_reason})" if state.is_terminal else ""))
            return
        if player is None:
            seat = _check_first_line(seat, line)
            player = first if seat == 0 else 1 - first
            log(f"playing {game.name} as {SEAT_NAMES[seat]}")
        elif line == "START":
            raise ProtocolError(f"START after the game began (ply {state.ply}); expected a move or END")
        if line != "START":
            state = _opponent_move(game, state, line)
        while not state.is_terminal and state.to_move == player:
            started = time.perf_counter()
            action = agent.act(state)
            reply = answer(game, state, action, first, result_lines)
            moves.write(reply + "\n")
            moves.flush()
            state = state.play(action)
            log(f"ply {state.ply}: {reply} in {time.perf_counter() - started:.2f} s")


def _check_first_line(seat: int | None, line: str) -> int:
    """The bot's seat, checked against the first line: ``START`` goes to JoueurA, who moves first."""
    moves_first = line == "START"
    if seat == 1 and moves_first:
        raise ProtocolError("received START as JoueurB: START goes to JoueurA, who moves first")
    if seat == 0 and not moves_first:
        raise ProtocolError(f"expected START: JoueurA moves first, got {line!r}")
    return 0 if moves_first else 1


def _opponent_move(game: Game, state: Any, line: str) -> Any:
    """The position after the opponent's move ``line``; ProtocolError if the line is not a legal move here."""
    if state.is_terminal:
        raise ProtocolError(f"the game is over ({state.end_reason}, ply {state.ply}): expected END, got {line!r}")
    try:
        action = state.to_action(game.parse_move(line))
    except IllegalMoveError as error:
        raise ProtocolError(f"opponent's move at ply {state.ply + 1} refused: {error}") from None
    return state.play(action)


def claim_stdout() -> TextIO:
    """The process's standard output for the moves alone: file descriptor 1 is pointed at standard error, so that
    whatever else writes there (a library's print, a native library) lands in the log instead."""
    sys.stdout.flush()
    moves = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return moves


def run_bot(
    spec: str,
    game: Game,
    options: dict[str, Any],
    max_plies: int | None,
    seat: str | None,
    result_lines: bool = False,
    seed: int | None = None,
) -> None:
    """``awale bot``: warm up the agent of ``spec``, then play one game of ``game`` on standard input and output."""
    seat_index = None if seat is None else parse_seat(seat)
    moves = claim_stdout()

    def log(message: str) -> None:
        print(f"awale bot: {message}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    agent = warmed_up_agent(spec, game, options, seed)
    log(f"{spec} warmed up in {time.perf_counter() - started:.1f} s, reading the referee")
    state = game.initial(max_plies=max_plies, **options)
    play_protocol(agent, game, state, seat_index, sys.stdin, moves, log, result_lines)
