"""``awale play``: a human against an agent in the terminal."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Annotated, Any

import typer

from awale_apps.cli.common import GameName, MaxPlies, RuleFlags, build_agent, fail, game_options
from awale_env.errors import IllegalMoveError
from awale_env.games import Game, get_game


def prompt(game: Game) -> str:
    """The move prompt, with a move written in the game's notation as an example."""
    return f"your move (e.g. {game.format_move(game.num_actions - 5)}, undo, quit): "


def play_terminal(
    agent: Any,
    human_seat: int,
    max_plies: int | None,
    echo: Callable[[str], Any] = typer.echo,
    read: Callable[[str], str] = input,
    game: str | Game | None = None,
    seed: int | None = None,
    **options: Any,
) -> Any:
    """Play a game of ``game`` (None: the default game; rule flags ``options``; ``seed`` draws what its rules leave
    to chance) between a human (reading moves with ``read``, in the game's notation) and ``agent`` (an
    :class:`agents.Agent`); return the final State.

    ``undo`` takes back the human's last move and the agent's reply; ``quit`` or end of input stops the game.
    """
    if game is None:
        from awale_env.games import DEFAULT_GAME

        game = DEFAULT_GAME
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


def play(
    opponent: Annotated[str, typer.Option(help="agent spec, e.g. alphabeta:depth=8 or mcts:time=2")] = "alphabeta",
    seat: Annotated[str, typer.Option(help="your seat: 0 (player 0), 1 or random")] = "0",
    max_plies: MaxPlies = None,
    seed: Annotated[int | None, typer.Option(help="seed of the opponent, of --seat random and of the game")] = None,
    game: GameName = None,
    rule: RuleFlags = None,
) -> None:
    """Play against an agent in the terminal."""
    if seat not in ("0", "1", "random"):
        fail(f"--seat must be 0, 1 or random, got {seat!r}")
    rules, options, limit = game_options(game, rule, max_plies)
    agent = build_agent(opponent, seed)
    from agents.base import game_refusal

    refusal = game_refusal(agent, opponent, rules.name)
    if refusal is not None:
        fail(refusal)
    human = random.Random(seed).randrange(2) if seat == "random" else int(seat)
    typer.echo(f"you are player {human} of {rules.name} ({rules.page()['players'][human]})")
    play_terminal(agent, human, limit, game=rules, seed=seed, **options)
