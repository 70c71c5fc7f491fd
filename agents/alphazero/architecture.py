"""What an AlphaZero checkpoint holds, known without torch: the network's config (:class:`NetworkConfig`), the name
and shape of each of its tensors (:func:`state_shapes`, the layout of :class:`agents.alphazero.network.RingNet`), the
search settings it was trained with (:func:`checkpoint_search`) and the checks of a checkpoint's contents, so that
a network is read and checked for play (:mod:`.inference`) as for training (:mod:`.network`), from one
description.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.alphazero.search_config import PLAYED, SearchConfig
from agents.bounds import Bounds
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, GAMES, Game, get_game

#: Features the value head keeps per position before pooling.
VALUE_FEATURES = 8
#: The largest value of each shape field of :class:`NetworkConfig`: far above anything trained here (64 channels x 4
#: blocks), low enough that a checkpoint's config cannot make us build an absurd network (1024 channels x 64 blocks is
#: 400 M parameters).
NETWORK_LIMITS = {"channels": 1024, "blocks": 64, "value_hidden": 4096}
#: The format field of every AlphaZero checkpoint (a state dict and a plain config, readable with
#: ``torch.load(weights_only=True)`` and without torch, :func:`agents.torch_file.load_tensor_arrays`).
CHECKPOINT_FORMAT = "awale_env.alphazero/1"


@dataclass(frozen=True)
class NetworkConfig:
    """Game and shape of the network (saved in checkpoints so they rebuild the same net); each shape field is at
    most its :data:`NETWORK_LIMITS` entry."""

    channels: int = 64
    """convolution channels of the residual trunk"""
    blocks: int = 4
    """residual blocks (two 3-wide circular convolutions each)"""
    value_hidden: int = 64
    """hidden units of the value head"""
    game: str = DEFAULT_GAME
    """the game it plays (``awale_env.games.GAMES``)"""
    tactics: bool = False
    """whether each observation is followed by the PPO policies' tactical features (2 per relative action:
    :func:`agents.ppo.policy.tactics`), seen as :func:`tactic_channels` more input channels; AlphaZero's search feeds
    the board alone"""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"NetworkConfig.game must be one of {', '.join(GAMES)}, got {self.game!r}")
        if not isinstance(self.tactics, bool):
            raise ValueError(f"NetworkConfig.tactics must be true or false, got {self.tactics!r}")
        for name, limit in NETWORK_LIMITS.items():
            value = getattr(self, name)
            refusal = Bounds(1, limit).refusal(value, integer=True)
            if refusal is not None:
                raise ValueError(f"NetworkConfig.{name} {refusal}, got {value!r}")

    def to_dict(self) -> dict[str, int | str | bool]:
        """The fields, ``tactics`` only when set: a board network's dict (AlphaZero's checkpoints) is as before."""
        fields = asdict(self)
        if not self.tactics:
            del fields["tactics"]
        return fields


def tactic_channels(game: Game) -> int:
    """The input channels the tactical features take: at each position, each of its actions' two features (relative
    action ``a`` is position ``a // P``, channel ``a % P`` then ``P + a % P``)."""
    return 2 * game.actions_per_position


def input_channels(config: NetworkConfig) -> int:
    """The stem's input channels: the board planes, the other observation entries as constant planes, the mover's
    positions, and with ``tactics`` the tactical features."""
    game = get_game(config.game)
    extra = tactic_channels(game) if config.tactics else 0
    return len(game.board_planes) + game.obs_size - game.board_entries + 1 + extra


def state_shapes(config: NetworkConfig) -> dict[str, tuple[tuple[int, ...], bool]]:
    """Each tensor of the network's state dict: its shape and whether it holds floats (the batch norms' counters
    are integers), in :class:`~agents.alphazero.network.RingNet`'s order."""
    c, game = config.channels, get_game(config.game)

    def batch_norm(name: str, width: int) -> dict[str, tuple[tuple[int, ...], bool]]:
        floats = {f"{name}.{part}": ((width,), True) for part in ("weight", "bias", "running_mean", "running_var")}
        return {**floats, f"{name}.num_batches_tracked": ((), False)}

    shapes = {"stem.weight": ((c, input_channels(config), 3), True), **batch_norm("stem_bn", c)}
    for block in range(config.blocks):
        for conv in (1, 2):
            shapes[f"trunk.{block}.conv{conv}.weight"] = ((c, c, 3), True)
            shapes.update(batch_norm(f"trunk.{block}.bn{conv}", c))
    per_position = game.actions_per_position
    shapes |= {"policy_conv.weight": ((per_position, c, 1), True), "policy_conv.bias": ((per_position,), True)}
    shapes |= {"value_conv.weight": ((VALUE_FEATURES, c, 1), True), **batch_norm("value_bn", VALUE_FEATURES)}
    shapes |= {"value_fc1.weight": ((config.value_hidden, 2 * VALUE_FEATURES), True),
               "value_fc1.bias": ((config.value_hidden,), True),
               "value_fc2.weight": ((1, config.value_hidden), True), "value_fc2.bias": ((1,), True)}  # fmt: skip
    return shapes


def checkpoint_file(path: str | Path) -> Path:
    """``path`` if it is a file; CheckpointError saying what it is otherwise (a directory, nothing)."""
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(
            f"{str(path)!r} is a directory; an AlphaZero checkpoint is a .pt file written by training"
        )
    if not path.is_file():
        raise CheckpointError(f"no AlphaZero checkpoint at {str(path)!r}: the file does not exist")
    return path


def check_plays(config: NetworkConfig, game: str, source: str = "this network") -> None:
    """CheckpointError unless the network of ``config`` plays ``game`` (a network sees one game's observations
    only), saying how to train one that does."""
    if config.game != game:
        raise CheckpointError(
            f"{source} plays {config.game} only, not {game!r}: train a network for it with "
            f"`awale train alphazero --game {game}`"
        )


def check_payload(payload: Any, source: str) -> dict[str, Any]:
    """``payload`` (a checkpoint file's contents) if it is an AlphaZero checkpoint with its ``network`` and
    ``state_dict`` entries; CheckpointError naming ``source`` otherwise."""
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(f"{source} is not an {CHECKPOINT_FORMAT!r} checkpoint (found format {found!r})")
    for key in ("network", "state_dict"):
        if not isinstance(payload.get(key), dict):
            raise CheckpointError(f"{source} lacks its {key!r} entry")
    return payload


def checkpoint_network_config(payload: dict[str, Any]) -> dict[str, Any]:
    """The network config of a checkpoint's contents; checkpoints written before the other games were added name no
    game and hold a network of the default game."""
    return {"game": DEFAULT_GAME, **payload["network"]}


def network_config_of(payload: dict[str, Any], source: str) -> NetworkConfig:
    """The :class:`NetworkConfig` of an AlphaZero checkpoint's contents; CheckpointError naming ``source`` for one
    this toolkit does not build."""
    fields = [name for name in NetworkConfig.__dataclass_fields__ if name != "tactics"]  # the PPO policies' alone
    try:
        if "tactics" in payload["network"]:
            raise ValueError("'tactics' is not a field of an AlphaZero network (its search feeds the board alone)")
        return NetworkConfig(**checkpoint_network_config(payload))
    except (TypeError, ValueError) as error:
        raise CheckpointError(
            f"{source}: its network config is not one this toolkit builds ({error}); it holds "
            f"{', '.join(fields)}, each shape at most its limit {NETWORK_LIMITS}"
        ) from None


def check_arrays(state: Any, config: NetworkConfig, source: str) -> None:
    """CheckpointError naming the first array of ``state`` (a state dict read without torch) that is missing,
    unexpected, or not of the name, shape and kind (finite floats, integer counters) :func:`state_shapes` gives."""
    mismatch = f"{source} does not match the AlphaZero network it describes ({config})"
    if not isinstance(state, dict):
        raise CheckpointError(f"{mismatch}: its state dict is a {type(state).__name__}, not a dict of tensors")
    expected = state_shapes(config)
    for name, (shape, floats) in expected.items():
        array = state.get(name)
        wanted = f"a {'float' if floats else 'integer'} tensor of shape {shape}"
        if array is None:
            raise CheckpointError(f"{mismatch}: tensor {name!r} ({wanted}) is missing")
        if not isinstance(array, np.ndarray) or array.shape != shape:
            found = f"shape {array.shape}" if isinstance(array, np.ndarray) else type(array).__name__
            raise CheckpointError(f"{mismatch}: tensor {name!r} should be {wanted}, found {found}")
        if np.issubdtype(array.dtype, np.floating) != floats or not np.issubdtype(array.dtype, np.number):
            raise CheckpointError(f"{mismatch}: tensor {name!r} should be {wanted}, found {array.dtype}")
        if floats and not np.isfinite(array).all():
            raise CheckpointError(f"{mismatch}: tensor {name!r} holds non-finite values (NaN or infinity)")
    unexpected = next((name for name in state if name not in expected), None)
    if unexpected is not None:
        raise CheckpointError(f"{mismatch}: tensor {unexpected!r} is not one of its tensors")


def checkpoint_search(payload: dict[str, Any], source: str = "checkpoint") -> dict[str, Any]:
    """The settings a network plays by (:data:`~agents.alphazero.search_config.PLAYED`) that a checkpoint's contents
    record under ``search`` (training writes them; a file without them records none), checked as
    :class:`~agents.alphazero.search_config.SearchConfig` checks them."""
    saved = payload.get("search", {})
    if not isinstance(saved, dict):
        raise CheckpointError(f"{source}: its 'search' entry is a {type(saved).__name__}, not a dict of settings")
    settings = {key: saved[key] for key in PLAYED if key in saved}
    try:
        SearchConfig(**settings)
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{source}: its search settings are not ones the search takes ({error})") from None
    return settings
