"""Hostile input to every game's State and Game (issue 17): ``State.from_dict`` of edited and random dicts,
``Game.initial`` of any option values. Only ValueError comes out, naming the field; the input is never changed; a
State that loads plays on (a value the kernels cannot hold is refused up front, not at the first move)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from fuzzing import EDGE_INTS, edited, json_values, python_values, sample_positions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awale_env.games import Game
from awale_env.games.validation import MAX_PLY

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def positions(game_config: tuple[Game, dict[str, Any]]) -> tuple[Any, ...]:
    game, options = game_config
    return sample_positions(game, tuple(sorted(options.items())))


def loads_or_refuses(game: Game, data: Any) -> Any:
    """``from_dict(data)``: a State that plays on, or None after a ValueError; ``data`` unchanged either way."""
    before = repr(data)
    try:
        state = game.state_type.from_dict(data)
    except ValueError as error:
        assert str(error), "an error message names what is wrong"
        state = None
    assert repr(data) == before, "from_dict changed its input"
    if state is not None:
        assert type(state) is game.state_type
        again = game.state_type.from_dict(json.loads(json.dumps(state.to_dict())))
        assert again == state, "a loaded State does not round-trip"
        assert game.observation_space().contains(state.observation_tensor(0))
        for action in state.legal_actions()[:2]:
            state.play(action)
    return state


@FUZZ
@given(data=st.data())
def test_edited_state_dicts_load_or_raise_value_error(game_config, data):
    game, _ = game_config
    start = data.draw(st.sampled_from(positions(game_config))).to_dict()
    loads_or_refuses(game, data.draw(edited(start)))


@FUZZ
@given(value=json_values)
def test_any_json_is_refused_as_a_state(registry_game, value):
    assert loads_or_refuses(registry_game, value) is None


@FUZZ
@given(field=st.sampled_from(("ply", "max_plies", "to_move", "last_capture")), value=st.sampled_from(EDGE_INTS))
def test_integers_the_kernels_cannot_hold_are_refused(game_config, field, value):
    game, _ = game_config
    data = positions(game_config)[0].to_dict() | {field: value}
    state = loads_or_refuses(game, data)
    if state is not None:
        assert 0 <= state.ply <= MAX_PLY and (state.max_plies is None or 1 <= state.max_plies <= MAX_PLY)


@FUZZ
@given(values=st.dictionaries(st.sampled_from(("max_plies", "seed")), python_values, min_size=1))
def test_initial_refuses_bad_option_values_with_value_error(registry_game, values):
    try:
        state = registry_game.initial(**values)
    except ValueError:
        return
    state.play(state.legal_actions()[0])


@pytest.mark.parametrize("value", [5, "2,2", {"0": 2}, 2.0])
def test_a_list_field_holding_no_list_is_a_value_error_naming_it(game_config, value):
    """The issue's ``from_dict({... "red": 5})`` (a TypeError once), for every list field of every game."""
    game, _ = game_config
    data = positions(game_config)[0].to_dict()
    for field in [key for key, entry in data.items() if isinstance(entry, list)]:
        with pytest.raises(ValueError, match=field):
            game.state_type.from_dict(data | {field: value})


@pytest.mark.parametrize("field", ["ply", "max_plies"])
def test_a_ply_beyond_the_kernels_is_a_value_error_naming_it(game_config, field):
    """The issue's ``ply=2**64`` (OverflowError once) and ``max_plies >= 2**63`` (accepted by the two-colour game,
    then a numba error at the first move)."""
    game, options = game_config
    for value in (MAX_PLY + 1, 2**63, 2**64):
        with pytest.raises(ValueError, match=field):
            game.state_type.from_dict(positions(game_config)[0].to_dict() | {field: value})
    with pytest.raises(ValueError, match="max_plies"):
        game.initial(max_plies=2**63, **options)
    far = game.initial(max_plies=MAX_PLY, **options)
    assert far.play(far.legal_actions()[0]).max_plies == MAX_PLY
    assert not np.isnan(far.observation_tensor(0)).any()
