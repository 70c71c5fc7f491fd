"""The ``awale`` command: ``awale demo`` (a short self-play training, then an arena), ``awale play`` (a human
against an agent in the terminal), ``awale arena`` (round robins with Elo), ``awale train ppo|alphazero|imitation``,
``awale serve`` (the web page), ``awale bot`` and ``awale referee`` (the course referee's protocol). ``play``,
``arena``, ``demo``, ``bot`` and ``referee`` take ``--game`` (any game of :data:`awale_env.games.GAMES`), all but
``demo`` the game's rule flags (``--rule name=value``). A typer app; each subcommand only parses its options and
calls library code; ``python -m awale_apps`` runs it too.

Every expected failure ends a command with one line ``error: ...`` on stderr, never a traceback: bad input (a
``ValueError``: the library's ``AgentSpecError``, ``CheckpointError``, ``RecordError`` ... are ValueErrors) with exit
code 2, a file that cannot be read or written (``OSError``: a full disk, a path under a regular file) or a command that
needs an optional extra not installed (:class:`agents.extras.MissingExtraError`: what to pip install) with exit code
1, Ctrl-C with exit code 130 and SIGTERM with 143 (the command's worker processes ended first).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup

from awale_apps import check_packages
from awale_apps.game_settings import game_settings
from awale_apps.web.defaults import (
    DEFAULT_MAX_CLIENT_QUEUE,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_THINK_SECONDS,
)
from awale_env.errors import IllegalMoveError, RecordError
from awale_env.games import DEFAULT_GAME, GAMES, Game, get_game
from competition import interrupts


def one_line(text: str) -> str:
    """``text`` on one line (a message that wraps is joined with single spaces)."""
    return " ".join(text.split())


def describe_os_error(error: OSError) -> str:
    """What an OSError says without its errno prefix: ``No space left on device: 'runs/x/results.json'``."""
    if error.strerror is None:
        return str(error)
    return error.strerror + ("" if error.filename is None else f": {str(error.filename)!r}")


def failure(error: BaseException) -> tuple[int, str] | None:
    """The exit code and the line on stderr of an expected failure (see the module docstring), None for others."""
    if isinstance(error, (click.exceptions.Exit, click.ClickException, click.exceptions.Abort)):
        return None  # typer's own way out: a usage error, --help, an explicit exit
    if interrupts.interrupted(error):
        return interrupts.exit_code(error), "\ninterrupted"
    if isinstance(error, ValueError):
        return 2, "error: " + one_line(str(error))
    if isinstance(error, ModuleNotFoundError):
        from agents.extras import MissingExtraError  # only now: the error is there, the import is cheap

        if isinstance(error, MissingExtraError):
            return 1, "error: " + one_line(str(error))
    if isinstance(error, OSError):
        return 1, "error: " + one_line(describe_os_error(error))
    return None


class OneLineErrors(TyperGroup):
    """The command group that ends any subcommand's expected failure with one line on stderr (:func:`failure`);
    anything else is a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with interrupts.caught():  # SIGTERM too unwinds the command, which ends its worker processes
                return super().invoke(ctx)
        except (Exception, KeyboardInterrupt) as error:
            ending = failure(error)
            if ending is None:
                raise
            typer.echo(ending[1], err=True)
            raise typer.Exit(ending[0]) from None


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"awale {version('awale_env')}")
        raise typer.Exit()


#: Help pages in click's plain layout: rich's reads ``[[player]]`` as markup and shows ``<bool>`` beside every flag.
HELP_MARKUP = None
app = typer.Typer(
    cls=OneLineErrors,
    help=f"Mancala games ({', '.join(GAMES)}): train agents, play against them, run tournaments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
)


@app.callback()
def options(
    show: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """The options of ``awale`` itself (``--version``), before a subcommand."""


train_app = typer.Typer(
    help="Train an agent (every hyper-parameter is an option: awale train ppo --help).", rich_markup_mode=HELP_MARKUP
)
app.add_typer(train_app, name="train")

# The trainers parse their own options (tyro, from their dataclass of hyper-parameters, --help included).
PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def prompt(game: Game) -> str:
    """The move prompt, with a move written in the game's notation as an example."""
    return f"your move (e.g. {game.format_move(game.num_actions - 5)}, undo, quit): "


PROMPT = prompt(GAMES[DEFAULT_GAME])  # "your move (e.g. 14B, undo, quit): "
GAME_HELP = f"the game: {', '.join(GAMES)}"
RULE_HELP = "a rule flag of the game as name=value, repeatable; the flags: " + "; ".join(
    f"{name}: {', '.join(game.rule_options)}" for name, game in GAMES.items() if game.rule_options
)
MAX_PLIES_HELP = (
    "ply limit of each game (0 for none; default: the game's own: "
    + ", ".join(f"{game.default_max_plies} for {name}" for name, game in GAMES.items())
    + ")"
)


def _fail(message: str, code: int = 2) -> None:
    """A one-line error on stderr and exit ``code`` (2: bad usage), no traceback."""
    typer.echo("error: " + one_line(message), err=True)
    raise typer.Exit(code)


def _write_results(result: Any, out: Path) -> list[Path]:
    """The arena's result files in ``out``; a failed write (a full disk) is a one-line error naming the folder."""
    from competition.arena import write_results

    try:
        return write_results(result, out)
    except OSError as error:
        _fail(f"cannot write the results into {out}: {describe_os_error(error)}", code=1)


@contextmanager
def _open_store(path: Path | None) -> Iterator[Any]:
    """The results store at ``path`` open for writing (None: no store); a file that is not one, or one another
    process writes, is a one-line error."""
    if path is None:
        yield None
        return
    from competition.store import StoreBusy, StoreError, open_store

    try:
        store = open_store(path, write=True)
    except (StoreError, StoreBusy) as error:
        _fail(str(error), code=1)
    try:
        yield store
    except StoreError as error:
        _fail(str(error), code=1)
    finally:
        store.close()


def _game(name: str, rules: list[str] | None, max_plies: int | None) -> tuple[Game, dict[str, Any], int | None]:
    """The game, its rule flags and the ply limit (:func:`awale_apps.game_settings.game_settings`); a bad name, flag
    or value is a one-line error naming what is allowed."""
    try:
        return game_settings(name, rules, max_plies)
    except ValueError as error:
        _fail(str(error))


def _build(spec: str, seed: int | None = None) -> Any:
    """The agent of ``spec``; a bad spec raises AgentSpecError (a one-line error)."""
    from agents import make

    return make(spec) if seed is None else make(spec, seed=seed)


def writable_directory(path: Path) -> Path:
    """Create ``path`` (and its parents) and check that a file can be written there, so that a command that writes
    its results at the end fails before its work rather than after; OSError names what is wrong."""
    path.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=path):
        pass
    return path


def play_terminal(
    agent: Any,
    human_seat: int,
    max_plies: int | None,
    echo: Callable[[str], Any] = typer.echo,
    read: Callable[[str], str] = input,
    game: str | Game = DEFAULT_GAME,
    seed: int | None = None,
    **options: Any,
) -> Any:
    """Play a game of ``game`` (rule flags ``options``; ``seed`` draws what its rules leave to chance) between a
    human (reading moves with ``read``, in the game's notation) and ``agent`` (an :class:`agents.Agent`); return
    the final State.

    ``undo`` takes back the human's last move and the agent's reply; ``quit`` or end of input stops the game.
    """
    game = get_game(game)
    state = game.initial(max_plies=max_plies, seed=seed, **options)
    history: list[Any] = []
    last = None
    echo(game.render_ansi(state))
    while not state.is_terminal:
        if state.to_move != human_seat:
            last = agent.act(state)
            state = state.play(last)
            echo(f"{agent.name} plays {game.format_move(last)}")
            echo(game.render_ansi(state, last))
            continue
        try:
            text = read(prompt(game)).strip()
        except EOFError:
            echo("\nend of input: game abandoned")
            return state
        if text.lower() in ("quit", "q", "exit"):
            echo("game abandoned")
            return state
        if text.lower() == "undo":
            if not history:
                echo("nothing to undo")
                continue
            state, last = history.pop(), None
            echo(game.render_ansi(state))
            continue
        try:
            action = state.to_action(game.parse_move(text))
        except IllegalMoveError as error:
            echo(str(error))
            continue
        history.append(state)
        state = state.play(action)
        last = action
        echo(game.render_ansi(state, last))
    winner = state.winner
    echo("draw" if winner is None else ("you win" if winner == human_seat else f"{agent.name} wins"))
    return state


@app.command()
def play(
    opponent: Annotated[str, typer.Option(help="agent spec, e.g. alphabeta:depth=8 or mcts:time=2")] = "alphabeta",
    seat: Annotated[str, typer.Option(help="your seat: 0 (player 0), 1 or random")] = "0",
    max_plies: Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the opponent, of --seat random and of the game")] = None,
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
    rule: Annotated[list[str] | None, typer.Option(help=RULE_HELP)] = None,
) -> None:
    """Play against an agent in the terminal."""
    if seat not in ("0", "1", "random"):
        _fail(f"--seat must be 0, 1 or random, got {seat!r}")
    rules, options, limit = _game(game, rule, max_plies)
    agent = _build(opponent, seed)
    from agents.base import game_refusal

    refusal = game_refusal(agent, opponent, rules.name)
    if refusal is not None:
        _fail(refusal)
    human = random.Random(seed).randrange(2) if seat == "random" else int(seat)
    typer.echo(f"you are player {human} of {rules.name} ({rules.page()['players'][human]})")
    play_terminal(agent, human, limit, game=rules, seed=seed, **options)


@app.command()
def arena(
    agents: Annotated[list[str], typer.Option("--agents", help="agent specs, at least 2: --agents a b c")],
    games: Annotated[int, typer.Option(help="games per pair of agents (even: each opening from both seats)")] = 20,
    seed: Annotated[int, typer.Option(help="tournament seed (openings and agent seeds)")] = 0,
    workers: Annotated[int, typer.Option(help="parallel processes")] = 1,
    opening_plies: Annotated[int, typer.Option(help="random plies opening each mirrored pair of games")] = 4,
    max_plies: Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="write games.jsonl (each game as it ends), then results.json, standings.csv, games.csv, elo.png"
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            help="play only the games missing from --out DIR/games.jsonl (a stopped tournament; a larger --games adds "
            "games to each pair)"
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the table as JSON on the last line")] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
    rule: Annotated[list[str] | None, typer.Option(help=RULE_HELP)] = None,
    backend: Annotated[str, typer.Option(help="process (processes here) or ray (--workers Ray actors)")] = "process",
    address: Annotated[str | None, typer.Option(help="with --backend ray: the cluster to join (auto: here)")] = None,
    db: Annotated[
        Path | None, typer.Option(help="also keep every game in this SQLite results store (docs/tournament.md)")
    ] = None,
    runtime_env: Annotated[
        str | None,
        typer.Option(help="with --backend ray: Ray's runtime environment, a JSON object or a JSON/YAML file"),
    ] = None,
) -> None:
    """Round robin between agents: a win/draw/loss table and Elo ratings with 95 % confidence intervals."""
    from competition.arena import JOURNAL_NAME, ArenaError, JournalWarning, format_table, round_robin
    from competition.store import StoreBusy, StoreError

    rules, options, limit = _game(game, rule, max_plies)
    for spec in agents:
        _build(spec)
    if workers < 1:
        _fail(f"--workers must be >= 1, got {workers}")
    if backend == "ray":
        import competition.ray_backend  # noqa: F401  (without Ray: one line before the tournament starts)
    elif runtime_env is not None:
        _fail("--runtime-env is for --backend ray")
    if resume and out is None:
        _fail(f"--resume continues the tournament recorded in --out DIR ({JOURNAL_NAME}): give its --out")
    if out is not None:
        writable_directory(out)
    ray_started = False
    if backend == "ray":  # a bad --runtime-env, or no cluster at --address: one line before any game
        from competition.ray_backend import connect

        ray_started = connect(address, runtime_env)
    with warnings.catch_warnings():  # a journal's cut last line: one line on stderr, as the tournament starts
        warnings.simplefilter("always", JournalWarning)
        warnings.showwarning = lambda message, *_: typer.echo(f"warning: {one_line(str(message))}", err=True)
        journal = None if out is None else out / JOURNAL_NAME
        try:
            result = round_robin(agents, games, seed, workers, opening_plies, limit, progress, game=rules.name,
                                 backend=backend, address=address, journal=journal, resume=resume, db=db,
                                 **options)  # fmt: skip
        except (ArenaError, StoreError, StoreBusy) as error:
            _fail(str(error), code=1)
        finally:
            if ray_started:
                import ray

                ray.shutdown()
    typer.echo(format_table(result))
    if out is not None:
        for path in _write_results(result, out):
            typer.echo(f"wrote {path}")
    if as_json:
        typer.echo(json.dumps(result.table()))


@app.command()
def tournament(
    players: Annotated[
        str,
        typer.Argument(
            help="PLAYERS.toml ([[player]] tables: name and command or agent), or 'standings' to print a store's",
            metavar="PLAYERS.toml|standings",
        ),
    ],
    store_file: Annotated[
        Path | None, typer.Argument(help="with 'standings': the store (default: --db)", metavar="[DB]")
    ] = None,
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
    rule: Annotated[list[str] | None, typer.Option(help=RULE_HELP)] = None,
    max_plies: Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)] = None,
    games_per_pair: Annotated[int, typer.Option(help="games per pair of players (even: seats swapped)")] = 2,
    openings: Annotated[
        int, typer.Option(help="random plies opening each mirrored pair of games (agents only; 0: initial position)")
    ] = 0,
    seed: Annotated[int, typer.Option(help="seed of the openings and of the agents")] = 0,
    seconds: Annotated[float, typer.Option("--time", help="seconds per move: a late answer loses")] = 3.0,
    startup: Annotated[float, typer.Option(help="seconds added to a program's first answer, for its start-up")] = 3.0,
    memory: Annotated[
        int, typer.Option(help="address-space limit of each program in MiB (0: none); beyond it the program loses")
    ] = 4096,
    workers: Annotated[int, typer.Option(help="games at once (processes, or Ray actors with --backend ray)")] = 1,
    backend: Annotated[str, typer.Option(help="process (processes here) or ray (--workers Ray actors)")] = "process",
    address: Annotated[str | None, typer.Option(help="with --backend ray: the cluster to join (auto: here)")] = None,
    db: Annotated[Path, typer.Option(help="the SQLite results store (made if missing; run again to resume)")] = Path(
        "tournament.db"
    ),
    runtime_env: Annotated[
        str | None,
        typer.Option(help="with --backend ray: Ray's runtime environment, a JSON object or a JSON/YAML file"),
    ] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    as_csv: Annotated[bool, typer.Option("--csv", help="print the standings as CSV")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the standings as JSON")] = False,
) -> None:
    """A round robin of course programs and agents, every move checked, every game kept in an SQLite store; or
    `awale tournament standings DB`: points, W-D-L, faults by kind and Elo of the store's last event (a
    tournament, or an arena or referee run)."""
    from competition.pool import BACKENDS, ArenaError
    from competition.store import StoreBusy, StoreError, open_store
    from competition.tournament import (
        PlayersError,
        TournamentSettings,
        load_players,
        log_folder,
        run_tournament,
        standings_csv,
        standings_json,
        standings_table,
    )

    def show(path: Path) -> None:
        try:
            with open_store(path) as store:
                rows = store.standings(store.latest_event().id)
        except StoreError as error:
            _fail(str(error), code=1)
        typer.echo(standings_csv(rows).rstrip("\n") if as_csv else standings_json(rows) if as_json else
                   standings_table(rows))  # fmt: skip

    if players == "standings":
        show(store_file or db)
        return
    if store_file is not None:
        _fail(f"a second argument ({store_file}) is only for 'awale tournament standings DB'")
    rules, options, limit = _game(game, rule, max_plies)
    if workers < 1:
        _fail(f"--workers must be >= 1, got {workers}")
    if backend not in BACKENDS:
        _fail(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "ray":
        import competition.ray_backend  # noqa: F401  (without Ray: one line before the tournament starts)
    elif runtime_env is not None:
        _fail("--runtime-env is for --backend ray")
    try:
        entries = load_players(Path(players), rules.name)
        settings = TournamentSettings(rules.name, tuple(sorted(options.items())), limit, games_per_pair, openings,
                                      seed, seconds, startup, memory)  # fmt: skip
        settings.check([spec for spec, _ in entries])
    except (PlayersError, ValueError) as error:
        _fail(str(error))
    ray_started = False
    if backend == "ray":  # a bad --runtime-env, or no cluster at --address: one line before any game
        from competition.ray_backend import connect

        ray_started = connect(address, runtime_env)
    try:
        with open_store(db, write=True) as store:
            run_tournament(store, entries, settings, workers, backend, address, progress, log_folder(db), typer.echo)
    except (StoreError, StoreBusy, ArenaError, PlayersError) as error:  # PlayersError: a failed preparation
        _fail(str(error), code=1)
    finally:
        if ray_started:
            import ray

            ray.shutdown()
    typer.echo(f"results in {db} (programs' standard error in {log_folder(db)}/)")
    show(db)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, add_help_option=False)
def bot(arguments: typer.Context) -> None:
    """A player program for the course's referee: one game over standard input and output (awale bot --help)."""
    from awale_apps.bot_command import main as bot_main

    bot_main(arguments.args)


@app.command()
def referee(
    program1: Annotated[str, typer.Argument(help='command of program 1, quoted: "awale bot --game GAME"')],
    program2: Annotated[str, typer.Argument(help="command of program 2 (each gets its seat as last argument)")],
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
    rule: Annotated[list[str] | None, typer.Option(help=RULE_HELP)] = None,
    games: Annotated[int, typer.Option(help="games; the seats alternate, program 1 is JoueurA in odd games")] = 2,
    seconds: Annotated[
        float, typer.Option("--time", help="seconds per answer, 3 as in the course's referee: a late answer loses")
    ] = 3.0,
    startup: Annotated[
        float, typer.Option(help="seconds added to a program's first answer in a game, for its start-up")
    ] = 10.0,
    max_plies: Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)] = None,
    numeric_seats: Annotated[bool, typer.Option(help="give the seats as 1 and 2, not JoueurA and JoueurB")] = False,
    out: Annotated[
        Path | None, typer.Option(help="write the results as JSON to this file (rewritten as each game ends)")
    ] = None,
    db: Annotated[
        Path | None, typer.Option(help="also keep every game in this SQLite results store (docs/tournament.md)")
    ] = None,
) -> None:
    """Games between two player programs through the course referee's protocol, every move checked and timed."""
    from awale_apps.referee import run_match

    rules, options, limit = _game(game, rule, max_plies)
    if out is not None:
        writable_directory(out.parent)
    seat_style = "numbers" if numeric_seats else "names"
    with _open_store(db) as store:
        run_match((program1, program2), rules, options, limit, games, seconds, startup, seat_style, out, typer.echo,
                  store)  # fmt: skip


@train_app.command("ppo", context_settings=PASS_THROUGH, add_help_option=False)
def train_ppo(ctx: typer.Context) -> None:
    """Self-play MaskablePPO against a pool of opponents (training/ppo/trainer.py)."""
    from training.ppo import trainer as ppo_trainer

    ppo_trainer.main(ctx.args)


@train_app.command("alphazero", context_settings=PASS_THROUGH, add_help_option=False)
def train_alphazero(ctx: typer.Context) -> None:
    """AlphaZero: batched PUCT self-play, training, gating (training/alphazero/trainer.py)."""
    from training.alphazero import trainer as alphazero_trainer

    alphazero_trainer.main(ctx.args)


@train_app.command("imitation", context_settings=PASS_THROUGH, add_help_option=False)
def train_imitation(ctx: typer.Context) -> None:
    """An AlphaZero network's first weights, learnt from alpha-beta's games (training/alphazero/imitation.py)."""
    from training.alphazero import imitation

    imitation.main(ctx.args)


@train_app.command("rllib", context_settings=PASS_THROUGH, add_help_option=False)
def train_rllib(ctx: typer.Context) -> None:
    """Self-play PPO with RLlib, one policy for both seats (training/rllib/trainer.py; needs the rllib extra)."""
    from training.rllib import trainer as rllib_trainer

    rllib_trainer.main(ctx.args)


#: The demo's opponents on every game, and the shipped agents that join them on the game they were trained for.
DEMO_OPPONENTS = ("random", "greedy", "alphabeta:depth=2")
DEMO_SHIPPED = {DEFAULT_GAME: ("ppo:pretrained",)}
#: The most learner moves and arena games per pair the demo plays.
DEMO_MAX_STEPS = 10**9
DEMO_MAX_GAMES = 10_000


@app.command()
def demo(
    steps: Annotated[int, typer.Option(help="learner moves of self-play PPO")] = 200_000,
    games: Annotated[int, typer.Option(help="arena games per pair of agents (even)")] = 20,
    run_dir: Annotated[Path | None, typer.Option(help="where the run goes (default: runs/demo-<date-time>)")] = None,
    workers: Annotated[int, typer.Option(help="parallel arena processes")] = 2,
    seed: Annotated[int, typer.Option(help="seed of the training and of the arena")] = 1,
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
) -> None:
    """The main job: a short self-play PPO run, then an arena of the trained agent against the search agents (and
    the shipped PPO agent on the two-colour Awale), printing the Elo table and writing a chart."""
    import time

    from competition.arena import format_table, round_robin
    from competition.progress import format_seconds
    from training.ppo import config as ppo_config
    from training.ppo import trainer as ppo_trainer

    if not 1 <= steps <= DEMO_MAX_STEPS or workers < 1 or not 2 <= games <= DEMO_MAX_GAMES or games % 2:
        _fail(f"need --steps from 1 to {DEMO_MAX_STEPS:,}, --workers >= 1 and an even --games from 2 to "
              f"{DEMO_MAX_GAMES:,}, got {steps}, {workers}, {games}")  # fmt: skip
    game = _game(game, None, None)[0].name
    run_dir = run_dir or Path("runs") / time.strftime("demo-%Y%m%d-%H%M%S")
    args = ppo_trainer.Args(
        run_dir=str(run_dir),
        game=game,
        seed=seed,
        total_timesteps=steps,
        eval_every=steps,
        eval_games=20,
        checkpoint_every=steps,
    )
    ppo_config.resolved(args)  # a bad --steps or --seed: one line before anything starts
    typer.echo(f"1/2 self-play PPO for {steps:,} moves into {run_dir}")
    started = time.monotonic()
    checkpoint = ppo_trainer.train(args)
    typer.echo(f"1/2 done in {format_seconds(time.monotonic() - started)}")  # benchmarks/bench_demo.py reads these
    trained = f"ppo:path={checkpoint}"
    typer.echo(f"2/2 arena: {games} games per pair, {workers} workers")
    started = time.monotonic()
    result = round_robin([trained, *DEMO_OPPONENTS, *DEMO_SHIPPED.get(game, ())], games, seed, workers, game=game)
    typer.echo(f"2/2 done in {format_seconds(time.monotonic() - started)}")
    typer.echo(format_table(result))
    paths = _write_results(result, run_dir / "arena")
    typer.echo(f"wrote {', '.join(map(str, paths))}; learning curves: python -m training.plots {run_dir}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on (loopback by default: the page has no login)")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    max_games: Annotated[
        int, typer.Option(help="live games kept; a new one evicts the longest idle")
    ] = DEFAULT_MAX_GAMES,
    max_think: Annotated[float, typer.Option(help="seconds an agent may think per move (larger time= refused)")] = (
        DEFAULT_MAX_THINK_SECONDS
    ),
    preset: Annotated[
        list[str] | None, typer.Option(help="extra opponent spec offered on the page, may use path= (repeatable)")
    ] = None,
    workers: Annotated[int, typer.Option(help="processes running the agents")] = 1,
    max_queue: Annotated[
        int, typer.Option(help="requests waiting for an agent at once; more are refused at once (503)")
    ] = DEFAULT_MAX_QUEUE,
    max_client_queue: Annotated[
        int, typer.Option(help="requests of one address waiting for an agent at once; more get 429")
    ] = DEFAULT_MAX_CLIENT_QUEUE,
    max_memory: Annotated[
        float, typer.Option(help="megabytes of search trees and tables each worker keeps for its games' agents")
    ] = DEFAULT_MAX_MEMORY_MB,
    records: Annotated[
        list[Path] | None,
        typer.Option(help="a file of game records (text or JSON lines) the analysis board replays (repeatable)"),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(help="a results store (awale tournament's SQLite file): its standings and games, to replay"),
    ] = None,
) -> None:
    """A local web page to play against any agent and analyse games, at http://HOST:PORT/ (JSON API under /api, see
    docs/web.md)."""
    from awale_apps.web import serve as run_server

    if max_games < 1 or workers < 1 or max_think <= 0 or not 0 < port < 65536:
        _fail(f"need --max-games >= 1, --workers >= 1, --max-think > 0 and a port 1-65535; got {max_games}, "
              f"{workers}, {max_think}, {port}")  # fmt: skip
    if not 1 <= max_client_queue <= max_queue or max_memory <= 0:
        _fail(f"need 1 <= --max-client-queue <= --max-queue and --max-memory > 0; got {max_client_queue}, "
              f"{max_queue}, {max_memory}")  # fmt: skip
    for spec in preset or []:
        _build(spec)
    for path in records or []:
        _check_records(path)
    if db is not None:
        _check_store(db)
    if host not in ("127.0.0.1", "localhost"):
        typer.echo(f"warning: listening on {host}: anyone who can reach it can start games and use this CPU", err=True)
    typer.echo(f"awale: open http://{host}:{port}/ (Ctrl+C to stop)")
    run_server(host, port, max_games, max_think, preset or [], workers, max_queue, max_client_queue, max_memory,
               records or [], db)  # fmt: skip


def _check_records(path: Path) -> None:
    """Exit with one line if the records file ``path`` cannot be read or holds a bad record."""
    from awale_apps.web.replays import RecordsFile

    try:
        RecordsFile(path)
    except RecordError as error:
        _fail(f"--records: {error}")


def _check_store(path: Path) -> None:
    """Exit with one line if ``path`` is not a results store holding an event (missing, corrupt, foreign, empty)."""
    from awale_apps.web.database_source import database_sources
    from competition.store import StoreError

    try:
        database_sources(path)
    except StoreError as error:
        _fail(f"--db: {error}")


# Options that take several values after one flag (``--agents a b c``), which click cannot parse by itself.
LIST_OPTIONS = ("--agents",)


def expand_list_options(args: list[str]) -> list[str]:
    """Rewrite ``--agents a b c`` as ``--agents a --agents b --agents c`` (values run up to the next ``-`` word)."""
    expanded, current = [], None
    for arg in args:
        if arg.startswith("-"):
            current = arg if arg in LIST_OPTIONS else None
            expanded.append(arg)
        elif current is not None and expanded[-1] != current:
            expanded += [current, arg]
        else:
            expanded.append(arg)
    return expanded


def main() -> None:
    """Entry point of the ``awale`` console script."""
    try:
        check_packages()
    except ImportError as error:
        typer.echo("error: " + one_line(str(error)), err=True)
        raise SystemExit(1) from None
    app(args=expand_list_options(sys.argv[1:]), prog_name="awale")
