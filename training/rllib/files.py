"""Where an RLlib run (``awale train rllib``, :mod:`training.rllib.trainer`) keeps its files, readable without Ray: the
trainer's file of a checkpoint (its iteration and training clock) and the checkpoints ``--keep-checkpoints`` keeps,
which :mod:`training.baselines` rates as the points of a learning curve."""

from __future__ import annotations

import re
from pathlib import Path

#: The trainer's file of a checkpoint, ``{"iteration": N, "elapsed": seconds}``, written last: a directory without it
#: is incomplete.
TRAINER_FILE = "trainer.json"
#: Where ``--keep-checkpoints`` keeps the policy and trainer file of past checkpoints: ``iter_<iteration>/``.
KEPT_DIR = "checkpoints"
KEPT_CHECKPOINT = re.compile(r"iter_(\d+)")


def kept_checkpoints(run_dir: Path) -> dict[int, Path]:
    """The kept checkpoints of a run, ``{iteration: run_dir/checkpoints/iter_<iteration>}`` in training order (a
    ``.tmp`` folder being written is not one)."""
    found = {}
    for path in (run_dir / KEPT_DIR).glob("iter_*"):
        match = KEPT_CHECKPOINT.fullmatch(path.name)
        if match and path.is_dir():
            found[int(match.group(1))] = path
    return dict(sorted(found.items()))
