"""Fitting the ``tuned`` evaluation of :mod:`agents.evaluation`: logistic regression of self-play outcomes on the
features of the positions, one set of weights per game (``python -m agents.tuning --game NAME`` prints an entry of
``agents/tuned_weights.json``). Apart from the evaluation itself because it plays alpha-beta, which evaluates with it.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from agents.alphabeta import AlphaBetaAgent
from agents.evaluation import UNITS_PER_SEED, features_of
from awale_env.games import DEFAULT_GAME, get_game
from awale_env.kernels import dispatch as kn


def self_play_positions(game: str, games: int, depth: int, seed: int, opening_plies: int = 8,
                        noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Features of every position of ``games`` self-play games of ``alphabeta:depth=DEPTH`` (the store difference
    evaluation) from random openings of up to ``opening_plies`` plies, a ``noise`` share of moves played at random,
    and the outcome for the player to move there (1 win, 0.5 draw, 0 loss)."""
    rules = get_game(game)
    rng = np.random.default_rng(seed)
    agent = AlphaBetaAgent(depth=depth, seed=seed, table_bits=16, eval="score")
    rows, outcomes = [], []
    for _ in range(games):
        agent.reset()
        state = rules.initial()
        seen: list[tuple[np.ndarray, int]] = []
        for _ in range(int(rng.integers(0, opening_plies + 1))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        while not state.is_terminal:
            seen.append((features_of(state), state.to_move))
            legal = state.legal_actions()
            move = legal[int(rng.integers(len(legal)))] if rng.random() < noise else agent.act(state)
            state = state.play(move)
        winner = state.winner
        for features, player in seen:
            rows.append(features)
            outcomes.append(0.5 if winner is None else float(winner == player))
    return np.array(rows), np.array(outcomes)


def logistic_fit(features: np.ndarray, outcomes: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Weights ``w`` (no intercept: an evaluation's constant changes no choice) maximising the likelihood of the
    outcomes under ``P(win) = sigmoid(w . features)``, by Newton's method with a small ``l2`` penalty."""
    scale = np.maximum(features.std(axis=0), 1e-9)
    x = features / scale
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        gradient = x.T @ (p - outcomes) / len(x) + l2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x / len(x) + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w / scale


def fit(features: np.ndarray, outcomes: np.ndarray) -> tuple[float, ...]:
    """Tuned weights: :func:`logistic_fit` on positions (features, e.g. of :func:`self_play_positions`) and their
    outcomes, scaled so that the store difference weighs :data:`UNITS_PER_SEED` (features a game does not give weigh
    0)."""
    given = features.std(axis=0) > 0
    w = np.zeros(kn.NUM_FEATURES)
    w[given] = logistic_fit(features[:, given], outcomes)
    if w[0] <= 0:
        raise ValueError(f"the fit on {len(features)} positions gives the store difference no positive weight")
    return tuple(round(float(v), 3) for v in w * UNITS_PER_SEED / w[0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the tuned evaluation of a game on self-play outcomes.")
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--games", type=int, default=1000, help="self-play games (default 1000)")
    parser.add_argument("--depth", type=int, default=4, help="their alpha-beta depth (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    features, outcomes = self_play_positions(args.game, args.games, args.depth, args.seed)
    weights = fit(features, outcomes)
    for name, weight in zip(kn.FEATURES, weights):
        print(f"{name}: {weight}")
    print(f"{len(features)} positions")
    print(json.dumps({args.game: weights}))  # an entry of tuned_weights.json


if __name__ == "__main__":
    main()
