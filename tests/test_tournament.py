"""``awale tournament``: a class tournament of course programs, every move checked, every game in an SQLite store;
standings from the store alone; kill -9 then the same command plays only the missing games; a second writer, a
corrupt or a foreign file: one line."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from click.testing import Result
from typer.testing import CliRunner

from awale_apps.cli import app
from awale_env.errors import IllegalMoveError
from awale_env.games import get_game
from competition.store import StoreBusy, StoreError, open_store

AWALE = str(Path(sys.executable).with_name("awale"))
GAME = "awale16_2025"
#: Generous times: programs start together on a loaded machine. The bot keeps to its 2 s budget (made for the course
#: referee's 3 s; its fallback answers while its agent loads) and the stand-in students answer in milliseconds of CPU
#: (plain rules): 6 s per move here, three times the bot's budget, which the sleeper (60 s) overshoots all the same
#: (each of its 6 games waits that long). The bots are prepared first (``prepare``): no game waits for a compile.
MOVE_SECONDS = 6
TIMES = ["--time", str(MOVE_SECONDS), "--startup", "60"]
TIMEOUT = 900

#: A stand-in student program: plays the first legal move (tracking the game with the game's rules in plain Python,
#: as ``awale bot``'s fallback does: it starts in a tenth of a second and about 0.1 CPU-s, where the compiled rules
#: took 1.8), and breaks as its first argument says: ``illegal`` plays a move of the opponent's side at its first
#: move from ply 10 on, ``sleep`` sleeps 60 s at its third move, ``hog`` asks for 8 GiB at its second, ``first``
#: never breaks. Its seat is its last argument.
STUDENT = textwrap.dedent(
    """\
    import sys, time
    from awale_apps.bot_fallback import plain_rules
    mode, seat = sys.argv[1], sys.argv[-1]
    game = plain_rules(sys.argv[2])(max_plies=None)
    state = game.initial()
    mine = 0
    print("student", mode, seat, file=sys.stderr, flush=True)
    for line in sys.stdin:
        line = line.strip()
        if line == "END":
            break
        if line != "START":
            state = state.play(state.to_action(game.parse_move(line)))
        legal = state.legal_actions()
        move = legal[0]
        mine += 1
        if mode == "illegal" and state.ply + 1 >= 10:
            move = next(a for a in range(game.num_actions) if a not in legal)
        if mode == "sleep" and mine == 3:
            time.sleep(60)
        if mode == "hog" and mine == 2:
            hoard = bytearray(8 * 2**30)
        print(game.format_move(move), flush=True)
        state = state.play(move) if move in legal else state
    """
)


def awale(*args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([AWALE, *args], capture_output=True, text=True, timeout=timeout)


def awale_in_process(*args: str) -> Result:
    """``awale`` run in this process (typer's test runner, the command's one-line errors included): for refusals,
    which end before any game, and the standings of a stored tournament, without a program's start-up each
    (:func:`awale` runs some as programs)."""
    return CliRunner().invoke(app, list(args))


def student(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "student.py"
    script.write_text(STUDENT)
    return f"{sys.executable} {script} {mode} {GAME}"


def players_file(tmp_path: Path, players: dict[str, tuple[str, str]], prepare: dict[str, str] | None = None) -> Path:
    """A players file of ``players`` (name: kind and spec) with the ``prepare`` commands of some."""
    prepare = prepare or {}
    path = tmp_path / "players.toml"
    path.write_text("".join(f'[[player]]\nname = "{name}"\n{kind} = {json.dumps(spec)}\n'
                            + (f"prepare = {json.dumps(prepare[name])}\n" if name in prepare else "") + "\n"
                            for name, (kind, spec) in players.items()))  # fmt: skip
    return path


def stand_in_processes(marker: str) -> list[psutil.Process]:
    """Processes whose command line holds ``marker`` (the test's own folder)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(marker in word for word in process.info["cmdline"] or []):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def stand_ins_left(marker: str, seconds: float = 30) -> list[str]:
    """Once the processes of ``marker`` should end: [] as soon as none is left, or after ``seconds`` each one left,
    described (pid, parent, state, age, command line) for the assertion's message."""
    deadline = time.monotonic() + seconds
    while (left := stand_in_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    described = []
    for process in left:
        try:
            with process.oneshot():
                age = time.time() - process.create_time()
                described.append(
                    f"pid {process.pid} (parent {process.ppid()}, {process.status()}, {age:.1f} s old): "
                    f"{command_line(process)[-200:]}"
                )
        except psutil.Error:
            pass
    return described


def command_line(process: psutil.Process) -> str:
    """``process``'s command line, or "" once it has ended (a zombie included: a child may exit while it is read)."""
    try:
        return " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return ""


@pytest.fixture(scope="module")
def class_tournament(tmp_path_factory):
    """Four programs: two toolkit agents through ``awale bot`` (prepared first, as docs/tournament.md says), one
    illegal at ply 10, one sleeping past the time limit; 2 games per pair on 2 workers."""
    tmp_path = tmp_path_factory.mktemp("class")
    bot = f"{AWALE} bot --game {GAME} --agent"
    players = players_file(tmp_path, {
        "greedy-bot": ("command", f"{bot} greedy"),
        "alphabeta-bot": ("command", f"{bot} alphabeta:depth=2"),
        "illegal-at-10": ("command", student(tmp_path, "illegal")),
        "sleeper": ("command", student(tmp_path, "sleep")),
    }, prepare={"greedy-bot": f"{AWALE} bot --prepare --game {GAME} --agent greedy",
                "alphabeta-bot": f"{AWALE} bot --prepare --game {GAME} --agent alphabeta:depth=2"})  # fmt: skip
    db = tmp_path / "t.db"
    run = awale("tournament", str(players), "--game", GAME, "--db", str(db), "--workers", "2", "--no-progress", *TIMES)
    return run, db, tmp_path


def test_a_class_tournament_gives_the_expected_standings_and_faults(class_tournament):
    run, db, _ = class_tournament
    assert run.returncode == 0, run.stderr
    with open_store(db) as store:
        event = store.latest_event("tournament")
        games = store.games(event.id)
        rows = {row.player: row for row in store.standings(event.id)}
        faults = [(f.player, f.kind, f.ply, f.detail) for f in (store.game(g.id).fault for g in games) if f]
        assert len(games) == 12 and sorted(g.task for g in games) == list(range(12))
        assert rows["sleeper"].faults == {"timeout": 6} and rows["sleeper"].points == 0
        assert rows["illegal-at-10"].faults == {"illegal": 4}  # it beat the sleeper twice, which times out first
        assert (rows["illegal-at-10"].wins, rows["illegal-at-10"].losses) == (2, 4)
        for bot in ("greedy-bot", "alphabeta-bot"):
            assert rows[bot].faults == {}, faults
            assert rows[bot].wins >= 4 and rows[bot].games == 6
        assert rows["greedy-bot"].points + rows["alphabeta-bot"].points == 10
        assert [row.player for row in store.standings(event.id)][2:] == ["illegal-at-10", "sleeper"]
        rules = get_game(GAME)
        for stored in games:
            game = store.game(stored.id)
            state = rules.initial()
            for move in game.moves:  # every stored move replays legally, each with its time
                assert move.seconds is not None and 0 <= move.seconds < 70
                state = state.play(state.to_action(rules.parse_move(move.move)))
            if game.fault is None:
                assert state.is_terminal and game.end_reason == state.end_reason
                continue
            assert game.fault.ply == len(game.moves) + 1
            assert json.loads(game.fault.position) == json.loads(json.dumps(state.to_dict()))
            if game.fault.player == "illegal-at-10":
                assert game.fault.kind == "illegal" and game.fault.ply in (10, 11) and game.fault.answer
                with pytest.raises(IllegalMoveError):
                    state.to_action(rules.parse_move(game.fault.answer.strip("'")))
            else:
                assert (game.fault.player, game.fault.kind) == ("sleeper", "timeout")
                assert game.fault.ply in (5, 6) and f"no answer within {MOVE_SECONDS} s" in game.fault.detail


def test_standings_print_as_a_table_csv_and_json_and_sql_gives_them_from_the_file_alone(class_tournament):
    _, db, _ = class_tournament
    table = awale_in_process("tournament", "standings", str(db))  # in-process: the tournament was a program
    assert table.exit_code == 0, table.stderr
    assert "6 timeout" in table.stdout and "4 illegal" in table.stdout and "95% CI" in table.stdout
    as_json = json.loads(awale_in_process("tournament", "standings", str(db), "--json").stdout)
    assert [row["player"] for row in as_json][2:] == ["illegal-at-10", "sleeper"]
    assert as_json[-1]["faults_timeout"] == 6 and as_json[-1]["elo_low"] < as_json[-1]["elo"] < as_json[-1]["elo_high"]
    csv_lines = awale_in_process("tournament", "standings", str(db), "--csv").stdout.splitlines()
    assert csv_lines[0].startswith("rank,player,points,wins,draws,losses") and len(csv_lines) == 5
    # The documented query (docs/tournament.md) on the file alone, with Python's sqlite3 and nothing of ours.
    query = (Path(__file__).parents[1] / "docs" / "tournament.md").read_text().split("```sql\n")[1].split("```")[0]
    rows = sqlite3.connect(db).execute(query).fetchall()
    by_player = {row[0]: row for row in rows}
    assert by_player["sleeper"][1:] == (0.0, 0, 0, 6, 6)
    assert by_player["illegal-at-10"][1:] == (2.0, 2, 0, 4, 4)


def test_every_program_has_a_log_and_none_is_left_running(class_tournament):
    _, db, tmp_path = class_tournament
    logs = sorted((db.parent / (db.name + "-logs")).iterdir())
    assert len(logs) == 24  # two programs per game
    assert "student sleep" in logs[-1].read_text() or any("student sleep" in p.read_text() for p in logs)
    assert not stand_in_processes(str(tmp_path))


def test_a_game_has_one_number_in_the_console_the_logs_and_the_store(class_tournament):
    """Game N (from 1, as users count) is task N - 1 of the store, whatever order the 2 workers finished in."""
    run, db, _ = class_tournament
    logs = {path.name for path in (db.parent / (db.name + "-logs")).iterdir()}
    assert {name[:9] for name in logs} == {f"game{n:05d}" for n in range(1, 13)}
    with open_store(db) as store:
        games = store.games(store.latest_event("tournament").id)
        assert [game.number for game in games] == list(range(1, 13))
        for game in games:
            assert all(f"game{game.number:05d}-{player}.log" in logs for player in game.players)
            fault = store.game(game.id).fault
            if fault is not None:
                assert f"game {game.number}: {fault.player} lost by {fault.kind}" in run.stdout


def test_kill_9_then_the_same_command_plays_only_the_missing_games(tmp_path):
    """The tournament is killed (SIGKILL) once some games are in the store; its programs die with it; the same
    command again plays the rest, and no game is played twice."""
    players = players_file(tmp_path, {
        "first-a": ("command", student(tmp_path, "first")),
        "first-b": ("command", student(tmp_path, "first") + " "),
        "random": ("agent", "random"),
        "greedy": ("agent", "greedy"),
    })  # fmt: skip
    db = tmp_path / "t.db"
    command = [AWALE, "tournament", str(players), "--game", GAME, "--db", str(db), "--games-per-pair", "2",
               "--no-progress", *TIMES]  # fmt: skip
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    try:
        while True:
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.poll() else "slow"
            if db.exists():
                try:
                    with open_store(db) as store:
                        if len(store.games()) >= 3:
                            break
                except StoreError:
                    pass
            time.sleep(0.2)
        run.send_signal(signal.SIGKILL)
        run.wait()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    left = stand_ins_left(str(tmp_path))  # the guards saw the tournament's end of their pipes close
    for process in stand_in_processes(str(tmp_path)):  # a failure leaves nothing behind either
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    assert not left
    with open_store(db) as store:
        before = {g.task: g for g in store.games()}
    assert 3 <= len(before) < 12  # killed mid-tournament: the same command has games left to play
    again = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert again.returncode == 0, again.stderr
    assert f"12 games, {len(before)} in {db} already, {12 - len(before)} to play" in again.stdout
    with open_store(db) as store:
        after = store.games()
        assert sorted(g.task for g in after) == list(range(12))
        assert all(before[g.task] == g for g in after if g.task in before)
        assert sum(row.games for row in store.standings(store.latest_event().id)) == 24
    third = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert "12 games, 12 in" in third.stdout and "0 to play" in third.stdout


#: A program that starts a process leaving its process group (``setsid``; its command line holds the folder given
#: as first argument), then hangs.
HANGER = textwrap.dedent(
    """\
    import subprocess, sys, time
    sleeper = [sys.executable, "-c", "import time; time.sleep(1000)", sys.argv[1]]
    subprocess.run([sys.executable, "-c", "import os, subprocess, sys; os.setsid(); subprocess.Popen(sys.argv[1:])",
                    *sleeper])
    sys.stdin.readline()
    time.sleep(1000)
    """
)


def test_kill_9_during_games_ends_the_workers_the_guards_and_every_program(tmp_path):
    """Two games under way on two workers, their programs hanging (one hour per move) with processes that left their
    group: ``kill -9`` of the tournament ends at once every process it started (workers, guards, programs) and what
    the programs started, rather than when the games under way end."""
    script = tmp_path / "hanger.py"
    script.write_text(HANGER)
    hanger = f"{sys.executable} {script} {tmp_path}"
    players = players_file(tmp_path, {"hang-a": ("command", hanger), "hang-b": ("command", hanger),
                                      "greedy": ("agent", "greedy")})  # fmt: skip
    command = [AWALE, "tournament", str(players), "--game", GAME, "--db", str(tmp_path / "t.db"), "--workers", "2",
               "--time", "3600", "--startup", "60", "--no-progress"]  # fmt: skip
    with open(tmp_path / "log", "wb") as log:  # a file, not a pipe: orphans must not hold up this test
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    started: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + TIMEOUT
        while len([p for p in stand_in_processes(str(tmp_path)) if "time.sleep" in command_line(p)]) < 3:
            assert run.poll() is None and time.monotonic() < deadline, (tmp_path / "log").read_text()
            time.sleep(0.2)
        started = psutil.Process(run.pid).children(recursive=True)
        # The pool's workers are the tournament's own children (a worker's child between fork and exec, starting a
        # program, still shows the worker's command line).
        workers = [p for p in psutil.Process(run.pid).children() if "spawn_main" in command_line(p)]
        assert len(workers) == 2, [command_line(p)[:100] for p in started]
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
        _, alive = psutil.wait_procs(started, timeout=60)
        assert not alive, [command_line(p)[:100] for p in alive]
        assert not stand_ins_left(str(tmp_path))  # the processes that left their group end with their guards
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for process in started + stand_in_processes(str(tmp_path)):  # a failure leaves nothing behind either
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass


def test_a_second_writer_a_corrupt_or_a_foreign_file_and_bad_players_are_one_line(tmp_path):
    players = players_file(tmp_path, {"a": ("agent", "random"), "b": ("agent", "greedy")})
    db = tmp_path / "t.db"
    with open_store(db, write=True):
        busy = awale("tournament", str(players), "--game", GAME, "--db", str(db), "--no-progress")
        with pytest.raises(StoreBusy):
            open_store(db, write=True)
    assert busy.returncode == 1 and busy.stderr.count("\n") == 1 and "being written by another process" in busy.stderr
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (text TEXT)").connection.commit()
    for path, message in [(corrupt, "is not a results store"), (foreign, "another program")]:
        for args in (["standings", str(path)], [str(players), "--game", GAME, "--db", str(path), "--no-progress"]):
            result = awale_in_process("tournament", *args)  # refused before any game: no program needed
            assert result.exit_code == 1 and message in result.stderr, result.stderr
            assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    deep = "[" * 100_000 + "]" * 100_000
    bad = {
        '[[player]]\nname = "a"\nagent = "random"\n': "at least 2 [[player]] tables",
        '[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\n': "player 2 ('b'): give exactly one",
        '[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\ncommand = "no-such-program-x"\n': (
            "player 2 ('b'): field 'command': cannot run 'no-such-program-x'"
        ),
        '[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "nosuch"\n': (
            "player 2 ('b'): field 'agent'"
        ),
        "[[player]\n": "is not TOML",
        "player = [1, 2]\n": "player 1: not a [[player]] table",
        f'[[player]]\nname = "a"\nagent = "random"\nnotes = {deep}\n': "values nested too deep",
        f"player = [{deep}]\n": "values nested too deep",
    }
    for text, message in bad.items():
        players.write_text(text)
        result = awale_in_process("tournament", str(players), "--game", GAME, "--db", str(tmp_path / "new.db"))
        assert result.exit_code == 2 and message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
    with pytest.raises(StoreError, match="no such results store"):
        open_store(tmp_path / "missing.db")
    for write in (False, True):  # a directory where the file goes, named with what is expected
        with pytest.raises(StoreError, match="is a directory; a results store is a file"):
            open_store(tmp_path, write=write)
    players.write_text('[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n')
    for memory in ("10000000000000", str(2**20 + 1)):  # 10^13 MiB overflowed the guard's limit: every program crashed
        result = awale_in_process(
            "tournament", str(players), "--game", GAME, "--db", str(tmp_path / "mem.db"), "--memory", memory
        )
        assert result.exit_code == 2 and result.stderr.startswith("error: --memory must be at most 1048576 MiB")
        assert result.stderr.count("\n") == 1 and not (tmp_path / "mem.db").exists()
    players.write_text('[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n')
    result = awale_in_process(
        "tournament", str(players), "--game", GAME, "--db", str(tmp_path / "env.db"), "--runtime-env", "{}"
    )
    assert result.exit_code == 2 and result.stderr.strip() == "error: --runtime-env is for --backend ray"
    assert not (tmp_path / "env.db").exists()
    if importlib.util.find_spec("ray") is None:  # Ray is an optional extra: without it, one line
        players.write_text('[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n')
        result = awale_in_process(
            "tournament", str(players), "--game", GAME, "--db", str(tmp_path / "ray.db"), "--backend", "ray"
        )
        assert (
            result.exit_code == 1
            and result.stderr.strip() == 'error: --backend ray needs Ray: pip install "awale_env[rllib]"'
        )


def test_the_arena_and_the_referee_write_the_same_store(tmp_path):
    """One file for every result: an arena round robin (``round_robin(db=...)``) and a referee match (``awale referee
    --db``) land in one store, each as an event of its own, readable by the same API."""
    from competition.arena import round_robin

    db = tmp_path / "all.db"
    arena = round_robin(["random", "greedy"], games_per_pair=2, seed=1, progress=False, db=db, game=GAME)
    first, illegal = student(tmp_path, "first"), student(tmp_path, "illegal")
    run = awale("referee", first, illegal, "--game", GAME, "--games", "2", *TIMES, "--db", str(db))
    assert run.returncode == 0, run.stderr
    with open_store(db) as store:
        kinds = [(event.kind, len(store.games(event.id))) for event in store.events()]
        assert kinds == [("arena", 2), ("referee", 2)]
        arena_event, referee_event = store.events()
        assert [(g.players, g.winner) for g in store.games(arena_event.id)] == [
            (g.specs, g.winner) for g in arena.games
        ]
        rows = {row.player: row for row in store.standings(referee_event.id)}
        assert rows["program 2"].faults == {"illegal": 2} and rows["program 1"].points == 2
        assert all(g.start_seed is not None for g in store.games(arena_event.id))  # a replay's starting position
        assert all(g.start_seed is None for g in store.games(referee_event.id))  # the game's fixed start
        game = store.game(store.games(referee_event.id)[0].id)
        assert game.fault.kind == "illegal" and len(game.moves) == game.fault.ply - 1
        assert all(move.seconds is not None for move in game.moves)


def test_a_program_beyond_its_memory_limit_loses_by_a_crash_and_the_tournament_goes_on(tmp_path):
    players = players_file(tmp_path, {"hog": ("command", student(tmp_path, "hog")), "greedy": ("agent", "greedy")})
    db = tmp_path / "t.db"
    run = awale("tournament", str(players), "--game", GAME, "--db", str(db), "--memory", "2048", "--no-progress",
                *TIMES)  # fmt: skip
    assert run.returncode == 0, run.stderr
    with open_store(db) as store:
        games = [store.game(g.id) for g in store.games()]
        assert [(g.fault.player, g.fault.kind) for g in games] == [("hog", "crash")] * 2
        assert all("MemoryError" in g.fault.detail and "exit code 1" in g.fault.detail for g in games)
        assert [g.fault.ply for g in games] in ([3, 4], [4, 3])  # its second move


#: A program for the RESULT claims: as JoueurA it answers START with its second argument, then waits; as JoueurB it
#: answers the opponent's move ``m`` with ``RESULT m 50 33`` (``echo``: as if ``m`` had ended the game) or with
#: ``RESULT <its second argument> 50 33`` (its own move, claimed to end the game).
CLAIMER = textwrap.dedent(
    """\
    import sys
    mode, move = sys.argv[1], sys.argv[2]
    for line in sys.stdin:
        line = line.strip()
        if line == "END":
            break
        answer = move if line == "START" else f"RESULT {line if mode == 'echo' else move} 50 33"
        print(answer, flush=True)
    """
)


@pytest.mark.parametrize("mode", ["echo", "own"])
def test_a_result_claimed_while_the_game_goes_on_is_a_false_result_with_the_scores(tmp_path, mode):
    """JoueurB claims the game is over after JoueurA's first move: repeating that move in its RESULT line (as the
    course's programs announce an opponent's final move) or with a legal move of its own. Either is a false result
    (not an illegal move), and the detail gives the scores."""
    from competition.programs import Program
    from competition.refereed_game import RefereedGame

    rules = get_game(GAME)
    start = rules.initial()
    first = rules.format_move(start.legal_actions()[0])
    after = start.play(start.legal_actions()[0])
    own = rules.format_move(after.legal_actions()[0])
    script = tmp_path / "claimer.py"
    script.write_text(CLAIMER)
    argv = [[sys.executable, str(script), "first", first], [sys.executable, str(script), mode, own]]
    report = RefereedGame(rules, {}, None, lambda index, seat: Program(argv[index], seat), 1, 30.0, 60.0).play()
    scores = after.play(after.legal_actions()[0]).stores if mode == "own" else after.stores
    claim = f"RESULT {first if mode == 'echo' else own} 50 33"
    assert (report.end, report.faulty, report.winner, report.fault_ply) == ("false_result", 2, 1, 2)
    expected = {
        "echo": f"answered {claim!r} as if the opponent's {first} had ended the game, but the game goes on",
        "own": f"answered {claim!r} but the game goes on",
    }[mode]
    assert report.detail == f"JoueurB at ply 2: {expected} (scores {scores[0]}-{scores[1]})"
