"""``awale bot``: an agent of the toolkit as a player program of the course's referee (docs/editions.md).

The protocol, one line each way per move: the first player receives ``START``, then each player receives the
opponent's last move (``3R``, ``12TB``) and answers with its own on one flushed line, and nothing else on standard
output (in a game whose move can give another turn, Kalah, the mover writes its next move at once, unasked, and the
opponent receives each of its moves, one line each); the seat is the program's last argument, ``JoueurA`` (or
``1``: the player who moves first, player 1 of the rules, player 0 of the code in every game where the rules fix who
starts) or ``JoueurB`` (``2``).

The course's referee checks nothing and never sends ``END``: a game ends with someone's ``RESULT`` line. So the bot
answers a move that ends the game with ``RESULT <that move> <score of JoueurA> <score of JoueurB>`` and exits 0; with
``result_lines`` its own final move is written the same way. One line is one move: a line it cannot accept (empty,
several words, a malformed or illegal move, ``START`` out of turn, a move after the end, a line longer than
:data:`MAX_LINE_BYTES`) is answered with one line ``RESULT REFUSED <the line> (<why>; at fault: <which program>;
score so far: ...)`` and the bot exits with code 2 (:class:`ProtocolError`): it never guesses and never goes
silent. ``END`` or the end of input ends it with code 0.

Time: every answer's clock starts at the arrival of its line, the first one's at the start of the process (as the
course's referee counts it) unless that line comes later than a whole budget after it. Where the moves come from is
the :class:`Player`'s business (the book first, then the agent in its own process or the fallback:
:mod:`awale_apps.bot_engine`); each answer's log line says which one answered and in how long. This module imports
only the standard library.
"""

from __future__ import annotations

import io
import os
import select
import sys
import time
from collections.abc import Callable
from typing import IO, Any, Protocol, TextIO

from awale_apps.opening_book import OpeningBook

#: The seat arguments the referee may give, in lower case, and the seat each one is (0 moves first).
SEATS = {"joueura": 0, "1": 0, "joueurb": 1, "2": 1}
#: How the protocol names the seats 0 (moves first) and 1.
SEAT_NAMES = ("JoueurA", "JoueurB")
#: The longest input line read (a move is a few characters): a longer one is refused, never held whole.
MAX_LINE_BYTES = 4096
#: Characters of a refused line quoted in messages.
EXCERPT_CHARS = 40
#: Seconds per move of an agent whose spec gives no ``time=``: the course's referee gives 3 s per answer.
DEFAULT_BUDGET = 2.0
#: The shortest search a move gets, however late its line was answered.
MIN_SEARCH = 0.02


class ProtocolError(ValueError):
    """A line from the referee that the protocol does not allow where it came; ``line`` is an excerpt of it.
    ``referee``: the referee's own line is at fault (``START`` where it does not belong), not the other program's
    move it passed on."""

    def __init__(self, message: str, line: str, referee: bool = False) -> None:
        super().__init__(message)
        self.line, self.referee = line, referee


def excerpt(text: str) -> str:
    """At most :data:`EXCERPT_CHARS` printable characters of ``text``, ``...`` marking a cut."""
    shown = "".join(char if char.isprintable() else "?" for char in text[:EXCERPT_CHARS])
    return shown + ("..." if len(text) > EXCERPT_CHARS else "")


def parse_seat(text: str) -> int:
    """The seat (0 moves first, 1) of a seat argument, ``JoueurA`` / ``JoueurB`` (any case) or ``1`` / ``2``."""
    seat = SEATS.get(text.strip().lower())
    if seat is None:
        raise ValueError(f"the seat (last argument) must be JoueurA, JoueurB, 1 or 2, got {excerpt(text)!r}")
    return seat


class LineReader:
    """The lines of a binary stream, each at most ``limit`` bytes (a longer one is refused unread), with the time
    it arrived (``time.monotonic``)."""

    def __init__(self, stream: IO[bytes], limit: int = MAX_LINE_BYTES) -> None:
        self.stream, self.limit = stream, limit
        #: Whether the last line had to be waited for; False when it was there already, so that it came earlier
        #: than it was read (always False for a stream that is no pipe or file).
        self.waited = False

    def next(self) -> tuple[str | None, float]:
        """The next line, stripped (None at the end of input), and when it came; ProtocolError if too long."""
        try:
            self.waited = not select.select([self.stream], [], [], 0)[0]  # the first line: nothing buffered yet
        except (OSError, ValueError, TypeError, io.UnsupportedOperation):
            self.waited = False
        data = self.stream.readline(self.limit + 1)
        arrived = time.monotonic()
        if not data:
            return None, arrived
        text = data.decode("utf-8", errors="replace")
        if len(data) > self.limit and not data.endswith(b"\n"):
            raise ProtocolError(f"a line longer than {self.limit} bytes: {excerpt(text)!r}", excerpt(text))
        line = text.rstrip("\n").removesuffix("\r")
        if not line.strip() or len(line.split()) > 1 or line != line.strip():
            what = "an empty line" if not line.strip() else "several words" if len(line.split()) > 1 else "spaces"
            quoted = repr(excerpt(line))  # quoted in the RESULT REFUSED line, which a referee may split at spaces
            raise ProtocolError(f"one line is one move (or START, END): got {what}, {quoted}", quoted)
        return line, arrived


class BotGame:
    """One game through the protocol: the moves so far (as the game writes them), the bot's seat and the position
    under ``rules`` (the plain or compiled rules: ``initial()``, ``parse_move``, ``format_move``). :meth:`play` reads
    the lines and answers them, from the book while it knows the position, else from ``player``."""

    def __init__(
        self,
        rules: Any,
        player: Player,
        moves: TextIO,
        log: Callable[[str], Any],
        seat: int | None = None,
        book: OpeningBook | None = None,
        result_lines: bool = False,
        budget: float = DEFAULT_BUDGET,
    ) -> None:
        self.rules, self.player, self.moves, self.log, self.seat, self.book = rules, player, moves, log, seat, book
        self.result_lines, self.budget = result_lines, budget
        self.history: list[str] = []
        #: What the answer's time is counted from in the log: the first answer's is from the process's start.
        self.clock = "its line"
        self.state = rules.initial()
        self.first_player = self.state.to_move
        #: Called with a refused line's error before the ``RESULT REFUSED`` line: a referee that stops at that line
        #: may kill the bot at once, so the details go to standard error first.
        self.on_refusal: Callable[[ProtocolError], Any] | None = None

    def play(self, lines: LineReader, launched: float | None = None) -> None:
        """Answer every line until ``END``, the end of input or the opponent's final move; ProtocolError (after
        the ``RESULT REFUSED`` line) for a line the protocol does not allow. The first line's clock starts at
        ``launched`` (the process's start) when given, unless the bot had to wait for it longer than a whole budget
        after the start: a referee that counts from the launch has been missed already, one that counts from the
        line has not."""
        first = True
        while True:
            try:
                line, arrived = lines.next()
                if line is None:
                    self.log("end of input")
                    return
                if line == "END":
                    ending = f" ({self.state.end_reason})" if self.state.is_terminal else ""
                    self.log(f"END after {len(self.history)} plies{ending}")
                    return
                if first and launched is not None and (not lines.waited or arrived - launched < self.budget):
                    arrived = launched  # the course's referee counts the first answer from the launch
                    self.clock = "the start"
                if self._answer(line, arrived, first):
                    return
            except ProtocolError as error:
                if self.on_refusal is not None:
                    self.on_refusal(error)
                self._write(self._refusal(error))
                raise
            first = False

    def _answer(self, line: str, arrived: float, first: bool) -> bool:
        """Answer one line (a move, or START); whether the game is over with the answer (the opponent's move
        ended it)."""
        if first:
            self._check_first_line(line)
        elif line == "START":
            raise ProtocolError(f"START after the game began (ply {len(self.history)}); expected a move", line, True)
        if line != "START":
            self._opponent_move(line)
            if self.state.is_terminal:
                self._write(self._result(self.history[-1]))
                self.log(f"the opponent's {self.history[-1]} ended the game ({self.state.end_reason})")
                return True
        while not self.state.is_terminal and self._to_move_is_bot():
            self._own_move(arrived)
            arrived = time.monotonic()  # another turn (Kalah): the referee times the next move from this one's line
            self.clock = "its previous move"
        self.clock = "its line"
        return False

    def _check_first_line(self, line: str) -> None:
        """The bot's seat, checked against the first line: ``START`` goes to JoueurA, who moves first."""
        moves_first = line == "START"
        if self.seat == 1 and moves_first:
            raise ProtocolError("received START as JoueurB: START goes to JoueurA, who moves first", line, True)
        if self.seat == 0 and not moves_first:
            raise ProtocolError(f"expected START: JoueurA moves first, got {excerpt(line)!r}", excerpt(line), True)
        self.seat = 0 if moves_first else 1
        self.log(f"playing as {SEAT_NAMES[self.seat]}")

    def _to_move_is_bot(self) -> bool:
        """Whether the bot moves in the current position (JoueurA is whoever moves first)."""
        return self.state.to_move == (self.first_player if self.seat == 0 else 1 - self.first_player)

    def _opponent_move(self, line: str) -> None:
        """Play the opponent's move ``line``; ProtocolError if it is not a legal move here."""
        state = self.state
        if state.is_terminal:
            raise ProtocolError(f"the game is over ({state.end_reason}, ply {state.ply}, {self._scores()})",
                                excerpt(line))  # fmt: skip
        if len(line) > EXCERPT_CHARS:
            raise ProtocolError(f"{SEAT_NAMES[1 - self.seat]}'s move at ply {state.ply + 1} refused: {len(line)} "
                                f"characters are no move: {excerpt(line)!r}", excerpt(line))  # fmt: skip
        try:
            action = state.to_action(line)
        except ValueError as error:
            raise ProtocolError(
                f"{SEAT_NAMES[1 - self.seat]}'s move at ply {state.ply + 1} refused: {error}", excerpt(line)
            ) from None
        self.history.append(self.rules.format_move(action))
        self.state = state.play(action)

    def _own_move(self, arrived: float) -> None:
        """Answer the bot's move from the book, else from the player within the budget counted from ``arrived``."""
        move = None if self.book is None else self.book.move(self.history)
        source = "the book"
        if move is None:
            move, source = self.player.choose(self.state, self.history, arrived, self.budget)
        after = self.state.play(self.state.to_action(move))
        self._write(self._result(move, after) if self.result_lines and after.is_terminal else move)
        self.history.append(move)
        self.state = after
        self.log(f"ply {after.ply}: {move} from {source}, {time.monotonic() - arrived:.2f} s after {self.clock}")

    def _refusal(self, error: ProtocolError) -> str:
        """The ``RESULT REFUSED`` line of ``error``, for a teacher who reads the referee's output alone: the line,
        why, the program at fault in plain words (the referee passes the other program's lines on verbatim) and the
        score so far."""
        why = str(error).split("; legal moves")[0]
        if error.referee:
            culprit = "the referee (the seat it gave and START disagree)"
        elif self.seat is None:
            culprit = "the other program or the referee"
        else:
            culprit = f"{SEAT_NAMES[1 - self.seat]}, the other program (not this bot, {SEAT_NAMES[self.seat]})"
        a, b = self._seat_scores(self.state)
        return f"RESULT REFUSED {error.line} ({why}; at fault: {culprit}; score so far: JoueurA {a}, JoueurB {b})"

    def _scores(self) -> str:
        a, b = self._seat_scores(self.state)
        return f"JoueurA {a} - JoueurB {b}"

    def _seat_scores(self, state: Any) -> tuple[int, int]:
        """The seeds each seat captured, JoueurA's (the player who moved first) first."""
        return state.stores[self.first_player], state.stores[1 - self.first_player]

    def _result(self, move: str, state: Any = None) -> str:
        """``RESULT <move> <score of JoueurA> <score of JoueurB>`` for a game that ``move`` ended."""
        a, b = self._seat_scores(self.state if state is None else state)
        return f"RESULT {move} {a} {b}"

    def _write(self, line: str) -> None:
        self.moves.write(line + "\n")
        self.moves.flush()


class Player(Protocol):
    """What chooses the bot's moves out of the book: ``choose`` gives the move (as the game writes it) for
    ``state`` (the game's moves so far: ``history``) and where it came from (``"agent"``, ``"fallback (...)"``),
    answering by ``arrived + budget`` (``time.monotonic``)."""

    def choose(self, state: Any, history: list[str], arrived: float, budget: float) -> tuple[str, str]: ...


class AgentPlayer:
    """An agent of this process (tests, and agents given as objects), given with each move what is left of the budget
    when it starts its search (a :class:`agents.base.Limit`)."""

    def __init__(self, agent: Any, rules: Any) -> None:
        self.agent, self.rules = agent, rules

    def choose(self, state: Any, history: list[str], arrived: float, budget: float) -> tuple[str, str]:
        from agents.base import Limit

        limit = Limit(time=max(MIN_SEARCH, arrived + budget - time.monotonic()))
        return self.rules.format_move(self.agent.act(state, limit)), "agent"


def spec_budget(spec: str) -> float:
    """The seconds per move of an agent spec: its ``time=`` (``alphabeta:time=0.8``), else :data:`DEFAULT_BUDGET`.
    Read without the registry (which checks the spec when the agent is built), so that it is known at once."""
    for part in spec.partition(":")[2].split(","):
        key, _, value = part.partition("=")
        if key.strip() == "time":
            try:
                seconds = float(value)
            except ValueError:
                break
            if 0 < seconds < float("inf"):
                return seconds
    return DEFAULT_BUDGET


def process_start() -> float:
    """When this process started, on the ``time.monotonic`` clock: what the course's referee counts a first answer
    from, interpreter and imports included. From the kernel's start time of the process (Linux); elsewhere, now."""
    now = time.monotonic()
    try:
        with open(f"/proc/{os.getpid()}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - max(0.0, age)


def claim_stdout() -> TextIO:
    """The process's standard output for the moves alone: file descriptor 1 is pointed at standard error, so that
    whatever else writes there (a library's print, a native library) lands in the log instead."""
    sys.stdout.flush()
    moves = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return moves
