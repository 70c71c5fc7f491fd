"""The evaluations alpha-beta scores its leaves by (``alphabeta:eval=NAME``), for any game, from the features its
search kernels give (:data:`awale_env.kernels.dispatch.FEATURES`: the store difference, the seeds on each side, each
side's vulnerability, legal moves, starving and moves giving another turn), so that nothing here knows a game.

* ``score``: the store difference in seeds (what decides the game), cheap and coarse: many moves tie and cut off.
* ``reference``: hand-set weights of the features in the manner of a strong public bot of the two-colour game
  (score difference, seeds on each side, per-hole vulnerability, mobility, a starving penalty): the sparring
  partner our own evaluation is measured against.
* ``tuned`` (alpha-beta's default): weights fitted by logistic regression on the outcomes of self-play games
  (:func:`agents.tuning.fit`; refit and print them with ``python -m agents.tuning --game NAME``), one set per game in
  :data:`TUNED_WEIGHTS`; a game without fitted weights is evaluated by the store difference. A game whose search
  kernels give table cells (``SearchKernels.cells``: Kalah's pits by their seeds, its lead by the seeds left) adds
  the fitted values of its position's cells (:data:`TUNED_TABLES`), as an n-tuple network does: a lookup per cell,
  values no sum of features could give (a pile's worth is not in proportion to its seeds).

A weighted evaluation is ``round(weights . features)`` in units of a tenth of a captured seed (the store difference
weighs :data:`UNITS_PER_SEED`). In compiled code an evaluation is a named tuple whose class picks the implementation
while numba compiles (like the games' env classes in :mod:`awale_env.kernels.dispatch`), so the store difference costs
nothing for the others' existence.
"""

from __future__ import annotations

import json
import math
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numba.extending import overload

from awale_env.kernels import dispatch as kn

EVALUATIONS = ("score", "reference", "tuned")
UNITS_PER_SEED = 10

#: The sparring partner's weights, by feature (:data:`awale_env.kernels.dispatch.FEATURES`), in tenths of a seed.
REFERENCE_WEIGHTS = {
    "store_difference": 10.0,
    "own_seeds": 1.0,
    "opponent_seeds": -1.0,
    "own_vulnerable": -3.0,
    "opponent_vulnerable": 3.0,
    "own_mobility": 1.0,
    "opponent_mobility": -1.0,
    "own_starving": -20.0,
    "opponent_starving": 20.0,
    "own_extra_turns": 0.0,  # the two-colour game's players alternate
    "opponent_extra_turns": 0.0,
}

_TUNED = json.loads((Path(__file__).parent / "tuned_weights.json").read_text())
#: Fitted weights per game name, in the order of :data:`awale_env.kernels.dispatch.FEATURES`: the data file
#: ``tuned_weights.json`` beside this module, one entry per game that has them (``python -m agents.tuning`` prints
#: an entry): the weights, or ``{"weights": [...], "table": [...]}`` for a game with table cells.
TUNED_WEIGHTS: dict[str, tuple[float, ...]] = {
    game: tuple(entry["weights"] if isinstance(entry, dict) else entry) for game, entry in _TUNED.items()
}
#: Fitted values of the table cells (``SearchKernels.cells``) per game name that has them, in tenths of a seed.
TUNED_TABLES: dict[str, tuple[float, ...]] = {
    game: tuple(entry["table"]) for game, entry in _TUNED.items() if isinstance(entry, dict)
}

StoreDifference = namedtuple("StoreDifference", ())
WeightedFeatures = namedtuple("WeightedFeatures", ("weights", "features"))
WeightedTable = namedtuple("WeightedTable", ("weights", "features", "table", "cells"))


def make_evaluation(name: str, game: str) -> tuple:
    """The compiled search's evaluation ``name`` (one of :data:`EVALUATIONS`) for the game named ``game``;
    ValueError for an unknown name."""
    if name not in EVALUATIONS:
        raise ValueError(f"eval must be one of {', '.join(EVALUATIONS)}, got {name!r}")
    if name == "score" or (name == "tuned" and game not in TUNED_WEIGHTS):
        return StoreDifference()
    if name == "reference":
        weights = np.array([REFERENCE_WEIGHTS[f] for f in kn.FEATURES], dtype=np.float64)
    else:
        weights = np.array(TUNED_WEIGHTS[game], dtype=np.float64)
    features = np.zeros(kn.NUM_FEATURES, dtype=np.float64)
    if name == "reference" or game not in TUNED_TABLES:
        return WeightedFeatures(weights, features)
    table = np.array(TUNED_TABLES[game], dtype=np.float64)
    return WeightedTable(weights, features, table, np.zeros(kn.MAX_CELLS, dtype=np.int64))


def units_per_seed(evaluation: tuple) -> int:
    """What one captured seed is worth under ``evaluation`` (:func:`make_evaluation`): 1 for the store difference,
    :data:`UNITS_PER_SEED` for a weighted one."""
    return 1 if isinstance(evaluation, StoreDifference) else UNITS_PER_SEED


@njit(cache=True)
def store_difference(evaluation, env, board, stores, player):
    return int(stores[player]) - int(stores[1 - player])


@njit(cache=True)
def feature_sum(evaluation, env, board, stores, player):
    """The weighted sum of the features of a position (a float: rounded once, with the table's values if any)."""
    kn.features(env, board, stores, player, evaluation.features)
    total = 0.0
    for i in range(evaluation.weights.shape[0]):
        total += evaluation.weights[i] * evaluation.features[i]
    return total


@njit(cache=True)
def weighted_features(evaluation, env, board, stores, player):
    return int(math.floor(feature_sum(evaluation, env, board, stores, player) + 0.5))


@njit(cache=True)
def weighted_table(evaluation, env, board, stores, player):
    total = feature_sum(evaluation, env, board, stores, player)
    for i in range(kn.cells(env, board, stores, player, evaluation.cells)):
        total += evaluation.table[evaluation.cells[i]]
    return int(math.floor(total + 0.5))


_IMPLEMENTATIONS: dict[type, Callable] = {
    StoreDifference: store_difference, WeightedFeatures: weighted_features, WeightedTable: weighted_table,
}  # fmt: skip


def evaluate(evaluation: tuple, env: Any, board: np.ndarray, stores: np.ndarray, player: int) -> int:
    """Value of a live position for ``player`` under ``evaluation`` (:func:`make_evaluation`), an integer."""
    return _IMPLEMENTATIONS[type(evaluation)](evaluation, env, board, stores, player)


@overload(evaluate)
def _evaluate_typer(evaluation, env, board, stores, player):
    implementation = _IMPLEMENTATIONS[evaluation.instance_class]
    return getattr(implementation, "py_func", implementation)


def _root_and_env(state: Any) -> tuple[kn.Root, Any]:
    root = kn.root_of(state)
    path = np.zeros(64, dtype=np.int64)
    return root, root.env(kn.new_scratch(), path, path)


def features_of(state: Any) -> np.ndarray:
    """The features of a State for its player to move (tests, notebooks, the tuning's data)."""
    root, env = _root_and_env(state)
    features = np.zeros(kn.NUM_FEATURES)
    kn.features(env, root.board, root.stores, root.player, features)
    return features


def cells_of(state: Any) -> np.ndarray:
    """The table cells of a State for its player to move (none for a game without them): the tuning's data."""
    root, env = _root_and_env(state)
    cells = np.zeros(kn.MAX_CELLS, dtype=np.int64)
    return cells[: kn.cells(env, root.board, root.stores, root.player, cells)]
