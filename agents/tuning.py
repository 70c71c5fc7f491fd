"""Fitting the ``tuned`` evaluation of :mod:`agents.evaluation`: logistic regression of self-play outcomes on the
features of the positions, one set of weights per game (``python -m agents.tuning --game NAME`` prints an entry of
``agents/tuned_weights.json``). Apart from the evaluation itself because it plays alpha-beta, which evaluates with it.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from agents.alphabeta import AlphaBetaAgent
from agents.evaluation import EVALUATIONS, UNITS_PER_SEED, cells_of, features_of
from awale_env.games import DEFAULT_GAME, get_game
from awale_env.kernels import dispatch as kn


def self_play_positions(game: str, games: int, depth: int, seed: int, opening_plies: int = 8, noise: float = 0.1,
                        evaluation: str = "score") -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Features and table cells (:func:`agents.evaluation.cells_of`, a row of ``-1`` past a position's own) of
    every position of ``games`` self-play games of ``alphabeta:depth=DEPTH`` (its evaluation ``evaluation``) from
    random openings of up to ``opening_plies`` plies, a ``noise`` share of moves played at random, and the outcome for
    the player to move there (1 win, 0.5 draw, 0 loss)."""
    rules = get_game(game)
    rng = np.random.default_rng(seed)
    agent = AlphaBetaAgent(depth=depth, seed=seed, table_bits=16, eval=evaluation)
    rows, cells, outcomes = [], [], []
    for _ in range(games):
        agent.reset()
        state = rules.initial()
        seen: list[tuple[np.ndarray, np.ndarray, int]] = []
        for _ in range(int(rng.integers(0, opening_plies + 1))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        while not state.is_terminal:
            seen.append((features_of(state), cells_of(state), state.to_move))
            legal = state.legal_actions()
            move = legal[int(rng.integers(len(legal)))] if rng.random() < noise else agent.act(state)
            state = state.play(move)
        winner = state.winner
        for features, position_cells, player in seen:
            rows.append(features)
            cells.append(np.pad(position_cells, (0, kn.MAX_CELLS - len(position_cells)), constant_values=-1))
            outcomes.append(0.5 if winner is None else float(winner == player))
    return np.array(rows), np.array(cells, dtype=np.int64), np.array(outcomes)


def logistic_fit(features: np.ndarray, outcomes: np.ndarray, l2: float = 1e-3, steps: int = 50,
                 scale: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Weights ``w`` (no intercept: an evaluation's constant changes no choice) maximising the likelihood of the
    outcomes under ``P(win) = sigmoid(w . features)``, by Newton's method with a small ``l2`` penalty on the weights
    of the features divided by ``scale`` (by default their standard deviations)."""
    scale = np.maximum(features.std(axis=0), 1e-9) if scale is None else scale
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


def one_hot(cells: np.ndarray, size: int) -> np.ndarray:
    """Rows of ``size`` columns with a 1 at each of a row's cells (``-1``: none)."""
    out = np.zeros((len(cells), size))
    rows, columns = np.nonzero(cells >= 0)
    np.add.at(out, (rows, cells[rows, columns]), 1)
    return out


def fit(features: np.ndarray, outcomes: np.ndarray, cells: np.ndarray | None = None,
        table_size: int = 0) -> tuple[tuple[float, ...], tuple[float, ...]]:  # fmt: skip
    """Tuned weights and table: :func:`logistic_fit` on positions (features and table cells, e.g. of
    :func:`self_play_positions`) and their outcomes, scaled so that the store difference weighs
    :data:`UNITS_PER_SEED` (features a game does not give weigh 0, as do cells no position had). The table's
    columns are not rescaled: a rare cell's value is kept small by the penalty, not blown up."""
    given = features.std(axis=0) > 0
    x, scale = features[:, given], np.maximum(features[:, given].std(axis=0), 1e-9)
    if table_size:
        x = np.hstack([x, one_hot(cells, table_size)])
        scale = np.concatenate([scale, np.ones(table_size)])
    fitted = logistic_fit(x, outcomes, scale=scale)
    w = np.zeros(kn.NUM_FEATURES)
    w[given] = fitted[: given.sum()]
    if w[0] <= 0:
        raise ValueError(f"the fit on {len(features)} positions gives the store difference no positive weight")
    units = UNITS_PER_SEED / w[0]
    weights, table = w * units, fitted[given.sum() :] * units
    return tuple(round(float(v), 3) for v in weights), tuple(round(float(v), 3) for v in table)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the tuned evaluation of a game on self-play outcomes.")
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--games", type=int, default=1000, help="self-play games (default 1000)")
    parser.add_argument("--depth", type=int, default=4, help="their alpha-beta depth (default 4)")
    parser.add_argument("--eval", choices=EVALUATIONS, default="score",
                        help="their alpha-beta's evaluation (default score: the store difference)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    table_size = get_game(args.game).search.table_size
    features, cells, outcomes = self_play_positions(args.game, args.games, args.depth, args.seed, evaluation=args.eval)
    weights, table = fit(features, outcomes, cells, table_size)
    for name, weight in zip(kn.FEATURES, weights):
        print(f"{name}: {weight}")
    print(f"{len(features)} positions")
    entry = {"weights": weights, "table": table} if table_size else weights
    print(json.dumps({args.game: entry}))  # an entry of tuned_weights.json


if __name__ == "__main__":
    main()
