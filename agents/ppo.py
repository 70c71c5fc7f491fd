"""The PPO agent: a policy trained by :mod:`training.ppo_selfplay`, played from its checkpoint with numpy alone.

A checkpoint is one zip file (``CHECKPOINT_FORMAT``) holding the Stable-Baselines3 model (``model.zip``, to resume
training), the run's configuration (``config.json``), the opponent pool (``pool/``) and the policy's weights as plain
arrays (``policy.npz``). The agent reads only ``config.json`` and ``policy.npz``, so playing needs neither torch nor
SB3. A policy plays one game of the toolkit (``game`` in its weights file: ``"awale16"``, the default, ``"oware"`` or
``"hawalis"``). The network sees the board from the mover's side (the State's ``observation_tensor``), on the
two-colour Awale optionally followed by one-move lookahead features (:func:`tactics`), and picks an action in the
mover's own numbering (relative: :meth:`awale_env.games.Game.action_shift`), which is what makes one network play
both seats.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from agents.base import check_seed
from awale_env.core import awale16 as core
from awale_env.games import DEFAULT_GAME, Game, game_of, get_game

CHECKPOINT_FORMAT = "awale_env.ppo_selfplay/1"
PRETRAINED_PATH = Path(__file__).parent / "pretrained" / "ppo_awale16.zip"
#: The members every checkpoint holds (the pool may be empty but its index is always there).
CHECKPOINT_MEMBERS = ("config.json", "policy.npz", "model.zip", "pool/index.json")
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
#: The logit given to illegal actions, as sb3-contrib's MaskableCategorical does.
MASKED_LOGIT = -1e8
#: What the network sees on the two-colour Awale (input sizes): the env's observation alone, or followed by the
#: tactical features of :func:`tactics`. The other games have ``"board"`` only (:func:`input_size`).
FEATURE_SETS = {"board": core.OBS_SIZE, "tactics": core.OBS_SIZE + 2 * core.NUM_ACTIONS}


def input_size(game: str | Game, features: str) -> int:
    """The network's input size for ``features`` on ``game``; ValueError for features the game does not have."""
    game = get_game(game)
    if features not in FEATURE_SETS:
        raise ValueError(f"features must be one of {', '.join(FEATURE_SETS)}, got {features!r}")
    if features == "board":
        return game.obs_size
    if game.name != "awale16":
        raise ValueError(
            f"features={features!r} are the two-colour Awale's capture counts (agents.ppo.tactics); "
            f"a {game.name} policy sees 'board'"
        )
    return FEATURE_SETS[features]


@njit(cache=True, error_model="numpy")
def tactics(seeds, stores, player, ply, max_plies, out):
    """One-move lookahead features of ``player`` (to move), by relative action r (float32 ``out`` of length 64).

    ``out[r]``: the seeds action r captures at once (capture chain and starving sweep) / 16; ``out[32 + r]``: the
    most the opponent can capture in reply / 16 (0 when the move ends the game). Both are 0 for illegal actions.
    What greedy play sees, and one ply more; the network learns how to weigh them against the board.
    """
    out[:] = 0.0
    work = np.empty_like(seeds)
    work_stores = np.empty_like(stores)
    reply = np.empty_like(seeds)
    reply_stores = np.empty_like(stores)
    opponent = 1 - player
    for a in range(core.NUM_ACTIONS):
        if (a >> 1) % 2 != player or seeds[a] == 0:
            continue
        work[:] = seeds
        work_stores[:] = stores
        gained = core.apply_action(work, work_stores, player, a)
        r = (a - 2 * player) % core.NUM_ACTIONS
        out[r] = gained / core.SEED_SCALE
        on_board = core.board_total(work)
        if core.end_status(on_board, int(work_stores[0]), int(work_stores[1]), ply + 1, max_plies) != core.ONGOING:
            continue
        best = 0
        for b in range(core.NUM_ACTIONS):
            if (b >> 1) % 2 != opponent or work[b] == 0:
                continue
            reply[:] = work
            reply_stores[:] = work_stores
            best = max(best, core.apply_action(reply, reply_stores, opponent, b))
        out[core.NUM_ACTIONS + r] = best / core.SEED_SCALE


def observe(state: Any, player: int, features: str) -> np.ndarray:
    """The network's input for ``player`` (who must be the player to move for the tactical features, which only the
    two-colour Awale has)."""
    board = state.observation_tensor(player)
    if features == "board":
        return board
    input_size(game_of(state), features)  # a clear error for another game
    out = np.empty(FEATURE_SETS["tactics"], dtype=np.float32)
    out[: core.OBS_SIZE] = board
    stores = np.array(state._stores, dtype=core.STORE_DTYPE)
    tactics(state._seeds, stores, player, state._ply, state._max_plies, out[core.OBS_SIZE :])
    return out


class CheckpointError(ValueError):
    """A file that is not a complete PPO checkpoint of this project."""


class MissingCheckpointError(CheckpointError, FileNotFoundError):
    """No file at the checkpoint's path (both a CheckpointError and a FileNotFoundError)."""


class PolicyNet:
    """The actor of an SB3 ``MlpPolicy`` as numpy arrays: hidden layers, then the action layer (logits).

    Small enough that one numpy forward pass per move beats a torch call, for the arena and for frozen opponents.
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        activation: str,
        features: str,
        game: str | Game = DEFAULT_GAME,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.game = get_game(game)
        size = input_size(self.game, features)
        if len(weights) != len(biases) or not weights:
            raise ValueError("a policy needs as many weight matrices as bias vectors, at least one")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self.features = features
        actions = self.game.num_actions
        if self.weights[0].shape[0] != size or self.weights[-1].shape[1] != actions:
            raise ValueError(
                f"a {self.game.name} policy on {features!r} features maps {size} inputs to {actions} logits, got "
                f"{self.weights[0].shape[0]} -> {self.weights[-1].shape[1]}"
            )

    @classmethod
    def from_sb3(cls, policy: Any, activation: str, features: str, game: str | Game = DEFAULT_GAME) -> PolicyNet:
        """Copy the actor of an SB3 ``(Maskable)ActorCriticPolicy`` with an MLP extractor (no shared layers)."""
        linears = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
        linears.append(policy.action_net)
        weights = [m.weight.detach().cpu().numpy().T.copy() for m in linears]
        biases = [m.bias.detach().cpu().numpy().copy() for m in linears]
        return cls(weights, biases, activation, features, game)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits (relative actions) for a batch of inputs, shape (n, input size) -> (n, num_actions)."""
        x = observations
        act = ACTIVATIONS[self.activation]
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            x = act(x @ w + b)
        return x @ self.weights[-1] + self.biases[-1]

    def relative_action(self, observation: np.ndarray, relative_mask: np.ndarray, rng: np.random.Generator | None):
        """The greedy relative action (``rng`` None) or one sampled from the masked softmax."""
        logits = np.where(relative_mask, self.logits(observation[None])[0], MASKED_LOGIT)
        if rng is None:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(rng.choice(self.game.num_actions, p=p / p.sum()))

    def act(self, state: Any, rng: np.random.Generator | None = None) -> int:
        """The action of the player to move in ``state`` (a State of this policy's game)."""
        if game_of(state) is not self.game:
            raise ValueError(f"this policy plays {self.game.name}, not {game_of(state).name}")
        player = state.to_move
        observation = observe(state, player, self.features)
        relative = self.relative_action(observation, relative_legal_mask(state), rng)
        return (relative + self.game.action_shift(player)) % self.game.num_actions

    def to_npz(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)} | {f"b{i}": b for i, b in enumerate(self.biases)}
        names = {"activation": self.activation, "features": self.features, "game": self.game.name}
        np.savez(buffer, **{k: np.array(v) for k, v in names.items()}, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_npz(cls, data: bytes) -> PolicyNet:
        """The policy of :meth:`to_npz` (files written before other games existed are the two-colour Awale's)."""
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            n = sum(1 for key in npz.files if key.startswith("w"))
            weights, biases = [npz[f"w{i}"] for i in range(n)], [npz[f"b{i}"] for i in range(n)]
            game = str(npz["game"]) if "game" in npz.files else DEFAULT_GAME
            return cls(weights, biases, str(npz["activation"]), str(npz["features"]), game)


def relative_legal_mask(state: Any) -> np.ndarray:
    """The legal mask of the player to move, indexed by its relative actions (:meth:`Game.action_shift`)."""
    return np.roll(state.legal_mask(), -game_of(state).action_shift(state.to_move))


def open_checkpoint(path: str | Path) -> zipfile.ZipFile:
    """Open a checkpoint zip after checking that it is complete and ours; raise a clear error otherwise."""
    path = Path(path)
    if not path.exists():
        raise MissingCheckpointError(f"PPO checkpoint not found: {path}")
    if path.is_dir():
        raise CheckpointError(f"{path} is a directory; a PPO checkpoint is a .zip file written by training")
    try:
        archive = zipfile.ZipFile(path)
        broken = archive.testzip()
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise CheckpointError(f"{path} is not a readable zip file (truncated or corrupted?): {error}") from None
    if broken is not None:
        archive.close()
        raise CheckpointError(f"{path} is corrupted: member {broken!r} fails its CRC check")
    names = set(archive.namelist())
    missing = [m for m in CHECKPOINT_MEMBERS if m not in names]
    if missing:
        archive.close()
        raise CheckpointError(
            f"{path} is not a PPO checkpoint of awale_env (lacks {', '.join(missing)}); "
            "checkpoints are written by `awale train ppo` / training.ppo_selfplay"
        )
    return archive


def read_config(archive: zipfile.ZipFile) -> dict[str, Any]:
    """The ``config.json`` of an open checkpoint, with its format checked."""
    try:
        config = json.loads(archive.read("config.json"))
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{archive.filename}: config.json is not valid JSON: {error}") from None
    if not isinstance(config, dict) or config.get("format") != CHECKPOINT_FORMAT:
        found = config.get("format") if isinstance(config, dict) else None
        raise CheckpointError(f"{archive.filename}: format {found!r} is not {CHECKPOINT_FORMAT!r}")
    return config


class PPOAgent:
    """Plays the policy of a PPO checkpoint: the most probable legal move (``deterministic``) or a sampled one.

    Spec strings: ``ppo:pretrained`` (the checkpoint shipped in the package), ``ppo:path=run/checkpoints/last.zip``,
    with ``deterministic=false`` and ``seed=N`` for sampled play. The checkpoint records its game (:attr:`game`); a
    State of another game is refused with a ValueError.
    """

    def __init__(
        self,
        path: str | None = None,
        pretrained: bool = False,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        if pretrained and path is not None:
            raise ValueError("give either path=... or pretrained, not both")
        if not pretrained and path is None:
            raise ValueError("a PPO agent needs a checkpoint: ppo:path=<file.zip> or ppo:pretrained")
        source = PRETRAINED_PATH if pretrained else Path(path)
        with open_checkpoint(source) as archive:
            self.config = read_config(archive)
            try:
                self.net = PolicyNet.from_npz(archive.read("policy.npz"))
            except (ValueError, KeyError, OSError) as error:
                raise CheckpointError(f"{source}: policy.npz is unreadable: {error}") from None
        self.path: Path | None = source
        self.deterministic = bool(deterministic)
        self._rng = np.random.default_rng(check_seed(seed))
        self.name = "ppo:pretrained" if pretrained else f"ppo:{source.name}"

    @classmethod
    def from_net(cls, net: PolicyNet, name: str = "ppo", deterministic: bool = True, seed: int | None = None):
        """An agent playing a policy held in memory (the learner during training), with no checkpoint file."""
        agent = cls.__new__(cls)
        agent.config, agent.net, agent.path, agent.name = {}, net, None, name
        agent.deterministic = bool(deterministic)
        agent._rng = np.random.default_rng(check_seed(seed))
        return agent

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, seed: int | None = None) -> PPOAgent:
        """The agent of a checkpoint file; :class:`CheckpointError` (a ValueError) when it is missing or not one."""
        return cls(path=str(path), deterministic=deterministic, seed=seed)

    def reset(self, seed: int | None = None) -> None:
        if check_seed(seed) is not None:
            self._rng = np.random.default_rng(seed)

    @property
    def game(self) -> Game:
        """The game the policy was trained on; it refuses States of the others."""
        return self.net.game

    def act(self, state: Any) -> int:
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        return self.net.act(state, None if self.deterministic else self._rng)
