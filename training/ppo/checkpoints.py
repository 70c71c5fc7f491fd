"""A self-play PPO run's checkpoints: written atomically with the random states a resume restores, ``last.zip`` and
the ``step_*.zip`` files, the newest complete one a resume goes on from, the one ``--init-from`` starts from, and the
copy without the opponent pool that the package ships (:func:`without_pool`). The file itself is
:mod:`agents.ppo.checkpoint`'s.
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import errno
import json
import os
import random
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

import agents
from agents.alphazero import agent as alphazero_agent
from agents.alphazero.network import NetworkConfig, RingNet, build_network, check_state_dict, load_network
from agents.checkpoint import atomic_write
from agents.ppo.checkpoint import (
    CHECKPOINT_FORMAT,
    PLAY_MEMBERS,
    TRAINING_MEMBERS,
    TrainingCheckpoint,
    network_options,
    network_shape,
    open_checkpoint,
    pool_members,
    read_config,
    read_training_checkpoint,
)
from agents.ppo.policy import RING_KIND
from agents.ppo.ring import with_tactics
from agents.ppo.ring_play import ring_config
from agents.ppo.ring_sb3 import RING_PREFIX
from agents.ppo.sb3 import policy_of, sb3_members
from awale_env.errors import CheckpointError
from training import runs
from training.ppo.config import Args, init_from_path
from training.ppo.pool import OpponentPool

#: Where a run's checkpoints go, relative to its directory: ``step_<moves>.zip`` files and ``last.zip``, the newest
#: of them (a second name of the same file, not a copy).
CHECKPOINT_DIR = "checkpoints"
CHECKPOINT = f"{CHECKPOINT_DIR}/last.zip"
STEP_CHECKPOINTS = f"{CHECKPOINT_DIR}/step_*.zip"


def rng_state() -> dict[str, Any]:
    """The global generators SB3 draws from (torch: actions; numpy: minibatch order; python), JSON-safe."""
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    return {
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode(),
        "numpy": [kind, keys.tolist(), pos, has_gauss, gauss],
        "python": repr(random.getstate()),
    }


def restore_rng_state(state: dict[str, Any], source: Path) -> None:
    """Set the generators to the states :func:`rng_state` saved; CheckpointError naming ``source`` for others."""
    try:
        torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(state["torch"])), dtype=torch.uint8))
        kind, keys, pos, has_gauss, gauss = state["numpy"]
        np.random.set_state((kind, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
        random.setstate(ast.literal_eval(state["python"]))
    except (*runs.MANGLED_STATE, SyntaxError, MemoryError) as error:
        raise CheckpointError(f"{source}: its random states are unreadable: {type(error).__name__}: {error}") from None


def write_checkpoint(path: Path, model: MaskablePPO, args: Args, pool: OpponentPool, trainer: dict[str, Any]) -> None:
    """Write one checkpoint zip (:mod:`agents.ppo.checkpoint` describes it) atomically: a kill or a full disk leaves
    neither half a file under ``path`` nor a temporary file beside it."""
    config = {
        "format": CHECKPOINT_FORMAT,
        "args": dataclasses.asdict(args),
        "num_timesteps": int(model.num_timesteps),
        "trainer": trainer,
        "rng": rng_state(),
        "sb3": {"n_updates": int(model._n_updates)},
    }
    members = {
        "config.json": json.dumps(config, indent=1).encode(),
        "policy.npz": policy_of(model.policy, dataclasses.asdict(args)).to_npz(),
        **sb3_members(model),
        **pool_members(pool.snapshots),
    }

    def write(file: Any) -> None:
        with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    atomic_write(path, write)


#: What ``os.link`` raises on a file system without hard links (there ``last.zip`` is a copy).
NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK}


def link_last(path: Path) -> None:
    """Make ``last.zip`` beside the checkpoint ``path`` name it too: a hard link, so no second copy on disk; atomic,
    so ``last.zip`` names the previous checkpoint until then."""
    last = path.with_name("last.zip")
    tmp = last.with_name(last.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(path, tmp)
        os.replace(tmp, last)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        if error.errno not in NO_HARD_LINKS:
            raise
        atomic_write(last, lambda file: file.write(path.read_bytes()))


def checkpoint_files(run_dir: Path) -> list[Path]:
    """The checkpoint files of the run in ``run_dir``: ``last.zip``, then the ``step_*.zip`` newest first."""
    last = run_dir / CHECKPOINT
    return ([last] if last.exists() else []) + sorted(run_dir.glob(STEP_CHECKPOINTS), reverse=True)


def newest_checkpoint(run_dir: Path) -> TrainingCheckpoint:
    """The checkpoint a resume goes on from: of the run's complete checkpoints, the one with the most moves
    (``last.zip`` but for a run stopped while it was written). CheckpointError when none is complete."""
    newest, errors = None, []
    for path in checkpoint_files(run_dir):
        try:
            checkpoint = read_training_checkpoint(path)
        except CheckpointError as error:
            errors.append(error)
            continue
        if newest is None or checkpoint.num_timesteps > newest.num_timesteps:
            newest = checkpoint
    if newest is None:
        found = f"{errors[0]}" if errors else "there is none"
        raise CheckpointError(f"no complete checkpoint to resume from in {run_dir / CHECKPOINT_DIR}: {found}")
    return newest


def without_pool(path: str | Path, out: str | Path) -> None:
    """Copy the checkpoint ``path`` (checked as a resume checks it) to ``out`` without its opponent pool: the file
    ``agents/ppo/pretrained`` ships, a fraction of the size. It plays and fine-tunes as the original; a resume from it
    starts with an empty pool."""
    read_training_checkpoint(path)
    with open_checkpoint(path) as archive:
        members = {name: archive.read(name) for name in (*PLAY_MEMBERS, *TRAINING_MEMBERS)}
    members["pool/index.json"] = b"[]"

    def write(file: Any) -> None:
        with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    atomic_write(Path(out), write)


def saved_options(run_dir: Path) -> dict[str, Any] | None:
    """The options of the run in ``run_dir`` under this version's names (:func:`agents.ppo.checkpoint.network_options`:
    a run saved with ``ring_channels`` resumes): its config.json, or for a directory holding only checkpoints (one
    copied there) those of its ``last.zip`` (or newest ``step_*.zip``)."""
    options = runs.read_config(run_dir)
    files = checkpoint_files(run_dir)
    if options is None and files:
        with open_checkpoint(files[0]) as archive:
            options = read_config(archive)["args"]
    return None if options is None else network_options(options)


def initial_checkpoint(args: Args) -> TrainingCheckpoint | RingNet:
    """The checkpoint ``--init-from`` names, read and checked against the run's options (``args`` resolved):
    CheckpointError for a file that is not a trainable PPO checkpoint, ValueError for one of another network. A ring
    network that sees the board, for a run with ``--features tactics``, comes as its network with the tactical
    inputs added (:func:`agents.ppo.ring.with_tactics`)."""
    path = init_from_path(args)
    if args.init_from == "pretrained" and not path.is_file():
        raise ValueError(f"--init-from pretrained: no PPO policy is shipped for {args.game}; give a checkpoint's path")
    source = read_training_checkpoint(path)
    mine = {"game": args.game, "features": args.features, **network_shape(dataclasses.asdict(args))}
    mine = {name: runs.plain(value) for name, value in mine.items()}
    theirs = {**source.args, **network_shape(source.args)}
    widen = args.network == RING_KIND and (theirs.get("features"), args.features) == ("board", "tactics")
    differ = [
        f"{runs.option(name)} {theirs.get(name)} (this run: {value})"
        for name, value in mine.items()
        if theirs.get(name) != value and not (widen and name == "features")
    ]
    if differ:
        raise ValueError(f"--init-from {path} is a network of another shape: it has {'; '.join(differ)}")
    return with_tactics(ring_network(source, replace(ring_config(dataclasses.asdict(args)), tactics=False))) if widen \
        else source  # fmt: skip


def ring_network(source: TrainingCheckpoint, config: NetworkConfig) -> RingNet:
    """The ring network of ``source``'s SB3 policy (of shape ``config``); CheckpointError if it is not one."""
    state = {name[len(RING_PREFIX) :]: t for name, t in source.policy.items() if name.startswith(RING_PREFIX)}
    check_state_dict(state, config, str(source.path))
    net = build_network(config)
    net.load_state_dict(state)
    return net


def initial_alphazero(args: Args) -> RingNet:
    """The AlphaZero network ``--init-from alphazero:pretrained`` or ``alphazero:path=FILE.pt`` names, read and
    checked against the run's ring network (``args`` resolved): ValueError (CheckpointError for a bad file) saying
    what differs."""
    name, options = agents.parse_spec(args.init_from)
    path = options.get("path")
    named = (path is None) != (not options.get("pretrained"))  # exactly one of the two
    if name != "alphazero" or set(options) - {"path", "pretrained"} or not named:
        raise ValueError(
            f"--init-from {args.init_from}: an AlphaZero network is named alphazero:pretrained (the one shipped for "
            "--game) or alphazero:path=FILE.pt"
        )
    file = alphazero_agent.pretrained_path(args.game) if path is None else Path(str(path))
    if path is None and not file.is_file():
        raise ValueError(f"--init-from {args.init_from}: no AlphaZero network is shipped for {args.game}")
    net = load_network(file, args.game)
    wanted = ring_config(dataclasses.asdict(args))
    if net.config == replace(wanted, tactics=False) != wanted:
        return with_tactics(net)
    if net.config != wanted:
        raise ValueError(
            f"--init-from {args.init_from} is a network of {net.config.channels} channels x {net.config.blocks} blocks "
            f"(value head {net.config.value_hidden}); this run's: --channels {wanted.channels} --blocks "
            f"{wanted.blocks} --value-hidden {wanted.value_hidden}"
        )
    return net
