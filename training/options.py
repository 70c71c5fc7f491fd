"""The options every trainer shares, declared once: the run's (:class:`RunOptions`: game, run directory, seed,
resume, progress), torch's threads (:data:`TorchThreads`) and the shape of a ring network (:class:`NetworkOptions`);
and the bounds of a numeric option as metadata on its field (:func:`bounded`), shown in ``--help`` after its default
and checked with the others by :func:`check_run_options`.
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Annotated, Any

import tyro

from agents.alphazero.architecture import NETWORK_LIMITS, NetworkConfig
from agents.bounds import Bounds
from awale_env.games import GAMES
from awale_env.games.facts import game_list
from training import runs
from training.option_help import Hint


def bounded(least: float, most: float = math.inf, *, open: bool = False, integer: bool = True,
            default: str | None = None, metavar: str | None = None) -> Any:  # fmt: skip
    """tyro metadata of a numeric option: its bounds (``least`` excluded when ``open``), and ``default`` as the text
    of a default computed when the run starts (with ``metavar``). ``integer=False`` for a float option."""
    return tyro.conf.arg(metavar=metavar, help_behavior_hint=Hint(default, Bounds(least, most, open), integer))


def hints(config_type: type) -> dict[str, Hint]:
    """The :class:`Hint` of each option of ``config_type`` that has one."""
    found = {}
    for name, hint in typing.get_type_hints(config_type, include_extras=True).items():
        for meta in getattr(hint, "__metadata__", ()):
            if isinstance(getattr(meta, "help_behavior_hint", None), Hint):
                found[name] = meta.help_behavior_hint
    return found


def check_run_options(config: Any) -> None:
    """ValueError naming the first option of ``config`` whose value is not of its type (:func:`runs.check_types`),
    outside its bounds (what it allows), or, for ``game``, not a game of the toolkit. The upper bounds keep a run
    within what a machine can hold (an option that sizes memory, threads or processes) or count: a huge value is
    refused here, not met as a MemoryError or a crash later."""
    for name, hint in hints(type(config)).items():
        value, bounds = getattr(config, name), hint.bounds
        if value is None or bounds is None:
            continue  # None: the option's computed default
        if hint.integer and (isinstance(value, bool) or not isinstance(value, int)):
            continue  # another type: check_types names it
        refusal = bounds.refusal(value, hint.integer)
        if refusal is not None:
            raise ValueError(f"{runs.option(name)} {refusal}, got {runs.excerpt(value)}")
    runs.check_types(config)
    if config.game not in GAMES:
        raise ValueError(f"--game must be one of {', '.join(GAMES)}, got {config.game!r}")


#: The game a run learns (checked by :func:`check_run_options`); its help names the games without importing them.
GameName = Annotated[str, tyro.conf.arg(help=f"the game to learn: {', '.join(game_list().names)}")]
#: The seed of a run (numpy's seeding takes up to 2**32 - 1).
Seed = Annotated[int, bounded(0, runs.MAX_SEED)]
#: Torch's threads in a trainer's process.
TorchThreads = Annotated[int, bounded(1, runs.MAX_TORCH_THREADS)]


@dataclass
class RunOptions:
    """The options of every trainer's run, first in its ``--help``; a trainer redeclares ``resume`` with the options
    a resume may change (:func:`training.runs.resume_option`), and a default of its own where it has one."""

    game: GameName = game_list().default
    run_dir: Annotated[str | None, runs.computed_default("runs/<trainer>-<game>", "DIR")] = None
    """the run's directory: its options (config.json), checkpoints, metrics and TensorBoard events (tb/); a new run
    needs one without a run in it"""
    resume: bool = False
    seed: Seed = 0
    """seed of everything the run draws at random (weights, games, samples; each worker's seed derived from it)"""
    progress: bool = True
    """show progress: a bar on a terminal, plain lines in a log"""


@dataclass
class NetworkOptions:
    """The shape of the ring network a trainer makes (:class:`agents.alphazero.network.RingNet`: AlphaZero's, and
    PPO's with ``--network ring``), the same options in every trainer; the trainer's configuration names the
    ``game``."""

    channels: Annotated[int, bounded(1, NETWORK_LIMITS["channels"])] = 64
    """convolution channels of the ring network's residual trunk"""
    blocks: Annotated[int, bounded(1, NETWORK_LIMITS["blocks"])] = 4
    """residual blocks of the ring network"""
    value_hidden: Annotated[int, bounded(1, NETWORK_LIMITS["value_hidden"])] = 64
    """hidden units of the ring network's value head"""

    def network_config(self) -> NetworkConfig:
        return NetworkConfig(channels=self.channels, blocks=self.blocks, value_hidden=self.value_hidden, game=self.game)
