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


#: Each trainer: its module (with ``main(argv)``), its class of options (``module:name``: one that imports no torch,
#: for its help page; None: the trainer's module) and its line in ``awale train --help``.
TRAINERS = {
    "ppo": (
        "training.ppo.trainer",
        "training.ppo.config:Args",
        "Self-play MaskablePPO against a pool of opponents (training/ppo/trainer.py).",
    ),
    "alphazero": (
        "training.alphazero.trainer",
        "training.alphazero.config:AlphaZeroConfig",
        "AlphaZero: batched PUCT or Gumbel self-play, training, gating (training/alphazero/trainer.py).",
    ),
    "imitation": (
        "training.alphazero.imitation",
        "training.alphazero.imitation_config:ImitationConfig",
        "An AlphaZero network's first weights, learnt from alpha-beta's games (training/alphazero/imitation.py).",
    ),
    "rllib": (
        "training.rllib.trainer",
        None,
        "Self-play PPO with RLlib, one policy for both seats (training/rllib/trainer.py; needs the rllib extra).",
    ),
}
#: What asks a trainer for its help page (tyro's flags).
HELP_FLAGS = frozenset({"-h", "--help"})


def show_help(name: str, module: str, options: str, argv: list[str]) -> None:
    """The help page of the trainer ``name`` (SystemExit), from its class of options ``options`` and its module's
    docstring, without importing ``module`` (the training's imports: torch, seconds of CPU); returns if ``argv``
    turns out to ask for no help page."""
    from training import runs

    options_module, _, class_name = options.partition(":")
    config_type = getattr(importlib.import_module(options_module), class_name)
    runs.trainer_options(name, config_type, argv, runs.module_summary(module))


def trainer_command(name: str, module: str, options: str | None, help_line: str) -> Callable[[typer.Context], None]:
    """The command that hands its arguments to ``module``'s ``main`` (imported only when it runs)."""

    def command(ctx: typer.Context) -> None:
        if options is not None and HELP_FLAGS & set(ctx.args):
            show_help(name, module, options, ctx.args)
        importlib.import_module(module).main(ctx.args)

    command.__doc__ = help_line
    return command


for name, (module, options, help_line) in TRAINERS.items():
    app.command(name, context_settings=PASS_THROUGH, add_help_option=False)(
        trainer_command(name, module, options, help_line)
    )
