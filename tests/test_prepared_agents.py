"""Agents prepared before the clock: ``awale tournament`` and ``awale arena`` build and warm up every in-process agent
(numba's kernels compiled or loaded, networks read) before its first timed move, in every worker process and Ray
actor, and a program entry's ``prepare`` command runs before its first game. Whether a compile lands inside a timed
move is checked on the referee's own clock driven by the test (no wall-clock figure a busy machine could break), and
once for real: workers with an empty numba cache compile alpha-beta's search, and no move times out."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import replace
from pathlib import Path

import pytest

import competition.refereed_game as refereed_game
from agents.base import WARM_UP_PLIES, WARM_UP_SECONDS
from competition.store import open_store
from competition.tasks import GameTask, PreparedAgents, run_task
from competition.tournament import (
    PlayersError,
    PlayerSpec,
    ProgramTask,
    TournamentSettings,
    load_players,
    run_tournament,
)

GAME = "awale16_2025"
#: A stand-in agent's log of its searches: the ply limit of the position, the referee's clock before the search and
#: the agent's time per move then.
Log = list[tuple[int | None, float, float | None]]
#: Seconds the stand-in agent's first search in a process takes on the referee's clock: its "compiling".
COMPILE_SECONDS = 100.0


class Clock:
    """The referee's clock (``time.perf_counter`` of competition.refereed_game), moved by the agents alone."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class CompilingAgent:
    """Plays the first legal move; the first search in its "process" (``kernels``, shared by every agent of one
    PreparedAgents) compiles, which moves ``clock`` on by :data:`COMPILE_SECONDS`; each search is logged as
    ``(ply limit of the position, clock before it, its time per move then)``."""

    def __init__(self, clock: Clock, kernels: dict[str, bool], log: Log, time=None):
        self.clock, self.kernels, self.log, self.time = clock, kernels, log, time
        self.name = "compiling"

    def act(self, state, limit=None) -> int:
        self.log.append((state.max_plies, self.clock.now, self.time if limit is None else limit.time))
        if not self.kernels.get("loaded"):
            self.clock.now += COMPILE_SECONDS
            self.kernels["loaded"] = True
        self.clock.now += 0.01
        return state.legal_actions()[0]

    def reset(self, seed=None) -> None:
        pass


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(refereed_game, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    return clock


def fresh_process(clock: Clock, time: float | None = None) -> tuple[PreparedAgents, Log]:
    """The agents of a process whose kernels are not loaded yet, and the log of their searches."""
    kernels: dict[str, bool] = {}
    log: Log = []
    return PreparedAgents(lambda spec: CompilingAgent(clock, kernels, log, time)), log


@pytest.mark.parametrize("time", [None, 60.0])
def test_a_tournament_agent_compiles_before_the_clock_and_never_times_out(clock, time):
    # Two in-process agents in a fresh worker, 3 s per move with no start-up allowance: without the warm-up the
    # first move would take 100 s on the referee's clock and lose on time.
    source, log = fresh_process(clock, time)
    settings = TournamentSettings(GAME, seconds=3.0, startup=0.0)
    players = (PlayerSpec("a", "agent", "stand-in-a"), PlayerSpec("b", "agent", "stand-in-b"))
    played = ProgramTask(0, players, (), (1, 2), 0, settings).play(source)
    report = played.report
    assert report.faulty is None and report.end, report.detail
    assert report.plies > WARM_UP_PLIES and max(report.times) < settings.seconds
    # The compile happened in a warm-up (a search of the short game), before the game's first move was asked for;
    # a timed agent's spare searched first, then the agent itself.
    warm_ups = 2 * (2 if time else 1)
    assert [limit for limit, _, _ in log[:warm_ups]] == [WARM_UP_PLIES] * warm_ups
    assert all(limit != WARM_UP_PLIES for limit, _, _ in log[warm_ups:])
    assert log[warm_ups][1] >= COMPILE_SECONDS
    # A timed agent searches its warm-up within WARM_UP_SECONDS, and its games with its own time.
    assert {budget for _, _, budget in log[:warm_ups]} == ({min(time, WARM_UP_SECONDS)} if time else {None})
    assert {budget for _, _, budget in log[warm_ups:]} == {time}
    assert [spec for spec, _ in played.warm_ups] == ["stand-in-a", "stand-in-b"]
    # The next game in the same process warms nothing up again.
    again = ProgramTask(1, players[::-1], (), (3, 4), 0, settings).play(source)
    assert again.report.faulty is None and again.warm_ups == []
    assert all(limit != WARM_UP_PLIES for limit, _, _ in log[warm_ups:])


def test_an_arena_game_warms_its_agents_up_before_its_first_move(clock):
    source, log = fresh_process(clock)
    task = GameTask(0, ("stand-in-a", "stand-in-b"), (), (1, 2), None, GAME)
    result = run_task(task, source)
    assert result.plies > 0 and [limit for limit, _, _ in log[:2]] == [WARM_UP_PLIES] * 2
    assert all(limit != WARM_UP_PLIES for limit, _, _ in log[2:])
    assert [(spec, game) for spec, game, _ in source.warm_ups] == [("stand-in-a", GAME), ("stand-in-b", GAME)]


def test_agents_in_fresh_worker_processes_load_their_kernels_before_their_first_move(tmp_path):
    # The report's case: alphabeta:depth=3 in a tournament's fresh worker process loaded its kernels inside its first
    # timed move (94 s against a 6 s limit). Here 2 spawned workers start with nothing loaded: each warms the agent
    # up before its first game there (an empty numba cache, compiling everything, would cost minutes of the suite:
    # the referee's clock above stands in for it), and every move is answered within the course's 3 s.
    path = tmp_path / "players.toml"
    path.write_text('[[player]]\nname = "ab"\nagent = "alphabeta:depth=3"\n\n'
                    '[[player]]\nname = "g"\nagent = "greedy"\n')  # fmt: skip
    players = load_players(path, GAME)
    settings = TournamentSettings(GAME, games_per_pair=4, seconds=3.0, startup=0.0)
    lines: list[str] = []
    with open_store(tmp_path / "t.db", write=True) as store:
        event = run_tournament(store, players, settings, workers=2, progress=False, echo=lines.append)
        games = [store.game(game.id) for game in store.games(event)]
    assert len(games) == 4 and all(game.fault is None for game in games), [g.fault for g in games]
    warmed = [line for line in lines if "warmed up in its worker" in line and "alphabeta:depth=3 in " in line]
    assert 1 <= len(warmed) <= 2, lines  # once in each worker that played a game


def test_a_program_entry_is_prepared_once_before_its_games_and_a_failed_preparation_is_one_error(tmp_path):
    marker = tmp_path / "prepared"
    prepare = f"{sys.executable} -c \"open({str(marker)!r}, 'a').write('x')\""
    program = f"{sys.executable} {Path(__file__).with_name('scripted_player.py')} {GAME} first"
    path = tmp_path / "players.toml"
    path.write_text(f"[[player]]\nname = \"p\"\ncommand = {json.dumps(program)}\nprepare = {json.dumps(prepare)}\n\n"
                    "[[player]]\nname = \"g\"\nagent = \"greedy\"\n")  # fmt: skip
    players = load_players(path, GAME)
    assert players[0][0].prepare and players[1][0].prepare == ()
    settings = TournamentSettings(GAME, games_per_pair=2)
    lines: list[str] = []
    with open_store(tmp_path / "t.db", write=True) as store:
        run_tournament(store, players, settings, workers=2, progress=False, echo=lines.append)
    assert marker.read_text() == "x" and any(line.startswith("preparing p: ") for line in lines)
    # A preparation that fails stops the tournament before any game, naming the player and its error output.
    failing = replace(players[0][0], prepare=(sys.executable, "-c", "import sys; sys.exit('no engine here')"))
    with open_store(tmp_path / "u.db", write=True) as store, pytest.raises(PlayersError) as error:
        run_tournament(store, [(failing, players[0][1]), players[1]], settings, progress=False)
    assert "player 'p': its preparation" in str(error.value) and "exit code 1" in str(error.value)
    assert "no engine here" in str(error.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('agent = "greedy"\nprepare = "true"', "field 'prepare' is for a command"),
        ('command = "true"\nprepare = ""', "field 'prepare' must be a non-empty text"),
        ('command = "true"\nprepare = "no-such-program-here --prepare"', "field 'prepare': cannot run"),
    ],
)
def test_a_bad_prepare_field_names_the_entry(tmp_path, entry, message):
    path = tmp_path / "players.toml"
    path.write_text(f'[[player]]\nname = "x"\n{entry}\n\n[[player]]\nname = "g"\nagent = "greedy"\n')
    with pytest.raises(PlayersError, match=message):
        load_players(path, GAME)
