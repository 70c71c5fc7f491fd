"""The PPO checkpoint file: its format, opened and read checked, for play and to go on training.

A checkpoint is one zip file (``CHECKPOINT_FORMAT``) holding the run's configuration (``config.json``), the policy's
weights as plain arrays (``policy.npz``), the Stable-Baselines3 policy's and optimizer's tensors (``policy.pth``,
``policy.optimizer.pth``, to go on training) and the opponent pool (``pool/``). Nothing in it is a pickle of Python
objects: every file is read without running code from it (:mod:`agents.checkpoint`). The agent reads only
``config.json`` and ``policy.npz`` (:func:`open_checkpoint`, :func:`read_config`, :func:`read_tensor_member`,
:func:`policy_from_npz`), so playing needs neither SB3 nor torch; training reads everything
(:func:`read_training_checkpoint`).
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from agents.alphazero.architecture import NETWORK_LIMITS
from agents.bounds import Bounds
from agents.checkpoint import load_arrays, load_tensors, open_zip, read_member
from agents.ppo.policy import (
    ACTIVATIONS,
    FEATURES,
    MAX_LAYERS,
    MAX_WIDTH,
    RING_KIND,
    RING_SHAPE,
    Policy,
    PolicyNet,
    input_size,
)
from agents.ppo.ring_play import RingPlayer, parameter_count, ring_config
from awale_env.errors import CheckpointError
from awale_env.games import GAMES, Game, get_game

CHECKPOINT_FORMAT = "awale_env.ppo_selfplay/2"
#: The formats the agent plays. Format 1 also held SB3's own model file (``model.zip``, whose ``data`` are pickled
#: Python objects): its policy still plays, but nothing trains from it (:func:`read_training_checkpoint`).
PLAYABLE_FORMATS = ("awale_env.ppo_selfplay/1", CHECKPOINT_FORMAT)
#: The members the agent plays from ...
PLAY_MEMBERS = ("config.json", "policy.npz")
#: ... the others every checkpoint holds, to go on training (the pool may be empty but its index is always there) ...
TRAINING_MEMBERS = ("policy.pth", "policy.optimizer.pth", "pool/index.json")
#: ... and the pool's snapshots: nothing else.
POOL_MEMBER = re.compile(r"pool/(0|[1-9][0-9]*)\.npz")

#: The options of a run (a checkpoint's ``args``) that are MaskablePPO's hyper-parameters ...
SB3_OPTIONS = ("learning_rate", "anneal_lr", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
               "ent_coef", "vf_coef", "max_grad_norm", "net_arch", "activation")  # fmt: skip
#: ... and all those its model and envs are built from.
MODEL_ARGS = ("game", "features", "max_plies", "n_envs", *SB3_OPTIONS)
#: Of those, the ones that shape each network (``--network``): a checkpoint's tensors fit only its own ...
SHAPE_OPTIONS = {"mlp": ("net_arch", "activation"), RING_KIND: RING_SHAPE}
NETWORK_OPTIONS = ("network", *SHAPE_OPTIONS["mlp"], *SHAPE_OPTIONS[RING_KIND])
#: The names a ring network's shape had in the runs and checkpoints written before it took the AlphaZero trainer's
#: (``--ring-channels``, ``--ring-blocks``), and the value head of those runs (no option then: 64 hidden units).
OLD_RING_NAMES = {"ring_channels": "channels", "ring_blocks": "blocks"}
OLD_VALUE_HIDDEN = 64


def network_options(args: dict[str, Any]) -> dict[str, Any]:
    """The options of a run (a checkpoint's ``args``, a run's config.json) under this version's names: ``network``
    an MLP in those written before it existed, a ring network's shape under the names of :data:`OLD_RING_NAMES`
    (its value head of :data:`OLD_VALUE_HIDDEN` units) in those written before it took AlphaZero's."""
    options = {OLD_RING_NAMES.get(name, name): value for name, value in args.items()}
    if OLD_RING_NAMES.keys() & args.keys():
        options.setdefault("value_hidden", OLD_VALUE_HIDDEN)
    return {"network": "mlp", **options}


def network_shape(args: dict[str, Any]) -> dict[str, Any]:
    """The options of a run that shape its network: ``network`` and that network's :data:`SHAPE_OPTIONS`."""
    args = network_options(args)
    return {"network": args["network"], **{name: args.get(name) for name in SHAPE_OPTIONS.get(args["network"], ())}}


def policy_from_npz(data: bytes, source: str) -> Policy:
    """The policy of a ``policy.npz`` member (or a pool snapshot), to play: an MLP (:class:`PolicyNet`), or a ring
    network's (:class:`agents.ppo.ring_play.RingPlayer`, with a ``kind`` array), both numpy's; CheckpointError naming
    ``source`` otherwise."""
    arrays = load_arrays(data, source)
    if "kind" not in arrays:
        return PolicyNet.from_arrays(arrays, source)
    if str(arrays["kind"]) != RING_KIND:
        raise CheckpointError(f"{source}: policy kind {str(arrays['kind'])!r} is not one of this toolkit ({RING_KIND})")
    return RingPlayer(arrays, source)


class MissingCheckpointError(CheckpointError, FileNotFoundError):
    """No file at the checkpoint's path (both a CheckpointError and a FileNotFoundError)."""


def open_checkpoint(path: str | Path) -> zipfile.ZipFile:
    """Open a checkpoint zip after checking that it is complete and ours: first the sizes its members declare (a zip
    bomb fails at once), then every member's CRC, then the members the agent plays from. CheckpointError saying what
    is wrong otherwise."""
    path = Path(path)
    if not path.exists():
        raise MissingCheckpointError(f"PPO checkpoint not found: {path}")
    if path.is_dir():
        raise CheckpointError(f"{path} is a directory; a PPO checkpoint is a .zip file written by training")
    archive = open_zip(path, str(path))
    try:
        broken = archive.testzip()
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:
        archive.close()
        raise CheckpointError(f"{path} is not a readable zip file (truncated or corrupted?): {error}") from None
    if broken is not None:
        archive.close()
        raise CheckpointError(f"{path} is corrupted: member {broken!r} fails its CRC check")
    names = set(archive.namelist())
    missing = [m for m in PLAY_MEMBERS if m not in names]
    if missing:
        archive.close()
        raise CheckpointError(
            f"{path} is not a PPO checkpoint of awale_env (lacks {', '.join(missing)}); "
            "checkpoints are written by `awale train ppo` / training.ppo.trainer"
        )
    return archive


def read_config(archive: zipfile.ZipFile, game: str | Game | None = None) -> dict[str, Any]:
    """The ``config.json`` of an open checkpoint, with its format checked (one the agent plays) and its ``args`` (the
    run's options: an object) under this version's names (:func:`network_options`), the policy they declare checked
    (:func:`policy_refusal`) and, given ``game``, that it is a checkpoint of that game. Every reader of a checkpoint's
    configuration (the agent, training, ``--init-from``, a run's options) goes through it: CheckpointError naming the
    file otherwise."""
    try:
        config = json.loads(read_member(archive, "config.json", str(archive.filename)))
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{archive.filename}: config.json is not valid JSON: {error}") from None
    except RecursionError:
        raise CheckpointError(f"{archive.filename}: config.json is not valid JSON: nested too deep") from None
    if not isinstance(config, dict) or config.get("format") not in PLAYABLE_FORMATS:
        found = config.get("format") if isinstance(config, dict) else None
        raise CheckpointError(f"{archive.filename}: format {found!r} is not one of {', '.join(PLAYABLE_FORMATS)}")
    if not isinstance(config.get("args"), dict):
        found = "none" if "args" not in config else short_repr(config["args"])
        raise CheckpointError(
            f"{archive.filename}: config.json lacks or mangles args: it must be an object of the run's options "
            f"(game, features, ...), got {found}"
        )
    refusal = policy_refusal(config["args"])
    if refusal is not None:
        raise CheckpointError(f"{archive.filename}: config.json's {refusal}")
    config["args"] = network_options(config["args"])
    if game is not None and config["args"]["game"] != get_game(game).name:
        raise CheckpointError(
            f"{archive.filename} is a checkpoint of {config['args']['game']}, not of {get_game(game).name}, the game "
            "it is loaded to play"
        )
    return config


def policy_refusal(args: dict[str, Any]) -> str | None:
    """What is wrong with the policy a checkpoint's ``args`` declare (the options the trainer writes: ``network``,
    ``game``, ``features`` and the network's shape, :data:`SHAPE_OPTIONS`), naming the option (as the file does) and
    what it allows; None when they declare one this toolkit builds."""
    options = network_options(args)
    network, game, features = options["network"], options.get("game"), options.get("features")
    if not isinstance(network, str) or network not in SHAPE_OPTIONS:
        return f"args.network is {short_repr(network)}, not one of {', '.join(SHAPE_OPTIONS)}"
    if not isinstance(game, str) or game not in GAMES:
        return f"args.game is {short_repr(game)}, not one of {', '.join(GAMES)}"
    if not isinstance(features, str) or features not in FEATURES:
        return f"args.features is {short_repr(features)}, not one of {', '.join(FEATURES)}"
    try:
        input_size(game, features)
    except ValueError as error:
        return f"args.features: {error}"
    if network == RING_KIND:
        names = {new: old for old, new in OLD_RING_NAMES.items() if old in args}
        for name in RING_SHAPE:
            refusal = Bounds(1, NETWORK_LIMITS[name]).refusal(options.get(name), integer=True)
            if refusal is not None:
                return f"args.{names.get(name, name)} {refusal}, got {short_repr(options.get(name))}"
        return None
    net_arch, activation = options.get("net_arch"), options.get("activation")
    layers = net_arch if isinstance(net_arch, list) and 0 < len(net_arch) <= MAX_LAYERS else [None]
    if any(Bounds(1, MAX_WIDTH).refusal(width, integer=True) for width in layers):
        return f"args.net_arch is {short_repr(net_arch)}, not a list of 1 to {MAX_LAYERS} widths of 1 to {MAX_WIDTH}"
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        return f"args.activation is {short_repr(activation)}, not one of {', '.join(ACTIVATIONS)}"
    return None


def short_repr(value: Any, most: int = 80) -> str:
    """``repr(value)`` cut to ``most`` characters: what a message quotes of a value read from a file."""
    text = repr(value)
    return text if len(text) <= most else f"{text[: most - 5]}...{text[-2:]}"


#: Bytes a member holding a policy's tensors may hold beyond their values: array headers and names, a torch file's
#: structure and alignment.
NPZ_SLACK = 64 << 10
TORCH_SLACK = 1 << 20


def member_caps(config: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """The most each tensor member of a checkpoint may unpack to, by the policy its ``config.json`` declares (game,
    features, hidden layers): ``policy.npz`` and the pool's snapshots its weights, ``policy.pth`` the SB3 policy's
    (actor and critic), ``policy.optimizer.pth`` twice those (Adam's moments). Empty when the config declares no
    readable policy (the loaders then name what is wrong)."""
    try:
        args = network_options(config["args"])
        game = get_game(args["game"])
        if args["network"] == RING_KIND:
            weights = 4 * parameter_count(ring_config(args))
            shape = f"ring {args['channels']} channels x {args['blocks']} blocks"
        else:
            sizes = [input_size(game, args["features"]), *(int(width) for width in args["net_arch"]), game.num_actions]
            weights = 4 * sum((inputs + 1) * outputs for inputs, outputs in zip(sizes, sizes[1:]))
            shape = f"net_arch {sizes[1:-1]}"
    except (KeyError, TypeError, ValueError):
        return {}
    holder = f"the policy config.json declares ({game.name}, {args['features']}, {shape})"
    return {
        "npz": (weights + NPZ_SLACK, f"an array file of {holder}"),
        "policy.pth": (2 * weights + TORCH_SLACK, f"the SB3 tensors of {holder}"),
        "policy.optimizer.pth": (4 * weights + TORCH_SLACK, f"the optimizer's tensors of {holder}"),
    }


def read_policy(archive: zipfile.ZipFile, config: dict[str, Any], source: str) -> Policy:
    """The policy of an open checkpoint's ``policy.npz`` (:func:`policy_from_npz`), refused when it is not the one its
    ``config`` (read by :func:`read_config`) declares: another game, features or network shape."""
    policy = policy_from_npz(read_tensor_member(archive, "policy.npz", source, config), f"{source}: policy.npz")
    args = config["args"]
    declared = {"game": args["game"], "features": args["features"], **network_shape(args)}
    if isinstance(policy, RingPlayer):
        stored = {"network": RING_KIND, **{name: getattr(policy.config, name) for name in RING_SHAPE}}
    else:
        stored = {
            "network": "mlp",
            "net_arch": [w.shape[1] for w in policy.weights[:-1]],
            "activation": policy.activation,
        }
    stored |= {"game": policy.game.name, "features": policy.features}
    differ = [
        f"{name} {short_repr(value)} in config.json, {short_repr(stored[name])} in policy.npz"
        for name, value in declared.items()
        if name in stored and value != stored[name]
    ]
    if differ:
        raise CheckpointError(f"{source}: config.json and policy.npz declare different policies: {'; '.join(differ)}")
    return policy


def read_tensor_member(archive: zipfile.ZipFile, name: str, source: str, config: dict[str, Any]) -> bytes:
    """The member ``name`` of a checkpoint, refused unread when it declares more than its policy's tensors take
    (:func:`member_caps`)."""
    caps = member_caps(config)
    cap, holder = caps.get("npz" if name.endswith(".npz") else name, (None, ""))
    return read_member(archive, name, source, cap, holder)


# --- training from a checkpoint: its tensors and pool, read without unpickling ---------------------------------------


def pool_members(snapshots: list[tuple[int, Policy]]) -> dict[str, bytes]:
    """The checkpoint members of an opponent pool's snapshots ((learner moves when taken, policy), oldest first):
    ``pool/index.json`` (the moves) and one ``pool/<i>.npz`` per snapshot."""
    members = {f"pool/{i}.npz": net.to_npz() for i, (_, net) in enumerate(snapshots)}
    members["pool/index.json"] = json.dumps([step for step, _ in snapshots]).encode()
    return members


@dataclass(frozen=True)
class TrainingCheckpoint:
    """What a checkpoint holds to go on training from (:func:`read_training_checkpoint`)."""

    path: Path
    #: ``config.json``: ``format``, ``args`` (the run's options), ``num_timesteps``, ``trainer`` (the trainer's
    #: counters), ``rng`` (the random states), ``sb3`` (SB3's counters: ``n_updates``).
    config: dict[str, Any]
    #: The state dicts of the SB3 policy and of its optimizer.
    policy: dict[str, Any]
    optimizer: dict[str, Any]
    #: The opponent pool: (learner moves when taken, policy), oldest first.
    pool: list[tuple[int, Policy]]

    @property
    def args(self) -> dict[str, Any]:
        return self.config["args"]

    @property
    def num_timesteps(self) -> int:
        return self.config["num_timesteps"]


#: The entries of a training checkpoint's ``config.json`` beside its ``args`` (an object, checked by
#: :func:`read_config`, holding :data:`MODEL_ARGS`), and their types.
TRAINING_CONFIG = {"num_timesteps": int, "trainer": dict, "rng": dict, "sb3": dict}


def read_training_checkpoint(path: str | Path) -> TrainingCheckpoint:
    """Everything a checkpoint holds to go on training, checked, read without unpickling anything: CheckpointError for
    a checkpoint of format 1 (its ``model.zip`` is pickled Python objects: it only plays), a member the format never
    holds, a tensor file that is a pickle of other Python objects, or anything missing or malformed."""
    path = Path(path)
    with open_checkpoint(path) as archive:
        config = read_config(archive)
        if config["format"] != CHECKPOINT_FORMAT:
            raise CheckpointError(
                f"{path} has format {config['format']!r}: its SB3 model (model.zip) is pickled Python objects, which "
                f"training never loads since they can run code; its policy still plays (ppo:path={path}), training "
                f"goes on only from checkpoints of format {CHECKPOINT_FORMAT!r}"
            )
        names = archive.namelist()
        foreign = [n for n in names if n not in (*PLAY_MEMBERS, *TRAINING_MEMBERS) and not POOL_MEMBER.fullmatch(n)]
        if foreign:
            raise CheckpointError(
                f"{path} carries members a PPO checkpoint never holds ({', '.join(foreign)}): refused, without "
                "loading them"
            )
        missing = [name for name in TRAINING_MEMBERS if name not in names]
        if missing:
            raise CheckpointError(f"{path} lacks {', '.join(missing)}: it cannot be trained from")
        wrong = [key for key, kind in TRAINING_CONFIG.items() if not isinstance(config.get(key), kind)]
        if not wrong:
            wrong = [f"args.{key}" for key in MODEL_ARGS if key not in config["args"]]
            wrong += [] if isinstance(config["sb3"].get("n_updates"), int) else ["sb3.n_updates"]
        if wrong:
            raise CheckpointError(f"{path}: config.json lacks or mangles {', '.join(wrong)}")
        member = partial(read_tensor_member, archive, source=str(path), config=config)
        policy = load_tensors(member("policy.pth"), f"{path}: policy.pth")
        optimizer = load_tensors(member("policy.optimizer.pth"), f"{path}: policy.optimizer.pth")
        try:
            steps = json.loads(read_member(archive, "pool/index.json", str(path)))
            pool = [
                (int(step), policy_from_npz(member(f"pool/{i}.npz"), f"{path}: pool/{i}.npz"))
                for i, step in enumerate(steps)
            ]
        except CheckpointError:
            raise
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            raise CheckpointError(f"{path}: the opponent pool is unreadable: {type(error).__name__}: {error}") from None
    if not isinstance(policy, dict) or not isinstance(optimizer, dict):
        raise CheckpointError(f"{path}: policy.pth and policy.optimizer.pth must hold state dicts")
    return TrainingCheckpoint(path, config, policy, optimizer, pool)
