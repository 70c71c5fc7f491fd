"""The AlphaZero agent: PUCT search guided by a trained network, for the arena and ``awale play``."""

from __future__ import annotations

import time as clock
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.alphazero.inference import NumpyNet, load_player, set_threads
from agents.alphazero.mcts import BatchedSearch, SearchConfig
from agents.base import Limit, check_positive, check_seed, game_refusal, limited
from awale_env.games import DEFAULT_GAME, GAMES, Game, game_of, get_game

if TYPE_CHECKING:
    from agents.alphazero.network import RingNet

#: Where the shipped networks are: ``<game name>.pt`` for each game one is shipped for.
PRETRAINED_DIR = Path(str(resources.files("agents.alphazero") / "pretrained"))

#: The simulations per move of a network whose checkpoint records none (training records its run's).
DEFAULT_SIMULATIONS = 800
DEFAULT_LEAVES = 8
#: The room a timed search has (a bound no move on one core reaches below ~4 s: memory is touched only as the
#: tree grows).
MAX_TIMED_SIMULATIONS = 200_000
#: A timed Gumbel search's first guess of the simulations per second it runs (the shipped network on one core of
#: the 2-core test machine, busy: about 2,500-3,500), which every timed search then measures again.
FIRST_RATE = 2_000.0
#: The share of a timed Gumbel move's time its halving is planned over: the rate of a busy machine varies from
#: move to move, and a plan that overruns is cut in its last phase.
PLANNED_SHARE = 0.9
#: The shortest timed search whose rate is measured (a shorter one is mostly the overhead of a call).
MIN_RATE_SECONDS = 0.01


def pretrained_path(game: str | Game = DEFAULT_GAME) -> Path:
    """The network shipped in the package for ``game`` (``agents/alphazero/pretrained/<game name>.pt``; none may
    be: see :func:`pretrained_games`)."""
    return PRETRAINED_DIR / f"{get_game(game).name}.pt"


def pretrained_games() -> tuple[str, ...]:
    """The games a network is shipped for (``alphazero:pretrained`` plays them); train one for the others. Read from
    the shipped files' names: only those games' packages are imported."""
    return tuple(sorted(path.stem for path in PRETRAINED_DIR.glob("*.pt") if path.stem in GAMES))


class AlphaZeroAgent:
    """Plays the move of a search guided by a network, PUCT's or Gumbel's (``search``; no noise, so it is
    deterministic).

    The network comes from ``net``, a checkpoint ``path``, or the shipped ones (``pretrained``, the default): a
    network plays the one game it was trained for, the shipped ones each game a network is shipped for, loaded when
    the agent first meets the game (:attr:`games`).
    The search's rule, constants and simulations per move (``search``, ``c_puct``, ``fpu_reduction``,
    ``considered_actions``, ``simulations``: :class:`~agents.alphazero.search_config.SearchConfig`) are the ones the
    network's checkpoint was trained with (:func:`~agents.alphazero.architecture.checkpoint_search`; the search's
    defaults and :data:`DEFAULT_SIMULATIONS` for a network given in memory or a checkpoint that records none); a
    value given here overrides them. ``time`` (seconds per move) stops the search when the time is up: an agent
    given a time and no ``simulations`` searches until then (the checkpoint's count, a cost of self-play, does not
    stop it: ``time=2`` is two seconds of search); with both, whichever comes first. A move's
    :class:`~agents.base.Limit` replaces the budgets it names for that move, the others stay the agent's (an
    untimed agent given ``Limit(time=1)`` stops at its simulations or after 1 s). A timed Gumbel search plans its
    sequential halving over the simulations its time allows, by the rate its previous timed searches ran at.
    ``leaves`` leaves are evaluated per network call, spread by virtual loss: a small batch costs the network little
    more than one position. Small batches run fastest on one thread, so the agent sets the network's products to
    ``threads`` threads (:func:`~agents.alphazero.inference.set_threads`; None leaves the setting alone).
    A checkpoint's network plays through numpy (:mod:`agents.alphazero.inference`): the agent never imports torch;
    a network given in memory (``net``, a :class:`~agents.alphazero.network.RingNet`) plays through torch.
    """

    def __init__(
        self,
        path: str | None = None,
        pretrained: bool = False,
        simulations: int | None = None,
        time: float | None = None,
        c_puct: float | None = None,
        fpu_reduction: float | None = None,
        leaves: int = DEFAULT_LEAVES,
        search: str | None = None,
        considered_actions: int | None = None,
        seed: int | None = None,
        net: RingNet | None = None,
        threads: int | None = 1,
    ) -> None:
        check_positive("simulations", simulations)
        check_positive("time", time, float)
        check_seed(seed)
        if sum((path is not None, bool(pretrained), net is not None)) > 1:
            raise ValueError("give one of path, pretrained or net")
        trained: dict[str, Any] = {}
        if net is None:
            net, trained = load_player(pretrained_path() if path is None else path)
        if threads is not None:
            set_threads(threads)
        given = {"simulations": simulations, "leaves": leaves, "search": search, "c_puct": c_puct,
                 "fpu_reduction": fpu_reduction, "considered_actions": considered_actions}  # fmt: skip
        #: The search settings given to the agent: they override those of every network it plays with.
        self.overrides = {key: value for key, value in given.items() if value is not None}
        SearchConfig(**self.overrides)  # a bad value said now, not at the first game
        self.time = time
        self._use(net, trained)
        self.pretrained = path is None and (net is None or pretrained)
        self.path = None if path is None else Path(path)
        self.name = "alphazero" + (f":path={path}" if path else ":pretrained" if self.pretrained else "")
        self.last_simulations = 0
        self.last_value = 0.0
        self._rate = FIRST_RATE  # simulations/s of a timed search, measured by each (:meth:`_measure`)
        #: The games this agent can play (the arena checks it before a tournament): its network's, or with the
        #: shipped networks every game one is shipped for.
        self.games = pretrained_games() if self.pretrained else (self.net.config.game,)

    def _use(self, net: NumpyNet | RingNet, trained: dict[str, Any]) -> None:
        """Search with ``net`` from now on, by the search settings it was ``trained`` with under the agent's own, its
        compiled kernels loaded (or compiled) now by a search of one network call from the game's start: a move's
        time is then all search, the first one's of a fresh process too."""
        self.config = SearchConfig(**{"simulations": DEFAULT_SIMULATIONS, **trained, **self.overrides})
        if self.time is not None and "simulations" not in self.overrides:  # the time alone bounds its moves
            self.config = self.config.replace(simulations=MAX_TIMED_SIMULATIONS)
        self.net = net
        if isinstance(net, NumpyNet):
            self.evaluate = net
        else:
            from agents.alphazero.network import make_evaluator  # torch: a network given in memory

            self.evaluate = make_evaluator(net.eval())
        game = get_game(self.net.config.game)
        self.search = BatchedSearch(1, self.config, game=game.name)
        warm_up = min(self.config.leaves, self.config.simulations)
        self.search.run_states([game.initial()], self.evaluate, simulations=warm_up)

    @classmethod
    def load(cls, path: str | Path = "pretrained", **kwargs) -> AlphaZeroAgent:
        """An agent with the network of checkpoint ``path`` (``"pretrained"``: the shipped one)."""
        return cls(**kwargs) if str(path) == "pretrained" else cls(path=str(path), **kwargs)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: the tree is rebuilt at every move and the search has no randomness (the seed is
        checked as every agent's is)."""
        check_seed(seed)

    def weights_file(self, game: str) -> Path | None:
        """The checkpoint of the network that plays ``game`` (None for a network given in memory)."""
        return pretrained_path(game) if self.pretrained else self.path

    def other_game_hint(self, game: str) -> str | None:
        """For a game the shipped network does not play: that none is shipped, and how to train one."""
        if not self.pretrained or game in self.games:
            return None
        return (
            f"no AlphaZero network is shipped for it; train one with `awale train alphazero --game {game}`, then play "
            "alphazero:path=<run dir>/best.pt"
        )

    def _check_game(self, state: Any) -> None:
        """A network sees one game's observations: refuse another game's State, saying what to do instead; the
        shipped networks switch to the game's."""
        game = game_of(state).name
        if game not in self.games:
            raise ValueError(game_refusal(self, self.name, game))
        if game != self.net.config.game:
            self._use(*load_player(pretrained_path(game), game))

    def policy(self, state: Any, limit: Limit | None = None) -> np.ndarray:
        """Visit counts of the search from ``state`` (a State of the network's game) per action (num_actions,),
        within ``limit``'s time and simulations (each the agent's own when not given)."""
        self._check_game(state)
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to choose")
        seconds = limited(limit, "time", self.time)
        simulations = limited(limit, "simulations", self.config.simulations)
        if seconds is not None:
            simulations = self._planned(simulations, seconds)
        if simulations > self.search.capacity:  # a larger tree (its memory is touched only as it grows)
            self.search = BatchedSearch(1, self.config.replace(simulations=simulations), game=self.search.game.name)
        start = clock.perf_counter()
        deadline = None if seconds is None else start + seconds
        evaluations = self.search.evaluations
        counts, values = self.search.run_states([state], self.evaluate, simulations=simulations, deadline=deadline)
        self.last_simulations = self.search.evaluations - evaluations
        self.last_value = float(values[0])
        if seconds is not None:
            self._measure(int(self.search.visits[0, 0]), clock.perf_counter() - start)
        return counts[0]

    def _planned(self, simulations: int, seconds: float) -> int:
        """The simulations a move of at most ``simulations`` and ``seconds`` plans: PUCT's search may stop at any
        point, so ``simulations``; Gumbel's sequential halving is planned over its whole budget (a search cut short
        halves no more), so no more than most of its time allows (:data:`PLANNED_SHARE`) at the rate measured
        before."""
        if self.config.search != "gumbel":
            return simulations
        return min(simulations, max(1, int(self._rate * seconds * PLANNED_SHARE)))

    def _measure(self, simulations: int, seconds: float) -> None:
        """Take the rate of a timed search of ``simulations`` in ``seconds`` as the next one's, unless the network
        was asked for less than half of them (a search among the terminal positions of an ending or of a warm-up's
        short game runs far faster than a move's) or the time is too short to read."""
        if seconds >= MIN_RATE_SECONDS and 2 * self.last_simulations >= simulations:
            self._rate = simulations / seconds

    def principal_variation(self, state: Any, plies: int = 12) -> list[int]:
        """The line the last search (of ``state``, by :meth:`policy` or :meth:`act`) expects: the most visited child
        of each node from the root, at most ``plies`` actions."""
        if state.is_terminal:
            return []
        return self.search.principal_line(0, plies)

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The search's move within ``limit`` (:meth:`policy`). PUCT's: the most visited, a tie going to the move of
        higher prior (a short search visits many moves once, or none when the deadline came first, and the prior
        knows more than the order of the actions). Gumbel's: the best of the most visited by logit + completed Q
        (:attr:`BatchedSearch.chosen`)."""
        counts = self.policy(state, limit)
        if self.config.search == "gumbel":
            return int(self.search.chosen[0])
        legal = state.legal_actions()
        first = int(self.search.child_first[0, 0])  # the root's children: its legal moves, in order
        prior = self.search.prior[0, first : first + len(legal)]
        return legal[max(range(len(legal)), key=lambda i: (counts[legal[i]], prior[i]))]
