"""The public API's small promises: sources, dialects, outcomes, traces."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import coscore

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
L_RULE = {"atoms": {}, "combos": {"A": {"combo": "L(0) + L('*')", "score": 1, "mode": "value"}}, "comboMode": "ADD"}


def test_compile_takes_a_dict_json_text_bytes_or_a_path():
    path = DEMO / "lane-change.rule.json"
    rules = [coscore.compile(path), coscore.compile(json.loads(path.read_text("utf-8"))),
             coscore.compile(path.read_text("utf-8")), coscore.compile(path.read_bytes())]
    assert len({r.score(["前进障碍变换车道停止"]).score for r in rules}) == 1
    with pytest.raises(coscore.RuleError, match=r"pass a pathlib\.Path"):
        coscore.compile(str(path))
    with pytest.raises(coscore.RuleError, match="cannot read"):
        coscore.compile(Path("no/such/rule.json"))


@pytest.mark.parametrize("how", ["keyword", "key"])
def test_manual_dialect_counts_characters(how):
    answer = ["爱爱ab", "null"]
    assert coscore.compile(L_RULE).score(answer).score == 2  # distinct CJK: 1 + 1
    rule = coscore.compile(L_RULE, dialect="manual") if how == "keyword" else coscore.compile({**L_RULE, "dialect": "manual"})
    assert rule.dialect == "manual"
    assert rule.score(answer).score == 8  # 4 characters + 4 ("null" counts as empty)
    assert rule.score_many([answer, answer]).scores.tolist() == [8, 8]


def test_keyword_dialect_wins_over_the_rule_key():
    assert coscore.compile({**L_RULE, "dialect": "manual"}, dialect="coscore").score(["爱爱ab"]).score == 2


def test_outcome_of_a_failing_answer_names_the_combo_and_keeps_earlier_combos():
    rule = coscore.compile({"atoms": {}, "combos": {
        "A": {"combo": "S(0)", "score": 1, "mode": "value"},
        "B": {"combo": "1 / F(0)", "score": 1, "mode": "value"},
        "C": {"combo": "T(5) == ''", "score": 1, "mode": "logic"},
    }, "comboMode": "ADD"})
    outcome = rule.score(["0"])
    assert outcome.error == "combos.B: division by zero" and outcome.score is None
    assert outcome.combos == {"A": 1.0}
    assert rule.score(["2"]).error == "combos.C: blank 5 does not exist (the answer has 1 blank)"
    batch = rule.score_many([["0"], ["2"], "4"])
    assert batch.errors[:2] == [outcome.error, "combos.C: blank 5 does not exist (the answer has 1 blank)"]
    assert batch[0] == outcome and batch.failed.tolist() == [True, True, True]


def test_trace_lists_every_atom_call_in_order():
    rule = coscore.compile(DEMO / "traffic-light.rule.json")
    outcome, calls = rule.trace(["前进", "如果红灯等待", "左转"])
    assert outcome.score == 7.0
    assert [(c.combo, c.op, c.atom) for c in calls] == [("A", "M", "0"), ("B", "G", "1"), ("C", "M", "2")]
    assert calls[0].text == "前进如果红灯等待左转" and calls[0].value == 0.8 and calls[0].hit


def test_evaluate_gives_the_raw_total_and_leaves_the_failing_combo_index():
    rule = coscore.compile({"atoms": {}, "combos": {
        "A": {"combo": "S(0)", "score": 2, "mode": "value"},
        "B": {"combo": "1 / F(0)", "score": 1, "mode": "value"},
    }, "comboMode": "ADD"})
    results: list = []
    assert rule.evaluate(["4"], results) == 2.25 and results == [2, 0.25]
    results = []
    with pytest.raises(ZeroDivisionError) as caught:
        rule.evaluate(["0"], results)
    assert results == [2]
    assert coscore.results.failure_message(rule.combo_ids, results, caught.value) == rule.score(["0"]).error
