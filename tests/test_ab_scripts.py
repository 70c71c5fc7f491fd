"""The A/B scripts' shared runner (benchmarks/ab_vector_env.py, used by ab_agents.py): the checkouts take turns in
an order reversed every other round, the figures are medians over the rounds with ratios to the first checkout, and
a measurement is read from the last line a fresh process prints, its failure reported with what it wrote."""

from __future__ import annotations

import sys

import pytest
from benchmark_scripts import load_benchmark


@pytest.fixture
def ab(monkeypatch):
    return load_benchmark("ab_vector_env", monkeypatch)


def test_alternated_reverses_the_order_and_takes_medians(ab, tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    calls = []
    rates = {"old": iter([10.0, 30.0, 20.0]), "new": iter([9.0, 27.0, 18.0])}

    def measure(checkout):
        calls.append(checkout.name)
        return {"rate": next(rates[checkout.name])}

    result = ab.alternated([old, new], 3, measure)
    assert calls == ["old", "new", "new", "old", "old", "new"]
    assert result["medians"] == {str(old): {"rate": 20.0}, str(new): {"rate": 18.0}}
    assert result["ratios"][str(new)] == {"rate": pytest.approx(0.9)}
    assert len(result["loads_1min"]) == 6


def test_run_json_reads_the_last_line_from_the_checkout(ab, tmp_path):
    (tmp_path / "probe.py").write_text("VALUE = 7\n")
    code = "import json, probe; print('compiling...'); print(json.dumps({'value': probe.VALUE}))"
    assert ab.run_json(tmp_path, [sys.executable, "-c", code]) == {"value": 7}


def test_run_json_reports_a_failed_measurement_with_its_error(ab, tmp_path):
    with pytest.raises(SystemExit, match="(?s)the measurement failed in .*ZeroDivisionError"):
        ab.run_json(tmp_path, [sys.executable, "-c", "1 / 0"])
