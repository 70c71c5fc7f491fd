"""The networks of a PPO policy and what they see; the default one plays with numpy alone (neither torch nor SB3).

:class:`Policy` is what every policy does with its logits (play a move); :class:`PolicyNet`, the default network, is the
actor of an SB3 ``MlpPolicy`` as numpy arrays (a checkpoint's ``policy.npz``, the pool's snapshots); the other,
:class:`agents.ppo.ring.RingPolicyNet` (``--network ring``), is the AlphaZero network's, trained in torch and played
from its file with numpy (:class:`agents.ppo.ring_play.RingPlayer`). A
policy plays one game of the toolkit (``game`` in its weights file; files without one are the default game's). The
network sees the board from the mover's side (the State's ``observation_tensor``), by default followed by one-move
lookahead features (:func:`tactics`, for any game with compiled search kernels), and picks an action in the mover's own
numbering (relative: :meth:`awale_env.games.Game.action_shift`), which is what makes one network play both seats.
"""

from __future__ import annotations

import io
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from agents.checkpoint import load_arrays
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, Game, game_of, get_game
from awale_env.kernels import dispatch as kn

ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
#: The most hidden layers an MLP policy has, and units in each (``--net-arch``).
MAX_LAYERS = 16
MAX_WIDTH = 4096
#: The logit given to illegal actions, as sb3-contrib's MaskableCategorical does.
MASKED_LOGIT = -1e8
#: What the network may see: the env's observation alone, or followed by the tactical features of :func:`tactics`.
FEATURES = ("board", "tactics")
#: Seeds per unit of the tactical features: the unit of every game's observation of a pit.
SEED_UNIT = 16.0
#: The ``kind`` array of a ring policy's file and ``--network`` value (:mod:`agents.ppo.ring`; an MLP's file has none).
RING_KIND = "ring"
#: The options (and a ring policy file's arrays) that shape a ring network: its
#: :class:`agents.alphazero.network.NetworkConfig`'s fields.
RING_SHAPE = ("channels", "blocks", "value_hidden")
#: The searched line's arrays of a search env, which the tactical features do not use.
_NO_LINE = np.zeros(0, dtype=np.int64)


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


def default_features(game: str | Game) -> str:
    """What a policy of ``game`` sees unless told otherwise: the tactical features where the game has them."""
    return "tactics" if has_tactics(game) else "board"


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
    """One-move lookahead features of ``player`` (to move) in a search position of any game
    (:mod:`awale_env.kernels.dispatch`), by relative action r (``r = action - shift``, mod the action count n; float32
    ``out`` of length 2n).

    ``out[r]``: the seeds action r captures at once (the game's ``last_capture``) / 16; ``out[n + r]``: the most the
    opponent can capture in reply / 16 (0 when the move ends the game or gives ``player`` another turn). Both are 0 for
    illegal actions. What greedy play sees, and one ply more; the network learns how to weigh them against the board.
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
        again = kn.next_player(env, board, player, moves[i]) == player
        gained = kn.move(env, work, work_stores, player, moves[i])
        if gained < 0:  # a move the rules end the game on instead
            continue
        r = (moves[i] - shift) % n
        out[r] = gained / SEED_UNIT
        if again or kn.status(env, work, work_stores, opponent, ply + 1, max_plies, gained, False) != kn.ONGOING:
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


class Policy:
    """What every PPO policy does with its network's logits (relative actions, from the mover's side): play a State's
    move, greedily or sampled. A policy has a ``game``, the ``features`` it sees, :meth:`logits` and :meth:`to_npz`
    (its file member: :func:`agents.ppo.checkpoint.policy_from_npz` reads it back)."""

    game: Game
    features: str

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits (relative actions) for a batch of inputs, shape (n, input size) -> (n, num_actions)."""
        raise NotImplementedError

    def to_npz(self) -> bytes:
        raise NotImplementedError

    def set_up_play(self) -> None:
        """Set this process up to play the policy one move at a time (the agent calls it): nothing for numpy."""

    def relative_action(self, observation: np.ndarray, relative_mask: np.ndarray, rng: np.random.Generator | None):
        """The greedy relative action (``rng`` None) or one sampled from the masked softmax."""
        logits = np.where(relative_mask, self.logits(observation[None])[0], MASKED_LOGIT)
        if rng is None:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(rng.choice(self.game.num_actions, p=p / p.sum()))

    def act(self, state: Any, rng: np.random.Generator | None = None) -> int:
        """The action of the player to move in ``state`` (a State of this policy's game)."""
        if (game := game_of(state)) is not self.game and game != self.game:  # a copy in a worker process
            raise ValueError(f"this policy plays {self.game.name}, not {game.name}")
        player = state.to_move
        observation = observe(state, player, self.features)
        relative = self.relative_action(observation, relative_legal_mask(state), rng)
        return (relative + self.game.action_shift(player)) % self.game.num_actions


class PolicyNet(Policy):
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
        return cls.from_arrays(load_arrays(data, source), source)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], source: str) -> PolicyNet:
        """The policy of :meth:`to_npz`'s arrays, read and checked."""
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
