"""Single-agent Gymnasium environment of any game: the learner plays one seat, an opponent replies inside ``step()``.

Registered as ``awale_env/{game.title}-v0`` for every registered game (``awale_env/Awale-v0`` the two-colour Awale,
``awale_env/Oware-v0``, ...; :mod:`awale_env.registration`). Every transition is seen from the learner's side: the
observation is the board from the learner's point of view (the game's ``observation_tensor``, within
``Game.observation_space()``), actions are the game's own (the absolute indices of rule 13 for the two-colour Awale, the
mover's pits for the others), and :meth:`AwaleEnv.action_masks` gives the legal ones (sb3-contrib's MaskablePPO reads
it, also through ``SubprocVecEnv``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from numbers import Integral
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from awale_env.batched import move_reward
from awale_env.games import DEFAULT_GAME, Game, game_of, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.import_paths import imported_from
from awale_env.kernels.batch import REWARD_MODES

RENDER_MODES = ["human", "ansi", "rgb_array"]
RENDER_FPS = 2


def render_frame(mode: str | None, state: Any, last_action: int | None = None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns in ``mode`` for a State of any game: the text board, the RGB
    image, or None after printing the board (``"human"``); None with a warning when the environment was made without
    a render mode. The drawings are the game's own (:class:`awale_env.games.Game`)."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'")
        return None
    game = game_of(state)
    if mode == "rgb_array":
        return game.render_rgb(state, last_action)
    text = game.render_ansi(state, last_action)
    if mode == "ansi":
        return text
    print(text)
    return None


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


def check_action(action: Any, game: Game) -> int:
    """``action`` as an int when it is one of ``game``'s actions, an integer 0..num_actions-1 (a Python or NumPy
    integer, or a 0-d integer array); ValueError for anything else, floats, bools and digit strings included, which
    ``int()`` would turn into a move."""
    value = np.asarray(action)
    n = game.num_actions
    if value.shape != () or not np.issubdtype(value.dtype, np.integer) or not 0 <= value < n:
        raise ValueError(f"an action is an integer 0-{n - 1} ({game.name}), got {action!r}")
    return int(value)


def check_seat(learner_seat: int | str) -> int | str:
    """Validate a ``learner_seat`` option; return it as a plain int or ``"random"``."""
    if isinstance(learner_seat, str) and learner_seat == "random":
        return learner_seat
    if isinstance(learner_seat, Integral) and not isinstance(learner_seat, bool) and learner_seat in (0, 1):
        return int(learner_seat)
    raise ValueError(f"learner_seat must be 0, 1 or 'random', got {learner_seat!r}")


#: The entry-point group that turns an opponent spec string into a policy: the ``agents`` package installs
#: ``agents.registry:opponent_policy`` there, so this layer never imports the agents.
OPPONENT_PROVIDERS = "awale_env.opponents"


def resolve_opponent(spec: str, game: Game) -> Any:
    """The policy the spec string ``spec`` names for ``game``, built by the providers installed under
    :data:`OPPONENT_PROVIDERS` (``provider(spec, game) -> policy``), tried in name order: the first that knows the spec
    builds it. ValueError if none does (a lone provider's own error, which names what is allowed)."""
    providers = sorted(entry_points(group=OPPONENT_PROVIDERS), key=lambda provider: provider.name)
    if not providers:
        raise ValueError(
            f"opponent {spec!r} is a spec string, but no package that builds opponents from one is installed "
            f"(entry-point group {OPPONENT_PROVIDERS!r}, provided by agents); pass an object with act(state) -> int "
            "or a callable state -> int"
        )
    errors = []
    for provider in providers:
        try:
            return load_provider(provider)(spec, game)
        except ValueError as error:
            errors.append(error)
    if len(errors) == 1:
        raise errors[0]
    raise ValueError("; ".join(f"{provider.name}: {error}" for provider, error in zip(providers, errors)))


def load_provider(provider: EntryPoint) -> Callable[[str, Game], Any]:
    """The function an opponents' entry point names. A package of the same name as the provider's top-level one
    that Python finds first (an ``agents/`` folder of the user's, in the working directory or beside their script)
    hides it: ImportError naming that folder and the way out, instead of a failure deep in the import."""
    top = provider.module.partition(".")[0]
    try:
        function = provider.load()
    except (ImportError, AttributeError) as error:
        place = imported_from(top)
        inner = provider.module.split(".")[1:]
        if (
            place is None
            or not inner
            or any(place.joinpath(*inner[:-1], name).exists() for name in (f"{inner[-1]}.py", inner[-1]))
        ):
            raise  # the provider's own module is there: its own error
        raise ImportError(shadowed(provider, top, place)) from error
    place, loaded = imported_from(top), sys.modules[provider.module].__file__
    if place is not None and loaded is not None and not Path(loaded).resolve().is_relative_to(place.resolve()):
        raise ImportError(shadowed(provider, top, place))
    return function


def shadowed(provider: EntryPoint, top: str, place: Path) -> str:
    """What to say when ``place`` hides the package ``top`` of ``provider``."""
    owner = f" of {provider.dist.name}" if provider.dist is not None else ""
    return (
        f"cannot load the opponents{owner} ({provider.value}): Python imports {top!r} from {place}, which hides the "
        f"installed package {top!r}; rename it, or run Python from another directory (or pass an opponent object "
        f"instead of the spec string)"
    )


class Opponent:
    """The player inside ``step()``: an agent spec string (``"random"``, ``"greedy"``, ``"alphabeta:depth=2"``, built by
    :func:`resolve_opponent`, i.e. by :func:`agents.make` when the agents are installed; random and greedy play every
    game through the State API), an object with ``act(state) -> int`` (and optionally ``reset(seed)``), or a callable
    ``f(state) -> int``; objects and callables are used as they are."""

    def __init__(self, opponent: str | Any | Callable[[Any], int], game: Game) -> None:
        if isinstance(opponent, str):
            self.agent = resolve_opponent(opponent, game)
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
            When the opponent moves first, its moves are already played when ``reset`` returns (their reward comes
            with the first step's). The opponent plays inside ``step()`` until the learner is to move again, several
            moves in a row in a game whose move can give another turn.
        max_plies: the game's ply limit (``"default"``: the game's own, ``Game.default_max_plies``; None: no limit);
            reaching it ends the game (``terminated``: the rules decide the result, and the observation shows the
            plies used).
        reward: ``"win_loss"`` (the learner's return, +1 / -1 / 0, at the end) or ``"score_diff"`` (the change of
            the learner's store lead over the step / the game's total seeds; a game's rewards add up to the final
            store difference / total seeds).
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (prints the board).
        game: a registered game's name (``awale_env.games.GAMES``; default the two-colour Awale of 2021) or a
            :class:`awale_env.games.Game`; every game goes through the same code.
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
        self.opponent = Opponent(opponent, spec)
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
        self._reset_reward = 0.0  # the reward of the opponent's moves played by reset(), paid with the first step

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
        self._reset_reward = 0.0
        while self.game.to_move != self.learner and not self.game.is_terminal:
            self._reset_reward += self._play(self.opponent.act(self.game))
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError("the episode is over; call reset() to start a new one")
        action = check_action(action, self.game_spec)
        if not self.game.is_legal(action):
            self._illegal = True
            self._last_action = action
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), -1.0, True, False, info
        reward, self._reset_reward = self._reset_reward + self._play(action), 0.0
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
        return render_frame(self.render_mode, self.game, self._last_action)

    # --- internals ------------------------------------------------------------------------------------------------

    @property
    def _over(self) -> bool:
        return self._illegal or self.game.is_terminal

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
