"""The benchmark's pure-Python baseline (benchmarks/baseline.py) scores the benchmark
workloads exactly as coscore does. Only a few hundred answers: the benchmarks themselves
run with ``python benchmarks/run.py``, never under pytest."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import baseline, workloads  # noqa: E402

import coscore  # noqa: E402


@pytest.mark.parametrize("name", workloads.RULES)
def test_baseline_agrees_with_coscore_on_the_workloads(name):
    source = workloads.rule_source(name)
    answers = workloads.dataset(name) + workloads.distinct(name, 100) + workloads.real_duplicates(name, 100)
    expected = baseline.Rule(source).score_many(answers)
    batch = coscore.compile(source).score_many(answers)
    assert baseline.compare(batch, expected) == []
    assert not any(expected[1]), "the demo workloads score without errors"


def test_workloads_are_deterministic_and_distinct():
    a = workloads.distinct("lane-change", 300)
    assert a == workloads.distinct("lane-change", 300)
    assert workloads.duplicate_rate(a) == 0.0
    assert workloads.duplicate_rate(workloads.real_duplicates("lab-tools", 300)) > 0.05
