"""benchmarks/bench_agents.py's positions are a function of the seed alone: a fixed-depth A/B of two versions, run in
two processes, searches the same trees only if both draw the same positions (Oware's first player is drawn)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from awale_env.games import GAMES

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_agents(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("bench_agents", BENCHMARKS / "bench_agents.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_agents", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", list(GAMES))
def test_the_same_seed_draws_the_same_positions(bench_agents, game):
    first, second = (bench_agents.random_positions(game, 8, seed=3) for _ in range(2))
    assert [state.to_dict() for state in first] == [state.to_dict() for state in second]
