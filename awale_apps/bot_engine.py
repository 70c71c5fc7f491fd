"""The agent of ``awale bot`` in a process of its own: the bot answers from its book and its fallback player while
this process loads the game's compiled rules and the agent (numpy, numba's cached kernels, the network; AlphaZero's
through numpy, without torch), so that no load holds the interpreter that answers the referee; then every move out
of the book is the agent's.

The child, ``python -m awale_apps.bot_engine --game ... --agent ... [--rule ...] [--max-plies N] [--seed S]``, writes
one JSON line per event on its standard output: ``{"event": "ready", "seconds": ..., "phases": {...}}`` once its agent
is warmed up (the seconds since its process's start, and those of each step: :func:`load`),
``{"event": "error", "message": ..., "code": ...}`` if it cannot be (a bad spec, a missing checkpoint, an agent that
does not play the game), ``{"event": "move", "id": ..., "move": ...}`` for each request. A request is one line
``{"id": n, "moves": [...], "until": t}``: the moves so far and when the answer is due (``time.monotonic``, the
system's clock on Linux and macOS, the same in both processes). It ends at the end of its input: the bot's death,
even by SIGKILL, ends it. The parent side is :class:`EngineProcess` and :class:`EnginePlayer`.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from awale_apps.bot import MIN_SEARCH, process_start
from awale_apps.bot_fallback import shallow_search

#: The longest line read from the other side (a request holds at most a game's moves).
MAX_MESSAGE = 1 << 16
#: Seconds kept between the agent's deadline and the answer's: the pipes and the bot's own checks.
MARGIN = 0.1
#: Seconds the fallback searches when the agent is still loading: its answer comes within half a second of its line.
FALLBACK_SECONDS = 0.3
#: Seconds the fallback searches when the agent's answer is late (the budget is spent).
LATE_SECONDS = 0.05


# --- the child: the agent --------------------------------------------------------------------------------------


def load_numba_without_scipy() -> None:
    """Import numba and its array functions with scipy hidden. numba imports scipy (half a second of CPU, seconds on
    a busy machine) only to offer linear algebra (``np.dot``, ``np.linalg``) to compiled code, which no kernel of the
    toolkit uses: without it numba loads and compiles every kernel alike. scipy stays importable for anything that
    needs it later."""
    hidden = sys.modules.get("scipy")
    sys.modules["scipy"] = None  # its import fails, and numba leaves linear algebra out
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if hidden is None:
            del sys.modules["scipy"]
        else:
            sys.modules["scipy"] = hidden


def warmed_up_agent(spec: str, game: Any, options: dict[str, Any], seed: int | None, budget: float,
                    phases: dict[str, float] | None = None) -> Any:  # fmt: skip
    """The agent of ``spec``, ready to play ``game`` (rule flags ``options``) within ``budget`` seconds a move at once
    (:func:`agents.base.warm_up`, a spare agent of the same spec taking the compiling): every move is given what is
    left of its budget (:func:`serve`). AgentSpecError for a bad spec or an agent that does not play ``game``.
    ``phases`` gets the seconds its building (``agent``) and warm-up took."""
    from agents import make
    from agents.base import game_refusal, reset_agent, warm_up
    from agents.registry import AgentSpecError

    phases = {} if phases is None else phases
    started = time.monotonic()
    seeded = {} if seed is None else {"seed": seed}
    agent, spare = (make(spec, **seeded) for _ in range(2))
    refusal = game_refusal(agent, spec, game.name)
    if refusal is not None:
        raise AgentSpecError(refusal)
    phases["agent"] = time.monotonic() - started
    warm_up(agent, game, options, spare, seconds=getattr(agent, "time", None) or budget)
    reset_agent(agent, seed)
    phases["warm-up"] = time.monotonic() - started - phases["agent"]
    return agent


def load(
    args: argparse.Namespace, phases: dict[str, float] | None = None
) -> tuple[Any, Any, dict[str, Any], int | None]:
    """The game, its settings and the warmed-up agent of the command line (ValueError naming what is wrong).
    ``phases`` gets the seconds each step took: ``rules`` (numpy, numba and the game's compiled rules), ``agent``
    (building it: its modules, its network) and ``warm-up`` (its first searches: numba's cached kernels)."""
    from awale_apps import check_packages
    from awale_apps.game_settings import game_settings

    phases = {} if phases is None else phases
    started = time.monotonic()
    load_numba_without_scipy()
    check_packages()
    game, options, limit = game_settings(args.game, args.rule, args.max_plies)
    phases["rules"] = time.monotonic() - started
    return warmed_up_agent(args.agent, game, options, args.seed, args.budget, phases), game, options, limit


def parse_engine_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The child's command line, which the bot writes (its own options, checked already)."""
    parser = argparse.ArgumentParser(prog="python -m awale_apps.bot_engine")
    parser.add_argument("--game", required=True)
    parser.add_argument("--agent", required=True)
    parser.add_argument("--rule", action="append")
    parser.add_argument("--max-plies", type=int, default=0)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--budget", type=float, required=True)
    return parser.parse_args(argv)


def serve(argv: list[str] | None = None) -> None:
    """The child's main: load, say so, then answer requests until the end of input."""
    started = process_start()
    phases = {"python": time.monotonic() - started}  # the interpreter and this module's imports
    args = parse_engine_args(argv)
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a library's print goes to the log, never into the events
    requests: queue.Queue[dict[str, Any]] = queue.Queue()

    def emit(**event: Any) -> None:
        events.write(json.dumps(event) + "\n")
        events.flush()

    def read() -> None:
        for line in iter(lambda: sys.stdin.buffer.readline(MAX_MESSAGE), b""):
            requests.put(json.loads(line))
        os._exit(0)  # the bot is gone

    threading.Thread(target=read, name="awale-bot-requests", daemon=True).start()
    try:
        agent, game, options, limit = load(args, phases)
    except (ValueError, ImportError, OSError) as error:
        emit(event="error", message=" ".join(str(error).split()), code=1 if isinstance(error, ImportError) else 2)
        return
    emit(event="ready", seconds=round(time.monotonic() - started, 3),
         phases={name: round(seconds, 3) for name, seconds in phases.items()})  # fmt: skip
    from agents.base import Limit  # loaded with the agent already

    history: list[str] = []
    state = game.initial(max_plies=limit, **options)
    while True:
        request = requests.get()
        moves = request["moves"]
        if moves[: len(history)] != history:
            history, state = [], game.initial(max_plies=limit, **options)
        for move in moves[len(history) :]:
            state = state.play(state.to_action(game.parse_move(move)))
        history = list(moves)
        # however late: the bot decides whether to wait
        limit = Limit(time=max(MIN_SEARCH, request["until"] - time.monotonic()))
        emit(event="move", id=request["id"], move=game.format_move(agent.act(state, limit)))


# --- the parent: the bot ---------------------------------------------------------------------------------------


class EngineProcess:
    """The agent's process seen from the bot: started at once in its own process group, ended by :meth:`close` on
    every way out of the bot (and by the end of its input when the bot dies). ``ready`` is set once the agent is
    warmed up; ``on_error`` gets the message and exit code of a load that failed."""

    def __init__(self, argv: list[str], log, on_error, launched: float) -> None:
        self.log, self.on_error, self.launched = log, on_error, launched
        self.ready, self.gone = threading.Event(), threading.Event()
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock, self._next_id = threading.Lock(), 0
        home = str(Path(__file__).resolve().parent.parent)  # the child imports this very package
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [home, os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "awale_apps.bot_engine", *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True,
        )  # fmt: skip
        threading.Thread(target=self._read, name="awale-bot-engine", daemon=True).start()
        log(f"the agent loads in its own process (pid {self.process.pid})")

    def _read(self) -> None:
        for line in iter(lambda: self.process.stdout.readline(MAX_MESSAGE), b""):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "ready":
                self.ready.set()
                phases = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in event.get("phases", {}).items())
                self.log(f"the agent is ready, {time.monotonic() - self.launched:.2f} s after the bot's start "
                         f"({event['seconds']:.2f} s after its own process's: {phases})")  # fmt: skip
            elif event.get("event") == "error":
                self.gone.set()
                self.on_error(str(event.get("message", "")), int(event.get("code", 2)))
            else:
                self.answers.put(event)
        if not self.gone.is_set():
            self.gone.set()
            self.log(f"the agent's process ended (exit code {self.process.wait()}); the fallback plays on")

    def ask(self, moves: list[str], until: float, wait_until: float | None) -> str | None:
        """The agent's move after ``moves``, due by ``until``; None if it has not come by ``wait_until`` (None:
        wait as long as the process lives)."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            try:
                self.process.stdin.write(json.dumps({"id": request_id, "moves": moves, "until": until}).encode())
                self.process.stdin.write(b"\n")
                self.process.stdin.flush()
            except OSError:
                return None
        while not self.gone.is_set() or not self.answers.empty():
            timeout = 0.5 if wait_until is None else wait_until - time.monotonic()
            if timeout <= 0:
                return None
            try:
                answer = self.answers.get(timeout=min(timeout, 0.5))
            except queue.Empty:
                continue
            if answer.get("id") == request_id:
                return answer.get("move")
        return None

    def close(self) -> None:
        """End the process group of the agent's process (at once: it holds nothing to save)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()


class EnginePlayer:
    """The bot's moves out of the book: the agent's when it is ready and answers in time, else the fallback's (a
    shallow search of the rules the bot holds), which answers within half a second of its line. ``fallback``
    False: always the agent's, waiting for it to load (for a referee that allows the time)."""

    def __init__(self, engine: EngineProcess, rules: Any, log, fallback: bool = True) -> None:
        self.engine, self.rules, self.log, self.fallback = engine, rules, log, fallback
        self.waited = False

    def choose(self, state: Any, history: list[str], arrived: float, budget: float) -> tuple[str, str]:
        engine = self.engine
        if not self.fallback and not engine.ready.is_set() and not engine.gone.is_set():
            self.log("waiting for the agent to load (--no-fallback)")
            while not engine.ready.wait(0.5) and not engine.gone.is_set():
                pass
        if engine.ready.is_set() and not engine.gone.is_set():
            until = max(time.monotonic() + MIN_SEARCH, arrived + budget - MARGIN)
            move = engine.ask(history, until, arrived + budget + MARGIN if self.fallback else None)
            try:
                if move is not None:
                    state.to_action(move)
                    return move, "the agent"
            except ValueError:
                self.log(f"the agent answered {move!r}, not a legal move here")
            why = "the agent did not answer in time"
            search = LATE_SECONDS
        else:
            why = "the agent is not ready" if not engine.gone.is_set() else "the agent's process is gone"
            search = max(MIN_SEARCH, arrived + FALLBACK_SECONDS - time.monotonic())
        return self.rules.format_move(shallow_search(state, time.monotonic() + search)), f"the fallback ({why})"


if __name__ == "__main__":
    serve()
