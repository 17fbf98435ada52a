"""score_many (columnar, deduplicated, chunked, threaded) equals score answer by answer."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from conftest import assert_batch_matches_score, exactly, load_cases
from coscore import engine, reading
from coscore.pipeline import stream, tables

CASES = load_cases()
RULES = list({json.dumps(c["rule"], sort_keys=True): c["rule"] for c in CASES}.values())
ANSWERS = [c["answers"] for c in CASES]
PIECES = sorted({piece for answer in ANSWERS for blank in answer for piece in (blank, blank[:3], blank[-2:])})


def _columnar(source: dict) -> engine.ColumnarPlan | None:
    """The columnar plan the engine makes for a rule (``None``: the reference path)."""
    return engine.plan(reading.read(source)).columnar


def _random_answers(rng: random.Random, count: int) -> list:
    answers = []
    for _ in range(count):
        size = rng.choice([1, 2, 3, 3, 4])
        answers.append(["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))
                        or rng.choice(["", "null", "1", " 7 ", "nan"]) for _ in range(size)])
    return answers


@pytest.mark.parametrize("seed", range(4))
def test_columnar_path_equals_reference_on_every_conformance_rule(seed):
    rng = random.Random(seed)
    for rule_source in RULES:
        rule = coscore.compile(rule_source)
        answers = _random_answers(rng, 12)
        answers += answers[:3]  # duplicates
        assert_batch_matches_score(rule, answers, rule.score_many(answers))


def test_nearly_every_conformance_rule_is_vectorised():
    vectorised = sum(_columnar(r) is not None for r in RULES)
    assert vectorised / len(RULES) > 0.95


_COMBOS = st.sampled_from([
    "M(0, T(0)) / M(1, T(0))", "G(0, T(0)) and 1 / M(0, T(0)) > 0.5", "Q(0) or 1 / L(0)",
    "1 < M(2, T('*')) <= 2 < 1 / M(0, T(1))", "X(M(0, T(0)), F(0), -S(1))", "U(F(0), 3) * 2",
    "(T(0) + T(1)) == 'ab'", "A(T(0), Q(1), G(1, T(1)))", "F(0) * 1e308 * 10", "F(0) * 9007199254740993",
    "T(0) != 1", "M(1, T(0) + T(0)) if G(0, T(1)) else -F(1)", "not (T(0) and T(1))", "T(2) == 'x'",
    "(T(0) or T(1)) == 'a'", "F(0) / (F(1) - F(1))", "L(1) + L('*')", "L('*') - L(0) * 3", "S('*') + Q('*')", "1 / Q('*')",
    "M(1, T(0)) + M(3, T(0)) * 2", "G(3, T(1)) or M(1, T(1))",   # two SM atoms on one text: one scan
    "-G(1, T(0))", "M(0, T(0)) * -1", "-(Q(0) * 2)", "F(0) * -1", "-F(1)", "X(-M(2, T(0)), -0.0)",  # signs of zeros
    "T(0) * 2 == 'aa'", "Q(1) * T(0)", "F(0) if Q(1) else -L(0)", "G(1, T(0)) + G(1.0, T(0))",
])


@settings(max_examples=150, deadline=None)
@given(
    combos=st.lists(_COMBOS, min_size=1, max_size=4),
    modes=st.lists(st.sampled_from(["logic", "value"]), min_size=4, max_size=4),
    scores=st.lists(st.sampled_from([2, 1.5, -1, -0.5, 0]), min_size=4, max_size=4),
    combo_mode=st.sampled_from(["ADD", "MAX"]),
    blanks=st.lists(st.lists(st.sampled_from(["a", "b", "ab", "", "null", "2", "0", "1e300", "nan", "-3", "爱国", "ΑΣ"]),
                             min_size=1, max_size=3), min_size=1, max_size=20),
    dialect=st.sampled_from(["coscore", "manual"]),
)
def test_random_rules_agree_on_both_paths(combos, modes, scores, combo_mode, blanks, dialect):
    rule = coscore.compile({
        "dialect": dialect,
        "atoms": {"0": {"type": "OP", "desc": "0.3:ab,爱国"}, "1": {"type": "SM", "desc": "a|~b,!x|2"},
                  "2": {"type": "CS", "desc": "0:ασ,b"},
                  "3": {"type": "SM", "desc": "b,!a|ab,~a|b,爱"}, "1.0": {"type": "EM", "desc": "b"}},
        "combos": {chr(65 + i): {"combo": c, "score": scores[i], "mode": modes[i]} for i, c in enumerate(combos)},
        "comboMode": combo_mode,
    })
    answers = [b[0] if len(b) == 1 and i % 2 else tuple(b) if i % 3 == 0 else b for i, b in enumerate(blanks)]
    assert_batch_matches_score(rule, answers, rule.score_many(answers))


def test_iterables_chunks_and_jobs_keep_order():
    rule = coscore.compile({
        "atoms": {"0": {"type": "OP", "desc": "0.2:前进障碍变换车道停止"}},
        "combos": {"A": {"combo": "M(0, T(0)) / (S(0) - 3)", "score": 5, "mode": "value"}},
        "comboMode": "ADD",
    })
    rng = random.Random(7)
    answers = [["".join(rng.choice("前进障碍物车道停止左右") for _ in range(rng.randint(0, 6)))] for _ in range(5000)]
    reference = rule.score_many(answers)
    assert any(e is not None for e in reference.errors)
    for jobs in (1, 2, -1):
        for chunk_size in (1, 7, 1000, None):
            n = 500 if chunk_size == 1 else len(answers)   # one answer a chunk: the first 500 tell
            for source in (iter(answers[:n]), answers[:n]):   # read chunk by chunk; a list, into arrays at once
                batch = rule.score_many(source, jobs=jobs, chunk_size=chunk_size)
                np.testing.assert_array_equal(batch.scores, reference.scores[:n])
                np.testing.assert_array_equal(batch.combos["A"], reference.combos["A"][:n])
                assert batch.errors == reference.errors[:n]
    chunks = list(rule.score_chunks(iter(answers), chunk_size=999))
    assert [len(c) for c in chunks] == [999] * 5 + [5]
    np.testing.assert_array_equal(np.concatenate([c.scores for c in chunks]), reference.scores)


def test_odd_answers_are_per_answer_errors_not_crashes():
    rule = coscore.compile({"atoms": {}, "combos": {"A": {"combo": "S(0)", "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    batch = rule.score_many([["abc"], None, [1], "xy", ("a", "b"), []])
    assert batch.scores[0] == 3 and batch.scores[3] == 2 and batch.scores[4] == 1
    assert batch.errors[1] is not None and batch.errors[2] is not None and batch.errors[5] is not None
    assert rule.score_many([]).scores.shape == (0,)


def test_hostile_answers_are_fine():
    demo = __import__("pathlib").Path(__file__).parent.parent / "coscore/data/demo/lane-change.rule.json"
    rule = coscore.compile(json.loads(demo.read_text()))
    big = "前进障碍" * 250_000
    weird = "\ud800\x00\U0001f600前进\udfff" * 1000
    batch = rule.score_many([[big], [weird], [""]])
    assert batch.errors == [None, None, None]
    assert rule.score([weird]).score == batch.scores[1]


def test_sm_atoms_on_one_text_share_one_scan():
    source = {
        "atoms": {"0": {"type": "SM", "desc": "a,b"}, "1": {"type": "SM", "desc": "!b|a,~a|b"}, "2": {"type": "SM", "desc": "c"},
                  "3": {"type": "OP", "desc": "0:ab"}},
        "combos": {"A": {"combo": "M(0, T(0)) * 10 + M(1, T(0))", "score": 1, "mode": "value"},
                   "B": {"combo": "G(2, T(1)) and M(3, T(0))", "score": 1, "mode": "value"}},
        "comboMode": "ADD",
    }
    rule = coscore.compile(source)
    groups = _columnar(source).groups
    assert set(groups) == {("0", ("T", 0)), ("1", ("T", 0))}   # atom 2 reads another text
    assert groups[("0", ("T", 0))] is groups[("1", ("T", 0))]
    answers = [["ab", "c"], ["a"], ["b", "x"], ["aab", "cc"], ["", "c"], "ba"]
    assert_batch_matches_score(rule, answers, rule.score_many(answers))


def test_joined_texts_line_up():
    # a rule reading the joined blanks, over answers with one blank and with several
    source = {
        "atoms": {"0": {"type": "SM", "desc": "a,b"}, "1": {"type": "OP", "desc": "0:ab"}},
        "combos": {"A": {"combo": "M(0, T('*')) * 10 + M(1, T('*'))", "score": 1, "mode": "value"}},
        "comboMode": "ADD",
    }
    rule = coscore.compile(source)
    assert _columnar(source).key == "*"
    answers = [["a"], ["b", "x"], ["ab"], ["x", "y", "b"], ["bb"], "ba", ["xab"]]
    assert_batch_matches_score(rule, answers, rule.score_many(answers))
    assert_batch_matches_score(rule, answers * 3, rule.score_many(answers * 3))


@settings(max_examples=150, deadline=None)
@given(
    blanks=st.lists(st.lists(st.sampled_from(["a", "b", "ab", "", "x", "爱国", "ba"]), min_size=0, max_size=3), max_size=40),
    key=st.sampled_from(["'*'", "0", "1", "-1"]),
)
def test_rules_reading_one_text_agree_on_both_paths(blanks, key):
    source = {
        "atoms": {"0": {"type": "SM", "desc": "a,b|爱"}, "1": {"type": "OP", "desc": "0.2:ab,国"}, "2": {"type": "SM", "desc": "x,~a|b"},
                  "3": {"type": "CS", "desc": "0.1:ba"}, "4": {"type": "SM", "desc": "ab"}},
        "combos": {"A": {"combo": f"M(0, T({key})) * 10 + M(1, T({key})) + M(4, T({key}))", "score": 1, "mode": "value"},
                   "B": {"combo": f"G(2, T({key})) or M(3, T({key}))", "score": 2, "mode": "logic"}},
        "comboMode": "ADD",
    }
    rule = coscore.compile(source)
    assert _columnar(source).key is not None
    answers = [b[0] if len(b) == 1 and i % 2 else tuple(b) if i % 3 == 0 else b for i, b in enumerate(blanks)]
    assert_batch_matches_score(rule, answers, rule.score_many(answers))


def test_duplicates_are_scored_once():
    rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "a"}},
                            "combos": {"A": {"combo": "M(0, T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    calls = []
    atom = rule.atoms["0"]
    original = atom.evaluate_many
    atom.evaluate_many = lambda texts: calls.append(list(texts)) or original(texts)
    batch = rule.score_many([["a"], "a", ("a",), ["b"], ["a"]] * 100)
    assert batch.scores.tolist() == [1, 1, 1, 0, 1] * 100
    assert calls == [["a", "b"]]


@pytest.mark.parametrize("blank", ["'*'", "1", "-1", "0"])
def test_rules_reading_one_text_deduplicate_on_it(blank):
    source = {
        "atoms": {"0": {"type": "SM", "desc": "ab,c|~x"}, "1": {"type": "OP", "desc": "0.5:abc"}},
        "combos": {
            "A": {"combo": f"M(0, T({blank})) + M(1, T({blank}))", "score": 2, "mode": "value"},
            "B": {"combo": f"L({blank}) + S({blank}) + F({blank}) - Q({blank})", "score": 1, "mode": "value"},
        },
        "comboMode": "ADD",
    }
    rule = coscore.compile(source)
    joined_source = {"atoms": {}, "combos": {"A": {"combo": f"S({blank}) + L({blank})", "score": 1, "mode": "value"}}, "comboMode": "ADD"}
    joined_only = coscore.compile(joined_source)
    assert _columnar(joined_source).key == ("*" if blank == "'*'" else int(blank))
    assert _columnar(source).key == (None if blank == "'*'" else int(blank))  # Q('*') counts blanks: not one text
    answers = [["a", "b"], ["ab"], "ab", ["x", "ab"], ["ab", "x"], [], ["c", "xc", "1"], ("c", "xc", "1"), ["null", "1"], [1, "a"]]
    assert_batch_matches_score(rule, answers * 3, rule.score_many(answers * 3))
    assert_batch_matches_score(joined_only, answers * 3, joined_only.score_many(answers * 3))


def test_blank_numbers_beyond_any_index_fail_per_answer():
    rule = coscore.compile({"atoms": {}, "combos": {"A": {"combo": "T(100000000000000000000) == ''", "score": 1,
                                                          "mode": "logic"}}, "comboMode": "ADD"})
    batch = rule.score_many([["a"], "b"])
    assert all(e.startswith("combos.A: blank 100000000000000000000 does not exist") for e in batch.errors)


def test_a_plan_scores_without_a_rule_and_a_rule_wraps_a_finished_plan():
    source = {"atoms": {"0": {"type": "SM", "desc": "a,b"}},
              "combos": {"A": {"combo": "M(0, T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"}
    plan = engine.plan(reading.read(source))
    assert plan.columnar is not None and plan.combo_ids == ["A"]
    assert engine.score_one(plan, "ab").score == 2.0
    table = tables.blank_table(["ab", "a", "x"])
    assert stream.score_table(plan, table).scores.tolist() == [2.0, 1.0, 0.0]
    rule = coscore.Rule(plan)
    assert rule.atoms is plan.atoms and rule.score("ab") == engine.score_one(plan, "ab")


@pytest.mark.parametrize("combo", ["T(0) * 2 == 'aa'", "M(0, T(F(0)))", "F(0) + 9007199254740993"])
def test_combos_the_columns_cannot_hold_take_the_reference_path(combo):
    source = {"atoms": {"0": {"type": "SM", "desc": "a"}},
              "combos": {"A": {"combo": combo, "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    assert _columnar(source) is None
    rule = coscore.compile(source)
    answers = [["a", "0"], ["0"], ["aa"]]
    assert_batch_matches_score(rule, answers, rule.score_many(answers))


# -- score_many equals score in the corners ----------------------------------------------------

EM_A = {"0": {"type": "EM", "desc": "a"}}


@pytest.mark.parametrize("source, answers, scores, combos_a", [
    pytest.param({"atoms": EM_A, "combos": {"A": {"combo": "M(0, T(0))", "score": -1, "mode": "value"},
                                          "B": {"combo": "-G(0, T(0))", "score": 2, "mode": "value"}},
                  "comboMode": "MAX"}, [["b"], ["a"]], ["0.0", "0.0"], ["0.0", "-1.0"],
                 id="MAX with a negative score gives 0.0, not -0.0"),
    pytest.param({"atoms": EM_A, "combos": {"A": {"combo": "F(0)", "score": 1, "mode": "value"}}, "comboMode": "MAX"},
                 [["-0"]], ["-0.0"], ["-0.0"], id="float('-0') is -0.0 and stays so"),
    pytest.param({"atoms": {"1": {"type": "EM", "desc": "a"}, "1.0": {"type": "EM", "desc": "b"}},
                  "combos": {"A": {"combo": "G(1, T(0)) + G(1.0, T(0))", "score": 1, "mode": "value"}},
                  "comboMode": "ADD"}, [["a"], ["b"]], ["2.0", "0.0"], ["2.0", "0.0"],
                 id="equal atom ids share the first call's result, as the original's cache does"),
])
def test_score_many_equals_score_in_signs_of_zeros_and_shared_atom_calls(source, answers, scores, combos_a):
    rule = coscore.compile(source)
    batch = rule.score_many(answers)
    assert_batch_matches_score(rule, answers, batch)
    assert [repr(float(s)) for s in batch.scores] == scores
    assert [repr(rule.score(a).combos["A"]) for a in answers] == combos_a


def test_batch_items_keep_combos_that_completed_as_nan():
    rule = coscore.compile({"atoms": {}, "combos": {
        "A": {"combo": "F(0)", "score": -1, "mode": "value"},
        "B": {"combo": "1 / Q(1)", "score": 1, "mode": "value"},
        "C": {"combo": "1", "score": 1, "mode": "value"},
    }, "comboMode": "ADD"})
    answers = [["nan", "x"], ["nan", ""], ["1", ""], ["1", "x"]]
    expected = [exactly(rule.score(a)) for a in answers]
    assert expected[0][1] == {"A": "nan"}  # B failed
    assert expected[1][1] == {"A": "nan", "B": "1.0", "C": "1.0"}  # the total is NaN: every combo completed
    for batch in (rule.score_many(answers), rule.score_many(iter(answers), chunk_size=3), rule.score_many(answers, chunk_size=1)):
        assert [exactly(batch[i]) for i in range(len(answers))] == expected
        assert exactly(batch[-3]) == expected[1]
    chunks = list(rule.score_chunks(answers, chunk_size=3))
    assert exactly(chunks[1][0]) == expected[3]
    assert np.isnan(rule.score_many(answers).scores[0])
