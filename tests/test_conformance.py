"""Every conformance case holds through ``score`` and ``score_many`` (any ``jobs``)."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

import coscore
from conftest import load_cases

CASES = load_cases()


def _rule_groups() -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for case in CASES:
        groups[json.dumps(case["rule"], sort_keys=True)].append(case)
    return groups


GROUPS = _rule_groups()


def test_corpus_is_complete():
    assert len(CASES) == 4433


def _check(case: dict, score, combos: dict, error) -> None:
    expect = case["expect"]
    if "error" in expect:
        assert error is not None, (case["id"], score, combos)
        return
    assert error is None, (case["id"], error)
    assert score == expect["score"], case["id"]
    assert combos == expect["combos"], case["id"]


def test_score_matches_every_case():
    compiled: dict[str, coscore.Rule] = {}
    for case in CASES:
        key = json.dumps(case["rule"], sort_keys=True)
        if key not in compiled:   # (setdefault would compile it for every case)
            compiled[key] = coscore.compile(case["rule"])
        rule = compiled[key]
        outcome = rule.score(case["answers"])
        _check(case, outcome.score, outcome.combos, outcome.error)


@pytest.mark.parametrize("jobs", [1, 2, -1])
def test_score_many_matches_every_case(jobs):
    for cases in GROUPS.values():
        rule = coscore.compile(cases[0]["rule"])
        batch = rule.score_many([case["answers"] for case in cases], jobs=jobs)
        assert len(batch) == len(cases)
        for i, case in enumerate(cases):
            error = batch.errors[i]
            combos = {cid: float(values[i]) for cid, values in batch.combos.items()}
            _check(case, None if error else float(batch.scores[i]), combos, error)


def test_raw_values_keep_the_original_types():
    """The raw total and combo values have the original's int/float types (JSON-identical)."""
    compiled: dict[str, coscore.Rule] = {}   # 771 rules for 4,433 cases: each compiled once
    for case in CASES:
        if "error" in case["expect"]:
            continue
        key = json.dumps(case["rule"], sort_keys=True)
        if key not in compiled:
            compiled[key] = coscore.compile(case["rule"])
        rule = compiled[key]
        results: list = []
        total = rule.evaluate(list(case["answers"]), results)
        got = json.dumps([total, dict(zip(rule.combo_ids, results))])
        want = json.dumps([case["expect"]["score"], case["expect"]["combos"]])
        assert got == want, case["id"]


def test_every_conformance_rule_compiles_without_errors():
    for cases in GROUPS.values():
        coscore.compile(cases[0]["rule"])
