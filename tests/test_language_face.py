"""coscore.language: what the fronts ask of the language about a compiled rule."""
from __future__ import annotations

import coscore
from coscore.language import SCORE_SCALE, check_rule, combo_findings, combo_kinds


def _rule(combos: dict[str, tuple[str, float, str]]) -> coscore.Rule:
    return coscore.compile({
        "atoms": {"0": {"type": "EM", "desc": "a"}, "1": {"type": "OP", "desc": "0.5:abc"}},
        "combos": {cid: {"combo": text, "score": score, "mode": mode} for cid, (text, score, mode) in combos.items()},
        "comboMode": "ADD"})


def test_kinds_texts_and_contributions() -> None:
    rule = _rule({"A": ("G(0, T(0)) and '<b>'", 2, "logic"), "B": ("M(1, T(0))", 1, "value"),
                  "C": ("L(0)", 0, "value")})
    a, b, c = combo_kinds(rule)
    assert (a.id, sorted(a.kinds), a.texts) == ("A", ["bool", "str"], ("<b>",))
    assert a.contribution == (frozenset({"int"}), frozenset({"int"}))  # score 2 or the int 0
    assert b.contribution == (frozenset({"float"}), frozenset({"int"}))  # an OP hit is a float, a miss int 0
    assert c.contribution == (frozenset(), frozenset({"int"}))  # score 0: never non-zero


def test_mixed_u_arguments_leave_the_contributions_unknown() -> None:
    rule = _rule({"A": ("U(G(0, T(0)), 1)", 1, "value"), "B": ("U(L(0), 1.5)", 1, "value")})
    assert [k.contribution for k in combo_kinds(rule)] == [None, None]


def test_checks_and_findings() -> None:
    assert check_rule(_rule({"A": ("G(0, T(0))", 3, "logic")})).describe_range() == "scores exactly 0–3"
    try:
        coscore.compile({"atoms": {"0": {"type": "EM", "desc": "a"}},
                         "combos": {"A": {"combo": "T(0) > 3", "score": 1, "mode": "logic"},
                                    "B": {"combo": "G(0,", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
    except coscore.RuleError as error:
        assert any(d.path == "combos.A.combo" for d in combo_findings(error))
    else:
        raise AssertionError("the rule compiled")
    assert SCORE_SCALE == (0, 10)
