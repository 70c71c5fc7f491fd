"""The course protocol in a game whose move can give its mover another turn (Kalah, issue 42): the mover writes its
next move at once, unasked, and is sent nothing (it used to be sent its own previous move, as if the opponent had
played it); the opponent is sent each of the mover's moves, one line each, before its own turn. Played through the
referee machinery (``awale referee``, ``awale tournament``) by stand-in programs that record what they receive, and by
``awale bot``."""

from __future__ import annotations

import io
import json
import sys
import textwrap

from awale_apps.bot import AgentPlayer, BotGame, LineReader
from awale_apps.bot_fallback import CompiledRules
from awale_env.games import get_game
from competition.programs import Program
from competition.refereed_game import RefereedGame

KALAH = get_game("kalah")
BOT = [sys.executable, "-m", "awale_apps", "bot", "--game", "kalah"]

#: A player program that knows the rules: it plays every line it receives as the opponent's move (an illegal one ends
#: it with exit code 3, which the referee reports as a crash), writes its own moves while it is to move (the move
#: that gives another turn first, else the first legal one), and records every line it received, as JSON, at ``END``.
RECORDER = textwrap.dedent(
    """\
    import json, sys
    from awale_env.games import get_game
    game = get_game("kalah")
    log, seat = sys.argv[1], sys.argv[-1]
    me = 0 if seat == "JoueurA" else 1
    state, received = game.initial(), []
    for line in sys.stdin:
        line = line.strip()
        received.append(line)
        if line == "END":
            break
        if line != "START":
            try:
                state = state.play(state.to_action(line))
            except ValueError as error:
                print(f"out of step at {line!r}: {error}", file=sys.stderr)
                sys.exit(3)
        while not state.is_terminal and state.to_move == me:
            actions = state.legal_actions()
            again = [a for a in actions if state.play(a).to_move == me and not state.play(a).is_terminal]
            action = (again or actions)[0]
            state = state.play(action)
            print(game.format_move(action), flush=True)
    with open(log, "w") as file:
        json.dump(received, file)
    """
)


def refereed(argvs: list[list[str]], startup: float = 60.0):
    """Game 1 of the two programs (the first is JoueurA) under the referee machinery."""
    return RefereedGame(KALAH, {}, None, lambda index, seat: Program(argvs[index], seat), 1, 30.0, startup).play()


def replayed(report):
    """The position after the report's moves, replayed by the rules."""
    state = KALAH.initial()
    for move in report.moves:
        state = state.play(state.to_action(move))
    return state


def sent_to(report, seat: int) -> list[str]:
    """What the program at ``seat`` (0: JoueurA) must have received: START (JoueurA), the opponent's moves before its
    own last move, each on its line (the one that ended the game is not sent), then END."""
    last = max(ply for ply, mover in enumerate(report.movers) if mover == seat)
    moves = [move for move, mover in zip(report.moves[:last], report.movers[:last], strict=True) if mover != seat]
    return [*(["START"] if seat == 0 else []), *moves, "END"]


def test_the_referee_sends_the_opponent_each_move_of_an_extra_turn_and_the_mover_nothing(tmp_path):
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    logs = [tmp_path / "a.json", tmp_path / "b.json"]
    report = refereed([[sys.executable, str(script), str(log)] for log in logs])
    assert report.faulty is None, report.detail
    assert replayed(report).is_terminal and report.end == replayed(report).end_reason
    assert any(a == b for a, b in zip(report.movers, report.movers[1:])), "no extra turn was played"
    received = [json.loads(log.read_text()) for log in logs]
    assert received == [sent_to(report, 0), sent_to(report, 1)]


def test_awale_bot_plays_its_extra_turns_and_the_opponent_s_through_the_referee(tmp_path):
    """``awale bot`` against the recorder, in both seats: no fault, and the recorder got each of the bot's moves."""
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    log = tmp_path / "recorder.json"
    recorder = [sys.executable, str(script), str(log)]
    bot = [*BOT, "--agent", "greedy"]
    for seat, argvs in enumerate(([recorder, bot], [bot, recorder])):
        report = refereed(argvs, startup=120.0)
        assert report.faulty is None, report.detail
        assert replayed(report).is_terminal
        assert any(a == b for a, b in zip(report.movers, report.movers[1:])), "no extra turn was played"
        received = json.loads(log.read_text())
        assert received == sent_to(report, seat)


class Scripted:
    """An agent that plays the given actions in turn."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def act(self, state, limit=None):
        return self.actions.pop(0)


def test_awale_bot_writes_each_move_of_its_extra_turns_and_takes_each_of_the_opponent_s():
    """In the bot's own loop: as JoueurA it answers START with 2 (its last seed in its store: another turn) and 0 on
    the next line, unasked; the opponent's 2 (another turn) then 0 come as two lines, and the bot answers after both:
    1 (another turn again) and 2."""
    rules = CompiledRules(KALAH, {}, None)
    game = BotGame(rules, AgentPlayer(Scripted([2, 0, 1, 2]), rules), io.StringIO(), lambda _: None, seat=0)
    game.play(LineReader(io.BytesIO(b"START\n2\n0\n")))
    assert game.moves.getvalue().splitlines() == ["2", "0", "1", "2"]
    assert game.history == ["2", "0", "2", "0", "1", "2"]
    assert game.state.to_move == 1
