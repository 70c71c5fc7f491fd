"""What Stable-Baselines3 needs of a PPO policy: the env as the policy sees it and the MaskablePPO behind a checkpoint.

Your own SB3 code loads, evaluates and fine-tunes a policy with :func:`sb3_model` (a MaskablePPO built from the
checkpoint's options and tensors) on :func:`sb3_env` (the Gymnasium env as the policy sees it: :class:`LearnerView`);
the trainer (:mod:`training.ppo.trainer`) builds, saves and restores its model with the same functions. SB3,
sb3-contrib and torch are the train extras: imported only by the functions that need them.
"""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.ppo.checkpoint import (
    NETWORK_OPTIONS,
    SB3_OPTIONS,
    TrainingCheckpoint,
    network_options,
    read_training_checkpoint,
)
from agents.ppo.policy import RING_KIND, SEED_UNIT, Policy, PolicyNet, default_features, input_size, observe
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, Game, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.gym_env import AwaleEnv


class LearnerView(gymnasium.Wrapper):
    """The learner's view of :class:`AwaleEnv`: relative actions and masks, the network's features, and the
    capture-difference shaping.

    The observation is already the learner's (the board turned so its pits come first), so actions are taken in the
    same frame: relative action r is the game's action ``r + game.action_shift(seat)`` (mod the action count; r
    itself in a game that numbers actions from the mover's side already). Without this a network would have to
    guess its seat, which the observation does not show. ``features="tactics"`` appends
    :func:`agents.ppo.policy.tactics` to the observation. The reward is the env's win/loss (+1/-1/0, reaching the
    learner also when the opponent's reply ends the game) plus ``shaping`` times the change of (own store -
    opponent's store) / the game's seeds over the step.
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

    options = network_options(options)
    rate = options["learning_rate"]
    if options["network"] == RING_KIND:
        from agents.ppo.ring_play import ring_config
        from agents.ppo.ring_sb3 import RingActorCriticPolicy

        policy, policy_kwargs = RingActorCriticPolicy, {"network": ring_config(options).to_dict()}
    else:
        activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[options["activation"]]
        arch = {"pi": list(options["net_arch"]), "vf": list(options["net_arch"])}
        policy, policy_kwargs = "MlpPolicy", {"net_arch": arch, "activation_fn": activation}
    return MaskablePPO(
        policy,
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
        policy_kwargs=policy_kwargs,
        seed=seed,
        device=device,
    )


def policy_of(policy: Any, options: dict[str, Any]) -> Policy:
    """The policy that plays (:mod:`agents.ppo.policy`) of a MaskablePPO's ``policy`` built from a run's
    ``options`` by :func:`new_sb3_model`: a copy of its weights, which later training does not change."""
    options = network_options(options)
    if options["network"] == RING_KIND:
        from agents.ppo.ring import RingPolicyNet

        return RingPolicyNet.from_sb3(policy)
    return PolicyNet.from_sb3(policy, options["activation"], options["features"], options["game"])


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
