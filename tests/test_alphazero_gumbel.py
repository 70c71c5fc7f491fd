"""Gumbel AlphaZero's search (agents/alphazero/gumbel.py): sequential halving's schedule, Gumbel-top-k at the root,
the improved policy, the deterministic choice below the root, and the rule through the agent, self-play and
training."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from test_alphazero import (  # noqa: E402
    TINY,
    check_tree,
    hashed_evaluator,
    random_states,
    search_states,
    starving_win,
)

from agents.alphazero.gumbel import considered_visit  # noqa: E402
from agents.alphazero.mcts import BatchedSearch, uniform_evaluator  # noqa: E402
from agents.alphazero.network import RingNet, make_evaluator, save_checkpoint  # noqa: E402
from agents.alphazero.search_config import SearchConfig  # noqa: E402
from agents.alphazero.selfplay import play_match  # noqa: E402
from awale_env import State  # noqa: E402

GUMBEL = SearchConfig(search="gumbel")


def halving_schedule(considered: int, simulations: int) -> list[int]:
    """The visits the root's chosen move has before each simulation, phase by phase as the paper describes
    sequential halving: ``considered`` moves, ceil(log2(considered)) phases, each giving every remaining move
    ``max(1, simulations // (phases * remaining))`` visits in turn, then keeping half of them (at least two)."""
    if considered == 1:
        return list(range(simulations))
    phases = math.ceil(math.log2(considered))
    schedule, visits, remaining = [], 0, considered
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (phases * remaining))):
            schedule += [visits] * remaining
            visits += 1
        remaining = max(2, remaining // 2)
    return schedule[:simulations]


@pytest.mark.parametrize("considered", [1, 2, 3, 4, 7, 16])
@pytest.mark.parametrize("simulations", [1, 4, 16, 64, 200])
def test_the_root_follows_sequential_halving(considered, simulations):
    expected = halving_schedule(considered, simulations)
    assert [considered_visit(considered, simulations, i) for i in range(simulations)] == expected


def test_gumbel_finds_the_immediate_win_and_its_improved_policy_is_a_distribution():
    state = starving_win()
    search = BatchedSearch(1, GUMBEL.replace(simulations=32))
    counts, values = search.run_states([state], uniform_evaluator)
    win = state.to_action("15R")
    assert search.chosen[0] == win and counts[0].sum() == 32 and counts[0][win] == counts[0].max() and values[0] > 0
    policy = search.improved_policy[0]
    assert policy.sum() == pytest.approx(1.0) and not policy[~state.legal_mask()].any()
    assert int(np.argmax(policy)) == win


def test_gumbel_finds_a_forced_win_in_three_plies():
    """The position of PUCT's test: only 7R wins by force."""
    red = [0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 2, 1]
    blue = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    state = State.from_position(red, blue, (26, 28), to_move=0)
    search = BatchedSearch(1, GUMBEL.replace(simulations=1000))
    search.run_states([state], uniform_evaluator)
    assert search.chosen[0] == state.to_action("7R")


def test_the_root_searches_the_top_k_moves_by_gumbel_noise_and_logit():
    """Fewer simulations than considered moves: each simulation visits a new move, those of highest noise + logit
    (Gumbel-top-k, sampling without replacement from the prior), whatever the values say."""
    evaluate = make_evaluator(RingNet(TINY))
    for g, state in enumerate(random_states(6, seed=5, plies=(2, 30))):
        legal = state.legal_actions()
        k = min(4, len(legal))
        search = BatchedSearch(1, GUMBEL.replace(simulations=k))
        counts, _ = search.run_states([state], evaluate, noise_rngs=[np.random.default_rng([9, g])])
        prior = search.prior[0, 1 : 1 + len(legal)]  # the root's children, its legal moves in order
        score = search.gumbel[0, legal] + np.log(prior)
        top = {legal[i] for i in np.argsort(-score)[:k]}
        assert set(np.flatnonzero(counts[0])) == top and counts[0].max() == 1
        assert search.chosen[0] in top


def test_gumbel_trees_hold_legal_moves_and_no_virtual_loss_is_left():
    states = [starving_win(), *random_states(5, seed=8, plies=(10, 80))]
    for leaves in (1, 8):
        search = BatchedSearch(len(states), GUMBEL.replace(simulations=60, leaves=leaves))
        counts, _ = search.run_states(states, make_evaluator(RingNet(TINY)))
        for g, state in enumerate(states):
            assert counts[g].sum() == 60 and not counts[g][~state.legal_mask()].any()
            assert check_tree(search, g, 0, state) == search.num_nodes[g]
            assert counts[g][search.chosen[g]] == counts[g].max()


GUMBEL_WITHOUT_NUMBA = (
    "import json, numpy as np; import test_alphazero as t; "
    "from agents.alphazero.mcts import BatchedSearch; from agents.alphazero.search_config import SearchConfig; "
    "s = BatchedSearch(3, SearchConfig(simulations=30, search='gumbel', leaves=4)); "
    "c, v = s.run_states(t.random_states(3, seed=4), t.hashed_evaluator, "
    "noise_rngs=[np.random.default_rng([1, g]) for g in range(3)]); "
    "print(json.dumps([c.tolist(), s.chosen.tolist(), s.improved_policy.round(5).tolist()]))"
)


def test_gumbel_gives_the_same_search_without_numba():
    from nojit import run_python

    search = BatchedSearch(3, SearchConfig(simulations=30, search="gumbel", leaves=4))
    counts, _ = search.run_states(random_states(3, seed=4), hashed_evaluator,
                                  noise_rngs=[np.random.default_rng([1, g]) for g in range(3)])  # fmt: skip
    expected = [counts.tolist(), search.chosen.tolist(), search.improved_policy.round(5).tolist()]
    assert run_python(GUMBEL_WITHOUT_NUMBA) == expected


def test_puct_ignores_the_gumbel_settings():
    """The rule is a parameter: PUCT's search is the same whatever Gumbel's constants are."""
    states = random_states(3, seed=2)
    plain, _ = search_states(states, hashed_evaluator, 40)
    search = BatchedSearch(3, SearchConfig(simulations=40, considered_actions=2, value_scale=5.0, gumbel_scale=3.0))
    counts, _ = search.run_states(states, hashed_evaluator)
    np.testing.assert_array_equal(counts, plain)


def test_gumbel_matches_are_symmetric_and_play_against_puct():
    """The same Gumbel player from both seats scores even, and a Gumbel player meets a PUCT one (``search_b``). Its
    self-play samples are checked against their games in tests/test_alphazero.py, with PUCT's."""
    evaluate = make_evaluator(RingNet(TINY))
    wins, draws, losses = play_match(evaluate, evaluate, 8, GUMBEL.replace(simulations=8), 100, seed=0)
    assert wins == losses  # the same deterministic player from both seats
    assert sum(play_match(evaluate, evaluate, 4, GUMBEL.replace(simulations=4), 100, seed=0,
                          search_b=SearchConfig(simulations=4))) == 4  # fmt: skip


def test_the_agent_plays_gumbel_from_its_spec_or_its_checkpoint(tmp_path):
    from agents import make
    from agents.registry import AgentSpecError

    agent = make("alphazero:pretrained,search=gumbel,simulations=16")
    state = random_states(1, seed=12, plies=(4, 20))[0]
    move = agent.act(state)
    assert state.is_legal(move) and agent.config.search == "gumbel" and agent.last_simulations == 17
    assert make("alphazero:pretrained,search=gumbel,simulations=16").act(state) == move  # no noise: deterministic
    save_checkpoint(tmp_path / "gumbel.pt", RingNet(TINY), search=GUMBEL.replace(considered_actions=4).to_dict())
    trained = make(f"alphazero:path={tmp_path / 'gumbel.pt'},simulations=8")
    assert (trained.config.search, trained.config.considered_actions) == ("gumbel", 4)
    assert make(f"alphazero:path={tmp_path / 'gumbel.pt'},search=puct").config.search == "puct"
    with pytest.raises(AgentSpecError, match="search must be one of puct, gumbel, got 'uct'"):
        make("alphazero:pretrained,search=uct")


def test_a_gumbel_run_trains_with_its_workers_and_records_its_search(tmp_path):
    """``awale train alphazero --search gumbel``: a worker process receives the search and plays it; best.pt
    records it and the agent built from best.pt plays it."""
    from test_alphazero_training import config

    from agents import make
    from agents.alphazero.network import read_checkpoint
    from training.alphazero.trainer import train

    run = train(config(tmp_path / "run", "--generations", "1", "--workers", "1", "--search", "gumbel",
                       "--simulations", "4", "--considered-actions", "4"))  # fmt: skip
    assert run.totals["games"] > 0
    saved = read_checkpoint(tmp_path / "run" / "best.pt")["search"]
    assert (saved["search"], saved["simulations"], saved["considered_actions"]) == ("gumbel", 4, 4)
    assert make(f"alphazero:path={tmp_path / 'run' / 'best.pt'},simulations=4").config.search == "gumbel"


def test_the_gumbel_benchmark_plays_both_rules_at_the_networks_trained_constants(monkeypatch):
    """benchmarks/bench_gumbel.py (issue 45's first benchmark) at a tiny setting: the shipped network's recorded
    settings (its simulations among them) give way to the budget measured, and the games add up."""
    from benchmark_scripts import load_benchmark

    bench = load_benchmark("bench_gumbel", monkeypatch)
    row = bench.gumbel_against_puct("awale16", simulations=2, games=2, seed=0, opening_plies=2)
    assert (row["simulations"], row["wins"] + row["draws"] + row["losses"]) == (2, 2)
    assert row["score_low"] <= row["score"] <= row["score_high"]
