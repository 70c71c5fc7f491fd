"""Games played by batched search: self-play games that yield training samples, and matches between two evaluators.

Every game slot advances one move per call of the batched search, so all slots' leaves share each network call;
a finished game is replaced by a new one at once, so the batch stays full.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.alphazero.mcts import BatchedSearch, Evaluator, SearchConfig
from awale_env.core import awale16 as core

NUM_ACTIONS = core.NUM_ACTIONS
OBS_SIZE = core.OBS_SIZE
# ABSOLUTE_OF_RELATIVE[player][r]: the absolute action of relative action r for that player.
ABSOLUTE_OF_RELATIVE = np.array([[core.absolute_action(r, p) for r in range(NUM_ACTIONS)] for p in (0, 1)])


@dataclass
class Samples:
    """Training samples: observations (n, 35), search policies over relative actions (n, 32), outcomes (n,) for the
    player to move (+1 win, -1 loss, 0 draw)."""

    obs: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    @classmethod
    def empty(cls) -> Samples:
        return cls(np.zeros((0, OBS_SIZE), np.float32), np.zeros((0, NUM_ACTIONS), np.float32), np.zeros(0, np.float32))

    @classmethod
    def concatenate(cls, parts: list[Samples]) -> Samples:
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
        )

    def __len__(self) -> int:
        return len(self.value)


class Boards:
    """``count`` positions as stacked arrays, the layout :class:`BatchedSearch` reads."""

    def __init__(self, count: int, max_plies: int) -> None:
        self.seeds = np.tile(core.initial_seeds(), (count, 1))
        self.stores = np.zeros((count, 2), dtype=core.STORE_DTYPE)
        self.players = np.zeros(count, dtype=np.int64)
        self.plies = np.zeros(count, dtype=np.int64)
        self.max_plies = np.full(count, max_plies, dtype=np.int64)

    def reset(self, g: int) -> None:
        self.seeds[g] = core.initial_seeds()
        self.stores[g] = 0
        self.players[g] = 0
        self.plies[g] = 0

    def play(self, g: int, action: int) -> bool:
        """Play ``action`` in slot ``g``; True when the game is over."""
        core.apply_action(self.seeds[g], self.stores[g], int(self.players[g]), action)
        self.players[g] = 1 - self.players[g]
        self.plies[g] += 1
        status = core.end_status(
            core.board_total(self.seeds[g]),
            int(self.stores[g, 0]),
            int(self.stores[g, 1]),
            int(self.plies[g]),
            int(self.max_plies[g]),
        )
        return status != core.ONGOING

    def outcome(self, g: int) -> int:
        """Winner of the finished game in slot ``g``: 0, 1, or -1 for a draw."""
        s0, s1 = int(self.stores[g, 0]), int(self.stores[g, 1])
        return -1 if s0 == s1 else (0 if s0 > s1 else 1)

    def observation(self, g: int) -> np.ndarray:
        out = np.empty(OBS_SIZE, dtype=np.float32)
        core.observe(
            self.seeds[g], self.stores[g], int(self.plies[g]), int(self.max_plies[g]), int(self.players[g]), out
        )
        return out

    def random_move(self, g: int, rng: np.random.Generator) -> bool:
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        core.legal_mask(self.seeds[g], int(self.players[g]), mask)
        return self.play(g, int(rng.choice(np.flatnonzero(mask))))


class SelfPlay:
    """``games`` self-play games side by side; :meth:`step` plays one move in each and returns finished games' samples.

    Moves are drawn in proportion to the visit counts for the first ``temperature_moves`` plies (temperature 1),
    then the most visited move is played; the root gets Dirichlet noise throughout. Game slot ``g`` draws all its
    random numbers from its own generator seeded by ``(seed, g)``.
    """

    def __init__(self, games: int, search: SearchConfig, temperature_moves: int, max_plies: int, seed: int) -> None:
        self.search = BatchedSearch(games, search)
        self.boards = Boards(games, max_plies)
        self.rngs = [np.random.default_rng([seed, g]) for g in range(games)]
        self.temperature_moves = temperature_moves
        self.active = np.ones(games, dtype=np.bool_)
        self.history: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
        self.games_finished = 0
        self.plies_finished = 0
        self.wins = np.zeros(3, dtype=np.int64)  # player 0 wins, player 1 wins, draws

    def step(self, evaluate: Evaluator) -> Samples:
        b = self.boards
        counts, _ = self.search.run(
            b.seeds, b.stores, b.players, b.plies, b.max_plies, self.active, evaluate, noise_rngs=self.rngs
        )
        finished = []
        for g in range(len(self.rngs)):
            player = int(b.players[g])
            visits = counts[g].astype(np.float64)
            policy = visits[ABSOLUTE_OF_RELATIVE[player]] / visits.sum()
            self.history[g].append((b.observation(g), policy.astype(np.float32), player))
            if b.plies[g] < self.temperature_moves:
                action = int(self.rngs[g].choice(NUM_ACTIONS, p=visits / visits.sum()))
            else:
                action = int(np.argmax(visits))
            if b.play(g, action):
                finished.append(self._finish(g))
        return Samples.concatenate(finished)

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
) -> tuple[int, int, int]:
    """Play ``games`` (even) games between two evaluators with the same search, all side by side; return A's
    (wins, draws, losses).

    Games come in pairs that start from the same random opening of ``opening_plies`` plies with the seats swapped,
    then both sides play their most visited move (no noise).
    """
    if games < 2 or games % 2:
        raise ValueError(f"games must be a positive even number (pairs with seats swapped), got {games}")
    boards = Boards(games, max_plies)
    seat_a = np.arange(games) % 2
    active = np.ones(games, dtype=np.bool_)
    for pair in range(games // 2):
        rng = np.random.default_rng([seed, pair])
        for _ in range(opening_plies):
            if active[2 * pair] and boards.random_move(2 * pair, rng):
                active[2 * pair] = False
        boards.seeds[2 * pair + 1] = boards.seeds[2 * pair]
        boards.stores[2 * pair + 1] = boards.stores[2 * pair]
        boards.players[2 * pair + 1] = boards.players[2 * pair]
        boards.plies[2 * pair + 1] = boards.plies[2 * pair]
        active[2 * pair + 1] = active[2 * pair]
    searcher = BatchedSearch(games, search)
    while active.any():
        actions = np.zeros(games, dtype=np.int64)
        for evaluate, mine in ((evaluate_a, boards.players == seat_a), (evaluate_b, boards.players != seat_a)):
            turn = active & mine
            if turn.any():
                counts, _ = searcher.run(
                    boards.seeds, boards.stores, boards.players, boards.plies, boards.max_plies, turn, evaluate
                )
                actions[turn] = np.argmax(counts[turn], axis=1)
        for g in np.flatnonzero(active):
            if boards.play(g, int(actions[g])):
                active[g] = False
    result = np.zeros(3, dtype=np.int64)
    for g in range(games):
        winner = boards.outcome(g)
        result[1 if winner < 0 else (0 if winner == seat_a[g] else 2)] += 1
    return int(result[0]), int(result[1]), int(result[2])
