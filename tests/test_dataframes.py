"""pandas and polars DataFrames (and Arrow C streams) as blank columns: scored exactly as
``score_many`` scores the same answers as Python lists — a null cell is ``""``, a
category its text, a number or boolean the text Arrow writes for it (``42``, ``0.5``,
``true``) — and anything that is neither answers nor columns is a ``TypeError`` that says
what to pass, never NaN results."""
from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore

pl = pytest.importorskip("polars")

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
RULES = {p.name.removesuffix(".rule.json"): coscore.compile(json.loads(p.read_text(encoding="utf-8")))
         for p in sorted(DEMO.glob("*.rule.json"))}
RULES["two"] = coscore.compile({
    "atoms": {"0": {"type": "SM", "desc": "车道,a,1"}, "1": {"type": "EM", "desc": "true,0.5,"}},
    "combos": {"A": {"combo": "M(0,T(0)) + G(1,T(1))", "score": 2, "mode": "value"},
               "B": {"combo": "Q('*') == 2", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})

# rules that read one blank, or several through the kernels only: a frame's other columns are not converted
RULES["second"] = coscore.compile({
    "atoms": {"0": {"type": "SM", "desc": "车道,a,1"}},
    "combos": {"A": {"combo": "M(0,T(1))", "score": 2, "mode": "value"}}, "comboMode": "ADD"})
RULES["kernels"] = coscore.compile({
    "atoms": {"0": {"type": "SM", "desc": "车道,a,1"}, "1": {"type": "OP", "desc": "0.5:左转,true"}},
    "combos": {"A": {"combo": "M(0,T(1))", "score": 2, "mode": "value"},
               "B": {"combo": "G(1,T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})

CELL = st.one_of(st.none(), st.just(""), st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
                 st.sampled_from(["车道", "a", "左转 变道", "true"]))


def _same(got: coscore.Batch, want: coscore.Batch) -> None:
    assert got.scores.tobytes() == want.scores.tobytes()
    assert got.errors == want.errors
    for cid in want.combos:
        assert got.combos[cid].tobytes() == want.combos[cid].tobytes()


def _lists(*columns: list) -> list:
    return [["" if v is None else v for v in row] for row in zip(*columns)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 30).flatmap(lambda n: st.tuples(st.lists(CELL, min_size=n, max_size=n),
                                                      st.lists(CELL, min_size=n, max_size=n))),
       st.sampled_from(sorted(RULES)))
def test_text_columns_of_pandas_and_polars_score_as_lists(columns, name):
    first, second = columns
    rule = RULES[name]
    want = rule.score_many(_lists(first, second))
    _same(rule.score_many(pd.DataFrame({"q1": pd.Series(first, dtype=object), "q2": pd.Series(second, dtype=object)})),
          want)
    _same(rule.score_many(pd.DataFrame({"q1": pd.Series(first, dtype="string"), "q2": second})), want)
    _same(rule.score_many(pd.DataFrame({"q1": pd.Series(first, dtype=object), "q2": pd.Series(second, dtype="string")})),
          want)
    _same(rule.score_many(pd.DataFrame({"q1": pd.Categorical(first), "q2": pd.Categorical(second)})), want)
    objects = pd.CategoricalDtype(pd.Index(sorted({v for v in first if v is not None}), dtype=object))
    _same(rule.score_many(pd.DataFrame({"q1": pd.Series(first, dtype=objects),
                                        "q2": pd.Series([float("nan") if v is None else v for v in second],
                                                        dtype=object)})), want)
    _same(rule.score_many(pl.DataFrame({"q1": first, "q2": second}, schema={"q1": pl.String, "q2": pl.String})), want)
    _same(rule.score_many(pl.DataFrame({"q1": first, "q2": second}, schema={"q1": pl.Categorical, "q2": pl.String})),
          want)


def test_categories_numbers_and_booleans_become_text():
    rule = RULES["two"]
    want = rule.score_many([["车道", "0.5"], ["1", "true"], ["a", ""], ["", "false"]])
    _same(rule.score_many(pd.DataFrame({"q1": pd.Categorical(["车道", "1", "a", None]),
                                        "q2": ["0.5", "true", None, "false"]})), want)
    _same(rule.score_many(pl.DataFrame({"q1": pl.Series(["车道", "1", "a", None], dtype=pl.Categorical),
                                        "q2": ["0.5", "true", None, "false"]})), want)
    numbers = rule.score_many(pd.DataFrame({"q1": [1, 2, 3], "q2": [True, False, True]}))
    _same(numbers, rule.score_many([["1", "true"], ["2", "false"], ["3", "true"]]))
    floats = rule.score_many(pl.DataFrame({"q1": [1.0, 0.5], "q2": [0.5, None]}))
    _same(floats, rule.score_many([["1", "0.5"], ["0.5", ""]]))


def test_odd_objects_in_a_pandas_column_fail_their_own_answer():
    rule = RULES["lab-tools"]
    got = rule.score_many(pd.DataFrame({"b": pd.Series(["笔纸尺", None, 5, float("nan")], dtype=object)}))
    assert got.errors[:2] == [None, None] and got.errors[3] is None
    assert "blank 0 is int" in got.errors[2]


def test_a_column_the_rule_does_not_read_is_not_looked_at():
    """As a list's blank that the rule does not read: any value, no error."""
    rule = RULES["lane-change"]   # reads blank 0 only
    frame = pd.DataFrame({"a": ["左转", "变道", None], "b": pd.Series([5, object(), "x"], dtype=object)})
    _same(rule.score_many(frame), rule.score_many([["左转", 5], ["变道", None], ["", "x"]]))
    assert rule.score_many(frame).errors == [None] * 3
    swapped = RULES["second"].score_many(frame[["b", "a"]])   # reads blank 1: "a"
    _same(swapped, RULES["second"].score_many([["", "左转"], ["", "变道"], ["", ""]]))


def test_subclasses_of_str_in_a_pandas_column_are_their_text():
    class Note(str):
        pass

    rule = RULES["kernels"]
    first, second = [Note("左转"), "a", Note("车道")], [Note("车道"), Note("1"), "true"]
    frame = pd.DataFrame({"a": pd.Series(first, dtype=object), "b": pd.Series(second, dtype=object)})
    _same(rule.score_many(frame), rule.score_many([[str.__str__(x), str.__str__(y)] for x, y in zip(first, second)]))
    _same(RULES["two"].score_many(frame),
          RULES["two"].score_many([[str.__str__(x), str.__str__(y)] for x, y in zip(first, second)]))


def test_chunks_of_a_dataframe_and_of_an_arrow_stream():
    rule = RULES["lane-change"]
    answers = [["左转", ""], ["变道 右转", "x"], ["", "车道"]] * 7
    want = rule.score_many(answers)
    frame = pl.DataFrame({"a": [a for a, _ in answers], "b": [b for _, b in answers]})
    got = list(rule.score_chunks(frame, chunk_size=5))
    assert [len(b) for b in got] == [5, 5, 5, 5, 1]
    _same(coscore.Batch(np.concatenate([b.scores for b in got]), [e for b in got for e in b.errors],
                        {c: np.concatenate([b.combos[c] for b in got]) for c in want.combos}), want)
    reader = pa.RecordBatchReader.from_batches(
        pa.schema([("a", pa.string()), ("b", pa.string())]),
        [pa.record_batch([pa.array([a for a, _ in answers[i:i + 4]]), pa.array([b for _, b in answers[i:i + 4]])],
                         names=["a", "b"]) for i in range(0, len(answers), 4)])
    assert [len(b) for b in rule.score_chunks(reader)] == [4, 4, 4, 4, 4, 1]


@pytest.mark.parametrize("source", [
    {"q1": ["a"], "q2": ["b"]},
    {"q1": pa.array(["a"]), "q2": pa.array(["b"])},
])
def test_what_is_neither_answers_nor_columns_is_refused_saying_what_to_pass(source):
    with pytest.raises(TypeError, match="pass answers"):
        RULES["two"].score_many(source)
    with pytest.raises(TypeError, match="pass answers"):
        list(RULES["two"].score_chunks(source))


def test_numpy_arrays_in_a_list_are_answers_that_fail_on_their_own():
    """A list holds answers: a numpy array there is not one (as in ``score``), whatever it holds."""
    got = RULES["two"].score_many([np.array(["a", "b"]), ["车道", "0.5"]])
    assert "not ndarray" in got.errors[0] and got.errors[1] is None


def test_a_dataframe_like_object_that_cannot_be_read_is_refused():
    class Frame:
        columns: ClassVar[list[str]] = ["q1"]
        dtypes: ClassVar[dict[str, type]] = {"q1": object}

        def __iter__(self):
            return iter(["q1"])

    with pytest.raises(TypeError, match="cannot read the Frame"):
        RULES["two"].score_many(Frame())


def test_answers_as_python_lists_import_no_pyarrow():
    """Telling answers from columns costs nothing: lists and generators never import pyarrow."""
    import subprocess
    import sys

    code = ("import sys, coscore\n"
            "r = coscore.compile({'atoms': {}, 'combos': {'A': {'combo': 'Q(0)', 'score': 1, 'mode': 'logic'}},"
            " 'comboMode': 'ADD'})\n"
            "r.score_many([['a'], 'b']); r.score_many(iter([['a']])); list(r.score_chunks(a for a in [['a']]))\n"
            "print('pyarrow' in sys.modules, 'pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parent.parent)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_a_series_is_one_blank_column():
    rule = RULES["two"]
    _same(rule.score_many(pd.Series(["车道", None, "a"])), rule.score_many(["车道", "", "a"]))
    _same(rule.score_many(pl.Series(["车道", None, "a"])), rule.score_many(["车道", "", "a"]))
    odd = RULES["lab-tools"].score_many(pd.Series(["车道", 5], dtype=object))   # its items are answers: 5 fails alone
    assert odd.errors[0] is None and "not int" in odd.errors[1]
