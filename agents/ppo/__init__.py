"""The PPO agent: a policy trained by :mod:`training.ppo.trainer`, played from its checkpoint.

The policy networks and their features are :mod:`agents.ppo.policy` (the MLP) and :mod:`agents.ppo.ring` (the
AlphaZero agent's network, in torch to train; :mod:`agents.ppo.ring_play` plays it), both played with numpy alone
(neither torch nor SB3); the checkpoint file :mod:`agents.ppo.checkpoint`. Your own SB3 code loads, evaluates and
fine-tunes a policy with :func:`sb3_model` on :func:`sb3_env` (:mod:`agents.ppo.sb3`, importable from here too, as
the docs show).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Limit, check_seed, game_refusal
from agents.ppo.checkpoint import open_checkpoint, read_config, read_policy
from agents.ppo.policy import Policy
from awale_env.errors import CheckpointError as CheckpointError  # documented as agents.ppo.CheckpointError
from awale_env.games import DEFAULT_GAME, GAMES, Game, game_of, get_game

#: Where the shipped policies are: ``ppo_<game name>.zip`` for each game one is shipped for.
PRETRAINED_DIR = Path(__file__).parent / "pretrained"


def pretrained_path(game: str | Game = DEFAULT_GAME) -> Path:
    """The policy shipped in the package for ``game`` (``agents/ppo/pretrained/ppo_<game name>.zip``; none may be: see
    :func:`pretrained_games`)."""
    return PRETRAINED_DIR / f"ppo_{get_game(game).name}.zip"


def pretrained_games() -> tuple[str, ...]:
    """The games a policy is shipped for (``ppo:pretrained`` plays them)."""
    return tuple(name for name in GAMES if pretrained_path(name).is_file())


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
        self._load(pretrained_path() if pretrained else Path(path), DEFAULT_GAME if pretrained else None)
        self.deterministic = bool(deterministic)
        self._rng = np.random.default_rng(check_seed(seed))
        self.name = "ppo:pretrained" if pretrained else f"ppo:{self.path.name}"

    def _load(self, source: Path, game: Game | str | None = None) -> None:
        """Play the policy of the checkpoint ``source`` (of ``game``, when given) from now on."""
        with open_checkpoint(source) as archive:
            self.config = read_config(archive, game)
            self.net = read_policy(archive, self.config, str(source))
        self.net.set_up_play()
        self.path: Path | None = source

    @classmethod
    def from_net(cls, net: Policy, name: str = "ppo", deterministic: bool = True, seed: int | None = None):
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

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The policy's move, at once (no search: ``limit`` changes nothing)."""
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to play")
        game = game_of(state)
        if game is not self.net.game and game != self.net.game:  # a policy sent to a worker process: a copy
            if game.name not in self.games:
                raise ValueError(game_refusal(self, self.name, game.name))
            self._load(pretrained_path(game), game)  # the shipped policies: the one for this game
        return self.net.act(state, None if self.deterministic else self._rng)


#: The public SB3 API documented at this path (docs/ppo.md), in :mod:`agents.ppo.sb3`.
SB3_API = ("LearnerView", "sb3_env", "sb3_model")


def __getattr__(name: str) -> Any:
    """:data:`SB3_API`, loaded when first asked for: it imports Gymnasium's envs, which playing a checkpoint never
    needs (``awale bot``'s engine plays the shipped policy without them)."""
    if name in SB3_API:
        from agents.ppo import sb3

        return getattr(sb3, name)
    raise AttributeError(f"module 'agents.ppo' has no attribute {name!r}")
