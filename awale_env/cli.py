"""The ``awale`` command: ``awale demo`` (a short self-play training, then an arena), ``awale play`` (a human
against an agent in the terminal), ``awale arena`` (round robins with Elo) and ``awale train ppo|alphazero``.
``play`` and ``arena`` take ``--game awale16|oware|hawalis`` and the game's rule flags (``--rule preset=openspiel``).
A typer app; each subcommand only parses its options and calls library code."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from awale_env.errors import IllegalMoveError
from awale_env.games import DEFAULT_GAME, GAMES, Game, get_game
from awale_env.rules import board_diagram

app = typer.Typer(
    help="Two-colour 16-hole Awale: train agents, play against them, run tournaments.", no_args_is_help=True
)
train_app = typer.Typer(help="Train an agent (every hyper-parameter is an option: awale train ppo --help).")
app.add_typer(train_app, name="train")

# The trainers parse their own options (tyro, from their dataclass of hyper-parameters, --help included).
PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def prompt(game: Game) -> str:
    """The move prompt, with a move written in the game's notation as an example."""
    return f"your move (e.g. {game.format_move(game.num_actions - 5)}, undo, quit): "


PROMPT = prompt(GAMES[DEFAULT_GAME])  # "your move (e.g. 14B, undo, quit): "
GAME_HELP = f"the game: {', '.join(GAMES)}"
RULE_HELP = "a rule flag of the game as name=value, repeatable (e.g. preset=openspiel for oware)"
MAX_PLIES_HELP = "ply limit of each game (0 for none; default: the game's own, 400 for awale16, 1000 otherwise)"


def _fail(message: str) -> None:
    """A one-line error on stderr and exit code 2 (bad usage), no traceback."""
    typer.echo("error: " + " ".join(line.strip() for line in message.splitlines()), err=True)
    raise typer.Exit(2)


def _game(name: str, rules: list[str] | None, max_plies: int | None) -> tuple[Game, dict[str, Any], int | None]:
    """The game, its rule flags parsed from ``name=value`` words (ints, true/false, else text) and the ply limit
    (None: the game's default, 0: none); a bad name, flag or value is a one-line error naming what is allowed."""
    try:
        game = get_game(name)
    except ValueError as error:
        _fail(str(error))
    options: dict[str, Any] = {}
    for rule in rules or []:
        key, eq, text = rule.partition("=")
        if not eq or not key.strip():
            _fail(f"--rule takes name=value, got {rule!r}; the rule flags of {game.name}: "
                  f"{', '.join(game.rule_options) or 'none'}")  # fmt: skip
        text = text.strip()
        lowered = text.lower()
        value: Any = text
        if text.lstrip("-").isdigit():
            value = int(text)
        elif lowered in ("true", "false"):
            value = lowered == "true"
        options[key.strip()] = value
    unknown = sorted(set(options) - set(game.rule_options))
    if unknown:
        _fail(f"unknown rule flag(s) {', '.join(unknown)} for {game.name}; its flags: "
              f"{', '.join(game.rule_options) or 'none'}")  # fmt: skip
    if max_plies is not None and max_plies < 0:
        _fail(f"--max-plies must be >= 0 (0 for no limit), got {max_plies}")
    limit = game.default_max_plies if max_plies is None else (max_plies or None)
    try:
        game.initial(max_plies=limit, **options)
    except ValueError as error:
        _fail(str(error))
    return game, options, limit


def _board(game: Game, state: Any, last: int | None = None) -> str:
    """The board as plain text, the last move marked: the two-colour game's diagram, the other games' own."""
    return board_diagram(state, last) if game.name == DEFAULT_GAME else game.render_ansi(state, last)


def _build(spec: str, seed: int | None = None) -> Any:
    from agents import AgentSpecError, make

    try:
        return make(spec) if seed is None else make(spec, seed=seed)
    except AgentSpecError as error:
        _fail(str(error))


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
    echo(_board(game, state))
    while not state.is_terminal:
        if state.to_move != human_seat:
            last = agent.act(state)
            state = state.play(last)
            echo(f"{agent.name} plays {game.format_move(last)}")
            echo(_board(game, state, last))
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
            echo(_board(game, state))
            continue
        try:
            action = state.to_action(game.parse_move(text))
        except IllegalMoveError as error:
            echo(str(error))
            continue
        history.append(state)
        state = state.play(action)
        last = action
        echo(_board(game, state, last))
    winner = state.winner
    echo("draw" if winner is None else ("you win" if winner == human_seat else f"{agent.name} wins"))
    return state


@app.command()
def play(
    opponent: Annotated[str, typer.Option(help="agent spec, e.g. alphabeta:depth=8 or mcts:time=2")] = "alphabeta",
    seat: Annotated[str, typer.Option(help="your seat: 0 (awale16: odd holes, moves first), 1 or random")] = "0",
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
    if rules.name == DEFAULT_GAME:
        typer.echo(f"you are player {human} ({'odd' if human == 0 else 'even'} holes, marked * for player 0)")
    else:
        typer.echo(
            f"you are player {human} of {rules.name}: type the action number of a move (0-{rules.num_actions - 1})"
        )
    try:
        play_terminal(agent, human, limit, game=rules, seed=seed, **options)
    except ValueError as error:  # an agent that cannot play this game
        _fail(str(error))


@app.command()
def arena(
    agents: Annotated[list[str], typer.Option("--agents", help="agent specs, at least 2: --agents a b c")],
    games: Annotated[int, typer.Option(help="games per pair of agents (even: each opening from both seats)")] = 20,
    seed: Annotated[int, typer.Option(help="tournament seed (openings and agent seeds)")] = 0,
    workers: Annotated[int, typer.Option(help="parallel processes")] = 1,
    opening_plies: Annotated[int, typer.Option(help="random plies opening each mirrored pair of games")] = 4,
    max_plies: Annotated[int | None, typer.Option(help=MAX_PLIES_HELP)] = None,
    out: Annotated[Path | None, typer.Option(help="write results.json, standings.csv, games.csv, elo.png")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the table as JSON on the last line")] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    game: Annotated[str, typer.Option(help=GAME_HELP)] = DEFAULT_GAME,
    rule: Annotated[list[str] | None, typer.Option(help=RULE_HELP)] = None,
) -> None:
    """Round robin between agents: a win/draw/loss table and Elo ratings with 95 % confidence intervals."""
    from training.arena import format_table, round_robin, write_results

    rules, options, limit = _game(game, rule, max_plies)
    for spec in agents:
        _build(spec)
    if workers < 1:
        _fail(f"--workers must be >= 1, got {workers}")
    try:
        result = round_robin(agents, games, seed, workers, opening_plies, limit, progress, game=rules.name, **options)
    except ValueError as error:
        _fail(str(error))
    typer.echo(format_table(result))
    if out is not None:
        for path in write_results(result, out):
            typer.echo(f"wrote {path}")
    if as_json:
        typer.echo(json.dumps(result.table()))


@train_app.command("ppo", context_settings=PASS_THROUGH, add_help_option=False)
def train_ppo(ctx: typer.Context) -> None:
    """Self-play MaskablePPO against a pool of opponents (training/ppo_selfplay.py)."""
    from training import ppo_selfplay

    ppo_selfplay.main(ctx.args)


@train_app.command("alphazero", context_settings=PASS_THROUGH, add_help_option=False)
def train_alphazero(ctx: typer.Context) -> None:
    """AlphaZero: batched PUCT self-play, training, gating (training/alphazero.py)."""
    from training import alphazero

    alphazero.main(ctx.args)


#: The demo's opponents on every game, and the shipped agents that join them on the game they were trained for.
DEMO_OPPONENTS = ("random", "greedy", "alphabeta:depth=2")
DEMO_SHIPPED = {DEFAULT_GAME: ("ppo:pretrained",)}


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

    from training import ppo_selfplay
    from training.arena import format_table, round_robin, write_results

    if steps < 1 or workers < 1 or games < 2 or games % 2:
        _fail(f"need --steps >= 1, --workers >= 1 and an even --games >= 2, got {steps}, {workers}, {games}")
    game = _game(game, None, None)[0].name
    run_dir = run_dir or Path("runs") / time.strftime("demo-%Y%m%d-%H%M%S")
    typer.echo(f"1/2 self-play PPO for {steps:,} moves into {run_dir}")
    args = ppo_selfplay.Args(
        run_dir=str(run_dir),
        game=game,
        seed=seed,
        total_timesteps=steps,
        eval_every=steps,
        eval_games=20,
        checkpoint_every=steps,
    )
    try:
        checkpoint = ppo_selfplay.train(args)
    except (ValueError, FileExistsError) as error:
        _fail(str(error))
    trained = f"ppo:path={checkpoint}"
    typer.echo(f"2/2 arena: {games} games per pair, {workers} workers")
    result = round_robin([trained, *DEMO_OPPONENTS, *DEMO_SHIPPED.get(game, ())], games, seed, workers, game=game)
    typer.echo(format_table(result))
    paths = write_results(result, run_dir / "arena")
    typer.echo(f"wrote {', '.join(map(str, paths))}; learning curves: python -m training.plots {run_dir}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on (loopback by default: the page has no login)")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    max_games: Annotated[int, typer.Option(help="live games kept; a new one evicts the longest idle")] = 16,
    max_think: Annotated[float, typer.Option(help="seconds an agent may think per move (larger time= refused)")] = 5.0,
    preset: Annotated[
        list[str] | None, typer.Option(help="extra opponent spec offered on the page, may use path= (repeatable)")
    ] = None,
    workers: Annotated[int, typer.Option(help="processes running the agents")] = 1,
) -> None:
    """A local web page to play against any agent, at http://HOST:PORT/ (JSON API under /api, see docs/web.md)."""
    from agents import AgentSpecError
    from awale_env.web import serve as run_server

    if max_games < 1 or workers < 1 or max_think <= 0 or not 0 < port < 65536:
        _fail(f"need --max-games >= 1, --workers >= 1, --max-think > 0 and a port 1-65535; got {max_games}, "
              f"{workers}, {max_think}, {port}")  # fmt: skip
    for spec in preset or []:
        _build(spec)
    if host not in ("127.0.0.1", "localhost"):
        typer.echo(f"warning: listening on {host}: anyone who can reach it can start games and use this CPU", err=True)
    typer.echo(f"awale: open http://{host}:{port}/ (Ctrl+C to stop)")
    try:
        run_server(host, port, max_games, max_think, preset or [], workers)
    except AgentSpecError as error:
        _fail(str(error))


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
    app(args=expand_list_options(sys.argv[1:]), prog_name="awale")
