"""Batched Gymnasium vector environment: thousands of games stepped together in one compiled call, for any game.

``AwaleVectorEnv(num_envs)`` is what ``gymnasium.make_vec("awale_env/Awale-v0", num_envs)`` builds by default
(``game=`` a registered game's name, or its id ``awale_env/{game.title}-v0``, for the other games: each game has its
own compiled kernels behind :class:`awale_env.batched.BatchedGames`, or the pure-Python batch on its State API). It
runs in one of two modes:

* against an opponent (default ``opponent="random"``): each game is the single-agent game of
  :class:`awale_env.gym_env.AwaleEnv` (the learner's move, then the opponent's reply, everything from the
  learner's side). The random opponent runs inside the compiled step; any other agent is asked for its moves in
  Python, game by game (slower, but any agent works).
* self-play (``opponent=None``): each step plays one move in every game for the side to move; the reward is the
  mover's (the other seat's is its negative), the observation is that of the side to move next (after an illegal
  action, which ends the game without a move, still the mover's), and ``infos`` say which seat moved (``mover``)
  and which moves next (``to_move``), so one trainer controls both seats.

Autoreset follows Gymnasium 1.x: next-step by default (a game that ended is restarted by the following ``step``,
which ignores its action and returns reward 0 and ``mover = -1``), or same-step (``autoreset_mode=SAME_STEP``:
restarted at once, its last observation in ``infos["final_obs"]``). Masks of the legal actions of the player to
move are ``action_masks()`` and ``infos["action_mask"]``, shape (num_envs, num_actions); all False for a game that
just ended.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from awale_env.batched import ONGOING, batched_games
from awale_env.games import DEFAULT_GAME, Game, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.gym_env import Opponent, check_options, check_seat
from awale_env.kernels.batch import RANDOM_SEAT
from awale_env.kernels.rng import make_rng

OPPONENT_IN_STEP = "random"  # the opponent the compiled step plays itself


class AwaleVectorEnv(VectorEnv):
    """``num_envs`` games of one game as a Gymnasium ``VectorEnv`` (arrays in, arrays out).

    Args:
        num_envs: number of games.
        game: a registered game's name (default: the default game); its rule flags go in ``options``.
        opponent: ``"random"`` (compiled), None for self-play, or any opponent :class:`awale_env.gym_env.AwaleEnv`
            accepts (a spec string builds one agent per game; an object or callable is shared by all games).
        learner_seat: 0, 1 or ``"random"`` (drawn for every game); ignored in self-play.
        max_plies, reward: as in :class:`awale_env.gym_env.AwaleEnv` (Oware needs a ply limit here: it sizes each
            game's repetition set).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (Gymnasium's default) or ``AutoresetMode.SAME_STEP``.
        copy: return copies of the observation and mask buffers (True, like ``SyncVectorEnv``) or the buffers
            themselves, which the next ``step`` overwrites (faster).

    ``infos`` hold ``action_mask`` (num_envs, num_actions), ``to_move`` and, in self-play, ``mover``; for games that
    ended on this step (``infos["_outcome"]`` True) ``outcome`` (code into :attr:`outcomes`, e.g.
    ``"illegal_action"``) and ``stores`` (num_envs, 2, player 0's first). An illegal action loses at once (-1).
    ``games`` holds the games' arrays (:class:`awale_env.batched.BatchedGames`).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        opponent: str | Any | Callable[[Any], int] | None = OPPONENT_IN_STEP,
        learner_seat: int | str = 0,
        max_plies: int | str | None = GAME_DEFAULT,
        reward: str = "win_loss",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        render_mode: None = None,
        game: str | Game = DEFAULT_GAME,
        **options: Any,
    ) -> None:
        spec = get_game(game)
        max_plies = spec.ply_limit(max_plies)
        if isinstance(num_envs, bool) or not isinstance(num_envs, Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"AwaleVectorEnv draws nothing: render a game with vec.state(i); got {render_mode!r}")
        self._reward_mode = check_options(max_plies, reward, None)
        learner_seat = check_seat(learner_seat)
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {autoreset_mode!r}")
        self.metadata = {"autoreset_mode": mode}
        self.num_envs = n = int(num_envs)
        self.max_plies = max_plies
        self.game_spec = spec
        self.games = batched_games(spec, n, max_plies, self._reward_mode, options)
        self.outcomes = self.games.outcomes
        self.self_play = opponent is None
        self._compiled_opponent = isinstance(opponent, str) and opponent == OPPONENT_IN_STEP
        self._seat_option = learner_seat
        self._seat_mode = RANDOM_SEAT if learner_seat == "random" else int(learner_seat)
        if self.self_play or self._compiled_opponent:
            self.opponents: list[Opponent] = []
        elif isinstance(opponent, str):
            self.opponents = [Opponent(opponent, spec) for _ in range(n)]
        else:
            self.opponents = [Opponent(opponent, spec)] * n
        self._same_step = mode == AutoresetMode.SAME_STEP
        self._copy = copy

        self.single_observation_space = spec.observation_space()
        self.single_action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

        self.player = self.games.player
        self.learner = np.zeros(n, dtype=np.int64)
        self._rngs = np.ones((n, 1), dtype=np.uint64)
        self._obs = np.zeros((n, spec.obs_size), dtype=np.float32)
        self._masks = np.zeros((n, spec.num_actions), dtype=bool)
        self._final_obs = np.zeros((n, spec.obs_size), dtype=np.float32)
        self._final_masks = np.zeros((n, spec.num_actions), dtype=bool)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._outcome = np.zeros(n, dtype=np.int64)
        self._mover = np.zeros(n, dtype=np.int64)
        self._end_stores = np.zeros((n, 2), dtype=np.int16)
        self._started = False

    # --- the Gymnasium API --------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game (or those where ``options["reset_mask"]`` is True). ``seed`` (an int) re-seeds the
        opponents and the seat draws, so the games that follow are reproducible."""
        if seed is not None and not isinstance(seed, Integral):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        super().reset(seed=seed)
        which = np.ones(self.num_envs, dtype=bool)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"])
            if which.shape != (self.num_envs,) or which.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        if seed is not None or not self._started:
            for i, s in enumerate(self.np_random.integers(2**63, size=self.num_envs)):
                self._rngs[i] = make_rng(int(s))
            if self.opponents:
                for agent, s in zip(self.opponents, self.np_random.integers(2**63, size=self.num_envs)):
                    agent.reset(int(s) if seed is not None else None)
        self._started = True
        if self.opponents:
            for i in np.flatnonzero(which):
                self._start_vs_agent(i)
            self._write_views()
        else:
            self.games.reset(
                self._compiled_opponent, self.learner, self._seat_mode, self._rngs, which, self._obs, self._masks
            )
        return self._out(self._obs), {"action_mask": self._out(self._masks), "to_move": self.player.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {actions!r}")
        actions = actions.astype(np.int64, copy=False)
        if self.opponents:
            self._step_vs_agents(actions)
        else:
            self.games.step(
                self._compiled_opponent, self._same_step, self.learner, self._seat_mode, self._rngs, actions,
                self._rewards, self._outcome, self._mover, self._end_stores, self._obs, self._masks, self._final_obs,
                self._final_masks,
            )  # fmt: skip
        ended = self._outcome != ONGOING
        infos: dict[str, Any] = {
            "action_mask": self._out(self._masks),
            "_action_mask": np.ones(self.num_envs, dtype=bool),
            "to_move": self.player.copy(),
            "_to_move": np.ones(self.num_envs, dtype=bool),
            "outcome": self._outcome.copy(),
            "_outcome": ended,
            "stores": self._end_stores.copy(),
            "_stores": ended,
        }
        if self.self_play:
            infos["mover"] = self._mover.copy()
            infos["_mover"] = self._mover >= 0
        if self._same_step:
            infos["final_obs"] = self._final_obs.copy()
            infos["_final_obs"] = ended
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._out(self._obs), self._rewards.copy(), ended, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of the player to move in every game (the learner against an opponent), bool
        (num_envs, num_actions)."""
        return self._masks.copy()

    def state(self, i: int) -> Any:
        """Game ``i`` as a State of its game (to inspect or render it; Oware's repetition set starts afresh)."""
        return self.games.state(i)

    # --- internals ----------------------------------------------------------------------------------------------

    def _out(self, buffer: np.ndarray) -> np.ndarray:
        return buffer.copy() if self._copy else buffer

    def _opponent_replies(self, i: int) -> float:
        """The opponent of game ``i`` moves while it is its turn; return its moves' reward for the learner."""
        games, reward = self.games, 0.0
        while games.status[i] == ONGOING and games.player[i] != self.learner[i]:
            reward -= games.play(i, self.opponents[i].act(self.state(i)))
        return reward

    def _start_vs_agent(self, i: int) -> None:
        self.games.start(i, self._rngs)
        seat = self._seat_option
        self.learner[i] = int(self.np_random.integers(2)) if seat == "random" else seat
        self._opponent_replies(i)

    def _step_vs_agents(self, actions: np.ndarray) -> None:
        """The learner's moves and the agents' replies, game by game in Python (the agents are Python objects)."""
        status = self.games.status
        for i in range(self.num_envs):
            self._outcome[i] = ONGOING
            self._rewards[i] = 0.0
            if status[i] != ONGOING:
                self._start_vs_agent(i)
                continue
            reward = self.games.play(i, int(actions[i]))
            reward += self._opponent_replies(i)
            self._rewards[i] = reward
            self._outcome[i] = status[i]
            if status[i] != ONGOING:
                self._end_stores[i] = self.games.stores(i)
                if self._same_step:
                    self._write_view(i, self._final_obs, self._final_masks)
                    self._start_vs_agent(i)
        self._write_views()

    def _write_view(self, i: int, obs: np.ndarray, masks: np.ndarray) -> None:
        """Game ``i`` from its learner's side into ``obs[i]`` and ``masks[i]``."""
        self.games.view(i, int(self.learner[i]), obs, masks)

    def _write_views(self) -> None:
        for i in range(self.num_envs):
            self._write_view(i, self._obs, self._masks)
