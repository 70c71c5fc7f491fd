"""RLlib policies as agents: the toolkit's action-masking RLModule, its policy file and the ``rllib:path=...`` agent.

This module imports Ray and torch (``pip install "awale_env[rllib]"``); the agents registry imports it only when an
``rllib`` agent is built. :class:`ActionMaskingModule` is the network every RLlib run of the toolkit trains
(:mod:`training.rllib.trainer`); its class path ``agents.rllib.ActionMaskingModule`` is part of RLlib's checkpoints
(RLlib rebuilds a module from the class path it saved), so it stays where it is whatever RLlib moves between
releases. It reads the observations of :class:`awale_env.rllib_env.RLlibGameEnv` (``{"observations",
"action_mask"}``) and sets the logits of illegal actions to RLlib's ``FLOAT_MIN`` in every forward pass, so neither
exploration, nor evaluation, nor the loss ever gives an illegal action any probability.

An agent never reads RLlib's own checkpoint files: they are pickles, and loading a pickle can run code. Training
writes beside them :data:`POLICY_FILE` (:func:`save_policy`): the module's tensors and its ``model_config``, read back
with ``torch.load(weights_only=True)`` (:func:`load_policy`), which refuses anything else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.base import Limit, check_seed
from agents.checkpoint import atomic_write, load_tensors
from agents.extras import needs_extra
from awale_env.errors import CheckpointError
from awale_env.games import GAMES, Game, game_of, get_game

# Ray first: without the extra, one line saying what to install comes before torch loads (seconds of CPU).
with needs_extra("RLlib (the rllib agent, awale train rllib)"):
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    from awale_env.rllib_env import ACTION_MASK, OBSERVATIONS, absolute_action, observation_space, policy_input
import torch
from torch import nn

#: The module id of the one policy that plays both seats in self-play.
SHARED_POLICY = "shared_policy"
#: The policy file of a checkpoint directory (:func:`save_policy`), and the format it records.
POLICY_FILE = "policy.pt"
POLICY_FORMAT = "awale_env-rllib-policy-1"
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
#: ``model_config`` of the module when a run gives none: the game is the registry's default.
DEFAULT_MODEL_CONFIG = {"hidden": (256, 256), "activation": "tanh"}


def _perceptron(inputs: int, hidden: tuple[int, ...], outputs: int, activation: str, last_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(inputs, size), ACTIVATIONS[activation]()]
        inputs = size
    last = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(last.weight, gain=last_gain)  # a near-uniform first policy, as PPO implementations start
    nn.init.zeros_(last.bias)
    return nn.Sequential(*layers, last)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the entries of illegal actions (mask 0) replaced by ``FLOAT_MIN``: finite, so a row with no
    legal action (a finished game's last observation, never acted on) stays a valid distribution."""
    return torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))


class ActionMaskingModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value perceptrons over a game's observation, with illegal actions masked.

    ``model_config``: ``game`` (the registry name; the spaces size the network, but the policy file records it so an
    agent can refuse other games), ``hidden`` (layer sizes, default 256, 256) and ``activation`` (``tanh`` or
    ``relu``). The policy and the value function have separate trunks. The observation space is the Dict of
    :func:`awale_env.rllib_env.observation_space`; the action space ``Discrete(num_actions)`` of relative actions.
    """

    def setup(self) -> None:
        config = {**DEFAULT_MODEL_CONFIG, **(self.model_config or {})}
        activation = config["activation"]
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        inputs = int(np.prod(self.observation_space[OBSERVATIONS].shape))
        hidden = tuple(int(size) for size in config["hidden"])
        self.policy_net = _perceptron(inputs, hidden, self.action_space.n, activation, last_gain=0.01)
        self.value_net = _perceptron(inputs, hidden, 1, activation, last_gain=1.0)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = batch[Columns.OBS]
        logits = self.policy_net(observation[OBSERVATIONS])
        return {Columns.ACTION_DIST_INPUTS: mask_logits(logits, observation[ACTION_MASK])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.value_net(batch[Columns.OBS][OBSERVATIONS]).squeeze(-1)


def build_module(model_config: dict[str, Any]) -> ActionMaskingModule:
    """A new module for ``model_config`` (its ``game`` gives the spaces)."""
    game = get_game(model_config["game"])
    spec = RLModuleSpec(
        module_class=ActionMaskingModule,
        observation_space=observation_space(game),
        action_space=spaces.Discrete(game.num_actions),
        model_config=dict(model_config),
    )
    return spec.build()


def module_game(module: RLModule) -> Game:
    """The game a module of this toolkit was built for (its ``model_config``)."""
    name = (module.model_config or {}).get("game")
    if name not in GAMES:
        raise ValueError(f"the module's model_config names no game of the registry ({', '.join(GAMES)}): {name!r}")
    return get_game(name)


def save_policy(module: ActionMaskingModule, directory: str | Path) -> Path:
    """Write the module's :data:`POLICY_FILE` into ``directory`` (whole or not at all); return its path."""
    module_game(module)
    config = {key: list(value) if isinstance(value, tuple) else value for key, value in module.model_config.items()}
    payload = {"format": POLICY_FORMAT, "model_config": config, "state_dict": module.state_dict()}
    path = Path(directory) / POLICY_FILE
    atomic_write(path, lambda file: torch.save(payload, file))
    return path


def policy_file(path: str | Path) -> Path:
    """The policy file of ``path``: the path itself, or the :data:`POLICY_FILE` in it when it is a directory."""
    path = Path(path).expanduser()
    return path / POLICY_FILE if path.is_dir() else path


def load_policy(path: str | Path) -> ActionMaskingModule:
    """The module of a policy file, or of the :data:`POLICY_FILE` in a directory (a run's ``RUN/checkpoint``).
    Reads tensors only (``weights_only``); :class:`awale_env.errors.CheckpointError` names what is wrong."""
    path = policy_file(path)
    if not path.is_file():
        raise CheckpointError(
            f"RLlib policy not found: {path} does not exist "
            f"(training.rllib.trainer writes RUN/checkpoint/{POLICY_FILE})"
        )
    payload = load_tensors(path, str(path))
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(f"{path}: format {found!r} is not {POLICY_FORMAT!r}")
    try:
        module = build_module(payload["model_config"])
        module.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise CheckpointError(
            f"{path}: not a policy of this toolkit's module: {type(error).__name__}: {error}"
        ) from None
    return module


class RLlibAgent:
    """Plays an RLlib policy: the most probable legal move (``deterministic``) or one sampled from the policy.

    Spec: ``rllib:path=runs/rllib-GAME/checkpoint`` (a directory holding :data:`POLICY_FILE`, or the file), with
    ``deterministic=false`` and ``seed=N`` to sample. Only legal moves are ever chosen: the choice is made among the
    legal actions, whatever the network says of the others.
    """

    def __init__(self, path: str | None = None, deterministic: bool = True, seed: int | None = None) -> None:
        if path is None:
            raise ValueError(f"an rllib agent needs a policy: rllib:path=RUN/checkpoint (or a {POLICY_FILE} file)")
        self._setup(load_policy(path), f"rllib:{Path(path).name}", deterministic, seed)
        self.path = policy_file(path)

    @classmethod
    def from_module(
        cls, module: RLModule, name: str = "rllib", deterministic: bool = True, seed: int | None = None
    ) -> RLlibAgent:
        """An agent playing a module held in memory (the learner's during training)."""
        agent = cls.__new__(cls)
        agent._setup(module, name, deterministic, seed)
        agent.path = None
        return agent

    def _setup(self, module: RLModule, name: str, deterministic: bool, seed: int | None) -> None:
        self.module = module
        self.game = module_game(module)
        self.games = (self.game.name,)
        self.name = name
        self.deterministic = bool(deterministic)
        self._rng = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None = None) -> None:
        if check_seed(seed) is not None:
            self._rng = np.random.default_rng(seed)

    def weights_file(self, game: str) -> Path | None:
        """The policy file this agent plays with (None for a module given in memory)."""
        return self.path

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The policy's move, at once (no search: ``limit`` changes nothing)."""
        if game_of(state) is not self.game:
            raise ValueError(f"this policy plays {self.game.name}, not {game_of(state).name}")
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        observed = policy_input(state)
        batch = {Columns.OBS: {key: torch.from_numpy(value)[None] for key, value in observed.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        legal = np.flatnonzero(observed[ACTION_MASK])
        if self.deterministic:
            relative = legal[int(np.argmax(logits[legal]))]
        else:
            weights = np.exp(logits[legal] - logits[legal].max())
            relative = legal[int(self._rng.choice(len(legal), p=weights / weights.sum()))]
        return absolute_action(self.game, state.to_move, relative)
