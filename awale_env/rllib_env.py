"""RLlib's multi-agent API over the toolkit's PettingZoo AEC env, for any game of the registry.

This module imports Ray (``pip install "awale_env[rllib]"``); nothing else in ``awale_env`` imports it, so Ray is
loaded only by those who use RLlib. :class:`RLlibGameEnv` is what an RLlib config names as its env
(``PPOConfig().environment(RLlibGameEnv, env_config={"game": ...}, disable_env_checking=True)``; a ready self-play
config is :func:`training.rllib.trainer.ppo_config`). It wraps :class:`awale_env.env.raw_env` and differs from RLlib's
own ``PettingZooEnv`` wrapper where that one stops a new user:

* Observations are ``{"observations": float32[obs_size], "action_mask": float32[num_actions]}``: the keys RLlib's
  action-masking modules read (PettingZoo's observation key is ``"observation"``, its mask int8).
* Actions and masks are *relative* to the mover's seat (relative action ``r`` is the game's action
  ``(r + game.action_shift(seat)) % num_actions``), as the observation already is, so one shared policy plays both
  seats with the same weights (:func:`policy_input`, :func:`absolute_action`).
* An illegal action raises :class:`awale_env.IllegalMoveError` (the raw env's rule) instead of ending the game: a
  policy that ever takes one has lost its mask, which is a bug to see, not a move to learn from. RLlib's env check
  steps random actions regardless of the mask, hence ``disable_env_checking=True``.
* Turn by turn: a step returns the observation of the player to move only, and the move's rewards for both players
  (zero-sum; RLlib adds a waiting player's rewards to its next step); when the game ends both players get a last
  observation and ``terminated``. The ply limit is a rule of the game: it terminates, never truncates.

Nothing here needs Ray to be running: the env is plain Python and plays whole games on its own (tests do).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from awale_env.env import AGENTS, raw_env
from awale_env.games import DEFAULT_GAME, Game, game_of

#: The observation keys of :class:`RLlibGameEnv` (those of RLlib's action-masking examples).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


def observation_space(game: Game) -> spaces.Dict:
    """The observation space of one player of ``game`` in :class:`RLlibGameEnv`."""
    mask = spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32)
    return spaces.Dict({OBSERVATIONS: game.observation_space(), ACTION_MASK: mask})


def policy_input(state: Any, seat: int | None = None) -> dict[str, np.ndarray]:
    """What a policy sees of ``state`` from ``seat`` (default: the player to move): the game's observation from that
    side and the legal actions relative to that seat (all zeros unless it is to move and the game goes on)."""
    game = game_of(state)
    seat = state.to_move if seat is None else seat
    mask = np.zeros(game.num_actions, dtype=np.float32)
    if seat == state.to_move and not state.is_terminal:
        mask[:] = np.roll(state.legal_mask(), -game.action_shift(seat))
    return {OBSERVATIONS: state.observation_tensor(seat), ACTION_MASK: mask}


def absolute_action(game: Game, seat: int, relative: int) -> int:
    """The game's action of ``relative`` (a policy's action from ``seat``'s side)."""
    return (int(relative) + game.action_shift(seat)) % game.num_actions


class RLlibGameEnv(MultiAgentEnv):
    """A game of the registry as an RLlib ``MultiAgentEnv`` with the agents ``player_0`` and ``player_1``.

    ``config`` (RLlib's ``env_config``) holds ``game`` (default: the toolkit's default game) and the keyword
    arguments of :class:`awale_env.env.raw_env`: ``max_plies``, ``reward`` (``"win_loss"``, or ``"score_diff"`` for
    a reward every capture) and the game's rule flags. See the module docstring for observations and actions.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})  # RLlib passes an EnvContext, a dict with the runner's index beside it
        self.aec = raw_env(game=options.pop("game", DEFAULT_GAME), **options)
        self.game = self.aec.game_spec
        self.agents = list(AGENTS)
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {agent: observation_space(self.game) for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in AGENTS}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        return policy_input(self.aec.game, AGENTS.index(agent))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game (``seed`` re-seeds what the game leaves to chance); the observation of the player to move."""
        self.aec.reset(seed=seed)
        mover = self.aec.agent_selection
        return {mover: self._observe(mover)}, {mover: {}}

    def step(self, action_dict: dict[str, int]) -> tuple[dict[str, Any], ...]:
        """Play the mover's relative action; KeyError if ``action_dict`` lacks the player to move."""
        mover = self.aec.agent_selection
        seat = AGENTS.index(mover)
        self.aec.step(absolute_action(self.game, seat, action_dict[mover]))
        rewards = {agent: float(self.aec.rewards[agent]) for agent in AGENTS}
        over = self.aec.game.is_terminal
        players = AGENTS if over else (self.aec.agent_selection,)
        observations = {agent: self._observe(agent) for agent in players}
        infos = {agent: self._end_info() if over else {} for agent in players}
        terminateds = {**dict.fromkeys(players, over), "__all__": over}
        return observations, rewards, terminateds, {"__all__": False}, infos

    def _end_info(self) -> dict[str, Any]:
        state = self.aec.game
        return {"stores": state.stores, "end_reason": state.end_reason, "winner": state.winner}

    def render(self) -> Any:
        return self.aec.render()
