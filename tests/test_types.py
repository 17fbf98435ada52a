"""The combo type checker (:mod:`coscore.expr.types`): a table of rules, and no false
error on any rule of the conformance corpora that scores without errors."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

import coscore
from conftest import load_cases
from coscore.expr.types import check_rule
from support import examples


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
    ("1 / 0 * 2", "value", "error", "division by zero"),
    ("1 > 2", "logic", "warning", "never true"),
    ("0 < M(0,T(0)) <= 3", "logic", None, ""),
    ("F(0) > 3", "logic", None, ""),
    ("0", "value", "warning", "contributes 0"),
    ("G(0, 5)", "logic", "error", "needs text"),
    ("G(0, T(0)) or M(1, 2) > 0", "logic", "warning", "needs text"),
    ("G(2, 5)", "logic", "warning", "EM atom never matches"),
    # the atom id position: an atom of the rule whatever the answer (issue 25)
    ("G(T(0)*1000, 1)", "logic", "error", "must be an atom id (0, 1, 2), not text that depends on the answer"),
    ("G(T(0), T(0))", "logic", "error", "not text"),
    ("M(F(0), T(0)) > 0", "logic", "error", "not a number"),
    ("G(0, T(0)) or G(T(0), T(0))", "logic", "error", "atom id"),
    ("G(0 if Q(0) else 9, T(0))", "logic", "error", "atom '9' does not exist"),
    ("G(0 if Q(0) else 1, T(0))", "logic", None, ""),
    ("G(1 - 1, T(0)) and G(X(0, 2), T(0))", "logic", None, ""),
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


def test_an_atom_chosen_by_the_answer_is_an_error_but_not_a_sure_failure():
    report = check_rule(rule(("G(0, T(0)) or G(T(0), T(0))", 2, "logic")))
    assert [d.severity for d in report.diagnostics] == ["error"] and not report.always_fails
    assert check_rule(rule(("G(8 if Q(0) else 9, T(0))", 2, "logic"))).always_fails


def test_one_failure_one_diagnostic():
    assert [(s, m) for s, _, m in found(rule(("1 / 0 * 2", 1, "value")))] == [("error", "division by zero: always fails")]


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


# what only the case analysis (coscore.expr.cases) finds: (combos, mode, path, a word the message holds)
CASES = [
    ([("M(0,T(0))", 3, "value"), ("G(0,T(0))", 1, "logic")], "MAX", "combos.B", "never reaches the MAX total"),
    ([("M(0,T(0)) >= 2 and M(0,T(0)) < 1", 4, "logic")], "ADD", "combos.A", "never true whatever its atoms find"),
    ([("G(0,T(0))", 20, "logic"), ("G(0,T(0))", -2, "logic")], "ADD", "combos.B", "never changes the total"),
    ([("(G(2,T(0)) - G(2,T(0))) * 3", 1, "value")], "ADD", "combos.A", "always contributes 0"),
]


@pytest.mark.parametrize("combos, mode, path, word", CASES)
def test_case_analysis(combos, mode, path, word):
    problems = [p for p in found(rule(*combos, mode=mode)) if p[1] == path and word in p[2]]
    assert [s for s, _, _ in problems] == ["warning"], found(rule(*combos, mode=mode))


def test_case_analysis_leaves_other_rules_to_the_types():
    from coscore.expr.cases import outcomes

    for combo in ("T(0) == 'a'", "F(0) > 1", "Q(0)", "M(1, T(0)) > 0.5", "G(0, 'x' if G(2,T(0)) else 'y')",
                  "G(0, T(0) * Q(0))", "G(0, T(0) * (L(0) > 2))", "G(0, T(A(G(2, T(0)))))"):
        assert outcomes(rule((combo, 1, "logic")).spec, 1) is None, combo
    found_ = outcomes(rule(("G(1, T(0)) and M(0, T(0) + T(1)) > 1", 2, "logic")).spec, 2)
    assert found_.cases == 2 * 4 and found_.totals == {0, 2}


def test_score_range():
    lab = rule(("M(0,T(0))==3", 10, "value"), ("M(0,T(0))==2", 5, "value"), mode="MAX")
    report = check_rule(lab)
    assert (report.score_min, report.score_max, report.exact) == (0, 10, True)  # "abc" reaches 10
    assert report.describe_range() == "scores exactly 0–10"
    one = check_rule(rule(("M(0,T(0))", 2, "value")))
    assert (one.score_min, one.score_max, one.exact) == (0, 6, True)
    logic = check_rule(rule(("G(0,T(0))", 4, "logic"), ("True", 1, "logic")))
    assert (logic.score_min, logic.score_max, logic.exact) == (1, 5, True)
    wide = check_rule(rule(("F(0)", 1, "value")))
    assert (wide.score_min, wide.score_max, wide.exact) == (0, 10, False)
    assert wide.describe_range() == "scores within 0–10"
    # always 5: the types see two independent combos, the cases see one call
    either = check_rule(rule(("G(2,T(0))", 5, "logic"), ("not G(2,T(0))", 5, "logic")))
    assert (either.score_min, either.score_max, either.exact) == (5, 5, True)
    # never true (EM "a" hit means SM "a,b,c" hits), but two atoms vary independently: bounds
    never = check_rule(rule(("G(2,T(0)) and not G(0,T(0))", 5, "logic")))
    assert (never.score_min, never.score_max, never.exact) == (0, 5, False)
    assert never.describe_range() == "scores within 0–5"


def test_a_rule_every_answer_fails_has_no_score_range():
    report = check_rule(rule(("T(0) > 3", 2, "logic")))
    assert report.always_fails and report.describe_range() == "every answer fails: no score"
    assert report.to_dict()["score_range"] is None
    assert not check_rule(rule(("G(0,T(0)) or T(0) > 3", 2, "logic"))).always_fails


def test_witnesses_reach_the_ends_of_the_demo_rules(demo_rules):
    for name, source in demo_rules.items():
        report = check_rule(coscore.compile(source), blanks=1)
        assert (report.score_min, report.score_max, report.exact) == (0, 10, True), name


def _corpus_rules() -> list[tuple[dict, list[dict]]]:
    """Every corpus rule that compiles, with the cases that score without an error."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for case in load_cases():
        groups[json.dumps(case["rule"], sort_keys=True)].append(case)
    return [(cases[0]["rule"], [c for c in cases if "error" not in c["expect"]]) for cases in groups.values()]


def _total(values: list, mode: str) -> float:
    """The clamped total of some combos' values (0 without any)."""
    raw = (sum(values) if mode == "ADD" else max(values)) if values else 0
    return min(10, max(0, raw))


def _combo_of(d) -> str | None:
    return d.path.split(".")[1] if d.path.startswith("combos.") else None


def test_the_checker_is_sound_on_the_corpora():
    """On every corpus rule, for every blank count its answers have (and unknown): no
    error where some answer scores; no combo called never true, always 0 or never
    reaching the MAX total or never changing the total where some answer's total shows otherwise; every score and combo
    value within the ranges the checker gives."""
    checked = 0
    for source, scored in _corpus_rules():
        try:
            r = coscore.compile(source)
        except coscore.RuleError:
            continue
        for blanks in [None, *sorted({len(c["answers"]) for c in scored})]:
            cases = [c for c in scored if blanks is None or len(c["answers"]) == blanks]
            if not cases:
                continue
            checked += 1
            report = check_rule(r, blanks)
            assert not report.always_fails, source
            for d in report.diagnostics:
                assert d.severity == "warning", (source, blanks, str(d))
                combo = _combo_of(d)
                values = [c["expect"]["combos"][combo] for c in cases] if combo else []
                if "never true" in d.message or "contributes 0" in d.message:
                    assert all(v == 0 for v in values), (source, str(d))
                if "never reaches the MAX total" in d.message or "never changes the total" in d.message:
                    for c in cases:
                        others = [v for k, v in c["expect"]["combos"].items() if k != combo]
                        assert _total(others, source["comboMode"]) == c["expect"]["score"], (source, str(d), c["id"])
            for c in cases:
                assert report.score_min <= c["expect"]["score"] <= report.score_max, (source, c["id"])
                for combo in report.combos:
                    assert combo.lo <= c["expect"]["combos"][combo.id] <= combo.hi, (source, combo.id, c["id"])
    assert checked > 700


# -- random rules: nothing the checker says is ever contradicted by scoring -------------------

@pytest.mark.parametrize("mode", ["value", "logic"])
def test_a_known_branch_of_an_answer_dependent_condition_is_no_constant(mode):
    # the condition reads the answer: folding `not (...)` must not evaluate it without one
    r = rule(("not (1 if (1 + G(0,T(0))) else G(0,T(0)))", 1, mode))
    report = check_rule(r, 2)
    assert not report.always_fails
    assert r.score(["a"]).error is None and r.score(["a"]).score == 0.0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TEXTS = st.sampled_from(["T(0)", "T(1)", "T('*')", "T(0) + 'a'", "T(1) * 2"])
CALLS = st.builds(lambda op, atom, text: f"{op}({atom}, {text})", st.sampled_from("GM"), st.sampled_from("0123"), TEXTS)
LEAVES = st.one_of(CALLS, st.sampled_from(["Q(0)", "F(1)", "L(0)", "1", "2", "0", "True"]))


def _grow(inner):
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["+", "-", "*", "==", "<", ">=", "and", "or"]), inner),
        st.builds(lambda a: f"(not {a})", inner),
        st.builds(lambda a, b, c: f"({a} if {b} else {c})", inner, inner, inner),
        st.builds(lambda a, b: f"X({a}, {b})", inner, inner),
    )


EXPRESSIONS = st.recursive(LEAVES, _grow, max_leaves=6)
RANDOM_ATOMS = {"0": {"type": "EM", "desc": "a,ab"}, "1": {"type": "SM", "desc": "a|b,c,!d|e,~a|b"},
                "2": {"type": "OP", "desc": "0.5:abc,ca"}, "3": {"type": "CS", "desc": "0.4:ab"}}
ANSWERS = st.lists(st.text(alphabet="abcde", max_size=4), min_size=2, max_size=2)


@settings(max_examples=examples(150), deadline=None)
@given(combos=st.lists(st.tuples(EXPRESSIONS, st.sampled_from([-2, 1, 3, 12]), st.sampled_from(["logic", "value"])),
                       min_size=1, max_size=3),
       mode=st.sampled_from(["ADD", "MAX"]), answers=st.lists(ANSWERS, min_size=30, max_size=30))
def test_random_rules_never_contradict_the_checker(combos, mode, answers):
    r = rule(*combos, mode=mode, atoms=RANDOM_ATOMS)
    report = check_rule(r, 2)
    batch = r.score_many([*answers, ["a", "ab"], ["", ""], ["abc", "c"], ["e", "d"]])
    for i in range(len(batch.scores)):
        outcome = batch[i]
        if report.always_fails:
            assert outcome.error is not None, (combos, i)
        if outcome.error is not None:
            continue
        assert report.score_min <= outcome.score <= report.score_max, (combos, outcome)
        for combo in report.combos:
            value = outcome.combos[combo.id]
            assert combo.lo <= value <= combo.hi, (combos, combo.id, value)
            if combo.values is not None:
                assert value in combo.values, (combos, combo.id, value)
        for d in report.diagnostics:
            combo = _combo_of(d)
            if "never true" in d.message or "contributes 0" in d.message:
                assert outcome.combos[combo] == 0, (combos, str(d))
            if "never reaches the MAX total" in d.message or "never changes the total" in d.message:
                others = [v for k, v in outcome.combos.items() if k != combo]
                assert _total(others, mode) == outcome.score, (combos, str(d))
