"""The combo language where it is easiest to get wrong: combo text read as Python's ``eval``
reads it (layout, line breaks, comments), full-width names and keywords, and string
repetition. Each point is checked against CPython itself."""
from __future__ import annotations

import time

import pytest

import coscore
from conftest import assert_batch_matches_score
from coscore.expr.evaluate import Answer, compile_tree
from coscore.expr.parse import parse
from coscore.expr.tokens import ExprSyntaxError

ATOMS = {"0": {"type": "EM", "desc": "a"}}


def _rule(combo: str, score=1, mode: str = "value", combo_mode: str = "ADD", atoms=None) -> coscore.Rule:
    return coscore.compile({
        "atoms": ATOMS if atoms is None else atoms,
        "combos": {"A": {"combo": combo, "score": score, "mode": mode}},
        "comboMode": combo_mode,
    })


def _ours(text: str, blanks=("ab", "", "3")):
    return compile_tree(parse(text))(Answer(list(blanks), {}))


def _python(text: str):
    return eval(text, {"__builtins__": {}})  # noqa: S307 - the test's own literal texts


# -- layout --------------------------------------------------------------------------------

ACCEPTED = [
    " 1 + 2", "\t1", "1 + 2 ", "1\n", "1\r\n", "1\r", "\n\n1\n\n", "# note\n1", "1 # note", "1 # note\n",
    "(1 +\n 2)", "(1 +\r\n 2)", "(1 # note\n + 2)", "1 + \\\n 2", "1 + \\\r\n 2", "\\\n1", "\f1", "1\n  \n",
    "1\n  # note", "\n \f1", "'''a\rb'''", "'''a\r\nb'''", "'a\\\r\nb'", "r'''a\r\nb'''", "'\\\r'", "1 # \\",
]
REFUSED = [
    "\n 1", "1\n  ", "1\n2", "(1)\n(2)", "1 \\", "1 \\\n", "1 \\ \n+ 2", "\\\n 1", "\f 1", "'a\rb'", "1\x00",
    "1 +\n2", "", "\n", "# only a comment", "1\v", "1)\n", "(1)\n)",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_layout_python_accepts_reads_as_python_does(text):
    assert _ours(text) == _python(text)


@pytest.mark.parametrize("text", REFUSED)
def test_layout_python_refuses_is_refused(text):
    with pytest.raises((SyntaxError, ValueError)):  # ValueError for NUL on some versions (3.11.2): still refused
        compile(text.lstrip(" \t"), "<test>", "eval")
    with pytest.raises(ExprSyntaxError):
        parse(text)


def test_a_combo_pasted_from_a_text_box_compiles():
    for combo in ("G(0, T(0))\n", "G(0, T(0))\r\n", "  G(0, T(0))  # full marks\n", "G(0,\n  T(0))", "G(0, \\\nT(0))"):
        assert _rule(combo).score(["a"]).score == 1, combo


def test_a_raw_cr_in_a_string_reads_as_a_line_feed():
    assert _ours("'''x\ry''' == 'x\\ny'") is True
    assert _rule("T(0) == '''x\r\ny'''", mode="logic").score(["x\ny"]).score == 1


def test_a_closing_bracket_too_many_is_named_before_the_line_ends():
    with pytest.raises(ExprSyntaxError) as raised:
        parse("(1))\n+ 1")
    assert (raised.value.message, raised.value.column) == ("unmatched ')'", 4)


def test_layout_errors_name_the_place():
    with pytest.raises(coscore.RuleError) as raised:
        _rule("G(0, T(0))\n+ 1")
    assert "combos.A.combo" in str(raised.value) and "column 12" in str(raised.value)


# -- full-width names and keywords ---------------------------------------------------------

@pytest.mark.parametrize("combo", ["ｎｏｔ G(0, T(0))", "Ｔｒｕｅ", "1 ａｎｄ 2", "1 ｏｒ 2", "1 ｉｆ 1 ｅｌｓｅ 2", "Ｆａｌｓｅ",
                                   "ｌａｍｂｄａ: 1"])
def test_full_width_keywords_are_not_keywords(combo):
    with pytest.raises(coscore.RuleError) as raised:
        _rule(combo)
    assert "keywords are spelled in ASCII" in str(raised.value)


def test_full_width_names_still_fold_as_python_does():
    assert _rule("Ｇ(0, Ｔ(0))").score(["a"]).score == 1
    assert _ours("Ｔ(0) + Ｔ(2)") == "ab3"


# -- string repetition ---------------------------------------------------------------------

@pytest.mark.parametrize("combo, expected", [
    ("T(0) * 2", "abab"), ("2 * T(0)", "abab"), ("T(0) * True", "ab"), ("False * T(0)", ""),
    ("T(0) * -3", ""), ("T(0) * 0", ""), ("Q(1) * T(0)", "ab"), ("Q(0) * T(0)", ""), ("T(0) * 2 * 2", "abababab"),
    ("(T(0) + 'c') * 2", "abcabc"),
])
def test_string_repetition_is_pythons(combo, expected):
    assert _ours(combo) == expected
    rule = _rule(f"({combo}) == {expected!r}", mode="logic")
    answers = [["ab", "", "3"], ["ab", "x", "3"], ["c", "", "3"]]
    batch = rule.score_many(answers)
    assert_batch_matches_score(rule, answers, batch)
    assert batch[0].score == 1


@pytest.mark.parametrize("combo", ["T(0) * 2.0", "T(0) * T(0)", "T(0) * F(2)", "T(0) * 9999999999999999999999"])
def test_repetition_python_refuses_is_an_error_for_that_answer(combo):
    try:
        _python(combo.replace("T(0)", "'ab'").replace("F(2)", "3.0"))
    except (TypeError, OverflowError):
        pass
    else:
        pytest.fail("Python accepts it")
    outcome = _rule(f"{combo} == ''", mode="logic").score(["ab", "", "3"])
    assert outcome.error is not None and outcome.error.startswith("combos.A: ")


def test_repetition_is_bounded_by_the_per_answer_text_budget_without_allocating():
    rule = _rule("T(0) * 100000000000 == ''", mode="logic")  # 200 billion characters
    start = time.perf_counter()
    outcome = rule.score(["ab"])
    assert time.perf_counter() - start < 1.0
    assert outcome.error == "combos.A: repeating this string would exceed 10,000,000 characters"
    assert rule.score_many([["ab"], [""]]).errors == [outcome.error, None]  # '' * n is ''
    assert _rule("S(0) if T(0) * 5000000 else 0").score(["ab"]).score == 2  # exactly 10,000,000: built
