"""``awale bot`` and ``awale referee`` as the course's referee sees them: processes talking over pipes, one line per
move (docs/editions.md). The bots play the 2025 edition with fast agents; the broken players are small scripts.
Every ``awale bot`` process costs a second of start-up, so the tests start few and several at once."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import make
from awale_apps.bot import AgentPlayer, BotGame, LineReader, ProtocolError, parse_seat
from awale_apps.bot_engine import EnginePlayer
from awale_apps.bot_fallback import CompiledRules, plain_rules
from awale_apps.cli import app
from awale_env.games import DEFAULT_GAME, get_game
from competition.programs import Fault
from competition.refereed_game import check_answer

GAME = get_game("awale16_2025")
DEFAULT = get_game(DEFAULT_GAME)  # the game of the shipped PPO policy
BOT = [sys.executable, "-m", "awale_apps", "bot", "--game", GAME.name]
REFEREE = [sys.executable, "-m", "awale_apps", "referee"]
#: Seconds any one process of these tests may take (start-up included).
TIMEOUT = 120
#: The referee's options in these tests: a generous start-up, since processes start together on a loaded machine.
SETTINGS = ["--game", GAME.name, "--games", "2", "--time", "2", "--startup", "60"]

#: A player that breaks the protocol as its first argument says; its seat is its last argument. ``1R`` (JoueurA)
#: and ``2R`` (JoueurB) are legal first moves of the 2025 edition, each the other seat's illegal one.
BROKEN_PLAYER = """\
import os, sys, time
mode, seat = sys.argv[1], sys.argv[-1]
own, theirs = ("1R", "2R") if seat in ("JoueurA", "1") else ("2R", "1R")
for n, line in enumerate(sys.stdin):
    if line.strip() == "END":
        break
    if mode == "illegal":
        print(theirs, flush=True)
    elif mode == "crash":
        print("something went wrong", file=sys.stderr, flush=True)
        sys.exit(3)
    elif mode == "slow":
        if n:
            with open(sys.argv[2], "a") as pids:
                pids.write(f"{os.getpid()}\\n")
            time.sleep(60)
        print(own, flush=True)
    elif mode == "chatty":  # both lines in one write (print would make four under PYTHONUNBUFFERED)
        os.write(1, f"{own}\\n{own}\\n".encode())
    elif mode == "liar":
        print(f"RESULT {own} 5 0", flush=True)
"""


def command(words: list[str]) -> str:
    """``words`` as one command line for the referee."""
    return shlex.join(words)


def start_bot(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*BOT, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
    )


def exchange(bot: subprocess.Popen, line: str) -> str:
    """Send one line to the bot and return its answer."""
    bot.stdin.write(line + "\n")
    bot.stdin.flush()
    return bot.stdout.readline().strip()


# --- awale bot ---------------------------------------------------------------------------------------------------


def test_bot_plays_whole_games_over_pipes_from_either_seat_and_exits_at_end():
    """The test plays random moves against two bots (one per seat, started together), checks every answer against
    the rules and sends END."""
    bots = {seat: start_bot("--agent", "greedy", "--seed", "1", seat) for seat in ("JoueurA", "2")}
    for seat, bot in bots.items():
        rng = random.Random(seat)
        state = GAME.initial(max_plies=None)
        message = "START" if seat == "JoueurA" else None
        while not state.is_terminal:
            if message is None:
                message = GAME.format_move(rng.choice(state.legal_actions()))
                state = state.play(message)
                continue
            answer = exchange(bot, message)
            state = state.play(state.to_action(GAME.parse_move(answer)))
            message = None
        out, err = bot.communicate("END\n", timeout=TIMEOUT)
        assert bot.returncode == 0, err
        assert out == ""  # every answer was read, one line per move
        assert state.end_reason in ("score", "few_seeds", "move_limit")
        assert f"END after {state.ply} plies" in err


def test_bot_answers_result_when_its_move_ends_the_game():
    """A one-ply game ends with the bot's first move: RESULT <move> <score1> <score2>, then END."""
    bot = start_bot("--agent", "random", "--max-plies", "1", "--result-lines", "JoueurA")
    words = exchange(bot, "START").split()
    assert words[0] == "RESULT" and words[2:] == ["0", "0"]
    assert GAME.initial().is_legal(GAME.parse_move(words[1]))
    out, err = bot.communicate("END\n", timeout=TIMEOUT)
    assert (bot.returncode, out) == (0, ""), err


def test_bot_answers_the_opponent_s_final_move_with_a_result_line_and_exits_without_end():
    """A two-ply game ends with JoueurB's move: the bot (JoueurA) answers RESULT <that move> <score A> <score B> and
    exits 0 at once, with its input still open (the course's referee never sends END)."""
    bot = start_bot("--agent", "random", "--max-plies", "2", "JoueurA")
    first = exchange(bot, "START")
    assert GAME.initial().is_legal(GAME.parse_move(first))
    assert exchange(bot, "2R") == "RESULT 2R 0 0"
    assert bot.wait(timeout=TIMEOUT) == 0


#: Input the bot process must refuse: (seat argument, lines, what its error line says, the line it names).
REFUSED = {
    "malformed": ("JoueurB", "3X\n", "malformed move '3X'", "3X"),
    "illegal": ("JoueurB", "2R\n", "illegal move 2R for player 0: hole 2 belongs to player 1", "2R"),
    "START to the second seat": ("2", "START\n", "received START as JoueurB", "START"),
    "a 10 MB line": ("JoueurB", "7" * 10_000_000 + "\n", "a line longer than 4096 bytes", "7" * 40 + "..."),
    "a million empty lines": ("JoueurB", "\n" * 1_000_000, "one line is one move", "''"),
    "two moves on a line": ("JoueurB", "14R 11B\n", "got several words, '14R 11B'", "'14R 11B'"),
    "a CR-only line": ("JoueurA", "\r\n", "got an empty line", "''"),
}
#: Input after which the bot process exits cleanly.
ENDED = {"END": "END\n", "end of input": ""}


@pytest.fixture(scope="module")
def protocol_runs() -> dict[str, tuple[int, str, str]]:
    """Each case of :data:`REFUSED` and :data:`ENDED` fed to a bot, all bots at once: (exit code, stdout, stderr)."""
    cases = {name: (seat, lines) for name, (seat, lines, *_) in REFUSED.items()}
    cases |= {name: ("JoueurA", lines) for name, lines in ENDED.items()}
    bots = {name: (start_bot("--agent", "random", seat), lines) for name, (seat, lines) in cases.items()}
    runs = {}
    for name, (bot, lines) in bots.items():
        out, err = bot.communicate(lines, timeout=TIMEOUT)
        runs[name] = (bot.returncode, out, err)
    return runs


@pytest.mark.parametrize("case", REFUSED)
def test_bot_refuses_a_bad_line_with_one_result_line_one_error_line_and_no_guess(protocol_runs, case):
    """``RESULT REFUSED <the line> (<why>)`` on standard output, so that a referee that checks nothing stops there;
    the error and the moves so far on standard error; exit code 2. A long line is quoted in 40 characters."""
    code, out, err = protocol_runs[case]
    _, _, message, named = REFUSED[case]
    assert code == 2, err
    assert out.startswith(f"RESULT REFUSED {named} (") and message in out and out.count("\n") == 1, out
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0] and len(errors[0]) < 400, err
    assert "Traceback" not in err


@pytest.mark.parametrize("case", ENDED)
def test_bot_exits_cleanly_at_end_or_end_of_input(protocol_runs, case):
    code, out, err = protocol_runs[case]
    assert (code, out) == (0, ""), err


def in_process(agent, game=GAME, options=None, max_plies=None, **settings) -> BotGame:
    """A :class:`BotGame` of ``agent`` in this process, without a book, writing into ``game.moves`` (a StringIO)."""
    rules = CompiledRules(game, options or {}, max_plies)
    return BotGame(rules, AgentPlayer(agent, rules), io.StringIO(), lambda _: None, **settings)


def play_lines(lines: str, seat: int | None, max_plies: int | None = None, result_lines: bool = False) -> str:
    """What a :class:`BotGame` answers to ``lines`` with a random agent (in this process), without a book."""
    game = in_process(make("random", seed=1), max_plies=max_plies, seat=seat, result_lines=result_lines)
    moves = game.moves
    try:
        game.play(LineReader(io.BytesIO(lines.encode())))
    except ProtocolError:
        assert moves.getvalue().splitlines()[-1].startswith("RESULT REFUSED ")
        raise
    return moves.getvalue()


@pytest.mark.parametrize(
    ("seat", "lines", "message"),
    [
        (0, "START\nSTART\n", "START after the game began (ply 1)"),
        (0, "1R\n", "expected START: JoueurA moves first, got '1R'"),
        (None, "\n", "one line is one move (or START, END): got an empty line"),
        (None, " \r\n", "one line is one move (or START, END): got an empty line"),
        (None, "\r\n", "one line is one move (or START, END): got an empty line"),
        (1, "14R 11B\n", "one line is one move (or START, END): got several words, '14R 11B'"),
        (0, " START\n", "one line is one move (or START, END): got spaces"),
        (1, "1R\r\n\n", "one line is one move (or START, END): got an empty line"),
        (1, "1R\n2R\n", "illegal move 2R for player 0: hole 2 belongs to player 1"),
    ],
)
def test_protocol_errors(seat, lines, message):
    with pytest.raises(ProtocolError, match=re.escape(message)):
        play_lines(lines, seat)


def test_a_refusal_names_the_program_at_fault_and_the_score_so_far():
    """The course's referee prints the RESULT REFUSED line and stops: the teacher reads there who broke the rules
    (the other program, whose move the referee passed on, or the referee itself) and the score at that moment."""
    game = in_process(make("random", seed=1), seat=1)
    with pytest.raises(ProtocolError):
        game.play(LineReader(io.BytesIO(b"1R\n2R\n")))
    a, b = game.state.stores[game.first_player], game.state.stores[1 - game.first_player]
    line = game.moves.getvalue().splitlines()[-1]
    assert line.startswith("RESULT REFUSED 2R (JoueurA's move at ply 3 refused: illegal move 2R for player 0")
    assert line.endswith(f"; at fault: JoueurA, the other program (not this bot, JoueurB); score so far: JoueurA {a}, "
                         f"JoueurB {b})")  # fmt: skip
    referee = in_process(make("random", seed=1), seat=1)
    with pytest.raises(ProtocolError):
        referee.play(LineReader(io.BytesIO(b"START\n")))
    assert "; at fault: the referee (the seat it gave and START disagree); score so far: JoueurA 0, JoueurB 0)" in (
        referee.moves.getvalue()
    )


def test_protocol_seat_comes_from_the_first_line_without_an_argument_and_moves_after_the_end_are_refused():
    assert len(play_lines("START\n", None).splitlines()) == 1
    assert len(play_lines("1R\n", None).splitlines()) == 1
    with pytest.raises(ProtocolError, match=r"the game is over \(ply_limit, ply 2, JoueurA 0 - JoueurB 0\)"):
        play_lines("1R\n3R\n", 1, max_plies=2)
    assert play_lines("START\n", 0, max_plies=1, result_lines=True).startswith("RESULT ")


def test_the_opponent_s_final_move_is_answered_with_a_result_line_and_ends_the_game():
    """JoueurB's move ends a two-ply game: the bot (JoueurA) answers RESULT <that move> <score A> <score B> and stops
    reading (the line after it is never read)."""
    answers = play_lines("START\n2R\nnever read\n", 0, max_plies=2).splitlines()
    assert len(answers) == 2 and answers[1] == "RESULT 2R 0 0"


class Timed:
    """A search agent's stand-in: it records the time it was given with each move (its ``limit``) and plays the first
    legal one."""

    name = "timed"

    def __init__(self) -> None:
        self.time, self.given = 5.0, []

    def act(self, state, limit=None):
        self.given.append(self.time if limit is None else limit.time)
        return state.legal_actions()[0]


def test_every_answer_keeps_the_budget_from_the_arrival_of_its_line():
    """The search gets what is left of the budget when it starts, never the agent's own 5 s; the first line's budget
    counts from the launch, so a line that comes 0.3 s after the launch leaves about 0.7 s of a 1-s budget."""
    GAME.initial().play("1R")  # numba's first use in this process, which a bot makes in its engine's process
    agent = Timed()
    game = in_process(agent, seat=1, budget=1.0)
    game.play(LineReader(io.BytesIO(b"1R\n3R\n")), launched=time.monotonic() - 0.3)
    assert len(agent.given) == 2 and 0.2 < agent.given[0] <= 0.7 and 0.5 < agent.given[1] <= 1.0, agent.given


class Loading:
    """An agent's process that never gets ready (or, ``late``, is ready and never answers)."""

    def __init__(self, late: bool = False) -> None:
        self.ready, self.gone, self.asked = threading.Event(), threading.Event(), []
        if late:
            self.ready.set()

    def ask(self, moves, until, wait_until):
        self.asked.append((list(moves), until, wait_until))
        time.sleep(max(0.0, wait_until - time.monotonic()))


@pytest.mark.parametrize("late", [False, True])
def test_a_move_the_agent_cannot_make_in_time_is_played_by_the_fallback_and_logged(late):
    """The agent is still loading (or does not answer by the budget): the plain rules' shallow search answers, and
    the log says where the move came from and why."""
    rules = plain_rules(GAME.name)()
    engine, logged = Loading(late), []
    game = BotGame(rules, EnginePlayer(engine, rules, logged.append), io.StringIO(), logged.append, 0, budget=0.6)
    game.play(LineReader(io.BytesIO(b"START\n")))
    assert GAME.initial().is_legal(GAME.parse_move(game.moves.getvalue().strip()))
    why = "the agent did not answer in time" if late else "the agent is not ready"
    assert f"from the fallback ({why})" in logged[-2] and logged[-1] == "end of input"
    assert len(engine.asked) == int(late)


class Passive:
    """The legal move after which the mover has captured least: two of them play 2025 games to the move limit."""

    name = "passive"

    def act(self, state, limit=None):
        return min(state.legal_actions(), key=lambda action: state.play(action).stores[state.to_move])


@pytest.mark.parametrize("seat", [0, 1])
def test_the_400th_move_of_2025_ends_the_game_with_a_result_line(seat):
    """Two passive players reach 2025's 400-move limit: JoueurA receives the 400th move and answers RESULT; JoueurB,
    with --result-lines, writes its 400th move as RESULT (the course's referee says RESULT LIMIT at that answer)."""
    state, line = GAME.initial(), []
    while not state.is_terminal:
        line.append(GAME.format_move(Passive().act(state)))
        state = state.play(line[-1])
    assert (state.ply, state.end_reason) == (400, "move_limit")
    fed = ["START", *line[1::2]] if seat == 0 else line[0::2]
    game = in_process(Passive(), seat=seat, result_lines=True)
    game.play(LineReader(io.BytesIO(("\n".join(fed) + "\n").encode())))
    answers = game.moves.getvalue().splitlines()
    assert answers[:-1] == line[seat::2][: len(answers) - 1]
    assert answers[-1] == f"RESULT {line[-1]} {state.stores[0]} {state.stores[1]}"


class CaptureMost:
    """The first legal move after which the mover has captured most (deterministic: the line below is known)."""

    name = "capture-most"

    def act(self, state, limit=None):
        return max(state.legal_actions(), key=lambda action: state.play(action).stores[state.to_move])


def test_joueura_is_whoever_moves_first_when_the_rules_let_the_other_player_start():
    """Oware with ``first_player=1``: JoueurA plays the rules' player 1; its RESULT line gives JoueurA's score first.
    The game ends at ply 19, JoueurA's move, with the scores unequal (0 for player 0, 4 for player 1), so the order
    shows."""
    oware, options, plies = get_game("oware"), {"first_player": 1}, 19
    state, line = oware.initial(max_plies=plies, **options), []
    while not state.is_terminal:
        line.append(oware.format_move(CaptureMost().act(state)))
        state = state.play(oware.parse_move(line[-1]))
    assert (state.ply, state.stores) == (plies, (0, 4))  # the line this test was written for
    game = in_process(CaptureMost(), oware, options, max_plies=plies, seat=0, result_lines=True)
    game.play(LineReader(io.BytesIO(("\n".join(["START", *line[1::2]]) + "\n").encode())))
    answers = game.moves.getvalue().splitlines()
    assert answers[:-1] == line[0:-1:2]
    assert answers[-1] == f"RESULT {line[-1]} 4 0"  # JoueurA (player 1) first


def test_bot_without_game_names_the_editions_in_one_line_and_prepare_readies_the_agent():
    """A student who forgets --game does not play the default rules; --prepare builds and warms up, then exits."""
    missing = subprocess.run([*BOT[:4], "--agent", "greedy", "JoueurA"], input="START\n", capture_output=True,
                             text=True, timeout=TIMEOUT)  # fmt: skip
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr.startswith("error: --game is required") and "awale16_2025" in missing.stderr
    assert missing.stderr.count("\n") == 1
    prepared = subprocess.run([*BOT, "--agent", "alphabeta:time=0.1", "--prepare"], capture_output=True, text=True,
                              timeout=TIMEOUT)  # fmt: skip
    assert (prepared.returncode, prepared.stdout) == (0, ""), prepared.stderr
    assert "alphabeta:time=0.1 is ready for awale16_2025" in prepared.stderr and "an opening book" in prepared.stderr


#: Agents the bot refuses: (its --agent and --game, what the one error line says); the first three at launch,
#: before reading a line, the others as soon as the agent's process finds the fault.
BAD_AGENTS = {
    "a bad parameter": (["alphabeta:depth=x"], "alphabeta: depth must be int"),
    "an unknown agent": (["nosuch"], "unknown agent 'nosuch'"),
    "a missing checkpoint": (["alphazero:path=/no/such/net.pt"], "'/no/such/net.pt' (path= of"),
    "a tampered checkpoint": (["alphazero:path={tampered}"], "tampered.pt"),
    "a value the agent refuses": (["alphabeta:depth=0"], "depth must be a positive int, got 0"),
    "a game it does not play": (["alphazero:pretrained", "--game", "oware"], "not 'oware'"),
}


@pytest.mark.parametrize("case", BAD_AGENTS)
def test_a_bad_agent_is_refused_with_one_line_and_exit_code_2(case, tmp_path):
    """The bot never plays a game for an agent that cannot play it: a bad spec or missing file is refused before
    the first line; a checkpoint that is no network of the game, as the agent loads, even in the middle of a game
    its book and fallback were playing."""
    (tmp_path / "tampered.pt").write_bytes(b"PK\x03\x04 not a checkpoint")
    words, message = BAD_AGENTS[case]
    words = [word.format(tampered=tmp_path / "tampered.pt") for word in words]
    bot = subprocess.Popen([*BOT[:4], "--game", GAME.name, "--agent", *words, "JoueurA"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    bot.wait(timeout=TIMEOUT)  # the input stays open: the bot ends by itself
    out, err = bot.communicate()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert bot.returncode == 2 and out == "", err
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err, err
    if case in list(BAD_AGENTS)[:3]:
        assert err.count("\n") == 1


def test_seat_arguments():
    assert [parse_seat(text) for text in ("JoueurA", "joueura", "1", "JoueurB", "2")] == [0, 0, 0, 1, 1]
    for text in ("A", "0", "3", ""):
        with pytest.raises(ValueError, match="must be JoueurA, JoueurB, 1 or 2"):
            parse_seat(text)


def test_once_the_agent_is_ready_its_moves_are_the_agent_s():
    """The search is compiled or loaded in the agent's process while the bot waits (JoueurB, no book): once the log
    says it is ready, the next answer is the agent's, and the log says so."""
    bot = start_bot("--agent", "alphabeta:time=0.3", "--no-book", "JoueurB")
    while "the agent is ready" not in (line := bot.stderr.readline()):
        assert line, "the bot ended before it was ready"
    answer = exchange(bot, "1R")
    assert GAME.initial().play("1R").is_legal(GAME.parse_move(answer))
    _, err = bot.communicate("END\n", timeout=TIMEOUT)
    assert bot.returncode == 0
    assert f"ply 2: {answer} from the agent" in err


# --- awale referee -----------------------------------------------------------------------------------------------


def test_referee_runs_two_bots_and_every_move_it_accepted_is_legal(tmp_path):
    out = tmp_path / "results.json"
    # Without their books the bots' first answers wait for the rules, which --startup allows for on a loaded machine.
    bots = [command([*BOT, "--agent", "random", "--no-book"]),
            command([*BOT, "--agent", "greedy", "--result-lines", "--no-book"])]  # fmt: skip
    done = subprocess.run([*REFEREE, *bots, *SETTINGS, "--out", str(out)], capture_output=True, text=True,
                          timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert [game["seats"] for game in results["games"]] == [[1, 2], [2, 1]]
    for game in results["games"]:
        state = GAME.initial(max_plies=None)
        for move in game["moves"]:
            state = state.play(move)
        assert state.is_terminal and game["end"] == state.end_reason, game
        assert game["scores"] == list(state.stores) and game["plies"] == state.ply
        winner = None if state.winner is None else game["seats"][state.winner]
        assert game["winner"] == winner and game["faulty"] is None
    for program in results["programs"]:
        assert program["wins"] + program["draws"] + program["losses"] == 2 and program["faults"] == {}
    assert "program 1" in done.stdout and "longest later" in done.stdout


@pytest.fixture(scope="module")
def broken_matches(tmp_path_factory) -> dict[str, dict]:
    """Broken players against each other, two games each (each starts one): the illegal player against the one that
    crashes, the slow one against the one that writes two lines per move; and the liar's RESULT lines against a bot
    answering true ones in one-ply games. The referee runs in this process."""
    folder = tmp_path_factory.mktemp("broken")
    script = folder / "broken_player.py"
    script.write_text(BROKEN_PLAYER)
    player = {mode: command([sys.executable, str(script), mode, str(folder / "pids")]) for mode in
              ("illegal", "crash", "slow", "chatty", "liar")}  # fmt: skip
    honest = command([*BOT, "--agent", "random", "--max-plies", "1", "--result-lines"])
    results = {}
    for name, programs, extra in [
        ("illegal-crash", (player["illegal"], player["crash"]), []),
        ("slow-chatty", (player["slow"], player["chatty"]), []),
        ("liar", (player["liar"], honest), ["--max-plies", "1"]),
    ]:
        out = folder / f"{name}.json"
        result = CliRunner().invoke(app, ["referee", *programs, *SETTINGS, *extra, "--out", str(out)])
        assert result.exit_code == 0, result.output
        results[name] = {**json.loads(out.read_text()), "stdout": result.output}
    results["pids"] = [int(pid) for pid in (folder / "pids").read_text().split()]
    return results


@pytest.mark.parametrize(
    ("match", "number", "fault", "detail"),
    [
        ("illegal-crash", 1, "illegal", "JoueurA at ply 1: illegal move 2R for player 0: hole 2 belongs to player 1"),
        ("illegal-crash", 2, "crash", "JoueurA at ply 1: closed its output without answering (exit code 3)"),
        ("slow-chatty", 1, "timeout", "JoueurA at ply 3: no answer within 2 s"),
        ("slow-chatty", 2, "extra_output", "JoueurA at ply 3: wrote '1R' when no answer was due"),
        ("liar", 1, "false_result", "JoueurA at ply 1: answered 'RESULT 1R 5 0'; the scores are 0 0"),
    ],
)
def test_a_broken_player_loses_the_game_with_the_reason(broken_matches, match, number, fault, detail):
    """Game ``number``'s JoueurA breaks the protocol: it loses, the table and the JSON say why (and what it wrote on
    standard error if it crashed)."""
    results = broken_matches[match]
    game = results["games"][number - 1]
    loser = game["seats"][0]
    assert (game["end"], game["faulty"], game["winner"]) == (fault, loser, 3 - loser)
    assert game["detail"].startswith(detail)
    assert results["programs"][loser - 1]["faults"] == {fault: 1}
    assert game["detail"].endswith("[stderr: something went wrong]") == (fault == "crash")
    assert f"game   {number}: program {loser} (JoueurA)" in results["stdout"]
    assert f"program {3 - loser} wins, 0-0 after {game['plies']} plies, {fault}: {detail}" in results["stdout"]


def test_a_hung_player_is_killed_at_once(broken_matches):
    """The slow player sleeps 60 s on its second move; the referee killed it after the 2 s of the move."""
    assert len(broken_matches["pids"]) == 1
    with pytest.raises(ProcessLookupError):
        os.kill(broken_matches["pids"][0], 0)


def test_a_bot_s_true_result_line_ends_the_game(broken_matches):
    game = broken_matches["liar"]["games"][1]
    assert (game["end"], game["faulty"], game["plies"], game["winner"], game["scores"]) == ("ply_limit", None, 1,
                                                                                            None, [0, 0])  # fmt: skip
    assert len(game["moves"]) == 1 and GAME.initial().is_legal(GAME.parse_move(game["moves"][0]))


def test_ctrl_c_stops_the_referee_and_kills_its_programs(tmp_path):
    """SIGINT while the programs run: exit code 130, one line, no program left running."""
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text(f"import os, time\nopen(os.path.join({str(tmp_path)!r}, f'{{os.getpid()}}.pid'), 'w')\n"
                       "time.sleep(100)\n")  # fmt: skip
    player = command([sys.executable, str(sleeper)])
    referee = subprocess.Popen([*REFEREE, player, player, "--time", "50", "--games", "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    deadline = time.monotonic() + TIMEOUT
    while len(pids := [int(path.stem) for path in tmp_path.glob("*.pid")]) < 2:
        assert time.monotonic() < deadline and referee.poll() is None, referee.stderr.read()
        time.sleep(0.05)
    referee.send_signal(signal.SIGINT)
    out, err = referee.communicate(timeout=TIMEOUT)
    assert (referee.returncode, err.strip()) == (130, "interrupted"), err
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_check_answer():
    state = GAME.initial()
    assert check_answer(GAME, state, "3tb\n") == ("3tb", 11, None)
    assert check_answer(GAME, state, "RESULT 3TB 0 0") == ("3TB", 11, (0, 0))
    bad = [("", "malformed"), ("17R", "malformed"), ("RESULT 3TB", "malformed"), ("RESULT 3TB ² 0", "malformed"),
           ("2R", "illegal")]  # fmt: skip
    for line, kind in bad:
        with pytest.raises(Fault) as caught:
            check_answer(GAME, state, line)
        assert caught.value.kind == kind, line


def test_referee_bad_settings_are_one_line_errors_before_any_game(tmp_path):
    good = command([*BOT, "--agent", "random"])
    regular = tmp_path / "file"
    regular.write_text("")
    for args, code, message in [
        (["no-such-program-x", good], 2, "no program 'no-such-program-x'"),
        ([good, good, "--games", "0"], 2, "need games >= 1"),
        ([good, good, "--time", "nan"], 2, "a time per move in (0, 3600] s"),
        ([good, good, "--time", "inf"], 2, "a time per move in (0, 3600] s"),
        ([good, good, "--startup", "inf"], 2, "a start-up in [0, 3600] s"),
        ([good, good, "--game", "awale2025"], 2, "unknown game 'awale2025'"),
        ([good, good, "--out", str(regular / "sub" / "r.json")], 2, f"{regular} is a file, not a directory"),
        ([good, good, "--out", str(tmp_path)], 2, f"--out {tmp_path} is a directory: give a file name in it"),
    ]:
        result = CliRunner().invoke(app, ["referee", *args])
        assert result.exit_code == code, result.output
        assert result.output.startswith("error: ") and message in result.output, result.output


def test_the_docs_show_the_commands():
    text = (Path(__file__).parents[1] / "docs" / "editions.md").read_text()
    assert "awale bot --prepare --game awale16_2025 --agent alphazero:pretrained,time=2" in text
    assert "awale referee" in text and "--result-lines" in text


def gone(pid: int, seconds: float = TIMEOUT) -> bool:
    """Whether process ``pid`` ends (or is a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("ending", ["END", "end of input", "SIGTERM", "SIGKILL"])
def test_the_agent_s_process_ends_with_the_bot_however_it_ends(ending):
    """The agent loads in a process of its own (its own process group): the bot ends it at END, at the end of its
    input and on SIGTERM; when the bot is killed, the end of the agent's input ends it."""
    bot = start_bot("--agent", "alphabeta:time=0.2", "JoueurA")
    while "the agent loads in its own process (pid " not in (line := bot.stderr.readline()):
        assert line, "the bot ended before it started its agent"
    agent = int(line.split("(pid ")[1].split(")")[0])
    assert exchange(bot, "START")
    if ending == "END":
        bot.stdin.write("END\n")
        bot.stdin.flush()
    elif ending == "end of input":
        bot.stdin.close()
    else:
        bot.send_signal(getattr(signal, ending))
    code = bot.wait(timeout=TIMEOUT)
    assert code == {"SIGTERM": 143, "SIGKILL": -9}.get(ending, 0)
    assert gone(agent), f"the agent's process {agent} outlived the bot ({ending})"


def test_the_bot_answers_without_numpy_numba_torch_or_a_command_line_framework():
    """Up to its answers from the book and the fallback, the bot's own process imports the standard library and the
    toolkit's plain modules only (the agent's process, which loads the rest, does not report its imports here)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *BOT[1:], "--agent", "alphabeta:time=0.2", "JoueurA"],
                          input="START\nEND\n", capture_output=True, text=True, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    imported = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
    assert "awale_apps" in imported and not imported & {"numpy", "numba", "torch", "typer", "click", "awale_env"}


@pytest.mark.parametrize(
    ("agent", "game"), [("alphazero:pretrained,simulations=16", GAME), ("ppo:pretrained", DEFAULT)]
)
def test_the_agent_s_process_loads_neither_torch_nor_scipy(agent, game):
    """The shipped networks' processes play them through numpy: no torch (seconds of import), no scipy (which numba
    imports for compiled linear algebra no kernel uses), no Gymnasium; its ready event says where its seconds went."""
    engine = [sys.executable, "-X", "importtime", "-m", "awale_apps.bot_engine", "--game", game.name, "--agent",
              agent, "--budget", "2"]  # fmt: skip
    process = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdin.write(json.dumps({"id": 1, "moves": ["1R"], "until": time.monotonic() + 60}) + "\n")
    process.stdin.flush()
    events = [json.loads(process.stdout.readline()) for _ in range(2)]  # the end of its input would end it
    _, err = process.communicate(timeout=TIMEOUT)
    assert [event["event"] for event in events] == ["ready", "move"], err[-2000:]
    assert list(events[0]["phases"]) == ["python", "rules", "agent", "warm-up"]
    assert game.initial().play("1R").is_legal(game.parse_move(events[1]["move"]))
    imported = {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if "|" in line}
    # what a real import of each loads (the import of scipy that numba tries, refused at once, is logged too)
    assert "numba.core" in imported and not imported & {"torch._C", "scipy._lib", "gymnasium.core", "typer.main"}


def test_numba_loads_without_scipy_which_stays_importable():
    script = (
        "import sys\n"
        "from awale_apps.bot_engine import load_numba_without_scipy\n"
        "load_numba_without_scipy()\n"
        "import numba.np.arraymath\n"
        "assert not numba.np.arraymath._HAVE_BLAS and 'scipy' not in sys.modules\n"
        "import scipy.linalg\n"  # for whatever needs it later (an agent's library)
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
