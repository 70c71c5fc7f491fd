"""The evaluations alpha-beta scores its leaves by (``alphabeta:eval=NAME``), for any game, from the features its
search kernels give (:data:`awale_env.kernels.dispatch.FEATURES`: the store difference, the seeds on each side, each
side's vulnerability, legal moves, starving and moves giving another turn), so that nothing here knows a game.

* ``score``: the store difference in seeds (what decides the game), cheap and coarse: many moves tie and cut off.
* ``reference``: hand-set weights of the features in the manner of a strong public bot of the two-colour game
  (score difference, seeds on each side, per-hole vulnerability, mobility, a starving penalty): the sparring
  partner our own evaluation is measured against.
* ``tuned`` (alpha-beta's default): weights fitted by logistic regression on the outcomes of self-play games
  (:func:`agents.tuning.fit`; refit and print them with ``python -m agents.tuning --game NAME``), one set per game in
  :data:`TUNED_WEIGHTS`; a game without fitted weights is evaluated by the store difference.

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

#: Fitted weights per game name, in the order of :data:`awale_env.kernels.dispatch.FEATURES`: the data file
#: ``tuned_weights.json`` beside this module, one entry per game that has them (``python -m agents.tuning`` prints
#: an entry).
TUNED_WEIGHTS: dict[str, tuple[float, ...]] = {
    game: tuple(weights)
    for game, weights in json.loads((Path(__file__).parent / "tuned_weights.json").read_text()).items()
}

StoreDifference = namedtuple("StoreDifference", ())
WeightedFeatures = namedtuple("WeightedFeatures", ("weights", "features"))


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
    return WeightedFeatures(weights, np.zeros(kn.NUM_FEATURES, dtype=np.float64))


def units_per_seed(evaluation: tuple) -> int:
    """What one captured seed is worth under ``evaluation`` (:func:`make_evaluation`): 1 for the store difference,
    :data:`UNITS_PER_SEED` for a weighted one."""
    return 1 if isinstance(evaluation, StoreDifference) else UNITS_PER_SEED


@njit(cache=True)
def store_difference(evaluation, env, board, stores, player):
    return int(stores[player]) - int(stores[1 - player])


@njit(cache=True)
def weighted_features(evaluation, env, board, stores, player):
    kn.features(env, board, stores, player, evaluation.features)
    total = 0.0
    for i in range(evaluation.weights.shape[0]):
        total += evaluation.weights[i] * evaluation.features[i]
    return int(math.floor(total + 0.5))


_IMPLEMENTATIONS: dict[type, Callable] = {StoreDifference: store_difference, WeightedFeatures: weighted_features}


def evaluate(evaluation: tuple, env: Any, board: np.ndarray, stores: np.ndarray, player: int) -> int:
    """Value of a live position for ``player`` under ``evaluation`` (:func:`make_evaluation`), an integer."""
    return _IMPLEMENTATIONS[type(evaluation)](evaluation, env, board, stores, player)


@overload(evaluate)
def _evaluate_typer(evaluation, env, board, stores, player):
    implementation = _IMPLEMENTATIONS[evaluation.instance_class]
    return getattr(implementation, "py_func", implementation)


def features_of(state: Any) -> np.ndarray:
    """The features of a State for its player to move (tests, notebooks)."""
    root = kn.root_of(state)
    path = np.zeros(64, dtype=np.int64)
    features = np.zeros(kn.NUM_FEATURES)
    kn.features(root.env(kn.new_scratch(), path, path), root.board, root.stores, root.player, features)
    return features
