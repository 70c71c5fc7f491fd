"""Games played by batched search: self-play games that yield training samples, and matches between two evaluators.

Every game slot advances one move per call of the batched search, so all slots' leaves share each network call;
a finished game is replaced by a new one at once, so the batch stays full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.alphazero.mcts import BatchedSearch, Evaluator, SearchConfig
from awale_env.games import DEFAULT_GAME, Game, get_game


def absolute_of_relative(game: str | Game) -> np.ndarray:
    """``table[player][r]``: the game's action of relative action ``r`` (the networks' numbering) for that player."""
    game = get_game(game)
    relative = np.arange(game.num_actions)
    return np.array([(relative + game.action_shift(p)) % game.num_actions for p in (0, 1)])


@dataclass
class Samples:
    """Training samples: observations (n, obs_size), search policies over relative actions (n, num_actions),
    outcomes (n,) for the player to move (+1 win, -1 loss, 0 draw)."""

    obs: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    @classmethod
    def empty(cls, game: str | Game = DEFAULT_GAME) -> Samples:
        game = get_game(game)
        obs, policy = np.zeros((0, game.obs_size), np.float32), np.zeros((0, game.num_actions), np.float32)
        return cls(obs, policy, np.zeros(0, np.float32))

    @classmethod
    def concatenate(cls, parts: list[Samples], game: str | Game = DEFAULT_GAME) -> Samples:
        """The samples of ``parts`` in order (``game`` sizes the empty result of no parts)."""
        if not parts:
            return cls.empty(game)
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
        )

    def __len__(self) -> int:
        return len(self.value)


class Boards:
    """``count`` positions of one game (States), started by ``game.initial(max_plies=..., **options)``; slot ``g``'s
    ``n``-th game draws whatever its rules leave to chance (Oware's first player) from the seed ``(seed, g, n)``."""

    def __init__(self, count: int, game: Game, max_plies: int, options: dict[str, Any], seed: int) -> None:
        self.game = game
        self.max_plies = max_plies
        self.options = options
        self.seed = seed
        self.started = [0] * count
        self.states = [self._initial(g) for g in range(count)]

    def _initial(self, g: int) -> Any:
        draw = int(np.random.default_rng([self.seed, g, self.started[g]]).integers(1 << 62))
        self.started[g] += 1
        return self.game.initial(max_plies=self.max_plies, seed=draw, **self.options)

    def reset(self, g: int) -> None:
        """Start a new game in slot ``g``."""
        self.states[g] = self._initial(g)

    def play(self, g: int, action: int) -> bool:
        """Play ``action`` in slot ``g``; True when the game is over."""
        self.states[g] = self.states[g].play(action)
        return self.states[g].is_terminal

    def outcome(self, g: int) -> int:
        """Winner of the finished game in slot ``g``: 0, 1, or -1 for a draw."""
        winner = self.states[g].winner
        return -1 if winner is None else winner

    def random_move(self, g: int, rng: np.random.Generator) -> bool:
        """Play a uniformly random legal move in slot ``g`` (match openings); True when the game is over."""
        return self.play(g, int(rng.choice(self.states[g].legal_actions())))


class SelfPlay:
    """``games`` self-play games of ``game`` (with rule ``options``) side by side; :meth:`step` plays one move in each
    and returns finished games' samples.

    With PUCT, moves are drawn in proportion to the visit counts for the first ``temperature_moves`` plies
    (temperature 1), then the most visited move is played; the root gets Dirichlet noise throughout, and the visit
    counts are the policy's target. With Gumbel, the move is the search's (:attr:`BatchedSearch.chosen`: the Gumbel
    noise at the root explores) and the target its improved policy. Game slot ``g`` draws all its random numbers
    from its own generator seeded by ``(seed, g)``.
    """

    def __init__(
        self,
        games: int,
        search: SearchConfig,
        temperature_moves: int,
        max_plies: int,
        seed: int,
        game: str | Game = DEFAULT_GAME,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.game = get_game(game)
        self.search = BatchedSearch(games, search, game=self.game.name)
        self.boards = Boards(games, self.game, max_plies, options or {}, seed)
        self.absolute = absolute_of_relative(self.game)
        self.rngs = [np.random.default_rng([seed, g]) for g in range(games)]
        self.temperature_moves = temperature_moves
        self.active = np.ones(games, dtype=np.bool_)
        self.history: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
        self.games_finished = 0
        self.plies_finished = 0
        self.wins = np.zeros(3, dtype=np.int64)  # player 0 wins, player 1 wins, draws

    def step(self, evaluate: Evaluator) -> Samples:
        b = self.boards
        counts, _ = self.search.run_states(b.states, evaluate, self.active, noise_rngs=self.rngs)
        gumbel = self.search.config.search == "gumbel"
        finished = []
        for g in range(len(self.rngs)):
            state = b.states[g]
            player = state.to_move
            visits = counts[g].astype(np.float64)
            target = self.search.improved_policy[g] if gumbel else visits / visits.sum()
            policy = target[self.absolute[player]]
            self.history[g].append((state.observation_tensor(), policy.astype(np.float32), player))
            if gumbel:
                action = int(self.search.chosen[g])
            elif state.ply < self.temperature_moves:
                action = int(self.rngs[g].choice(self.game.num_actions, p=visits / visits.sum()))
            else:
                action = int(np.argmax(visits))
            if b.play(g, action):
                finished.append(self._finish(g))
        return Samples.concatenate(finished, self.game)

    def _finish(self, g: int) -> Samples:
        winner = self.boards.outcome(g)
        self.wins[2 if winner < 0 else winner] += 1
        history = self.history[g]
        self.games_finished += 1
        self.plies_finished += len(history)
        values = np.array([0.0 if winner < 0 else (1.0 if p == winner else -1.0) for _, _, p in history], np.float32)
        samples = Samples(np.stack([o for o, _, _ in history]), np.stack([p for _, p, _ in history]), values)
        self.history[g] = []
        self.boards.reset(g)
        return samples


def play_match(
    evaluate_a: Evaluator,
    evaluate_b: Evaluator,
    games: int,
    search: SearchConfig,
    max_plies: int,
    seed: int,
    opening_plies: int = 4,
    game: str | Game = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    search_b: SearchConfig | None = None,
) -> tuple[int, int, int]:
    """Play ``games`` (even) games of ``game`` (rule ``options``) between two evaluators, all side by side, A
    searching by ``search`` and B by ``search_b`` (default: the same); return A's (wins, draws, losses).

    Games come in pairs that start from the same random opening of ``opening_plies`` plies with the seats swapped,
    then both sides play their search's move without noise (:func:`searched_moves`).
    """
    if games < 2 or games % 2:
        raise ValueError(f"games must be a positive even number (pairs with seats swapped), got {games}")
    game = get_game(game)
    boards = Boards(games, game, max_plies, options or {}, seed)
    seat_a = np.arange(games) % 2
    active = np.ones(games, dtype=np.bool_)
    for pair in range(games // 2):
        rng = np.random.default_rng([seed, pair])
        for _ in range(opening_plies):
            if active[2 * pair] and boards.random_move(2 * pair, rng):
                active[2 * pair] = False
        boards.states[2 * pair + 1] = boards.states[2 * pair]
        active[2 * pair + 1] = active[2 * pair]
    searcher_a = BatchedSearch(games, search, game=game.name)
    searcher_b = searcher_a if search_b is None else BatchedSearch(games, search_b, game=game.name)
    players = np.zeros(games, dtype=np.int64)
    while active.any():
        actions = np.zeros(games, dtype=np.int64)
        players[:] = [state.to_move for state in boards.states]
        sides = ((evaluate_a, searcher_a, players == seat_a), (evaluate_b, searcher_b, players != seat_a))
        for evaluate, searcher, mine in sides:
            turn = active & mine
            if turn.any():
                actions[turn] = searched_moves(searcher, boards.states, evaluate, turn)[turn]
        for g in np.flatnonzero(active):
            if boards.play(g, int(actions[g])):
                active[g] = False
    result = np.zeros(3, dtype=np.int64)
    for g in range(games):
        winner = boards.outcome(g)
        result[1 if winner < 0 else (0 if winner == seat_a[g] else 2)] += 1
    return int(result[0]), int(result[1]), int(result[2])


def searched_moves(search: BatchedSearch, states: list[Any], evaluate: Evaluator, active: np.ndarray) -> np.ndarray:
    """The move each ``active`` position's search plays without noise: PUCT's most visited (the lowest action of a
    tie), Gumbel's :attr:`BatchedSearch.chosen`."""
    counts, _ = search.run_states(states, evaluate, active)
    return search.chosen.copy() if search.config.search == "gumbel" else np.argmax(counts, axis=1)
