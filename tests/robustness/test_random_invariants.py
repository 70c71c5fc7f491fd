"""The invariants of random games, over seeds and ply limits hypothesis draws, for every game and rule variant: seeds
conserved and games ending (:func:`awale_env.testing.check_random_games`), and along a random game through the
PettingZoo env: the env's State equal to the State API's replay of the same moves, observations in their space and
equal to the State's, masks equal to the legal moves (:func:`awale_env.testing` checks each position), rewards adding
up to the final store difference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import awale_env
from awale_env.env import AGENTS
from awale_env.testing import _check_position, check_random_games

ply_limits = st.sampled_from(("default", None)) | st.integers(1, 60)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_conserve_seeds_and_end(game_config, seed):
    game, options = game_config
    check_random_games(game, 1, seed, options)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_plies=ply_limits)
def test_the_aec_env_is_a_replay_of_the_state_api(game_config, seed, max_plies):
    game, options = game_config
    env = awale_env.env(game=game.name, max_plies=max_plies, reward="score_diff", **options)
    env.reset(seed=seed)
    state, space, rng = env.unwrapped.game, game.observation_space(), np.random.default_rng(seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert env.unwrapped.game == state, f"the env left the State replay at ply {state.ply}"
        _check_position(game, state, space)
        assert termination == state.is_terminal and not truncation
        if termination:
            env.step(None)
            continue
        assert agent == AGENTS[state.to_move]
        for seat, other in enumerate(AGENTS):
            view = env.observe(other)
            np.testing.assert_array_equal(view["observation"], state.observation_tensor(seat))
            mask = state.legal_mask() if seat == state.to_move else np.zeros(game.num_actions, dtype=bool)
            np.testing.assert_array_equal(view["action_mask"], mask)
        action = int(rng.choice(state.legal_actions()))
        env.step(action)
        state = state.play(action)
    lead = (state.stores[0] - state.stores[1]) / game.total_seeds
    assert np.allclose([totals[agent] for agent in AGENTS], (lead, -lead))
    assert state.max_plies == game.ply_limit(max_plies) and (state.max_plies is None or state.ply <= state.max_plies)
