"""PettingZoo AEC environment of any game of the toolkit, built like PettingZoo's classic board games.

``awale_env.env()`` is the wrapped environment of the default game (illegal moves lose with -1, out-of-range
actions assert, calls are checked for order), ``awale_env.{name}_env()`` the same for each other registered game,
``awale_env.raw_env`` the bare one (``game=`` chooses). ``pettingzoo.make("aec", id)`` builds the wrapped ones too,
ids ``awale_env/{game.title.lower()}-v0`` (:mod:`awale_env.registration`).

``awale_env.env`` names both this module and its factory :func:`env`: the module is callable as :func:`env`, so that
``awale_env.env(...)`` builds an environment whichever of the two the name holds (the import system sets it to the
module when the module is first imported by its path).
"""

from __future__ import annotations

import random
import sys
import types
from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from awale_env.batched import move_reward
from awale_env.games import DEFAULT_GAME, GAMES, Game, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.gym_env import RENDER_FPS, RENDER_MODES, check_action, check_options, render_frame

AGENTS = ("player_0", "player_1")


# The per-step attributes every AEC loop reads (``last()``, the wrappers' own checks). PettingZoo's wrappers reach
# them through one ``__getattr__`` per layer, which costs more than a move of this game does.
STEP_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)


def _raw_attribute(name: str) -> property:
    def read(self: Any) -> Any:
        if not self._has_reset and name != "_cumulative_rewards":
            raise AttributeError(f"{name} cannot be accessed before reset")  # OrderEnforcingWrapper's rule
        return getattr(self._raw, name)

    def write(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return property(read, write)


class _DirectAttributes:
    """Mixed into PettingZoo's standard wrappers: the step attributes are read from the raw env in one step instead
    of through every layer's ``__getattr__`` (same values, same before-reset error; 1.5-2x more steps/s)."""

    _has_reset = True  # OrderEnforcingWrapper keeps its own, per instance

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        super().__init__(env, *args, **kwargs)


for _name in STEP_ATTRIBUTES:
    setattr(_DirectAttributes, _name, _raw_attribute(_name))


class TerminateIllegalWrapper(_DirectAttributes, wrappers.TerminateIllegalWrapper):
    pass


class AssertOutOfBoundsWrapper(_DirectAttributes, wrappers.AssertOutOfBoundsWrapper):
    pass


class OrderEnforcingWrapper(_DirectAttributes, wrappers.OrderEnforcingWrapper):
    pass


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's standard wrappers for board games: an illegal move ends the game with
    -1 for its mover (``TerminateIllegalWrapper``), actions outside the action space fail an assertion, and misuse
    of the API (stepping before ``reset``) raises. Keyword arguments go to :class:`raw_env` (``game="awale16"`` by
    default). The wrappers are PettingZoo's own, subclassed only to read the step attributes directly
    (:class:`_DirectAttributes`)."""
    aec = raw_env(**kwargs)
    aec = TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = AssertOutOfBoundsWrapper(aec)
    return OrderEnforcingWrapper(aec)


def game_env(name: str) -> Callable[..., AECEnv]:
    """:func:`env` for the registered game ``name`` (its rule flags as keyword arguments): ``awale_env.{name}_env``."""
    game = get_game(name)

    def make(**kwargs: Any) -> AECEnv:
        return env(game=game.name, **kwargs)

    make.__name__ = make.__qualname__ = f"{game.name}_env"
    make.__doc__ = f":func:`env` for {game.title}, whose rule flags are {', '.join(game.rule_options) or 'none'}."
    return make


def __getattr__(name: str) -> Callable[..., AECEnv]:
    """``{name}_env`` for each registered game but the default one (whose factory is :func:`env`)."""
    game = name.removesuffix("_env")
    if name.endswith("_env") and game in GAMES and game != DEFAULT_GAME:
        return game_env(game)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers plain ints at once: the wrappers check every action with it, and
    Gymnasium's general version costs more than a move of this game does. A bool is no action (Gymnasium's takes
    True for 1), as in :class:`raw_env`."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return self.start <= x < self.start + self.n
        return not isinstance(x, bool) and super().contains(x)


class raw_env(AECEnv, EzPickle):
    """A game of the toolkit for two agents, ``player_0`` and ``player_1`` (the game's players 0 and 1), through
    the :class:`awale_env.games.Game` protocol: ``game`` is a registered game's name (default: the default game).

    Actions are ``Discrete(game.num_actions)``, the game's own encoding (absolute for the two-colour Awale, rule
    13; the mover's pits for Oware and Hawalis). ``observe(agent)`` returns ``{"observation": float32[obs_size],
    "action_mask": int8[num_actions]}``: the game's ``observation_tensor`` from that agent's side (own pits first,
    stores, plies used) and its legal actions, all zeros unless it is to move.

    ``max_plies`` is the game's ply limit (``"default"``: the game's own, ``Game.default_max_plies``; None: no limit);
    reaching it ends the game (termination, not truncation: it is a rule of the game and the observation shows the
    plies used). Further keyword arguments are the game's rule flags (e.g. ``preset="openspiel"`` for Oware,
    ``endless_move="illegal"`` for Hawalis); a game that leaves something to chance (Oware's ``"texts"`` first
    player) draws it from ``reset(seed=...)``, so seeded resets are reproducible.

    Rewards are zero-sum: ``reward="win_loss"`` pays the game's returns (+1 / -1 / 0) when it ends;
    ``"score_diff"`` pays the mover the change of its store lead over the move / ``game.total_seeds`` (the other
    agent the opposite), so a game adds up to the final store difference / total seeds. ``infos[agent]`` holds
    ``action_mask`` (as in the observation) and, at the end, ``stores`` (player_0's first) and ``end_reason``. An
    illegal action raises :class:`awale_env.IllegalMoveError` here; :func:`env` turns it into a loss. What is no
    action of the space (an integer out of range, a float, a bool, a string) raises ValueError, as in the Gymnasium
    env. ``game`` is
    the current State (named so as not to hide PettingZoo's ``state()``), ``game_spec`` the :class:`Game`.
    """

    metadata = {
        "name": "awale_v0",
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self,
        game: str | Game = DEFAULT_GAME,
        max_plies: int | str | None = GAME_DEFAULT,
        reward: str = "win_loss",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, game=game, max_plies=max_plies, reward=reward, render_mode=render_mode, **options)
        super().__init__()
        spec = get_game(game)
        spec.check_options(options, rule_flags_only=True)
        max_plies = spec.ply_limit(max_plies)
        self._reward_mode = check_options(max_plies, reward, render_mode)
        self.game_spec = spec
        self.metadata = {**type(self).metadata, "name": f"{spec.title.lower()}_v0"}
        self.max_plies = max_plies
        self.reward = reward
        self.render_mode = render_mode
        self.options = options
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {agent: ActionSpace(spec.num_actions) for agent in AGENTS}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spec.observation_space(),
                    "action_mask": spaces.Box(0, 1, (spec.num_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self._rng = random.Random()
        self.game = spec.initial(max_plies=max_plies, **options)  # checks the rule flags' values at once
        self._last_action: int | None = None
        self._masked, self._legal_mask = None, np.zeros(spec.num_actions, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def _mask(self, agent: str) -> np.ndarray:
        if agent != self.agent_selection or self.game.is_terminal:
            return np.zeros(self.game_spec.num_actions, dtype=np.int8)
        if self._masked is not self.game:  # one legal_mask per position: observe and infos ask for it again
            self._masked, self._legal_mask = self.game, self.game.legal_mask().view(np.int8)
        return self._legal_mask.copy()

    def _set_infos(self) -> None:
        """Fresh ``infos`` holding each agent's action mask, as in its observation."""
        self.infos = {agent: {"action_mask": self._mask(agent)} for agent in AGENTS}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        return {"observation": self.game.observation_tensor(seat), "action_mask": self._mask(agent)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` (a non-negative integer, as Gymnasium's) re-seeds what the game leaves to chance
        (nothing for the two-colour Awale)."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        if seed is not None:
            self._rng = random.Random(seed)  # cheaper than a NumPy generator; it only draws the games' seeds
        draw = self._rng.getrandbits(63)
        self.game = self.game_spec.initial(max_plies=self.max_plies, seed=draw, **self.options)
        self._last_action = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.agent_selection = AGENTS[self.game.to_move]
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self.game_spec.num_actions:  # plain ints: no NumPy call
            action = check_action(action, self.game_spec)
        before = self.game
        mover = before.to_move
        self.game = state = before.play(action)
        self._last_action = action
        stores = state.stores
        over = state.is_terminal
        reward = move_reward(self._reward_mode, self.game_spec, before, state)
        self.rewards = {AGENTS[mover]: reward, AGENTS[1 - mover]: -reward}
        self.agent_selection = AGENTS[state.to_move]
        if over:
            self.terminations = dict.fromkeys(AGENTS, True)
        self._set_infos()
        if over:
            for info in self.infos.values():
                info.update(stores=stores, end_reason=state.end_reason)
        self._cumulative_rewards[AGENTS[mover]] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        return render_frame(self.render_mode, self.game, self._last_action)

    def close(self) -> None:
        """Nothing to release: rendering opens no window."""


class _EnvModule(types.ModuleType):
    """This module, callable as :func:`env` (see the module docstring)."""

    def __call__(self, **kwargs: Any) -> AECEnv:
        return env(**kwargs)


sys.modules[__name__].__class__ = _EnvModule
