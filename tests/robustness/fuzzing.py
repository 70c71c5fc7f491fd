"""What the robustness tests feed the toolkit: hypothesis strategies for hostile values (any JSON, any Python value a
caller may pass, edits of a valid dict) and seeded positions of every game to start from."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from hypothesis import strategies as st

from awale_env.games import Game

#: Integers at the edges of what Python, NumPy and the kernels hold.
EDGE_INTS = (-(2**63), -1, 0, 1, 2, 2**31, 2**62, 2**62 + 1, 2**63 - 1, 2**63, 2**64)
#: Strings that look like numbers to a careless parser: Unicode digits, signs, exponents, a 5,000-digit number.
NUMBER_LIKE = ("²", "١٢", "１", "𝟙", "-1", "+3", "1e3", "0x10", "3.0", " 7 ", "07", "", "9" * 5000, "0" * 4999 + "1")

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(EDGE_INTS),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(NUMBER_LIKE),
)
#: Any value ``json.loads`` can return, nested a little.
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
#: What a Python caller may pass beside JSON: NumPy scalars and arrays, bytes, tuples, sets, dicts with int keys.
python_values = st.one_of(
    json_values,
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.integers(0, 255).map(np.uint8),
    st.floats(width=32).map(np.float32),
    st.booleans().map(np.bool_),
    st.lists(st.integers(-5, 5), max_size=3).map(np.array),
    st.binary(max_size=4),
    st.lists(st.integers(-3, 50), max_size=16).map(tuple),
    st.sets(st.integers(0, 3), max_size=3),
    st.dictionaries(st.integers(0, 3), st.integers(0, 3), max_size=2),
    st.complex_numbers(max_magnitude=10),
)


@st.composite
def edited(draw: st.DrawFn, data: dict[str, Any], values: st.SearchStrategy = python_values) -> dict[str, Any]:
    """A copy of ``data`` with a few edits a hostile or careless writer makes: a field replaced by any value, removed
    or added, one entry of a list field replaced, a list field cut short or grown. ``data`` is left as it is."""
    edited_data = dict(data)
    for _ in range(draw(st.integers(1, 3))):
        keys = sorted(edited_data)
        kind = draw(st.sampled_from(("replace", "remove", "add", "entry", "length")))
        key = draw(st.sampled_from(keys)) if keys else "game"
        value = edited_data.get(key)
        if kind == "replace" or (kind in ("entry", "length") and not (isinstance(value, list) and value)):
            edited_data[key] = draw(values)
        elif kind == "remove":
            edited_data.pop(key, None)
        elif kind == "add":
            edited_data[draw(st.text(max_size=12))] = draw(values)
        elif kind == "entry":
            entries = list(value)
            entries[draw(st.integers(0, len(entries) - 1))] = draw(values)
            edited_data[key] = entries
        else:
            edited_data[key] = value[: draw(st.integers(0, len(value) - 1))] + draw(st.lists(values, max_size=2))
    return edited_data


@cache
def sample_positions(game: Game, options: tuple[tuple[str, Any], ...] = ()) -> tuple[Any, ...]:
    """Positions of two seeded random games of ``game`` (rule flags ``options``, as sorted pairs so that the result
    is cached): their starts, every seventh position and their ends, one game with a short ply limit."""
    rng = np.random.default_rng(17)
    positions = []
    for max_plies in ("default", 25):
        state = game.initial(max_plies=game.ply_limit(max_plies), seed=int(rng.integers(2**32)), **dict(options))
        positions.append(state)
        while not state.is_terminal:
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
            if state.ply % 7 == 0 or state.is_terminal:
                positions.append(state)
    return tuple(positions)
