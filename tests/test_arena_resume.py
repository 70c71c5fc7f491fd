"""A long arena survives what stops it: a worker process killed from outside ends the arena at once with an error
(never a hang), and the journal (``--out DIR`` keeps ``DIR/games.jsonl``) lets ``--resume`` play only the missing
games, for the results of an uninterrupted run."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from cli_runner import awale
from typer.testing import CliRunner

import competition.tasks as tasks_module
from agents.alphazero.agent import pretrained_path as alphazero_pretrained_path
from agents.base import weights_digest
from agents.ppo import pretrained_path as ppo_pretrained_path
from agents.registry import make
from awale_apps.cli import app
from competition.arena import (
    GameTask,
    JournalError,
    JournalWarning,
    WorkerTraceback,
    check_specs,
    forget_network_games,
    play_match,
    round_robin,
    run_tasks,
)

AWALE = str(Path(sys.executable).with_name("awale"))
SPECS = ["random", "greedy", "alphabeta:depth=1"]
SETTINGS = {"games_per_pair": 4, "seed": 3, "progress": False}  # 12 games


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """An uninterrupted tournament on two workers, its journal kept: (result, journal lines)."""
    journal = tmp_path_factory.mktemp("full") / "games.jsonl"
    result = round_robin(SPECS, workers=2, journal=journal, **SETTINGS)
    return result, journal.read_text().splitlines(keepends=True)


def test_the_journal_holds_the_settings_then_every_game(full):
    result, lines = full
    header = json.loads(lines[0])
    assert header["format"] == "awale arena games"
    assert header["settings"] == {"agents": SPECS, "games_per_pair": 4, "seed": 3, "game": "awale16", "rules": {},
                                  "opening_plies": 4, "max_plies": 400, "weights": {}}  # fmt: skip
    games = [json.loads(line) for line in lines[1:]]
    assert sorted(g["index"] for g in games) == list(range(12))
    assert {g["index"]: g["stores"] for g in games} == {g.index: list(g.stores) for g in result.games}


def test_more_games_per_pair_on_resume_keeps_the_games_played(full, tmp_path, monkeypatch):
    """Each pair's first games do not depend on how many the pair plays: a tournament of 2 per pair resumed with 4
    plays only the 2 more of each pair and gives the results of 4 per pair from the start."""
    result, lines = full
    journal = tmp_path / "games.jsonl"
    round_robin(SPECS, journal=journal, **{**SETTINGS, "games_per_pair": 2})
    played, run_task = [], tasks_module.run_task
    monkeypatch.setattr(tasks_module, "run_task", lambda task: played.append(task.index) or run_task(task))
    more = round_robin(SPECS, journal=journal, resume=True, **SETTINGS)
    assert sorted(played) == [2, 3, 6, 7, 10, 11]
    assert more.games == result.games and more.table() == result.table()
    assert sorted(journal.read_text().splitlines()) == sorted(line.rstrip("\n") for line in lines)
    with pytest.raises(JournalError, match="games_per_pair \\(--games\\) is 4 there, 2 here"):
        round_robin(SPECS, journal=journal, resume=True, **{**SETTINGS, "games_per_pair": 2})  # fewer: refused


@pytest.mark.parametrize("workers", [1, 2])
def test_a_resumed_tournament_gives_the_results_of_an_uninterrupted_one(full, tmp_path, workers):
    result, lines = full
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(lines[:6]))  # stopped after 5 games
    resumed = round_robin(SPECS, workers=workers, journal=journal, resume=True, **SETTINGS)
    assert resumed.games == result.games
    assert resumed.table() == result.table() and resumed.pairs == result.pairs
    recorded = journal.read_text().splitlines(keepends=True)
    assert recorded[:6] == lines[:6] and sorted(json.loads(line)["index"] for line in recorded[1:]) == list(range(12))
    again = round_robin(SPECS, workers=workers, journal=journal, resume=True, **SETTINGS)  # nothing left to play
    assert again.games == result.games and journal.read_text().splitlines(keepends=True) == recorded


def test_a_last_line_cut_short_is_dropped_with_a_warning_and_its_game_replayed(full, tmp_path):
    result, lines = full
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(lines[:4]) + lines[4][:30])
    with pytest.warns(JournalWarning, match="line 5 \\(the last\\) is cut short"):
        resumed = round_robin(SPECS, journal=journal, resume=True, **SETTINGS)
    assert resumed.games == result.games
    recorded = journal.read_text().splitlines()
    assert len(recorded) == 13 and all(json.loads(line) for line in recorded)


def test_a_whole_last_game_without_its_newline_gets_the_next_game_on_a_line_of_its_own(full, tmp_path, recwarn):
    """Killed between writing a game and its newline: the game is kept, the next ones go on lines of their own, and
    the journal can be resumed again and again."""
    result, lines = full
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(lines[:4]) + lines[4].rstrip("\n"))
    resumed = round_robin(SPECS, journal=journal, resume=True, **SETTINGS)
    assert resumed.games == result.games and not recwarn.list
    recorded = journal.read_text().splitlines(keepends=True)
    assert recorded[:5] == lines[:5] and len(recorded) == 13 and all(json.loads(line) for line in recorded)
    assert round_robin(SPECS, journal=journal, resume=True, **SETTINGS).games == result.games


def test_a_journal_cut_in_its_settings_line_or_empty_starts_again(full, tmp_path):
    journal = tmp_path / "games.jsonl"
    journal.write_text(full[1][0][:25])
    with pytest.warns(JournalWarning, match="the tournament starts again"):
        resumed = play_match("random", "greedy", 2, seed=1, progress=False, journal=journal, resume=True)
    assert len(resumed.games) == 2 and len(journal.read_text().splitlines()) == 3
    journal.write_text("")
    assert play_match("random", "greedy", 2, seed=1, progress=False, journal=journal, resume=True) == resumed


NOT_JOURNALS = [
    b"\xff\xfe\x00garbage\n",
    b"plain text, no newline",
    b'{"format": "awale arena games", "version": 1, "settings": {}}\n{"index": 0, oops}\n',
]


@pytest.mark.parametrize("text", NOT_JOURNALS)
def test_a_file_that_is_not_a_journal_cut_short_is_refused_and_kept(tmp_path, text):
    """Only a kill while writing leaves a last line without its newline (a first line: a piece of a settings line):
    a whole line that is not JSON, or a first line that cannot begin a journal, is refused, the file untouched."""
    journal = tmp_path / "games.jsonl"
    journal.write_bytes(text)
    with pytest.raises(JournalError, match="line [12]: not JSON"):
        play_match("random", "greedy", 2, seed=1, progress=False, journal=journal, resume=True)
    assert journal.read_bytes() == text


def test_resume_without_a_journal_file_plays_everything_and_without_resume_a_journal_is_kept(tmp_path):
    journal = tmp_path / "new" / "games.jsonl"
    first = play_match("random", "greedy", 2, seed=1, progress=False, journal=journal, resume=True)
    kept = journal.read_text()
    with pytest.raises(JournalError, match="already holds a tournament's games: resume it"):
        play_match("random", "greedy", 2, seed=1, progress=False, journal=journal)  # a forgotten resume
    assert journal.read_text() == kept
    journal.unlink()
    second = play_match("random", "greedy", 2, seed=1, progress=False, journal=journal)
    assert first.games == second.games and len(journal.read_text().splitlines()) == 3
    with pytest.raises(ValueError, match="resume=True needs the journal"):
        play_match("random", "greedy", 2, progress=False, resume=True)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seed": 4}, "seed \\(--seed\\) is 3 there, 4 here"),
        ({"games_per_pair": 2}, "games_per_pair \\(--games\\) is 4 there, 2 here"),
        ({"specs": SPECS[::-1]}, "agents \\(--agents\\) is"),
        ({"max_plies": 300}, "max_plies \\(--max-plies\\) is 400 there, 300 here"),
        ({"opening_plies": 2}, "opening_plies \\(--opening-plies\\)"),
        ({"game": "awale16_2025", "end_at_both_40": True}, "game \\(--game\\).*rules \\(--rule\\) is \\{\\} there"),
    ],
)
def test_resuming_with_other_settings_names_them(full, tmp_path, change, message):
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(full[1][:3]))
    arguments = {"specs": SPECS, **SETTINGS, **change}
    with pytest.raises(JournalError, match="cannot resume from .*other settings: " + message):
        round_robin(journal=journal, resume=True, **arguments)
    assert journal.read_text() == "".join(full[1][:3])  # left as it was


PPO_SPECS = ["random", "ppo:pretrained"]


def test_the_journal_keeps_each_network_file_digest_and_a_resume_refuses_another_network(tmp_path):
    """A network replaced between a run and its resume (a shipped file updated, a checkpoint overwritten) would mix
    two players' games under one name: the journal keeps each weights file's SHA-256 and the resume checks it."""
    journal = tmp_path / "games.jsonl"
    first = round_robin(PPO_SPECS, games_per_pair=2, seed=1, progress=False, journal=journal)
    header, *games = journal.read_text().splitlines(keepends=True)
    settings = json.loads(header)["settings"]
    shipped = hashlib.sha256(ppo_pretrained_path("awale16").read_bytes()).hexdigest()
    assert settings["weights"] == {"ppo:pretrained": shipped}
    assert round_robin(PPO_SPECS, games_per_pair=2, seed=1, progress=False, journal=journal, resume=True) == first
    changed = json.dumps({"format": "awale arena games", "version": 1,
                          "settings": {**settings, "weights": {"ppo:pretrained": "0" * 64}}}) + "\n"  # fmt: skip
    journal.write_text(changed + games[0])
    with pytest.raises(JournalError, match="the network file of 'ppo:pretrained' is not the one its games were"):
        round_robin(PPO_SPECS, games_per_pair=2, seed=1, progress=False, journal=journal, resume=True)
    assert journal.read_text() == changed + games[0]  # left as it was
    older = {key: value for key, value in settings.items() if key != "weights"}  # a journal from before the digests
    journal.write_text(json.dumps({"format": "awale arena games", "version": 1, "settings": older}) + "\n" + games[0])
    assert round_robin(PPO_SPECS, games_per_pair=2, seed=1, progress=False, journal=journal, resume=True) == first


FIRST_NETWORK = Path(__file__).parent / "data" / "alphazero_awale16_first.pt"


def test_a_new_network_replays_its_games_only(tmp_path):
    """A network shipped since a long round robin: its games are dropped from the journal and played again with the
    new file, the others' games kept; a second call (a resume after a kill) drops nothing more."""
    network, journal = tmp_path / "net.pt", tmp_path / "games.jsonl"
    network.write_bytes(FIRST_NETWORK.read_bytes())
    specs = ["random", "greedy", f"alphazero:path={network},simulations=2"]
    settings = {"games_per_pair": 2, "seed": 1, "progress": False, "journal": journal}  # 6 games, 4 of alphazero
    round_robin(specs, **settings)
    header, *games = journal.read_text().splitlines(keepends=True)
    network.write_bytes(alphazero_pretrained_path("awale16").read_bytes())
    weights = check_specs(specs, "awale16")
    assert weights == {specs[2]: hashlib.sha256(network.read_bytes()).hexdigest()}

    assert forget_network_games(journal, [specs[2]], weights) == 4
    assert forget_network_games(journal, [specs[2]], weights) == 0
    new_header, *kept = journal.read_text().splitlines(keepends=True)
    assert kept == [game for game in games if specs[2] not in json.loads(game)["specs"]]
    assert json.loads(new_header)["settings"] == {**json.loads(header)["settings"], "weights": weights}
    result = round_robin(specs, resume=True, **settings)  # the new network's games only
    assert len(result.games) == 6 and journal.read_text().count("\n") == 7

    older = json.loads(header)  # a journal from before the digests were kept: every game of the agent goes
    del older["settings"]["weights"]
    journal.write_text(json.dumps(older) + "\n" + "".join(games))
    assert forget_network_games(journal, [specs[2]], weights) == 4
    assert json.loads(journal.read_text().splitlines()[0])["settings"]["weights"] == weights


def test_replaying_an_agent_with_no_network_or_a_bad_journal_is_refused(tmp_path):
    journal = tmp_path / "games.jsonl"
    with pytest.raises(ValueError, match="'greedy' plays with no network file"):
        forget_network_games(journal, ["greedy"], {})
    journal.write_text("not json\n")
    with pytest.raises(JournalError, match="line 1: not the settings line"):
        forget_network_games(journal, ["ppo:pretrained"], {"ppo:pretrained": "0" * 64})
    assert journal.read_text() == "not json\n"


@pytest.mark.parametrize("seed", [-1, 2**32, 10**21])
def test_a_seed_out_of_range_is_named(seed):
    with pytest.raises(
        ValueError, match=rf"the tournament seed \(--seed\) must be an integer in \[0, 4294967295\], got {seed}"
    ):
        play_match("random", "greedy", 2, seed=seed, progress=False)


def test_a_huge_number_of_games_is_refused_at_once(tmp_path):
    """A typo like --games 10**21 used to hang building its tasks; it is refused before any game, as --seed is."""
    started = time.process_time()  # CPU time: building the tasks would burn it; other processes do not count
    with pytest.raises(ValueError, match=r"at most 100,000, got 1,000,000,000,000,000,000,000"):
        play_match("random", "greedy", 10**21, progress=False)
    assert time.process_time() - started < 5
    result = CliRunner().invoke(app, ["arena", "--agents", "random", "--agents", "greedy", "--games", str(10**21)])
    assert result.exit_code != 0 and result.output.count("\n") == 1 and "at most 100,000" in result.output
    players = tmp_path / "players.toml"
    players.write_text('[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n')
    result = CliRunner().invoke(app, ["tournament", str(players), "--games-per-pair", str(10**21), "--db",
                                      str(tmp_path / "t.db")])  # fmt: skip
    assert result.exit_code != 0 and "--games-per-pair must be even" in result.output
    assert not (tmp_path / "t.db").exists()


def test_weights_digest_follows_the_file_bytes(tmp_path):
    checkpoint = tmp_path / "net.pt"
    checkpoint.write_bytes(alphazero_pretrained_path("awale16").read_bytes())
    agent = make(f"alphazero:path={checkpoint},simulations=2")
    digest = weights_digest(agent, "awale16")
    assert digest == hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    checkpoint.write_bytes(checkpoint.read_bytes() + b"\0")
    assert weights_digest(agent, "awale16") != digest
    assert weights_digest(make("alphabeta:depth=1"), "awale16") is None  # no weights file


def game_line(line: str, **change: object) -> str:
    return json.dumps({**json.loads(line), **change}) + "\n"


def flipped(line: str) -> str:
    """A journal line with the other player as the winner (a draw given to player 0)."""
    game = json.loads(line)
    if game["winner"] is None:
        return game_line(line, winner=0)
    return game_line(line, winner=1 - game["winner"])


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda lines: lines[:2] + ["{not json\n"] + lines[2:4], "line 3: not JSON"),
        (lambda lines: lines[:3] + [lines[2]], "line 4: game \\d+ again"),
        (lambda lines: lines[:2] + [game_line(lines[2], index=99)], "line 3: game index 99 is not one of"),
        (lambda lines: lines[:2] + [game_line(lines[2], opening=[0])], "line 3: game \\d+ has other agents"),
        (lambda lines: lines[:2] + [game_line(lines[2], winner="0")], "line 3: game \\d+: a bad winner"),
        (lambda lines: lines[:2] + [flipped(lines[2])], "line 3: game \\d+: winner . is not the one the stores"),
        (
            lambda lines: lines[:2] + [game_line(lines[2], stores=[90, 90])],
            "line 3: game \\d+: stores \\[90, 90\\] are impossible",
        ),
        (lambda lines: lines[:2] + [game_line(lines[2], stores=[-1, 0], winner=1)], "line 3: game \\d+: stores"),
        (
            lambda lines: lines[:2] + [game_line(lines[2], end_reason="resign")],
            "line 3: game \\d+: end reason 'resign'",
        ),
        (lambda lines: lines[:2] + [game_line(lines[2], plies=10**6)], "line 3: game \\d+: 1000000 plies"),
        (lambda lines: lines[:2] + ['{"index": 0}\n'], "line 3: not a game"),
        (lambda lines: ['{"format": "something else"}\n'] + lines[1:3], "line 1: not the settings line"),
        (lambda lines: ["[]\n"] + lines[1:3], "line 1: not the settings line"),
        (lambda lines: [game_line(lines[0], version=2)] + lines[1:3], "line 1: journal version 2, this arena reads 1"),
    ],
)
def test_a_malformed_journal_is_refused(full, tmp_path, edit, message):
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(edit(full[1])))
    with pytest.raises(JournalError, match=message):
        round_robin(SPECS, journal=journal, resume=True, **SETTINGS)


def test_an_error_in_a_worker_is_raised_here_with_its_traceback():
    task = GameTask(0, ("random", "greedy"), (), (1, 2), None, game="nosuch")
    with pytest.raises(ValueError, match="nosuch") as caught:
        run_tasks([task, task], workers=2, progress=False)
    assert isinstance(caught.value.__cause__, WorkerTraceback) and "get_game" in str(caught.value.__cause__)


def workers_of(process: psutil.Process) -> list[psutil.Process]:
    return [child for child in process.children() if "spawn_main" in " ".join(child.cmdline())]


def test_a_killed_worker_stops_the_arena_at_once_with_an_error(tmp_path):
    out = tmp_path / "out"
    args = ["arena", "--agents", "mcts:time=60", "greedy", "--games", "2", "--workers", "2", "--no-progress"]
    with (tmp_path / "stderr").open("w") as stderr:
        arena = subprocess.Popen([AWALE, *args, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=stderr,
                                 start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(workers := workers_of(psutil.Process(arena.pid))) < 2:
            assert time.monotonic() < deadline, "the arena's workers did not start"
            time.sleep(0.2)
        time.sleep(1.0)  # both play a game of mcts:time=60
        workers[0].send_signal(signal.SIGKILL)
        killed = time.monotonic()
        code = arena.wait(timeout=60)
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait()
    # At once: before the other worker's move could end (mcts:time=60 thinks 60 s whatever the machine's load).
    assert time.monotonic() - killed < 60
    error = (tmp_path / "stderr").read_text()
    assert code == 1 and "Traceback" not in error, error
    assert error.startswith(f"error: arena worker process {workers[0].pid} died (exit code -9: killed by SIGKILL")
    assert "during game" in error and "--resume" in error
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == []
    assert json.loads((out / "games.jsonl").read_text())["settings"]["agents"] == ["mcts:time=60", "greedy"]


def test_the_cli_resumes_a_stopped_tournament(tmp_path):
    args = ["arena", "--agents", *SPECS, "--games", "4", "--seed", "3", "--no-progress", "--json"]
    whole = awale(*args, "--out", str(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    lines = (tmp_path / "whole" / "games.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "stopped").mkdir()
    (tmp_path / "stopped" / "games.jsonl").write_text("".join(lines[:7]) + lines[7][:40])
    resumed = awale(*args, "--out", str(tmp_path / "stopped"), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stderr.startswith("warning: ") and "line 8 (the last) is cut short" in resumed.stderr
    assert resumed.stdout.splitlines()[-1] == whole.stdout.splitlines()[-1]
    results = [json.loads((tmp_path / d / "results.json").read_text()) for d in ("whole", "stopped")]
    assert results[0] == results[1]
    other = awale(*args[:-1], "--seed", "4", "--out", str(tmp_path / "stopped"), "--resume")
    assert other.exit_code == 2 and "seed (--seed) is 3 there, 4 here" in other.stderr
    alone = awale(*args, "--resume")
    assert alone.exit_code == 2 and "--resume continues the tournament recorded in --out DIR" in alone.stderr
