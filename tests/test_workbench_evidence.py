"""Answers explained for the workbench's tester, the matched characters marked
(coscore/workbench/evidence.py): the marks are the evidence ``coscore.explain`` gives."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore.explain import cs_evidence, op_evidence, sm_evidence
from coscore.workbench.evidence import call_marks, explanation_json, segments


def hits(text: str, marks) -> list[str]:
    return [s["text"] for s in segments(text, marks) if s["mark"] == "hit"]


def test_sm_marks_every_place_a_counted_option_occurs():
    evidence = sm_evidence([["开始"], ["结束", "完"]], "开始前进，结束，再开始")
    assert hits("开始前进，结束，再开始", call_marks(evidence, "开始前进，结束，再开始")) == ["开始", "结束", "开始"]


def test_sm_marks_what_excluded_a_group_and_what_a_tilde_removed():
    text = "我不爱祖国"
    evidence = sm_evidence([["~不爱", "爱"], ["!不", "祖国"], ["国"]], text)
    marked = segments(text, call_marks(evidence, text))
    assert marked == [{"text": "我", "mark": None}, {"text": "不", "mark": "excluded"}, {"text": "爱", "mark": "removed"},
                      {"text": "祖", "mark": None}, {"text": "国", "mark": "hit"}]


def test_a_counted_option_found_only_after_a_removal_is_placed_back_on_the_text():
    text = "开x始"
    evidence = sm_evidence([["~x", "开始"]], text)
    assert evidence.count == 1
    marks = call_marks(evidence, text)
    assert sorted((a, b, k) for a, b, k in marks) == [(0, 1, "hit"), (1, 2, "removed"), (2, 3, "hit")]


def test_cs_marks_as_many_of_each_character_as_key_and_text_share():
    text = "Hello, hello"
    evidence = cs_evidence(0.1, ["hel"], text)
    marked = "".join(hits(text, call_marks(evidence, text)))
    assert Counter(marked.lower()) == Counter("hel")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("abcx", min_size=1, max_size=6), min_size=1, max_size=3), st.text("abcxy ", max_size=30))
def test_op_marks_are_the_alignment_explain_gives(keys, text):
    evidence = op_evidence(0.0, keys, text)
    marked = [False] * len(text)
    for start, end, kind in call_marks(evidence, text):
        assert kind == "hit"
        marked[start:end] = [True] * (end - start)
    assert marked == (evidence.text_matched or [False] * len(text))
    assert sum(marked) == (evidence.best.numerator if evidence.best else 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=3), min_size=1, max_size=3),
       st.text("abcd", max_size=20))
def test_sm_hits_are_occurrences_of_the_counted_options(groups, text):
    evidence = sm_evidence(groups, text)
    counted = {s.option for g in evidence.groups for s in g.steps if s.action == "counted"}
    places = {(a, b) for a, b, kind in call_marks(evidence, text) if kind == "hit"}
    expected = set()
    for option in counted:
        at = text.find(option)
        while at >= 0:
            expected.add((at, at + len(option)))
            at = text.find(option, at + len(option))
    assert places == expected
    assert bool(places) == bool(evidence.count)


@given(st.text(max_size=50), st.lists(st.tuples(st.integers(-2, 60), st.integers(-2, 60),
                                              st.sampled_from(["hit", "excluded", "removed"])), max_size=6),
       st.integers(0, 60))
def test_segments_spell_the_shown_text(text, marks, limit):
    assert "".join(s["text"] for s in segments(text, marks, limit)) == text[:limit]


LANE = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo" / "lane-change.rule.json"


def test_an_answer_explained_with_its_score_combos_and_marked_calls():
    rule = coscore.compile(LANE)
    answer = ["开始前进，若有障碍物则避让车道，结束"]
    data = explanation_json(rule, answer)
    assert data["score"] == rule.score(answer).score == 9.0
    assert [(c["id"], c["contribution"]) for c in data["combos"]] == [("A", 4.0), ("B", 3.0), ("C", 2.0)]
    by_atom = {c["atom"]: c for c in data["calls"]}
    assert [s["text"] for s in by_atom["2"]["segments"] if s["mark"] == "hit"] == ["开始", "结束"]
    assert [s["text"] for s in by_atom["0"]["segments"] if s["mark"] == "hit"] == ["前进", "障碍", "避让车道"]
    assert by_atom["0"]["detail"]["best"]["key"] == "前进障碍避让车道停止"
    assert "text_matched" not in by_atom["0"]["detail"] and by_atom["0"]["detail"]["key_segments"]
    assert data["calls_omitted"] == 0


def test_a_long_text_is_cut_and_says_how_long_it_is():
    rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "a"}},
                            "combos": {"A": {"combo": "M(0, T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    (call,) = explanation_json(rule, ["a" * 5000])["calls"]
    assert call["text_length"] == 5000 and sum(len(s["text"]) for s in call["segments"]) == 2000
