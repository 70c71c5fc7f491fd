"""The PPO agent: a policy trained by :mod:`training.ppo_selfplay`, played from its checkpoint with numpy alone.

A checkpoint is one zip file (``CHECKPOINT_FORMAT``) holding the run's configuration (``config.json``), the policy's
weights as plain arrays (``policy.npz``), the Stable-Baselines3 policy's and optimizer's tensors (``policy.pth``,
``policy.optimizer.pth``, to go on training) and the opponent pool (``pool/``). Nothing in it is a pickle of Python
objects: every file is read without running code from it (:mod:`agents.checkpoint`). The agent reads only
``config.json`` and ``policy.npz``, so playing needs neither torch nor SB3. A policy plays one game of the toolkit
(``game`` in its weights file; files without one are the default game's). The network sees the board from the
mover's side (the State's ``observation_tensor``), by default followed by one-move lookahead features
(:func:`tactics`, for any game with compiled search kernels), and picks an action in the mover's own numbering
(relative: :meth:`awale_env.games.Game.action_shift`), which is what makes one network play both seats.

Your own SB3 code loads, evaluates and fine-tunes a policy with :func:`sb3_model` (a MaskablePPO built from the
checkpoint's options and tensors) on :func:`sb3_env` (the Gymnasium env as the policy sees it: :class:`LearnerView`).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from numba import njit

from agents import kernels as kn
from agents.base import check_seed, game_refusal
from agents.checkpoint import load_arrays, load_tensors, open_zip, read_member
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, GAMES, Game, game_of, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.gym_env import AwaleEnv

CHECKPOINT_FORMAT = "awale_env.ppo_selfplay/2"
#: The formats the agent plays. Format 1 also held SB3's own model file (``model.zip``, whose ``data`` are pickled
#: Python objects): its policy still plays, but nothing trains from it (:func:`read_training_checkpoint`).
PLAYABLE_FORMATS = ("awale_env.ppo_selfplay/1", CHECKPOINT_FORMAT)
#: Where the shipped policies are: ``ppo_<game name>.zip`` for each game one is shipped for.
PRETRAINED_DIR = Path(__file__).parent / "pretrained"
#: The members the agent plays from ...
PLAY_MEMBERS = ("config.json", "policy.npz")
#: ... the others every checkpoint holds, to go on training (the pool may be empty but its index is always there) ...
TRAINING_MEMBERS = ("policy.pth", "policy.optimizer.pth", "pool/index.json")
#: ... and the pool's snapshots: nothing else.
POOL_MEMBER = re.compile(r"pool/(0|[1-9][0-9]*)\.npz")
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
#: The logit given to illegal actions, as sb3-contrib's MaskableCategorical does.
MASKED_LOGIT = -1e8
#: What the network may see: the env's observation alone, or followed by the tactical features of :func:`tactics`.
FEATURES = ("board", "tactics")
#: Seeds per unit of the tactical features: the unit of every game's observation of a pit.
SEED_UNIT = 16.0
#: The searched line's arrays of a search env, which the tactical features do not use.
_NO_LINE = np.zeros(0, dtype=np.int64)


def pretrained_path(game: str | Game = DEFAULT_GAME) -> Path:
    """The policy shipped in the package for ``game`` (``agents/pretrained/ppo_<game name>.zip``; none may be: see
    :func:`pretrained_games`)."""
    return PRETRAINED_DIR / f"ppo_{get_game(game).name}.zip"


def pretrained_games() -> tuple[str, ...]:
    """The games a policy is shipped for (``ppo:pretrained`` plays them)."""
    return tuple(name for name in GAMES if pretrained_path(name).is_file())


@cache
def _search(game: Game) -> kn.SearchKernels:
    """The search kernels of ``game`` (looked up once: the tactical features need them at every step)."""
    return game.search


def has_tactics(game: str | Game) -> bool:
    """Whether the tactical features can be computed for ``game``: they run on its compiled search kernels."""
    try:
        return isinstance(_search(get_game(game)), kn.SearchKernels)
    except NotImplementedError:
        return False


def input_size(game: str | Game, features: str) -> int:
    """The network's input size for ``features`` on ``game``; ValueError for features the game does not have."""
    game = get_game(game)
    if features not in FEATURES:
        raise ValueError(f"features must be one of {', '.join(FEATURES)}, got {features!r}")
    if features == "board":
        return game.obs_size
    if not has_tactics(game):
        raise ValueError(
            f"features={features!r} are computed with a game's compiled search kernels, which {game.name} lacks; "
            f"a {game.name} policy sees 'board'"
        )
    return game.obs_size + 2 * game.num_actions


@njit(cache=True, error_model="numpy")
def tactics(env, board, stores, player, ply, max_plies, shift, out):
    """One-move lookahead features of ``player`` (to move) in a search position of any game (:mod:`agents.kernels`),
    by relative action r (``r = action - shift``, mod the action count n; float32 ``out`` of length 2n).

    ``out[r]``: the seeds action r captures at once (the game's ``last_capture``) / 16; ``out[n + r]``: the most the
    opponent can capture in reply / 16 (0 when the move ends the game). Both are 0 for illegal actions. What greedy
    play sees, and one ply more; the network learns how to weigh them against the board.
    """
    n = out.shape[0] // 2
    out[:] = 0.0
    moves = np.empty(n, dtype=np.int64)
    replies = np.empty(n, dtype=np.int64)
    work = np.empty_like(board)
    work_stores = np.empty_like(stores)
    reply = np.empty_like(board)
    reply_stores = np.empty_like(stores)
    opponent = 1 - player
    for i in range(kn.moves(env, board, player, moves)):
        work[:] = board
        work_stores[:] = stores
        gained = kn.move(env, work, work_stores, player, moves[i])
        if gained < 0:  # a move the rules end the game on instead
            continue
        r = (moves[i] - shift) % n
        out[r] = gained / SEED_UNIT
        if kn.status(env, work, work_stores, opponent, ply + 1, max_plies, gained, False) != kn.ONGOING:
            continue
        best = 0
        for j in range(kn.moves(env, work, opponent, replies)):
            reply[:] = work
            reply_stores[:] = work_stores
            best = max(best, kn.move(env, reply, reply_stores, opponent, replies[j]))
        out[n + r] = best / SEED_UNIT


def observe(state: Any, player: int, features: str) -> np.ndarray:
    """The network's input for ``player`` (who must be the player to move for the tactical features)."""
    board = state.observation_tensor(player)
    if features == "board":
        return board
    game = game_of(state)
    out = np.empty(input_size(game, features), dtype=np.float32)  # a clear error for a game without them
    out[: game.obs_size] = board
    root = _search(game).root(state)
    env = root.env(kn.new_scratch(), _NO_LINE, _NO_LINE)
    shift = game.action_shift(player)
    tactics(env, root.board, root.stores, player, root.ply, root.max_plies, shift, out[game.obs_size :])
    return out


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
    def from_npz(cls, data: bytes, source: str = "policy.npz") -> PolicyNet:
        """The policy of :meth:`to_npz` (files written before other games existed are the default game's);
        CheckpointError naming ``source`` for anything else."""
        arrays = load_arrays(data, source)
        n = sum(1 for key in arrays if key.startswith("w"))
        layers = [f"{kind}{i}" for i in range(max(n, 1)) for kind in "wb"]
        allowed = "w0, b0, w1, b1, ... (one pair per layer), activation, features and game"
        for name in (*layers, "activation", "features"):
            if name not in arrays:
                raise CheckpointError(f"{source}: array {name!r} is missing (a policy holds {allowed})")
        unexpected = next((name for name in arrays if name not in (*layers, "activation", "features", "game")), None)
        if unexpected is not None:
            raise CheckpointError(f"{source}: array {unexpected!r} is not part of a policy (it holds {allowed})")
        weights, biases = [arrays[f"w{i}"] for i in range(n)], [arrays[f"b{i}"] for i in range(n)]
        check_layers(weights, biases, source)
        try:
            game = str(arrays["game"]) if "game" in arrays else DEFAULT_GAME
            return cls(weights, biases, str(arrays["activation"]), str(arrays["features"]), game)
        except (KeyError, ValueError) as error:
            raise CheckpointError(f"{source} is not a policy of this project: {error}") from None


def check_layers(weights: list[np.ndarray], biases: list[np.ndarray], source: str) -> None:
    """CheckpointError naming the first array of ``source`` that is not a layer of a policy's MLP: ``w{i}`` a
    non-empty 2-D (inputs, outputs) matrix whose inputs are the outputs of ``w{i-1}``, ``b{i}`` a vector of its
    outputs, all of them finite floats (a damaged file fails here, not with a numpy error in the middle of a game)."""
    for i, (w, b) in enumerate(zip(weights, biases)):
        for name, array, shape in ((f"w{i}", w, "a 2-D (inputs, outputs) matrix"), (f"b{i}", b, "a 1-D vector")):
            if array.ndim != (2 if name[0] == "w" else 1) or 0 in array.shape:
                raise CheckpointError(f"{source}: array {name!r} has shape {array.shape}; it should be {shape}")
            if not np.issubdtype(array.dtype, np.floating):
                raise CheckpointError(f"{source}: array {name!r} holds {array.dtype}; it should hold floats")
            if not np.isfinite(array).all():
                raise CheckpointError(f"{source}: array {name!r} holds non-finite values (NaN or infinity)")
        if i and w.shape[0] != weights[i - 1].shape[1]:
            raise CheckpointError(
                f"{source}: array 'w{i}' has shape {w.shape}; its rows should be the {weights[i - 1].shape[1]} "
                f"outputs of 'w{i - 1}'"
            )
        if b.shape[0] != w.shape[1]:
            raise CheckpointError(
                f"{source}: array 'b{i}' has {b.shape[0]} entries; it should have one per output of 'w{i}' "
                f"({w.shape[1]})"
            )


def relative_legal_mask(state: Any) -> np.ndarray:
    """The legal mask of the player to move, indexed by its relative actions (:meth:`Game.action_shift`)."""
    return np.roll(state.legal_mask(), -game_of(state).action_shift(state.to_move))


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
            "checkpoints are written by `awale train ppo` / training.ppo_selfplay"
        )
    return archive


def read_config(archive: zipfile.ZipFile) -> dict[str, Any]:
    """The ``config.json`` of an open checkpoint, with its format checked (one the agent plays)."""
    try:
        config = json.loads(read_member(archive, "config.json", str(archive.filename)))
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{archive.filename}: config.json is not valid JSON: {error}") from None
    except RecursionError:
        raise CheckpointError(f"{archive.filename}: config.json is not valid JSON: nested too deep") from None
    if not isinstance(config, dict) or config.get("format") not in PLAYABLE_FORMATS:
        found = config.get("format") if isinstance(config, dict) else None
        raise CheckpointError(f"{archive.filename}: format {found!r} is not one of {', '.join(PLAYABLE_FORMATS)}")
    return config


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
        args = config["args"]
        game = get_game(args["game"])
        sizes = [input_size(game, args["features"]), *(int(width) for width in args["net_arch"]), game.num_actions]
    except (KeyError, TypeError, ValueError):
        return {}
    weights = 4 * sum((inputs + 1) * outputs for inputs, outputs in zip(sizes, sizes[1:]))
    holder = f"the policy config.json declares ({game.name}, {args['features']}, net_arch {sizes[1:-1]})"
    return {
        "npz": (weights + NPZ_SLACK, f"an array file of {holder}"),
        "policy.pth": (2 * weights + TORCH_SLACK, f"the SB3 tensors of {holder}"),
        "policy.optimizer.pth": (4 * weights + TORCH_SLACK, f"the optimizer's tensors of {holder}"),
    }


def read_tensor_member(archive: zipfile.ZipFile, name: str, source: str, config: dict[str, Any]) -> bytes:
    """The member ``name`` of a checkpoint, refused unread when it declares more than its policy's tensors take
    (:func:`member_caps`)."""
    caps = member_caps(config)
    cap, holder = caps.get("npz" if name.endswith(".npz") else name, (None, ""))
    return read_member(archive, name, source, cap, holder)


class PPOAgent:
    """Plays the policy of a PPO checkpoint: the most probable legal move (``deterministic``) or a sampled one.

    Spec strings: ``ppo:pretrained`` (the checkpoints shipped in the package, one per game in :attr:`games`, loaded
    when the agent first meets the game), ``ppo:path=run/checkpoints/last.zip``, with ``deterministic=false`` and
    ``seed=N`` for sampled play. A checkpoint records its game (:attr:`game`); a State of another game is refused
    with a ValueError.
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
        self.pretrained = bool(pretrained)
        self._load(pretrained_path() if pretrained else Path(path))
        self.deterministic = bool(deterministic)
        self._rng = np.random.default_rng(check_seed(seed))
        self.name = "ppo:pretrained" if pretrained else f"ppo:{self.path.name}"

    def _load(self, source: Path) -> None:
        """Play the policy of the checkpoint ``source`` from now on."""
        with open_checkpoint(source) as archive:
            self.config = read_config(archive)
            data = read_tensor_member(archive, "policy.npz", str(source), self.config)
            self.net = PolicyNet.from_npz(data, f"{source}: policy.npz")
        self.path: Path | None = source

    @classmethod
    def from_net(cls, net: PolicyNet, name: str = "ppo", deterministic: bool = True, seed: int | None = None):
        """An agent playing a policy held in memory (the learner during training), with no checkpoint file."""
        agent = cls.__new__(cls)
        agent.config, agent.net, agent.path, agent.name, agent.pretrained = {}, net, None, name, False
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
        """The game of the policy playing now; it refuses States of the others."""
        return self.net.game

    @property
    def games(self) -> tuple[str, ...]:
        """The games this agent can play (the arena checks it before a tournament)."""
        return pretrained_games() if self.pretrained else (self.net.game.name,)

    def weights_file(self, game: str) -> Path | None:
        """The checkpoint of the policy that plays ``game`` (None for a policy given in memory)."""
        return pretrained_path(game) if self.pretrained else self.path

    def other_game_hint(self, game: str) -> str | None:
        """For a game no policy is shipped for: how to train one."""
        if not self.pretrained or game in self.games:
            return None
        return (
            f"no PPO policy is shipped for it; train one with `awale train ppo --game {game}`, then play "
            "ppo:path=<run dir>/checkpoints/last.zip"
        )

    def act(self, state: Any) -> int:
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        game = game_of(state)
        if game is not self.net.game:
            if game.name not in self.games:
                raise ValueError(game_refusal(self, self.name, game.name))
            self._load(pretrained_path(game))  # the shipped policies: the one for this game
        return self.net.act(state, None if self.deterministic else self._rng)


# --- training from a checkpoint: its tensors and pool, read without unpickling ---------------------------------------


def pool_members(snapshots: list[tuple[int, PolicyNet]]) -> dict[str, bytes]:
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
    pool: list[tuple[int, PolicyNet]]

    @property
    def args(self) -> dict[str, Any]:
        return self.config["args"]

    @property
    def num_timesteps(self) -> int:
        return self.config["num_timesteps"]


#: The entries of a training checkpoint's ``config.json`` and their types (its ``args`` hold :data:`MODEL_ARGS`).
TRAINING_CONFIG = {"args": dict, "num_timesteps": int, "trainer": dict, "rng": dict, "sb3": dict}


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
                (int(step), PolicyNet.from_npz(member(f"pool/{i}.npz"), f"{path}: pool/{i}.npz"))
                for i, step in enumerate(steps)
            ]
        except CheckpointError:
            raise
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            raise CheckpointError(f"{path}: the opponent pool is unreadable: {type(error).__name__}: {error}") from None
    if not isinstance(policy, dict) or not isinstance(optimizer, dict):
        raise CheckpointError(f"{path}: policy.pth and policy.optimizer.pth must hold state dicts")
    return TrainingCheckpoint(path, config, policy, optimizer, pool)


# --- Stable-Baselines3: the env as a policy sees it, and the MaskablePPO behind a checkpoint --------------------------
# (SB3, sb3-contrib and torch are the train extras: imported only by the functions that need them)

#: The options of a run (a checkpoint's ``args``) that are MaskablePPO's hyper-parameters ...
SB3_OPTIONS = ("learning_rate", "anneal_lr", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
               "ent_coef", "vf_coef", "max_grad_norm", "net_arch", "activation")  # fmt: skip
#: ... and all those its model and envs are built from.
MODEL_ARGS = ("game", "features", "max_plies", "n_envs", *SB3_OPTIONS)
#: Of those, the ones that shape the network: a checkpoint's tensors fit only its own.
NETWORK_OPTIONS = ("net_arch", "activation")


def default_features(game: str | Game) -> str:
    """What a policy of ``game`` sees unless told otherwise: the tactical features where the game has them."""
    return "tactics" if has_tactics(game) else "board"


class LearnerView(gymnasium.Wrapper):
    """The learner's view of :class:`AwaleEnv`: relative actions and masks, the network's features, and the
    capture-difference shaping.

    The observation is already the learner's (the board turned so its pits come first), so actions are taken in the
    same frame: relative action r is the game's action ``r + game.action_shift(seat)`` (mod the action count; r
    itself in a game that numbers actions from the mover's side already). Without this a network would have to
    guess its seat, which the observation does not show. ``features="tactics"`` appends :func:`tactics` to the
    observation. The reward is the env's win/loss (+1/-1/0, reaching the learner also when the opponent's reply
    ends the game) plus ``shaping`` times the change of (own store - opponent's store) / the game's seeds over the
    step.
    """

    def __init__(self, env: AwaleEnv, shaping: float = 0.0, features: str = "board") -> None:
        super().__init__(env)
        if env.reward != "win_loss":
            raise ValueError(f"LearnerView adds its own shaping to the 'win_loss' reward, got reward={env.reward!r}")
        self.game = env.game_spec
        size = input_size(self.game, features)
        self.shaping = float(shaping)
        self.features = features
        if features != "board":
            low, high = env.observation_space.low, env.observation_space.high
            extra = size - len(low)
            self.observation_space = spaces.Box(
                np.concatenate([low, np.zeros(extra, dtype=np.float32)]),
                np.concatenate([high, np.full(extra, self.game.total_seeds / SEED_UNIT, dtype=np.float32)]),
                dtype=np.float32,
            )

    def reset(self, **kwargs: Any):
        observation, info = self.env.reset(**kwargs)
        return self._observe(observation), info

    def step(self, action: Any):
        env: AwaleEnv = self.env
        seat, n = env.learner, self.game.num_actions
        before = env.game.stores
        absolute = (int(action) + self.game.action_shift(seat)) % n if 0 <= int(action) < n else action
        observation, reward, terminated, truncated, info = env.step(absolute)
        after = env.game.stores
        gained = (after[seat] - before[seat]) - (after[1 - seat] - before[1 - seat])
        reward += self.shaping * gained / self.game.total_seeds
        return self._observe(observation), reward, terminated, truncated, info

    def _observe(self, board: np.ndarray) -> np.ndarray:
        return board if self.features == "board" else observe(self.env.game, self.env.learner, self.features)

    def action_masks(self) -> np.ndarray:
        return np.roll(self.env.action_masks(), -self.game.action_shift(self.env.learner))


def sb3_env(
    game: str | Game = DEFAULT_GAME,
    opponent: Any = "random",
    features: str | None = None,
    shaping: float = 0.0,
    learner_seat: int | str = "random",
    max_plies: int | str | None = GAME_DEFAULT,
    **options: Any,
) -> gymnasium.Env:
    """The Gymnasium env a PPO policy of ``game`` plays and learns in, for MaskablePPO: :class:`LearnerView` (relative
    actions and masks, the policy's ``features``: by default :func:`default_features`) over
    :class:`awale_env.gym_env.AwaleEnv` (``opponent``, ``learner_seat``, ``max_plies`` and the game's rule
    ``options`` as there), in SB3's ``Monitor`` (which records episodes for ``evaluate_policy``). The reward is
    +1/-1/0 at the end plus ``shaping`` times the capture difference (training used 1.0)."""
    from stable_baselines3.common.monitor import Monitor

    spec = get_game(game)
    env = AwaleEnv(opponent=opponent, learner_seat=learner_seat, max_plies=max_plies, game=spec, **options)
    return Monitor(LearnerView(env, shaping, features or default_features(spec)))


def new_sb3_model(options: dict[str, Any], env: Any, seed: int | None = None, device: str = "cpu") -> Any:
    """A MaskablePPO on ``env`` (a Gymnasium env or an SB3 VecEnv) with the hyper-parameters of a run's ``options``
    (the :data:`SB3_OPTIONS` of a checkpoint's ``args``, and ``target_kl`` where it has one: older ones lack it), its
    network newly initialised."""
    import torch
    from sb3_contrib import MaskablePPO

    rate = options["learning_rate"]
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=(lambda progress: progress * rate) if options["anneal_lr"] else rate,
        n_steps=options["n_steps"],
        batch_size=options["batch_size"],
        n_epochs=options["n_epochs"],
        gamma=options["gamma"],
        gae_lambda=options["gae_lambda"],
        clip_range=options["clip_range"],
        ent_coef=options["ent_coef"],
        vf_coef=options["vf_coef"],
        max_grad_norm=options["max_grad_norm"],
        target_kl=options.get("target_kl"),
        policy_kwargs={
            "net_arch": {"pi": list(options["net_arch"]), "vf": list(options["net_arch"])},
            "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[options["activation"]],
        },
        seed=seed,
        device=device,
    )


def sb3_members(model: Any) -> dict[str, bytes]:
    """The checkpoint members of a MaskablePPO's tensors: its policy's and its optimizer's state dicts."""
    import torch

    members = {}
    for name, state in (("policy.pth", model.policy.state_dict()),
                        ("policy.optimizer.pth", model.policy.optimizer.state_dict())):  # fmt: skip
        buffer = io.BytesIO()
        torch.save(state, buffer)
        members[name] = buffer.getvalue()
    return members


def restore_sb3(model: Any, checkpoint: TrainingCheckpoint) -> None:
    """Put the checkpoint's tensors and SB3 counters into ``model`` (built by :func:`new_sb3_model` from its
    options); CheckpointError when they do not fit it."""
    load_networks(model, checkpoint, optimizer=True)
    model.num_timesteps = checkpoint.num_timesteps
    model._n_updates = checkpoint.config["sb3"]["n_updates"]


def load_networks(model: Any, checkpoint: TrainingCheckpoint, optimizer: bool) -> None:
    """Put the checkpoint's policy and value network (and with ``optimizer`` its optimizer's state) into ``model``;
    CheckpointError when they do not fit it."""
    try:
        model.policy.load_state_dict(checkpoint.policy)
        if optimizer:
            model.policy.optimizer.load_state_dict(checkpoint.optimizer)
    except (RuntimeError, ValueError, KeyError, TypeError) as error:
        message = " ".join(str(error).split())
        raise CheckpointError(
            f"{checkpoint.path}: its tensors do not fit the network of its options: {message}"
        ) from None


def sb3_model(path: str | Path, env: Any = None, opponent: Any = "random", seed: int | None = None, **changes: Any):
    """The PPO policy of the checkpoint ``path`` (e.g. :func:`pretrained_path`) as a MaskablePPO of sb3-contrib, with
    its optimizer's state, to evaluate and fine-tune in your own SB3 code.

    Built from the checkpoint's options and tensors without unpickling anything (``MaskablePPO.load`` unpickles, so
    it runs any code a file carries: load only files you trust with it). ``env`` defaults to the run's ``n_envs``
    envs of :func:`sb3_env` (its game, features and ply limit) against ``opponent``, in a DummyVecEnv; an env of your
    own must give the observations the policy was trained on (build it with :func:`sb3_env`). ``changes`` replace
    hyper-parameters of the run (:data:`SB3_OPTIONS` but the network's: ``learning_rate=1e-4, n_steps=128``...).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv

    checkpoint = read_training_checkpoint(path)
    options = checkpoint.args
    allowed = [name for name in SB3_OPTIONS if name not in NETWORK_OPTIONS]
    unknown = [name for name in changes if name not in allowed]
    if unknown:
        raise ValueError(f"sb3_model cannot change {', '.join(unknown)}; it may change {', '.join(allowed)}")
    game, features = options["game"], options["features"]
    if env is None:
        build = partial(sb3_env, game, opponent, features, max_plies=options["max_plies"])
        env = DummyVecEnv([build] * options["n_envs"])
    expected = (input_size(game, features),)
    if env.observation_space.shape != expected:
        raise ValueError(
            f"the env's observations have shape {env.observation_space.shape}, the policy of {path} sees {expected} "
            f"({game}, features={features!r}): build the env with sb3_env({game!r}, features={features!r})"
        )
    model = new_sb3_model({**options, **changes}, env, seed)
    restore_sb3(model, checkpoint)
    return model
