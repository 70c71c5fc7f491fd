"""benchmarks/bench_agents.py's positions are a function of the seed alone: a fixed-depth A/B of two versions, run in
two processes, searches the same trees only if both draw the same positions (Oware's first player is drawn)."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_benchmark

from awale_env.games import GAMES


@pytest.fixture
def bench_agents(monkeypatch):
    return load_benchmark("bench_agents", monkeypatch)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_same_seed_draws_the_same_positions(bench_agents, game):
    first, second = (bench_agents.random_positions(game, 8, seed=3) for _ in range(2))
    assert [state.to_dict() for state in first] == [state.to_dict() for state in second]
