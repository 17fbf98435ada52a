"""Rule text is untrusted: everything outside the language is a clean RuleError, fast."""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from conftest import assert_batch_matches_score
from support import examples


def _rule(combo: str, atoms: dict | None = None) -> dict:
    return {
        "atoms": atoms if atoms is not None else {"0": {"type": "SM", "desc": "a"}, "1": {"type": "OP", "desc": "0.5:ab"}},
        "combos": {"A": {"combo": combo, "score": 1, "mode": "value"}},
        "comboMode": "ADD",
    }


def _error(combo: str) -> coscore.Diagnostic:
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(_rule(combo))
    (diagnostic,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert diagnostic.path == "combos.A.combo"
    return diagnostic


@pytest.mark.parametrize(
    "combo, column, words",
    [
        ("T(0).upper()", 5, "attribute"),
        ("T(0)[0]", 5, "subscript"),
        ("Z(1)", 1, "unknown operator 'Z'"),
        ("M(0, T(0)) + x", 14, "unknown name 'x'"),
        ("__import__('os')", 1, "unknown operator '__import__'"),
        ("len(T(0))", 1, "unknown operator 'len'"),
        ("(lambda: 1)()", 2, "lambda"),
        ("[c for c in T(0)]", 1, "list"),
        ("{1: 2}", 1, "dict"),
        ("(y := 1)", 4, "assignment"),
        ("2 ** 3", 3, "power"),
        ("T(0, 1)", 1, "T() takes exactly 1 argument (2 given)"),
        ("G(0)", 1, "G() takes exactly 2 arguments (1 given)"),
        ("X()", 1, "X() takes at least 1 argument"),
        ("G(7, T(0))", 3, "atom '7' does not exist"),
        ("M('x', T(0))", 3, "atom 'x' does not exist"),
        ("T(x=1)", 3, "unknown name 'x'"),
        ("T('0')", 3, "blank number or '*'"),
        ("T(1.5)", 3, "blank number or '*'"),
        ("1" * 4301, 1, "4300 digits"),
        ("(1, 2)", 3, "tuples"),
        ("T(0) if Q(0)", 6, "'else'"),
        ("None", 1, "None"),
        ("b'x'", 1, "bytes"),
        ("f'{T(0)}'", 1, "f-strings"),
        ("1j", 1, "complex"),
        ("T(0) % 2", 6, "'%'"),
        ("T(0) in 'abc'", 6, "'in'"),
        ("not", 4, "unexpected end"),
        ("M(0, T(0)", 1, "'M(' was never closed"),
        ("1 + not 2", 5, "'not' cannot follow '+'"),
        ("T", 1, "must be called"),
        ("*T(0)", 1, "starred"),
    ],
)
def test_refused_constructs_name_place_and_reason(combo, column, words):
    diagnostic = _error(combo)
    assert words in diagnostic.message
    assert diagnostic.column == column
    rendered = str(diagnostic)
    assert rendered.startswith(f"combos.A.combo, column {column}: ")
    assert rendered.splitlines()[-1].index("^") == 4 + min(column - 1, 60)


@pytest.mark.parametrize(
    "combo",
    [
        "(" * 100_000 + "1" + ")" * 100_000,
        "+".join(["1"] * 50_000),
        "-" * 9_990 + "F(0)",
        "not " * 2_000 + "1",
        "X(" * 5_000 + "1" + ")" * 5_000,
        "(" * 101 + "1" + ")" * 101,
    ],
)
def test_hostile_sizes_are_refused_quickly(combo):
    start = time.perf_counter()
    diagnostic = _error(combo)
    assert time.perf_counter() - start < 10.0  # generous: a sanity bound on a shared machine, not a timing target
    assert "longer than" in diagnostic.message or "deeper than" in diagnostic.message


def test_signed_literals_are_constants():
    rule = coscore.compile(_rule("-" * 5_001 + "2 + S(-1)"))  # folded as Python does: no nesting
    assert rule.score(["a", "bcd"]).combos["A"] == 1


def test_long_flat_sums_within_bounds_are_fine():
    rule = coscore.compile(_rule("+".join(["M(0, T(0))"] * 900)))
    assert rule.score(["a"]).combos["A"] == 900


def test_string_repetition_beyond_the_budget_is_an_error_for_that_answer_not_an_allocation():
    rule = coscore.compile(
        {"atoms": {}, "combos": {"A": {"combo": "T(0) * 6000000 == ''", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    )
    outcome = rule.score(["ab"])  # 12 million characters
    assert outcome.error is not None and "exceed 10,000,000 characters" in outcome.error
    assert rule.score(["a"]).ok  # 6 million: built, as Python would
    assert rule.score_many([["ab"], ["c"]]).errors == [outcome.error, None]


def test_string_joins_are_bounded_per_answer():
    rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "a"}}, "combos": {"A": {
        "combo": "M(0, " + "+".join(["T(0)"] * 1_500) + ")", "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    big = "a" * 100_000  # 1,500 copies would be 150 million characters
    outcome = rule.score([big])
    assert outcome.error is not None and "max_built_chars" in outcome.error  # the answer budget stops it first
    assert rule.score_many([[big], ["a"]]).errors == [outcome.error, None]


@settings(max_examples=examples(400), deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_raises_anything_but_rule_error(text):
    try:
        coscore.compile(_rule(text))
    except coscore.RuleError:
        pass


_PIECES = st.sampled_from(
    ["T(0)", "T('*')", "M(0, T(0))", "G(0, T(1))", "(", ")", " and ", " or ", " not ", " if ", " else ",
     "+", "-", "*", "/", "==", "<", ",", "1", "0.5", "'a'", "Q(0)", "X(", "A(", "U(", "L(0)", "F(1)", "S(0)",
     "T(", "L(", "M(1, ", "99999999999999999999", "-1", "'*'", "True", "1e308", "T(-3)", "Q('*')"]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_PIECES, max_size=25).map("".join))
def test_random_token_soup_compiles_or_is_refused_and_scores_without_crashing(text):
    try:
        rule = coscore.compile(_rule(text))
    except coscore.RuleError:
        return
    answers = [["a", "1"], ["", "null"], ["a"]]
    for answer in answers:
        assert_batch_matches_score(rule, [answer], rule.score_many([answer]))
    assert_batch_matches_score(rule, answers, rule.score_many(answers))
