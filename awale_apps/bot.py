"""``awale bot``: an agent of the toolkit as a player program of the course's referee (docs/editions.md).

The protocol, one line each way per move: the first player receives ``START``, then each player receives the
opponent's last move (``3R``, ``12TB``) and answers with its own on one flushed line, and nothing else on standard
output; the seat is the program's last argument, ``JoueurA`` (or ``1``: the player who moves first, player 1 of the
rules, player 0 of the code in every game where the rules fix who starts) or ``JoueurB`` (``2``).

The course's referee checks nothing and never sends ``END``: a game ends with someone's ``RESULT`` line. So the bot
answers a move that ends the game with ``RESULT <that move> <score of JoueurA> <score of JoueurB>`` and exits 0; with
``result_lines`` its own final move is written the same way. A line it cannot accept (a malformed or illegal move,
``START`` out of turn, a move after the end, a line longer than :data:`MAX_LINE_BYTES`) is answered with one line
``RESULT REFUSED <the line> (<why>)`` and the bot exits with code 2 (:class:`ProtocolError`): it never guesses and
never goes silent. ``END`` or the end of input ends it with code 0.

Time: a fresh process answers from the game's opening book (:mod:`awale_apps.opening_book`) while a background
thread loads the rules and the agent (:class:`Engine`); every answer keeps the agent's budget counted from the
arrival of the line (the first one's from the launch, as the course's referee counts it), the wait for the engine
included, and a move the agent cannot make in time (still loading) is played by a fallback that only needs the
rules. This module imports only the standard library at load: the engine's imports run in that thread.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any, TextIO

from awale_apps.opening_book import OpeningBook

#: The seat arguments the referee may give, in lower case, and the seat each one is (0 moves first).
SEATS = {"joueura": 0, "1": 0, "joueurb": 1, "2": 1}
#: How the protocol names the seats 0 (moves first) and 1.
SEAT_NAMES = ("JoueurA", "JoueurB")
#: The ply limit of the warm-up position: the search of a starting position two plies from the end is tiny.
WARM_UP_PLIES = 2
#: The longest input line read (a move is a few characters): a longer one is refused, never held whole.
MAX_LINE_BYTES = 4096
#: Characters of a refused line quoted in messages.
EXCERPT_CHARS = 40
#: Seconds per move of an agent whose spec gives no ``time=``: the course's referee gives 3 s per answer.
DEFAULT_BUDGET = 2.0
#: The shortest search a move gets, however late its line was answered.
MIN_SEARCH = 0.02
#: Part of the budget kept for the fallback move when the agent is still loading (at most half a second).
FALLBACK_SHARE = 0.25
#: Seconds the agent gets to finish loading after the rules, however late: an agent without network or compiled
#: search (random, greedy) is there at once, and the fallback is for those that take seconds.
LOAD_GRACE = 0.25
#: The agent that plays a move when the chosen one is not loaded in time: it needs the rules alone.
FALLBACK_SPEC = "greedy"


class ProtocolError(ValueError):
    """A line from the referee that the protocol does not allow where it came; ``line`` is an excerpt of it."""

    def __init__(self, message: str, line: str) -> None:
        super().__init__(message)
        self.line = line


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

    def next(self) -> tuple[str | None, float]:
        """The next line, stripped (None at the end of input), and when it came; ProtocolError if too long."""
        data = self.stream.readline(self.limit + 1)
        arrived = time.monotonic()
        if not data:
            return None, arrived
        text = data.decode("utf-8", errors="replace")
        if len(data) > self.limit and not data.endswith(b"\n"):
            raise ProtocolError(f"a line longer than {self.limit} bytes: {excerpt(text)!r}", excerpt(text))
        return text.strip(), arrived


def warmed_up_agent(spec: str, game: Any, options: dict[str, Any], seed: int | None = None) -> Any:
    """The agent of ``spec``, ready to play ``game`` (rule flags ``options``) within its time budget at once.

    Its ``time`` (if it has one) is set to :data:`DEFAULT_BUDGET` when the spec gives none, so that every move is
    bounded. A spare agent of the same spec first searches the starting position of a game limited to two plies,
    which compiles (or loads) every kernel of its search; then the agent that plays searches it as well and forgets
    it. The spare one takes the compiling because agents calibrate their budgets on their first searches (alpha-beta
    measures its node rate), which a search that compiled would mislead. AgentSpecError for a bad spec or an agent
    that does not play ``game``."""
    from agents import make
    from agents.base import game_refusal, reset_agent
    from agents.registry import AgentSpecError

    seeded = {} if seed is None else {"seed": seed}
    agents = [make(spec, **seeded) for _ in range(2)]
    refusal = game_refusal(agents[0], spec, game.name)
    if refusal is not None:
        raise AgentSpecError(refusal)
    position = game.initial(max_plies=WARM_UP_PLIES, **options)
    for agent in reversed(agents):
        if getattr(agent, "time", False) is None:
            agent.time = DEFAULT_BUDGET
        agent.act(position)
    reset_agent(agents[0], seed)
    return agents[0]


class Engine:
    """The game's rules and the agent, loaded by :meth:`load` (in a background thread once :meth:`start` ran)
    while the bot answers from its book. ``rules`` is set once ``game`` and ``fallback`` are there, ``loaded``
    once ``agent`` is too (or ``error`` says why it never will be)."""

    def __init__(
        self,
        spec: str,
        resolve: Callable[[], tuple[Any, dict[str, Any], int | None]],
        seed: int | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
        log: Callable[[str], Any] = lambda _: None,
    ) -> None:
        self.spec, self.resolve, self.seed, self.on_error, self.log = spec, resolve, seed, on_error, log
        self.rules, self.loaded = threading.Event(), threading.Event()
        self.game: Any = None
        self.options: dict[str, Any] = {}
        self.max_plies: int | None = None
        self.agent: Any = None
        self.fallback: Any = None
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def ready(cls, game: Any, agent: Any, options: dict[str, Any] | None = None, max_plies: int | None = None):
        """An engine already loaded with ``agent`` (which also serves as the fallback)."""
        engine = cls(getattr(agent, "name", "agent"), lambda: (game, options or {}, max_plies))
        engine.game, engine.options, engine.max_plies = game, options or {}, max_plies
        engine.agent = engine.fallback = agent
        engine.rules.set()
        engine.loaded.set()
        return engine

    def start(self) -> None:
        """Load in a background thread, once."""
        if self._thread is None and not self.loaded.is_set():
            self._thread = threading.Thread(target=self.load, name="awale-bot-engine", daemon=True)
            self._thread.start()

    def load(self) -> None:
        """The rules, the fallback agent, then the agent, warmed up; an error is kept and given to ``on_error``."""
        try:
            started = time.monotonic()
            self.game, self.options, self.max_plies = self.resolve()
            from agents import make

            self.fallback = make(FALLBACK_SPEC)
            self.fallback.act(self.initial())
            self.rules.set()
            self.log(f"the rules of {self.game.name} loaded in {time.monotonic() - started:.2f} s")
            self.agent = warmed_up_agent(self.spec, self.game, self.options, self.seed)
            self.log(f"{self.spec} loaded in {time.monotonic() - started:.2f} s")
        except BaseException as error:  # noqa: BLE001 - any failure of the load ends the bot through on_error
            self.error = error
            if self.on_error is not None:
                self.on_error(error)
        finally:
            self.rules.set()
            self.loaded.set()

    def wait_rules(self) -> None:
        """Wait for the rules (they load in about a second); re-raise the load's error."""
        self.start()
        self.rules.wait()
        if self.game is None:
            raise self.error or RuntimeError("the engine did not load")

    def initial(self) -> Any:
        return self.game.initial(max_plies=self.max_plies, **self.options)

    def player(self, deadline: float) -> tuple[Any, bool]:
        """The agent if it is loaded by ``deadline`` (``time.monotonic``), else the fallback; and whether it is the
        agent. Re-raises the load's error."""
        self.wait_rules()
        self.loaded.wait(max(LOAD_GRACE, deadline - time.monotonic()))
        if self.error is not None:
            raise self.error
        return (self.agent, True) if self.agent is not None else (self.fallback, False)


class BotGame:
    """One game through the protocol: the moves so far (as the game writes them), the bot's seat, the position
    once the engine is needed. :meth:`play` reads the lines and answers them."""

    def __init__(
        self,
        engine: Engine,
        moves: TextIO,
        log: Callable[[str], Any],
        seat: int | None = None,
        book: OpeningBook | None = None,
        result_lines: bool = False,
        budget: float = DEFAULT_BUDGET,
    ) -> None:
        self.engine, self.moves, self.log, self.seat, self.book = engine, moves, log, seat, book
        self.result_lines, self.budget = result_lines, budget
        self.history: list[str] = []
        self.state: Any = None
        self.first_player = 0
        #: Called with a refused line's error before the ``RESULT REFUSED`` line: a referee that stops at that line
        #: may kill the bot at once, so the details go to standard error first.
        self.on_refusal: Callable[[ProtocolError], Any] | None = None

    def play(self, lines: LineReader, launched: float | None = None) -> None:
        """Answer every line until ``END``, the end of input or the opponent's final move; ProtocolError (after
        the ``RESULT REFUSED`` line) for a line the protocol does not allow. The first line's clock starts at
        ``launched`` (the process's launch) when given."""
        first = True
        while True:
            try:
                line, arrived = lines.next()
                if line is None:
                    self.log("end of input")
                    return
                if line == "END":
                    self.log(f"END after {len(self.history)} plies" + self._ending())
                    return
                if first and launched is not None:
                    arrived = launched
                if self._answer(line, arrived, first):
                    return
            except ProtocolError as error:
                if self.on_refusal is not None:
                    self.on_refusal(error)
                self._write(f"RESULT REFUSED {error.line} ({str(error).split('; legal moves')[0]})")
                raise
            first = False

    def _ending(self) -> str:
        return "" if self.state is None or not self.state.is_terminal else f" ({self.state.end_reason})"

    def _answer(self, line: str, arrived: float, first: bool) -> bool:
        """Answer one line (a move, or START); whether the game is over with the answer (the opponent's move
        ended it)."""
        if first:
            self._check_first_line(line)
        elif line == "START":
            raise ProtocolError(f"START after the game began (ply {len(self.history)}); expected a move", line)
        candidate = self.history if line == "START" else [*self.history, line]
        move = None if self.book is None or self._over() else self.book.move(candidate)
        if move is not None:  # the book answers only after a legal move, and none of its moves ends the game
            for played in candidate[len(self.history) :] + [move]:
                self._advance(played)
            self._write(move)
            self.log(f"ply {len(self.history)}: {move} from the book in {time.monotonic() - arrived:.2f} s")
            return False
        self.engine.wait_rules()
        self._sync()
        if line != "START":
            self._opponent_move(line)
            if self.state.is_terminal:
                self._write(self._result(self.history[-1]))
                self.log(f"the opponent's {self.history[-1]} ended the game ({self.state.end_reason})")
                return True
        while not self.state.is_terminal and self._to_move_is_bot():
            self._own_move(arrived)
        return False

    def _check_first_line(self, line: str) -> None:
        """The bot's seat, checked against the first line: ``START`` goes to JoueurA, who moves first."""
        moves_first = line == "START"
        if self.seat == 1 and moves_first:
            raise ProtocolError("received START as JoueurB: START goes to JoueurA, who moves first", line)
        if self.seat == 0 and not moves_first:
            raise ProtocolError(f"expected START: JoueurA moves first, got {excerpt(line)!r}", excerpt(line))
        self.seat = 0 if moves_first else 1
        self.log(f"playing as {SEAT_NAMES[self.seat]}")

    def _over(self) -> bool:
        return self.state is not None and self.state.is_terminal

    def _to_move_is_bot(self) -> bool:
        """Whether the bot moves in the current position (JoueurA is whoever moves first)."""
        return self.state.to_move == (self.first_player if self.seat == 0 else 1 - self.first_player)

    def _sync(self) -> None:
        """The position of the moves so far, built from the initial one when the engine is first needed."""
        if self.state is None:
            state = self.engine.initial()
            self.first_player = state.to_move
            for move in self.history:
                state = state.play(state.to_action(self.engine.game.parse_move(move)))
            self.state = state

    def _advance(self, move: str) -> None:
        self.history.append(move)
        if self.state is not None:
            self.state = self.state.play(self.state.to_action(self.engine.game.parse_move(move)))

    def _opponent_move(self, line: str) -> None:
        """Play the opponent's move ``line``; ProtocolError if it is not a legal move here."""
        from awale_env.errors import IllegalMoveError

        state = self.state
        if state.is_terminal:
            raise ProtocolError(f"the game is over ({state.end_reason}, ply {state.ply}, {self._scores()})",
                                excerpt(line))  # fmt: skip
        if len(line) > EXCERPT_CHARS:
            raise ProtocolError(f"{SEAT_NAMES[1 - self.seat]}'s move at ply {state.ply + 1} refused: {len(line)} "
                                f"characters are no move: {excerpt(line)!r}", excerpt(line))  # fmt: skip
        try:
            action = state.to_action(self.engine.game.parse_move(line))
        except IllegalMoveError as error:
            raise ProtocolError(
                f"{SEAT_NAMES[1 - self.seat]}'s move at ply {state.ply + 1} refused: {error}", excerpt(line)
            ) from None
        self.history.append(self.engine.game.format_move(action))
        self.state = state.play(action)

    def _own_move(self, arrived: float) -> None:
        """Answer the bot's move from the book, else search it within the budget counted from ``arrived``."""
        move = None if self.book is None else self.book.move(self.history)
        how = " from the book"
        if move is None:
            deadline = arrived + self.budget
            agent, chosen = self.engine.player(deadline - min(0.5, FALLBACK_SHARE * self.budget))
            if getattr(agent, "time", None) is not None:
                agent.time = max(MIN_SEARCH, deadline - time.monotonic())
            move = self.engine.game.format_move(agent.act(self.state))
            how = "" if chosen else f" by the fallback {FALLBACK_SPEC} (the agent is still loading)"
        after = self.state.play(self.state.to_action(self.engine.game.parse_move(move)))
        self._write(self._result(move, after) if self.result_lines and after.is_terminal else move)
        self.history.append(move)
        self.state = after
        self.log(f"ply {after.ply}: {move}{how} in {time.monotonic() - arrived:.2f} s")

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


def claim_stdout() -> TextIO:
    """The process's standard output for the moves alone: file descriptor 1 is pointed at standard error, so that
    whatever else writes there (a library's print, a native library) lands in the log instead."""
    sys.stdout.flush()
    moves = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return moves
