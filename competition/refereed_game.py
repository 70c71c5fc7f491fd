"""A refereed game of two players, every answer checked by the engine: what ``awale referee`` and ``awale tournament``
play, between course programs (:class:`competition.programs.Program`, run contained) or toolkit agents in this
process (:class:`AgentPlayer`).

Each game starts both players afresh (a program's command split as a shell would, the seat argument ``JoueurA`` or
``JoueurB`` appended), sends ``START`` to the first player, then passes each answer on to the opponent, checking it
against the rules and timing it. A player that answers a malformed or illegal move, a false ``RESULT`` line, more
than one line per move, a line over the cap (:data:`competition.answer_lines.MAX_LINE_BYTES`), or nothing in time,
or that exits, loses the game; the report says why, at which ply, with the answer and the position. At the end of a
game both receive ``END``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from awale_env.errors import IllegalMoveError
from awale_env.games import Game
from competition.programs import Fault, Program, excerpt

#: The seat arguments of the seats 0 (moves first) and 1, by ``seat_style``.
SEAT_ARGUMENTS = {"names": ("JoueurA", "JoueurB"), "numbers": ("1", "2")}


@dataclass
class GameReport:
    """One game: the programs (1 or 2, as given on the command line) at each seat (``seats[0]``, JoueurA, moved
    first), the winner (a program, None for a draw), the seeds each seat captured (JoueurA's first), how it ended
    (``end``: the rules' end reason, or the fault of the program that lost, ``faulty``, with ``detail`` saying what
    happened, ``fault_ply`` the ply it was due at (from 1), ``fault_answer`` an excerpt of what it answered, and
    ``fault_position`` the position it was to move in, as ``State.to_dict`` JSON), the moves as answered with each
    answer's seconds (``times``), the seat that played each move, opening moves first (``movers``: a move can give
    another turn in some games), and the seconds of the first answer (start-up included) and of the longest later
    answer of program 1 and of program 2."""

    number: int
    seats: tuple[int, int]
    winner: int | None = None
    scores: tuple[int, int] = (0, 0)
    plies: int = 0
    end: str = ""
    detail: str = ""
    faulty: int | None = None
    fault_ply: int | None = None
    fault_answer: str | None = None
    fault_position: str | None = None
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    first_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])
    longest_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])


class AgentPlayer:
    """A toolkit agent (built by ``make``) as a player of a refereed game, in this process: it answers from the
    referee's own position, timed like a program (its first answer gets the start-up time as well)."""

    def __init__(self, agent: Any, game: Game) -> None:
        self.agent, self.game = agent, game
        self.answers = 0

    def ask(self, lines: list[str], state: Any, allowed: float, limit: str) -> tuple[str, float]:
        started = time.perf_counter()
        try:
            action = self.agent.act(state)
        except Exception as error:  # the agent's failure loses its game, as a program's crash does
            raise Fault("crash", f"raised {type(error).__name__}: {excerpt(str(error), 200)}") from None
        seconds = time.perf_counter() - started
        try:
            line = self.game.format_move(int(action))
        except (ValueError, TypeError, IndexError, IllegalMoveError):
            raise Fault("illegal", f"played {excerpt(str(action))}, not an action of the game") from None
        if seconds > allowed:
            raise Fault("timeout", f"answered {line!r} after {seconds:.2f} s; the limit is {limit}", line)
        self.answers += 1
        return line, seconds

    def stderr_tail(self) -> str:
        return ""

    def finish(self) -> None:
        pass

    def kill(self) -> None:
        pass


def check_answer(game: Game, state: Any, line: str) -> tuple[str, int, tuple[int, int] | None]:
    """The move of an answer line as written, its action and the scores the line claims (``RESULT <move> <score1>
    <score2>``, else None); Fault ``malformed`` or ``illegal``."""
    move = line.strip()
    quoted = excerpt(move)
    claim = None
    if "RESULT" in move:
        words = move.split()
        if len(words) != 4 or words[0] != "RESULT" or not all(word.isascii() and word.isdigit() for word in words[2:]):
            raise Fault("malformed", f"answered {quoted}; a result line is RESULT <move> <score1> <score2>", quoted)
        move, claim = words[1], (int(words[2]), int(words[3]))
    try:
        action = game.parse_move(move)
    except IllegalMoveError as error:
        raise Fault("malformed", f"answered {quoted}: {excerpt(str(error), 200)[1:-1]}", quoted) from None
    try:
        return move, state.to_action(action), claim
    except IllegalMoveError as error:
        raise Fault("illegal", str(error), quoted) from None


#: A player of a refereed game: a running :class:`Program` or an :class:`AgentPlayer`.
Player = Program | AgentPlayer


class RefereedGame:
    """Game ``number`` (from 1) between two players made by ``start(index, seat_argument)`` (index 0 or 1: the
    first or second player of the match; they swap seats every game, the first being JoueurA in odd games): every
    answer within ``seconds``, a player's first within ``seconds + startup``. ``opening``: actions played before
    the players' first turn (only between agents: the protocol cannot tell a program a position). :meth:`play`
    runs it."""

    def __init__(
        self,
        game: Game,
        options: dict[str, Any],
        max_plies: int | None,
        start: Callable[[int, str], Player],
        number: int,
        seconds: float,
        startup: float,
        seat_style: str = "names",
        opening: tuple[int, ...] = (),
        seed: int | None = None,
    ) -> None:
        self.game, self.start, self.seconds, self.startup = game, start, seconds, startup
        self.seat_arguments = SEAT_ARGUMENTS[seat_style]
        self.report = GameReport(number, (1, 2) if number % 2 else (2, 1))
        self.state = game.initial(max_plies=max_plies, seed=seed, **options)
        #: The rules' player at each seat: JoueurA moves first.
        self.players = (self.state.to_move, 1 - self.state.to_move)
        for action in opening:
            self.report.movers.append(self.players.index(self.state.to_move))
            self.state = self.state.play(action)

    def scores(self, state: Any) -> tuple[int, int]:
        """The seeds each seat captured in ``state``, JoueurA's first."""
        return state.stores[self.players[0]], state.stores[self.players[1]]

    def play(self) -> GameReport:
        """Start both players, play the game through them, end them; the report."""
        report = self.report
        players: list[Player] = []
        try:
            for seat in (0, 1):
                players.append(self.start(report.seats[seat] - 1, self.seat_arguments[seat]))
            unseen: tuple[list[str], list[str]] = (["START"], [])  # what each seat has not been sent yet
            while not self.state.is_terminal:
                seat = self.players.index(self.state.to_move)
                try:
                    move, self.state = self._move(players[seat], seat, unseen[seat])
                except Fault as fault:
                    self._forfeit(players[seat], seat, fault)
                    break
                unseen[seat].clear()
                unseen[1 - seat].append(move)
                report.moves.append(move)
                report.movers.append(seat)
            else:
                winner = self.state.winner
                report.end = self.state.end_reason
                report.winner = None if winner is None else report.seats[self.players.index(winner)]
        except BaseException:
            for player in players:
                player.kill()
            raise
        finally:
            for player in players:
                player.finish()
        report.scores = self.scores(self.state)
        report.plies = self.state.ply
        return report

    def _move(self, player: Player, seat: int, lines: list[str]) -> tuple[str, Any]:
        """Send ``lines`` to the player at ``seat``, whose turn it is (``START``, the opponent's moves since its last
        one, or none when its own move gave it another turn), and check its answer: the move as the player wrote it
        and the position after it; Fault for anything the protocol or the rules do not allow."""
        first = player.answers == 0
        allowed = self.seconds + (self.startup if first else 0.0)
        limit = f"{allowed:g} s ({self.seconds:g} s + {self.startup:g} s of start-up)" if first else f"{allowed:g} s"
        line, took = player.ask(lines, self.state, allowed, limit)
        number = self.report.seats[seat]
        if first:
            self.report.first_answer[number - 1] = took
        else:
            self.report.longest_answer[number - 1] = max(self.report.longest_answer[number - 1], took)
        quoted = excerpt(line.strip())
        try:
            move, action, claim = check_answer(self.game, self.state, line)
        except Fault as fault:
            words = line.split()
            last = lines[-1] if lines and self.report.moves else None  # the opponent's last move, if sent
            if fault.kind == "illegal" and words[:1] == ["RESULT"] and len(words) == 4 and words[1] == last:
                a, b = self.scores(self.state)  # not its own move: it says the opponent's last move ended the game
                raise Fault("false_result", f"answered {quoted} as if the opponent's {last} had ended the game, but "
                            f"the game goes on (scores {a}-{b})", quoted) from None  # fmt: skip
            raise
        after = self.state.play(action)
        if claim is not None and not after.is_terminal:
            a, b = self.scores(after)
            raise Fault("false_result", f"answered {quoted} but the game goes on (scores {a}-{b})", quoted)
        scores = self.scores(after)
        if claim is not None and claim != scores:
            raise Fault("false_result", f"answered {quoted}; the scores are {scores[0]} {scores[1]}", quoted)
        self.report.times.append(took)
        return move, after

    def _forfeit(self, player: Player, seat: int, fault: Fault) -> None:
        """Record that the player at ``seat`` lost the game by ``fault``; kill it if it hangs or died."""
        if fault.kind in ("timeout", "crash"):
            player.kill()
        tail = player.stderr_tail()
        report = self.report
        report.faulty, report.winner, report.end = report.seats[seat], report.seats[1 - seat], fault.kind
        report.fault_ply, report.fault_answer = self.state.ply + 1, fault.answer
        report.fault_position = json.dumps(self.state.to_dict())
        report.detail = f"{SEAT_ARGUMENTS['names'][seat]} at ply {self.state.ply + 1}: {fault}"
        report.detail += f" [stderr: {tail}]" if tail else ""
