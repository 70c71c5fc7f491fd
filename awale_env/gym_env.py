"""Single-agent Gymnasium environment of any game: the learner plays one seat, an opponent replies inside ``step()``.

Registered by ``import awale_env`` as ``awale_env/Awale-v0`` (the two-colour Awale), ``awale_env/Oware-v0`` and
``awale_env/Hawalis-v0``. Every transition is seen from the learner's side: the observation is the board from the
learner's point of view (the game's ``observation_tensor``; :func:`observation_box` documents the two-colour
game's), actions are the game's own (the absolute indices of rule 13 for the two-colour Awale, the mover's pits
for the others), and :meth:`AwaleEnv.action_masks` gives the legal ones (sb3-contrib's MaskablePPO reads it, also
through ``SubprocVecEnv``).
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from awale_env import render as board_render
from awale_env.core.batch import REWARD_MODES, SCORE_DIFF
from awale_env.games import AWALE16, DEFAULT_GAME, Game, get_game
from awale_env.games.base import GAME_DEFAULT

RENDER_MODES = ["human", "ansi", "rgb_array"]
RENDER_FPS = 2


def observation_box() -> spaces.Box:
    """The space of :func:`awale_env.core.awale16.observe`: float32[35], the board from the observer's side (the
    other games': ``Game.observation_space()``).

    Entries ``2 * k + c`` (k = 0..15, c = 0 red / 1 blue) hold the seeds of colour c in relative hole k divided by
    16: relative hole k is absolute hole ``k + 1 + seat`` (wrapping 16 -> 1), so the observer's own holes are the
    even k, in sowing order, for both seats: player 1 sees the board exactly as player 0 would see it turned back
    by one hole (hole h + 1 -> h, stores swapped), so a position and its one-hole rotation look the same to the
    two seats.
    Entry 32 is the observer's store / 64, entry 33 the opponent's, entry 34 the fraction of ``max_plies`` played
    (0 without a limit). Seed entries reach 4 (all 64 seeds of a colour in one hole, 64/16); the others stay in
    [0, 1], so the upper bound is 4 for the 32 board entries and 1 for the last three.
    """
    return AWALE16.observation_space()


def check_options(max_plies: int | None, reward: str, render_mode: str | None) -> int:
    """Validate the options every environment shares; return the reward scheme's code for the kernels."""
    if max_plies is not None and (isinstance(max_plies, bool) or not isinstance(max_plies, Integral) or max_plies < 1):
        raise ValueError(
            f"max_plies must be a positive integer, None (no limit) or 'default' (the game's limit), got {max_plies!r}"
        )
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, got {reward!r}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be None or one of {', '.join(map(repr, RENDER_MODES))}, got {render_mode!r}"
        )
    return REWARD_MODES.index(reward)


def move_reward(reward_mode: int, game: Game, before: Any, after: Any) -> float:
    """The reward of the player who moved from State ``before`` to ``after``; the other player's is its negative.

    ``win_loss``: the mover's return (+1 / -1 / 0) once the game is over, 0 before. ``score_diff``: the change of the
    mover's store lead over the move / ``game.total_seeds``, so a game adds up to the final store difference / total
    seeds (seeds collected at the end count too).
    """
    mover = before.to_move
    if reward_mode == SCORE_DIFF:
        old, new = before.stores, after.stores
        return ((new[mover] - new[1 - mover]) - (old[mover] - old[1 - mover])) / game.total_seeds
    return after.returns()[mover] if after.is_terminal else 0.0


def check_seat(learner_seat: int | str) -> int | str:
    """Validate a ``learner_seat`` option; return it as a plain int or ``"random"``."""
    if isinstance(learner_seat, str) and learner_seat == "random":
        return learner_seat
    if isinstance(learner_seat, Integral) and not isinstance(learner_seat, bool) and learner_seat in (0, 1):
        return int(learner_seat)
    raise ValueError(f"learner_seat must be 0, 1 or 'random', got {learner_seat!r}")


class Opponent:
    """The player inside ``step()``: an agent spec string (``"random"``, ``"greedy"``, ``"alphabeta:depth=2"``, built by
    :func:`agents.make`; random and greedy play every game through the State API), an object with
    ``act(state) -> int`` (and optionally ``reset(seed)``), or a callable ``f(state) -> int``."""

    def __init__(self, opponent: str | Any | Callable[[Any], int]) -> None:
        if isinstance(opponent, str):
            import agents  # here, not at the top: agents imports awale_env

            self.agent = agents.make(opponent)
            self._act = self.agent.act
        elif callable(getattr(opponent, "act", None)):
            self.agent, self._act = opponent, opponent.act
        elif callable(opponent):
            self.agent, self._act = opponent, opponent
        else:
            raise ValueError(
                "opponent must be an agent spec string such as 'random', 'greedy' or 'alphabeta:depth=2', "
                f"an object with act(state) -> int, or a callable state -> int; got {opponent!r}"
            )

    def reset(self, seed: int | None) -> None:
        """Start a new game: forwards to the agent's ``reset(seed)`` when it has one (re-seeding it if ``seed``)."""
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset(seed)

    def act(self, state: Any) -> int:
        """The opponent's action, checked: an illegal one is the opponent's bug and raises IllegalMoveError."""
        return state.to_action(self._act(state))


class AwaleEnv(gymnasium.Env):
    """A game of the toolkit against a fixed opponent, from the learner's side.

    Args:
        opponent: who replies inside ``step()`` (see :class:`Opponent`); default ``"random"``.
        learner_seat: 0, 1, or ``"random"`` (drawn every episode). Player 0 moves first in the two-colour Awale
            and, by default, in Hawalis; Oware's ``"texts"`` preset draws the first player from the reset seed.
            When the opponent moves first, its move is already played when ``reset`` returns.
        max_plies: the game's ply limit (``"default"``: 400 for awale16, 1000 for the others; None: no limit);
            reaching it ends the game (``terminated``: the rules decide the result, and the observation shows the
            plies used).
        reward: ``"win_loss"`` (the learner's return, +1 / -1 / 0, at the end) or ``"score_diff"`` (the change of
            the learner's store lead over the step / the game's total seeds; a game's rewards add up to the final
            store difference / total seeds).
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (prints the board).
        game: ``"awale16"`` (the two-colour Awale, default), ``"oware"`` or ``"hawalis"`` (or a
            :class:`awale_env.games.Game`); every game goes through the same code.
        options: the game's rule flags, e.g. ``preset="openspiel"`` (Oware) or ``endless_move="illegal"``
            (Hawalis).

    An action that is not legal never raises: the learner loses at once (reward -1, ``terminated``) and ``info``
    holds ``end_reason="illegal_action"`` and ``illegal_action``. ``info`` always holds ``action_mask`` and
    ``learner_seat``; at the end also ``stores`` (player 0's first), ``end_reason`` and ``winner``.
    ``reset(seed=...)`` also re-seeds the opponent and the game's chance, so episodes are reproducible. ``game`` is
    the current State, ``game_spec`` the :class:`Game` and ``learner`` the learner's seat in this episode.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}

    def __init__(
        self,
        opponent: str | Any | Callable[[Any], int] = "random",
        learner_seat: int | str = 0,
        max_plies: int | str | None = GAME_DEFAULT,
        reward: str = "win_loss",
        render_mode: str | None = None,
        game: str | Game = DEFAULT_GAME,
        **options: Any,
    ) -> None:
        spec = get_game(game)
        spec.check_options(options, rule_flags_only=True)
        max_plies = spec.ply_limit(max_plies)
        self._reward_mode = check_options(max_plies, reward, render_mode)
        self.learner_seat_option = check_seat(learner_seat)
        spec.initial(max_plies=max_plies, **options)  # checks the rule flags' values now, not at the first reset
        self.opponent = Opponent(opponent)
        self.game_spec = spec
        self.max_plies = max_plies
        self.reward = reward
        self.render_mode = render_mode
        self.options = options
        self.observation_space = spec.observation_space()
        self.action_space = spaces.Discrete(spec.num_actions)
        self.game: Any = None
        self.learner = 0
        self._illegal = False
        self._last_action: int | None = None

    # --- the Gymnasium API --------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        opponent_seed = None if seed is None else int(self.np_random.integers(2**63))
        self.opponent.reset(opponent_seed)
        seat = self.learner_seat_option
        self.learner = int(self.np_random.integers(2)) if seat == "random" else seat
        game_seed = int(self.np_random.integers(2**63))
        self.game = self.game_spec.initial(max_plies=self.max_plies, seed=game_seed, **self.options)
        self._illegal = False
        self._last_action = None
        while self.game.to_move != self.learner and not self.game.is_terminal:
            self._play(self.opponent.act(self.game))
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError("the episode is over; call reset() to start a new one")
        action = self._check_action(action)
        if not self.game.is_legal(action):
            self._illegal = True
            self._last_action = action
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), -1.0, True, False, info
        reward = self._play(action)
        while not self.game.is_terminal and self.game.to_move != self.learner:
            reward += self._play(self.opponent.act(self.game))
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions, shape (num_actions,); all False once the episode is over."""
        if self.game is None or self._over:
            return np.zeros(self.game_spec.num_actions, dtype=bool)
        return self.game.legal_mask()

    def render(self) -> str | np.ndarray | None:
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        return board_render.render(self.render_mode, self.game, self._last_action)

    # --- internals ------------------------------------------------------------------------------------------------

    @property
    def _over(self) -> bool:
        return self._illegal or self.game.is_terminal

    def _check_action(self, action: Any) -> int:
        value = np.asarray(action)
        n = self.game_spec.num_actions
        if value.shape != () or not np.issubdtype(value.dtype, np.integer) or not 0 <= value < n:
            raise ValueError(f"an action is an integer 0-{n - 1} ({self.game_spec.name}), got {action!r}")
        return int(value)

    def _play(self, action: int) -> float:
        """Play one legal action for the side to move; return that move's reward for the learner."""
        before = self.game
        self.game = before.play(action)
        self._last_action = action
        reward = move_reward(self._reward_mode, self.game_spec, before, self.game)
        return reward if before.to_move == self.learner else -reward

    def _observation(self) -> np.ndarray:
        return self.game.observation_tensor(self.learner)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "learner_seat": self.learner}
        if self._over:
            info["stores"] = self.game.stores
            if self._illegal:
                info["end_reason"] = "illegal_action"
                info["winner"] = 1 - self.learner
            else:
                info["end_reason"] = self.game.end_reason
                info["winner"] = self.game.winner
        return info
