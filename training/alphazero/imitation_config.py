"""The options of an imitation run (:class:`ImitationConfig`, every field a command-line option of ``awale train
imitation``, with its bounds), apart from the trainer (:mod:`training.alphazero.imitation`) so that its help page
reads them without torch.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from agents.base import MAX_DEPTH
from training import runs
from training.options import NetworkOptions, RunOptions, TorchThreads, bounded, check_run_options

#: The options a resume may change: how many games and epochs, and how the run uses this machine.
RESUMABLE = ("games", "epochs", "workers", "torch_threads", "progress")


@dataclass
class ImitationConfig(NetworkOptions, RunOptions):
    """Options of an imitation run (all settable from the command line)."""

    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    # the teacher's games
    games: Annotated[int, bounded(1, 1_000_000)] = 2000
    """games alpha-beta plays against itself"""
    teacher_depth: Annotated[int, bounded(1, MAX_DEPTH)] = 6
    """depth of the teacher's search (alpha-beta with the game's tuned evaluation)"""
    opening_min: Annotated[int, bounded(0, 1000)] = 4
    """fewest random plies before the teacher plays (they give no samples)"""
    opening_max: Annotated[int, bounded(0, 1000)] = 16
    """most random plies before the teacher plays"""
    max_plies: Annotated[int | None, bounded(1, runs.MAX_PLIES, default="the game's ply limit", metavar="INT")] = None
    """ply limit of the teacher's games"""
    games_per_chunk: Annotated[int, bounded(1, 10_000)] = 40
    """games per file of samples (a worker's unit of work)"""
    workers: Annotated[int, bounded(0, runs.MAX_WORKERS)] = 2
    """processes playing the teacher's games"""
    # training
    score_weight: Annotated[float, bounded(0, 1, integer=False)] = 0.5
    """share of the teacher's search value in the value target (the rest: the game's outcome)"""
    epochs: Annotated[int, bounded(1, 1_000_000)] = 8
    """passes over the training positions"""
    batch_size: Annotated[int, bounded(1, 65_536)] = 256
    """positions per training step"""
    learning_rate: Annotated[float, bounded(0, open=True, integer=False)] = 2e-3
    """AdamW learning rate at the start (cosine decay to a twentieth of it at the last epoch)"""
    weight_decay: Annotated[float, bounded(0, integer=False)] = 1e-4
    """AdamW weight decay"""
    validation_every: Annotated[int, bounded(2, runs.MAX_COUNT)] = 20
    """every this many-th game is kept out of training to measure the network on"""
    augment: bool = True
    """train on a random rotation of each sample, in a game whose board has rotations (Game.symmetry_step)"""
    torch_threads: TorchThreads = 2
    """torch threads of the training"""

    def __post_init__(self) -> None:
        if not runs.parsing():  # on the command line, runs.parse checks once tyro is done
            self.check()

    def check(self) -> None:
        """ValueError naming the first bad option and what it allows."""
        check_run_options(self)
        if self.opening_max < self.opening_min:
            raise ValueError(
                f"--opening-max must be at least --opening-min ({self.opening_min}), got {self.opening_max}"
            )

    @property
    def chunks(self) -> int:
        return math.ceil(self.games / self.games_per_chunk)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
