"""The combo type checker (:mod:`coscore.expr.types`): a table of rules, and no false
error on any rule of the conformance corpora that scores without errors."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

import coscore
from conftest import load_cases
from coscore.expr.types import check_rule


def rule(*combos: tuple[str, float, str], mode: str = "ADD", atoms: dict | None = None) -> coscore.Rule:
    return coscore.compile({
        "atoms": atoms or {"0": {"type": "SM", "desc": "a,b,c"}, "1": {"type": "OP", "desc": "0.5:abc"},
                           "2": {"type": "EM", "desc": "a"}},
        "combos": {chr(65 + i): {"combo": c, "score": s, "mode": m} for i, (c, s, m) in enumerate(combos)},
        "comboMode": mode,
    })


def found(r: coscore.Rule, blanks: int | None = None) -> list[tuple[str, str, str]]:
    return [(d.severity, d.path, d.message) for d in check_rule(r, blanks).diagnostics]


# (combo, mode, expected severity or None, a word the message holds)
TABLE = [
    ("T(0) > 3", "logic", "error", "orders text"),
    ("3 <= T(0)", "logic", "error", "orders a number"),
    ("T(0) == 3", "logic", None, ""),
    ("T(0) + 1", "logic", "error", "cannot add"),
    ("T(0) - T(1)", "logic", "error", "cannot subtract"),
    ("T(0) + T(1) == 'ab'", "logic", None, ""),
    ("T(0) * 2 == 'aa'", "logic", None, ""),
    ("Q(0) * T(0)", "logic", None, ""),
    ("T(0) * 1.5", "logic", "error", "cannot multiply"),
    ("-T(0)", "logic", "error", "unary"),
    ("G(0, T(0)) or T(0) > 3", "logic", "warning", "whenever"),
    ("False and T(0) > 3", "logic", "warning", "never true"),
    ("T(0) if G(0,T(0)) else 1", "value", None, ""),
    ("T(0)", "value", "error", "value-mode"),
    ("U(T(0), 3)", "logic", "error", "orders"),
    ("X(T(0), 1)", "logic", "error", "orders"),
    ("X(T(0), T(1)) == 'a'", "logic", None, ""),
    ("M(0, T(0)) == 7", "logic", "warning", "never true"),
    ("M(0, T(0)) > 3", "logic", "warning", "never true"),
    ("M(0, T(0)) >= 3", "logic", None, ""),
    ("M(1, T(0)) > 1", "logic", "warning", "never true"),
    ("1 / 0", "value", "error", "division by zero"),
    ("1 > 2", "logic", "warning", "never true"),
    ("0 < M(0,T(0)) <= 3", "logic", None, ""),
    ("F(0) > 3", "logic", None, ""),
    ("0", "value", "warning", "contributes 0"),
    ("G(0, 5)", "logic", "error", "needs text"),
    ("G(0, T(0)) or M(1, 2) > 0", "logic", "warning", "needs text"),
    ("G(2, 5)", "logic", "warning", "EM atom never matches"),
]


@pytest.mark.parametrize("combo, mode, severity, word", TABLE)
def test_table(combo, mode, severity, word):
    problems = found(rule((combo, 2, mode)))
    if severity is None:
        assert problems == [], problems
    else:
        assert any(s == severity and word in m for s, _, m in problems), problems
        if severity == "warning":
            assert all(s == "warning" for s, _, _ in problems), problems


def test_columns_point_at_the_operator():
    (d,) = check_rule(rule(("G(0,T(0)) and T(0) > 3", 1, "logic"))).diagnostics
    assert d.column == 20 and d.path == "combos.A.combo"


def test_scores_outside_the_scale_and_no_combos():
    assert ("warning", "combos.A.score", "score 20 is outside the 0–10 scale") in found(rule(("G(0,T(0))", 20, "logic")))
    assert any("outside" in m for _, _, m in found(rule(("G(0,T(0))", -2, "logic"))))
    empty = coscore.compile({"atoms": {}, "combos": {}, "comboMode": "ADD"})
    assert found(empty) == [("warning", "combos", "no combos: every answer scores 0")]


def test_blanks_against_the_data():
    r = rule(("G(0, T(1))", 1, "logic"), ("Q(0) or G(0, T(3))", 1, "logic"))
    report = check_rule(r)
    assert report.blanks_needed == 2 and report.diagnostics == []
    problems = found(r, blanks=1)
    assert ("error", "combos.A.combo", "reads blank 1, but the data has 1 blank") in problems
    assert any(s == "warning" and p == "combos.B.combo" for s, p, _ in problems)
    assert found(r, blanks=4) == []
    varying = found(r, blanks=(1, 4))
    assert [s for s, _, _ in varying] == ["warning", "warning"] and "some answers have only 1 blank" in varying[0][2]
    assert check_rule(rule(("G(0, T(-3))", 1, "logic"))).blanks_needed == 3


def test_max_dominated_combo():
    r = rule(("5", 1, "value"), ("G(0,T(0))", 3, "logic"), ("M(0,T(0))", 3, "value"), mode="MAX")
    problems = found(r)
    assert [p for _, p, _ in problems] == ["combos.B"]
    assert "never reaches the MAX total" in problems[0][2]


def test_score_range():
    lab = rule(("M(0,T(0))==3", 10, "value"), ("M(0,T(0))==2", 5, "value"), mode="MAX")
    report = check_rule(lab)
    assert (report.score_min, report.score_max, report.exact) == (0, 10, False)
    one = check_rule(rule(("M(0,T(0))", 2, "value")))
    assert (one.score_min, one.score_max, one.exact) == (0, 6, True)
    logic = check_rule(rule(("G(0,T(0))", 4, "logic"), ("True", 1, "logic")))
    assert (logic.score_min, logic.score_max, logic.exact) == (1, 5, True)
    wide = check_rule(rule(("F(0)", 1, "value")))
    assert (wide.score_min, wide.score_max, wide.exact) == (0, 10, False)


def _corpus_rules() -> list[tuple[dict, int]]:
    """Every corpus rule all of whose answers score without errors, with the fewest blanks
    among its answers."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for case in load_cases():
        groups[json.dumps(case["rule"], sort_keys=True)].append(case)
    out = []
    for cases in groups.values():
        if all("error" not in c["expect"] for c in cases):
            out.append((cases[0]["rule"], min(len(c["answers"]) for c in cases)))
    return out


def test_no_false_error_on_the_corpora():
    rules = _corpus_rules()
    assert len(rules) > 100
    for source, blanks in rules:
        try:
            r = coscore.compile(source)
        except coscore.RuleError:
            continue
        for given in (None, blanks):
            errors = [d for d in check_rule(r, given).diagnostics if d.severity == "error"]
            assert errors == [], (source, given, [str(d) for d in errors])
