"""PettingZoo AEC environment of the two-colour Awale, built like PettingZoo's classic board games.

``awale_env.env()`` is the wrapped environment (illegal moves lose with -1, out-of-range actions assert, calls are
checked for order), ``awale_env.raw_env`` the bare one; ``pettingzoo.make("aec", "awale_env/awale-v0")`` builds
the wrapped one too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from awale_env import render as board_render
from awale_env.core import awale16 as core
from awale_env.core.batch import move_reward
from awale_env.gym_env import RENDER_FPS, RENDER_MODES, check_options, observation_box
from awale_env.rules import DEFAULT_MAX_PLIES, State

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
    -1 for its mover (``TerminateIllegalWrapper``), actions outside 0-31 fail an assertion, and misuse of the API
    (stepping before ``reset``) raises. Keyword arguments go to :class:`raw_env`. The wrappers are PettingZoo's own,
    subclassed only to read the step attributes directly (:class:`_DirectAttributes`)."""
    aec = raw_env(**kwargs)
    aec = TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = AssertOutOfBoundsWrapper(aec)
    return OrderEnforcingWrapper(aec)


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers plain ints at once: the wrappers check every action with it, and
    Gymnasium's general version costs more than a move of this game does."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return self.start <= x < self.start + self.n
        return super().contains(x)


class raw_env(AECEnv, EzPickle):
    """The two-colour Awale for two agents: ``player_0`` (odd holes, moves first) and ``player_1`` (even holes).

    Actions are ``Discrete(32)`` in the absolute encoding of rule 13 (``2 * (hole - 1) + colour``) for both agents.
    ``observe(agent)`` returns ``{"observation": float32[35], "action_mask": int8[32]}``: the board from that
    agent's side (layout in :func:`awale_env.gym_env.observation_box`: own holes at the even entries, both colours
    per hole, own store first, plies used) and its legal actions, all zeros unless it is to move.

    Rewards are zero-sum: ``reward="win_loss"`` pays +1 / -1 (0 for a draw) when the game ends; ``"score_diff"``
    pays the mover ``gained / 64`` per move and the other agent the opposite, so a game adds up to the final store
    difference / 64. Reaching ``max_plies`` ends the game (termination, not truncation: it is a rule of the game and
    the observation shows the plies used). ``infos[agent]`` holds ``action_mask`` (as in the observation) and, at
    the end, ``stores`` (player_0's first) and ``end_reason``. An illegal action raises
    :class:`awale_env.IllegalMoveError` here; :func:`env` turns it into a loss. ``game`` is the current
    :class:`awale_env.State` (named so as not to hide PettingZoo's ``state()``).
    """

    metadata = {
        "name": "awale_v0",
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self, max_plies: int | None = DEFAULT_MAX_PLIES, reward: str = "win_loss", render_mode: str | None = None
    ) -> None:
        EzPickle.__init__(self, max_plies=max_plies, reward=reward, render_mode=render_mode)
        super().__init__()
        self._reward_mode = check_options(max_plies, reward, render_mode)
        self.max_plies = max_plies
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {agent: ActionSpace(core.NUM_ACTIONS) for agent in AGENTS}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": observation_box(),
                    "action_mask": spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.game = State.initial(max_plies)
        self._last_action: int | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_terminal:
            core.legal_mask(self.game._seeds, self.game.to_move, mask.view(bool))
        return mask

    def _set_infos(self) -> None:
        """Fresh ``infos`` holding each agent's action mask, as in its observation."""
        self.infos = {agent: {"action_mask": self._mask(agent)} for agent in AGENTS}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        return {"observation": self.game.observation_tensor(seat), "action_mask": self._mask(agent)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the game has no randomness, so ``seed`` changes nothing)."""
        self.game = State.initial(self.max_plies)
        self._last_action = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        mover = self.game.to_move
        self.game = self.game.play(int(action))
        self._last_action = int(action)
        stores = self.game.stores
        reward = move_reward(self._reward_mode, self.game._status, mover, self.game.last_capture, *stores)
        self.rewards = {AGENTS[mover]: reward, AGENTS[1 - mover]: -reward}
        self.agent_selection = self._agent_selector.next()
        over = self.game.is_terminal
        if over:
            self.terminations = dict.fromkeys(AGENTS, True)
        self._set_infos()
        if over:
            for info in self.infos.values():
                info.update(stores=stores, end_reason=self.game.end_reason)
        self._cumulative_rewards[AGENTS[mover]] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        return board_render.render(self.render_mode, self.game, self._last_action)

    def close(self) -> None:
        """Nothing to release: rendering opens no window."""
