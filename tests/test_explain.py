"""Per-atom evidence for one answer: it follows SEMANTICS.md and agrees with the engine."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore.explain import (
    CSEvidence,
    EMEvidence,
    OPEvidence,
    SMEvidence,
    atom_evidence,
    cs_evidence,
    explain,
    lcs_alignment,
    op_evidence,
    render,
    sm_evidence,
)


def _rule(atoms: dict[str, tuple[str, str]], combo: str) -> coscore.Rule:
    return coscore.compile({
        "atoms": {aid: {"type": kind, "desc": desc} for aid, (kind, desc) in atoms.items()},
        "combos": {"A": {"combo": combo, "score": 1, "mode": "value"}},
        "comboMode": "ADD",
    })


# -- evidence functions -------------------------------------------------------------------


def test_op_manual_example_5():
    ev = op_evidence(0.4, ["绕绕落落回"], "一二绕三四落五回")
    assert (ev.best.numerator, ev.best.denominator) == (3, 5)
    assert ev.best.similarity == 0.6
    assert "".join(c for c, m in zip("绕绕落落回", ev.key_matched) if m) == "绕落回"
    assert "".join(c for c, m in zip("一二绕三四落五回", ev.text_matched) if m) == "绕落回"


def test_lcs_alignment_is_a_common_subsequence_of_the_right_length():
    length, key_hit, text_hit = lcs_alignment("ABCBDAB", "BDCABA")
    assert length == 4 == sum(key_hit) == sum(text_hit)
    assert [c for c, m in zip("ABCBDAB", key_hit) if m] == [c for c, m in zip("BDCABA", text_hit) if m]


def test_a_long_text_is_scored_but_not_aligned_and_shown_cut():
    text = "前进" + "x" * 1_200_000 + "障碍"
    ev = op_evidence(0.4, ["前进障碍"], text)
    assert (ev.best.numerator, ev.best.similarity, ev.aligned) == (4, 1.0, False)
    assert ev.key_matched == ev.text_matched == []
    rule = _rule({"0": ("OP", "0.4:前进障碍")}, "M(0, T(0))")
    shown = render(explain(rule, [text]))
    assert "too long to mark the alignment" in shown and len(shown) < 5_000
    short = render(explain(rule, ["前进" + "x" * 1000 + "障碍"]))
    assert "[前进]" in short and "… (1,004 characters)" in short and len(short) < 5_000


def test_op_empty_key_has_similarity_zero():
    ev = op_evidence(0.0, ["", "ab"], "xab")
    assert [s.similarity for s in ev.scores] == [0.0, 1.0]


@pytest.mark.parametrize(
    "key,text,expected",
    [("ΑΣ", "ας", 1 / 3), ("ΑΣ", "ασ", 1.0), ("İ", "i", 0.0), ("ab", "a b\u3000", 1.0), ("", "", 0.0)],
)
def test_cs_semantics_examples(key, text, expected):
    assert cs_evidence(0.0, [key], text).best.similarity == expected


def test_cs_counts_for_the_best_key():
    ev = cs_evidence(0.5, ["aab"], "abc")
    assert ev.counts == [("a", 2, 1), ("b", 1, 1), ("c", 0, 1)]
    assert (ev.best.numerator, ev.best.denominator) == (2, 4)


def test_sm_ordered_walk():
    # manual example 4
    assert sm_evidence([["爱"], ["祖国", "国家"]], "我爱国, 我爱祖国母亲").count == 2
    assert sm_evidence([["爱"], ["祖国", "国家"]], "祖国祖国国家国家").count == 1
    # order matters: the exclusion after a counted option never fires
    first = sm_evidence([["国家", "!不爱国家"]], "不爱国家").groups[0]
    assert [s.action for s in first.steps] == ["counted", "not reached"]
    excluded = sm_evidence([["!不爱国家", "国家"]], "不爱国家").groups[0]
    assert [s.action for s in excluded.steps] == ["excluded", "not reached"] and not excluded.counted
    # ~ removes every occurrence; later options see the shortened text
    removed = sm_evidence([["~不", "爱国"]], "不爱不国").groups[0]
    assert [s.action for s in removed.steps] == ["removed", "counted"] and removed.text == "爱国"
    # a lone ~ is a no-op removal, then counts if the text holds a literal ~
    assert sm_evidence([["~"]], "a~b").count == 1 and sm_evidence([["~"]], "ab").count == 0
    # an empty option never matches
    assert [s.action for s in sm_evidence([["", "a"]], "a").groups[0].steps] == ["empty", "counted"]


def test_em_matched_key():
    assert em_evidence_matched(["大于", ">"], ">") == ">"
    assert em_evidence_matched(["大于", ">"], "大于等于") is None


def em_evidence_matched(keys, text):
    from coscore.explain import em_evidence

    return em_evidence(keys, text).matched


# -- agreement with the engine ------------------------------------------------------------

ALPHABET = st.text(alphabet="ab国家 ~!Aİi", max_size=12)


@settings(max_examples=200, deadline=None)
@given(text=ALPHABET)
def test_evidence_agrees_with_the_engine(text):
    rule = _rule(
        {
            "0": ("EM", "a,国家,"),
            "1": ("SM", "国家|!a,~b|ab,A|~a|b"),
            "2": ("OP", "0.3:国家ab,ba"),
            "3": ("CS", "0.2:Aa国,İ i"),
        },
        "M(0, T(0)) + M(1, T(0)) + M(2, T(0)) + M(3, T(0))",
    )
    for atom in rule.atoms.values():
        hit, value = atom(text)
        ev = atom_evidence(atom, text)
        if isinstance(ev, EMEvidence):
            assert (ev.matched is not None) == hit
        elif isinstance(ev, SMEvidence):
            assert ev.count == value
        else:
            best = ev.best.similarity if ev.best else 0.0
            assert (best >= atom.threshold) == hit
            if hit:
                assert best == value


# -- one answer --------------------------------------------------------------------------


TRAFFIC = {
    "atoms": {
        "0": {"type": "OP", "desc": "0:前进红灯停车左转前进,前进红灯等待左转前进"},
        "1": {"type": "SM", "desc": "如果|是否|若|反之"},
        "2": {"type": "SM", "desc": "开始,结束"},
    },
    "combos": {
        "A": {"combo": "M(0, T('*'))", "score": 5, "mode": "value"},
        "B": {"combo": "G(1, T('*'))", "score": 3, "mode": "logic"},
        "C": {"combo": "M(2, T('*'))", "score": 2, "mode": "value"},
    },
    "comboMode": "ADD",
}


def test_explain_one_answer():
    rule = coscore.compile(TRAFFIC)
    ex = explain(rule, ["开始", "前进", "如果红灯等待路灯后左转", "如果路灯直接左转"], TRAFFIC)
    assert ex.score == 9.0 and ex.error is None
    assert [c.id for c in ex.combos] == ["A", "B", "C"]
    a = ex.combos[0]
    assert a.value == 4.0 and a.expression == "M(0, T('*'))"
    (call,) = a.calls
    assert isinstance(call.evidence, OPEvidence)
    assert call.evidence.best.key == "前进红灯等待左转前进" and call.value == 0.8
    text = render(ex, color=False)
    assert "combo A = 4.0" in text
    assert "LCS 8/10" in text
    assert "[前进]如果[红灯等待]" in text
    assert "如果 ✓counted" in text
    assert "\x1b[" not in text
    assert "\x1b[" in render(ex, color=True)


def test_explain_shows_errors():
    rule = _rule({"0": ("SM", "a")}, "1 / M(0, T(0))")
    ex = explain(rule, "b")
    assert ex.score is None and "division by zero" in ex.error
    assert "error: " in render(ex)
    assert isinstance(ex.combos[0].calls[0].evidence, SMEvidence)


def test_explain_cs_render():
    rule = _rule({"0": ("CS", "0.5:abc")}, "M(0, T(0))")
    ex = explain(rule, "ABd")
    ev = ex.combos[0].calls[0].evidence
    assert isinstance(ev, CSEvidence) and ev.best.similarity == 0.5
    assert "counts (key/text)" in render(ex)


def test_a_g_and_an_m_of_one_atom_on_one_text_are_one_call():
    rule = coscore.compile({
        "atoms": {"0": {"type": "SM", "desc": "a,b"}},
        "combos": {"A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
                   "B": {"combo": "G(0, T(0)) and G(0, T(0) + 'b')", "score": 1, "mode": "logic"}},
        "comboMode": "ADD",
    })
    ex = explain(rule, ["a"])
    assert [(c.op, c.text) for c in ex.calls] == [("G/M", "a"), ("G", "ab")]
    assert ex.combos[0].ops == ["M"] and ex.combos[1].ops == ["G", "G"]
    assert ex.combos[0].calls[0] is ex.combos[1].calls[0]
    text = render(ex)
    assert "atom calls: [1] M(0)" in text and "atom calls: [1] G(0), [2] G(0)" in text
    assert '[1]  G/M(0, "a") = True / 1' in text
