"""``awale train ppo|alphazero|imitation|rllib``: each trainer parses its own options (tyro, from its dataclass
of options, ``--help`` included)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import typer

from awale_apps.cli.common import HELP_MARKUP

app = typer.Typer(
    help="Train an agent (every hyper-parameter is an option: awale train ppo --help).", rich_markup_mode=HELP_MARKUP
)
#: The trainers parse their own options.
PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


#: Each trainer: its module (with ``main(argv)``) and its line in ``awale train --help``.
TRAINERS = {
    "ppo": ("training.ppo.trainer", "Self-play MaskablePPO against a pool of opponents (training/ppo/trainer.py)."),
    "alphazero": (
        "training.alphazero.trainer",
        "AlphaZero: batched PUCT or Gumbel self-play, training, gating (training/alphazero/trainer.py).",
    ),
    "imitation": (
        "training.alphazero.imitation",
        "An AlphaZero network's first weights, learnt from alpha-beta's games (training/alphazero/imitation.py).",
    ),
    "rllib": (
        "training.rllib.trainer",
        "Self-play PPO with RLlib, one policy for both seats (training/rllib/trainer.py; needs the rllib extra).",
    ),
}


def trainer_command(module: str, help_line: str) -> Callable[[typer.Context], None]:
    """The command that hands its arguments to ``module``'s ``main`` (imported only when it runs)."""

    def command(ctx: typer.Context) -> None:
        importlib.import_module(module).main(ctx.args)

    command.__doc__ = help_line
    return command


for name, (module, help_line) in TRAINERS.items():
    app.command(name, context_settings=PASS_THROUGH, add_help_option=False)(trainer_command(module, help_line))
