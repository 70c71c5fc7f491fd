"""Properties of random play, checked by hypothesis over many seeds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from awale_env import State
from awale_env.games.awale16 import kernels as core
from awale_env.kernels.rng import make_rng


def random_game(seed: int, max_plies: int | None):
    rng = np.random.default_rng(seed)
    state = State.initial(max_plies=max_plies)
    states, actions = [state], []
    while not state.is_terminal:
        actions.append(int(rng.choice(state.legal_actions())))
        state = state.play(actions[-1])
        states.append(state)
    return states, actions


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_plies=st.one_of(st.integers(1, 400), st.just(None)))
def test_random_games_keep_every_rule(seed, max_plies):
    states, actions = random_game(seed, max_plies)
    limit = max_plies if max_plies is not None else 10_000
    assert len(actions) <= limit
    for before, action, after in zip(states, actions, states[1:]):
        # 64 seeds conserved: the ones that count for nobody stay on the board.
        assert sum(after.red) + sum(after.blue) + sum(after.stores) == 64
        mover = before.to_move
        # the mask is exactly "an own hole holding that colour", so the mover never plays the other's hole/colour
        mask = before.legal_mask()
        for a in range(32):
            assert mask[a] == ((a >> 1) % 2 == mover and before.seeds[a] > 0)
        # captures only take holes holding 2 or 3 once sown (the starving sweep empties the whole board)
        sown = before.seeds.copy()
        core.sow(sown, action)
        sown_totals = sown[0::2].astype(int) + sown[1::2]
        after_totals = np.array(after.red) + np.array(after.blue)
        emptied = (sown_totals > 0) & (after_totals == 0)
        if after.seeds_on_board > 0:
            assert set(sown_totals[emptied].tolist()) <= {2, 3}
            assert sown_totals[emptied].sum() == after.last_capture
        assert after.stores[mover] - before.stores[mover] == after.last_capture
        assert after.stores[1 - mover] == before.stores[1 - mover]
    final = states[-1]
    assert final.is_terminal and final.legal_actions() == [] and not final.legal_mask().any()
    s0, s1 = final.stores
    assert final.winner == (None if s0 == s1 else int(s1 > s0))
    assert sum(final.returns()) == 0


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=6), st.from_regex(r"\A-?[0-9]{1,3}[RBrbXx ]?\Z")))
def test_fuzzed_move_strings_never_change_state(text):
    state = State.initial().play("1R").play("2B")
    snapshot = state.to_dict()
    try:
        after = state.play(text)
    except ValueError as err:
        assert str(err)
    else:
        assert after.ply == state.ply + 1
    assert state.to_dict() == snapshot


def test_playouts_end_within_the_ply_limit():
    rng = make_rng(5)
    for max_plies in (1, 2, 17, 400):
        seeds, stores = core.initial_seeds(), np.zeros(2, dtype=core.STORE_DTYPE)
        status, ply = core.random_playout(seeds, stores, 0, 0, max_plies, rng)
        assert status != core.ONGOING and ply <= max_plies
        assert core.board_total(seeds) + stores.sum() == 64
