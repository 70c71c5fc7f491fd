"""``awale demo``: a short self-play PPO run, then an arena of the trained agent against the search agents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from awale_apps.cli.common import GameName, fail, game_options, write_arena_results

#: The demo's opponents on every game, and the shipped agents that join them on the default game, which they were
#: trained for.
DEMO_OPPONENTS = ("random", "greedy", "alphabeta:depth=2")
DEMO_SHIPPED = ("ppo:pretrained",)
#: The most learner moves and arena games per pair the demo plays.
DEMO_MAX_STEPS = 10**9
DEMO_MAX_GAMES = 10_000


def demo(
    steps: Annotated[int, typer.Option(help="learner moves of self-play PPO")] = 200_000,
    games: Annotated[int, typer.Option(help="arena games per pair of agents (even)")] = 20,
    run_dir: Annotated[Path | None, typer.Option(help="where the run goes (default: runs/demo-<date-time>)")] = None,
    workers: Annotated[int, typer.Option(help="parallel arena processes")] = 2,
    seed: Annotated[int, typer.Option(help="seed of the training and of the arena")] = 1,
    game: GameName = None,
) -> None:
    """The main job: a short self-play PPO run, then an arena of the trained agent against the search agents (and
    the shipped PPO agent on the two-colour Awale), printing the Elo table and writing a chart."""
    import time

    from awale_env.games import DEFAULT_GAME
    from competition.arena import format_table, round_robin
    from competition.progress import format_seconds
    from training.ppo import config as ppo_config
    from training.ppo import trainer as ppo_trainer

    if not 1 <= steps <= DEMO_MAX_STEPS or workers < 1 or not 2 <= games <= DEMO_MAX_GAMES or games % 2:
        fail(f"need --steps from 1 to {DEMO_MAX_STEPS:,}, --workers >= 1 and an even --games from 2 to "
              f"{DEMO_MAX_GAMES:,}, got {steps}, {workers}, {games}")  # fmt: skip
    game = game_options(game, None, None)[0].name
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
    shipped = DEMO_SHIPPED if game == DEFAULT_GAME else ()
    result = round_robin([trained, *DEMO_OPPONENTS, *shipped], games, seed, workers, game=game)
    typer.echo(f"2/2 done in {format_seconds(time.monotonic() - started)}")
    typer.echo(format_table(result))
    paths = write_arena_results(result, run_dir / "arena")
    typer.echo(f"wrote {', '.join(map(str, paths))}; learning curves: python -m training.plots {run_dir}")
