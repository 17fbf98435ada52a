"""A task's ``result`` JSON equals the original engine's ``json.dumps`` byte for byte."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

import coscore
from conftest import load_cases
from coscore.compat import Rule as OriginalRule
from coscore.webapp.stored_result import AnswerFailed, result_json
from support import examples


def _groups() -> list[tuple[dict, list[list[str]]]]:
    groups: dict[str, list] = defaultdict(list)
    rules = {}
    for case in load_cases():
        key = json.dumps(case["rule"])
        rules[key] = case["rule"]
        answers = case["answers"]
        groups[key].append(answers if isinstance(answers, list) else [answers])
    return [(rules[key], answers) for key, answers in groups.items()]


def _original(source: dict, answers: list) -> tuple[str, list]:
    """What the original server stores for the answers it can score, and those answers."""
    scores, logs, kept = [], [], []
    for answer in answers:
        try:
            score, debug = OriginalRule(source).calculate(answer)
        except Exception:
            continue
        del debug["calMemory"]
        scores.append(score)
        logs.append(debug)
        kept.append(answer)
    return json.dumps({"scores": scores, "logs": logs}), kept


def test_every_conformance_rule_gives_the_original_result_text():
    checked = 0
    for source, answers in _groups():
        try:
            rule = coscore.compile(source)
        except coscore.RuleError:
            continue
        expected, kept = _original(source, answers)
        if not kept:
            continue
        assert result_json(rule, source, kept) == expected, source
        checked += len(kept)
    assert checked > 4000


def test_the_first_failing_answer_is_reported():
    source = {"atoms": {}, "combos": {"A": {"combo": "1 / L(0)", "score": 1, "mode": "value"}}, "comboMode": "ADD"}
    with pytest.raises(AnswerFailed) as failed:
        result_json(coscore.compile(source), source, [["中"], ["x"], ["y"]])
    assert failed.value.index == 1 and failed.value.message == "combos.A: division by zero"


def test_typed_values_of_the_common_shapes():
    source = {"atoms": {"0": {"type": "OP", "desc": "0.5:前进"}, "1": {"type": "SM", "desc": "如果"}},
              "combos": {"A": {"combo": "M(0, T(0))", "score": 5, "mode": "value"},
                         "B": {"combo": "G(1, T(0))", "score": 3, "mode": "logic"},
                         "C": {"combo": "M(1, T(0)) > 0", "score": 10, "mode": "value"}},
              "comboMode": "ADD"}
    answers = [["前进"], ["如果"], ["无"]]
    expected, _ = _original(source, answers)
    assert result_json(coscore.compile(source), source, answers) == expected == (
        '{"scores": [5.0, 10, 0], "logs": [{"A": 5.0, "B": 0, "C": 0}, {"A": 0, "B": 3, "C": 10}, '
        '{"A": 0, "B": 0, "C": 0}]}')


def test_a_rule_without_combos_scores_zero_as_the_original():
    source = {"atoms": {}, "combos": {}, "comboMode": "ADD"}
    answers = [["x"], ["y"]]
    expected, _ = _original(source, answers)
    assert result_json(coscore.compile(source), source, answers) == expected == '{"scores": [0, 0], "logs": [{}, {}]}'


# -- random combos: the typed columns never disagree with the original --------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ATOMS = {"0": {"type": "OP", "desc": "0.5:前进,变道"}, "1": {"type": "EM", "desc": "停车"},
          "2": {"type": "SM", "desc": "如果|若,障碍"}, "3": {"type": "CS", "desc": "0.3:前进停车"}}
_LEAVES = ["M(0, T(0))", "M(1, T(0))", "M(2, T(0))", "M(3, T(1))", "G(0, T(0))", "G(2, T(1))", "F(1)", "L(0)",
           "Q(1)", "Q('*')", "1", "0", "2.5", "0.0", "True", "False", "-1", "A(G(1, T(0)), G(2, T(0)))", "S(0)"]


def _expressions() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", " and ", " or ", " > ", " == "]), inner)
        return st.one_of(
            binary.map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
            st.tuples(st.sampled_from(["U", "X"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            st.tuples(st.sampled_from(["-", "not "]), inner).map(lambda t: f"({t[0]}{t[1]})"),
        )

    return st.recursive(st.sampled_from(_LEAVES), grow, max_leaves=6)


_ANSWERS = [["前进", "1.5"], ["停车", "0"], ["如果有障碍就变道", "x"], ["", ""], ["前进停车", "-2"], ["变", "0.0"],
            ["若障碍", "3"], ["nan", "1e400"]]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_expressions(), st.sampled_from([1, 2.5, 0, True, 0.0, 10]),
                          st.sampled_from(["logic", "value"])), min_size=1, max_size=3),
       st.sampled_from(["ADD", "MAX"]))
def test_random_combos_store_the_original_text(combos, mode):
    source = {"atoms": _ATOMS, "comboMode": mode,
              "combos": {chr(65 + i): {"combo": c, "score": s, "mode": m} for i, (c, s, m) in enumerate(combos)}}
    try:
        rule = coscore.compile(source)
    except coscore.RuleError:
        return
    expected, kept = _original(source, _ANSWERS)
    if kept:
        assert result_json(rule, source, kept) == expected, source
