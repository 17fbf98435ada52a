"""A stored dataset of the original app scored for the workbench's dataset view
(coscore/workbench/analysis.py, read by coscore/webapp/bench.py) equals what coscore's
public pieces give on the original's reading of its lines."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore.report import agreement, disagreement_order
from coscore.webapp.answers import task_answers
from coscore.webapp.bench import LegacyData
from coscore.workbench.analysis import analyse
from coscore.workbench.analysis import page as page_of


def score_dataset(rule, data: str, count: int, labelled: bool):
    return analyse(rule, LegacyData(data, count, labelled).load())


def page(scored, data: str, which: str, number: int, size: int) -> dict:
    lines = data.split("\n")
    return page_of(scored, lambda rows: list(task_answers("\n".join(["text", *(lines[i + 1] for i in rows)]), len(rows))),
                   which, number, size)

RULE = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "a,b|前"}, "1": {"type": "OP", "desc": "0.3:ab前"}},
                        "combos": {"A": {"combo": "M(0, T(0)) * 2", "score": 1, "mode": "value"},
                                   "B": {"combo": "M(1, T('*'))", "score": 5, "mode": "value"}},
                        "comboMode": "ADD"})
#: Second fields and the mark each one is (None: no mark, left out and counted). Marks that
#: are not finite or lie outside 0–10 refuse the dataset (tests/test_marks.py).
MARKS = {"3": 3.0, " 7.5 ": 7.5, "10": 10.0, "0": 0.0, "+2": 2.0, "1e1": 10.0, ".5": 0.5, "": None, "x": None,
         "1_0": None, "缺考": None, "-": None, "3\r": 3.0}


@st.composite
def datasets(draw):
    texts = st.text(alphabet="ab-前 ", max_size=8)
    lines = draw(st.lists(st.tuples(texts, st.sampled_from(sorted(MARKS)), st.booleans(), st.booleans()), max_size=25))
    written = []
    for text, mark, with_mark, extra in lines:
        written.append(text + ("," + mark if with_mark else "") + (",more" if with_mark and extra else ""))
    count = draw(st.integers(0, len(written)))
    return "text,score\n" + "\n".join(written), count, [(t, m if w else "") for t, m, w, _ in lines][:count]


@settings(max_examples=150, deadline=None)
@given(datasets())
def test_the_scoring_is_coscores_on_the_originals_reading(dataset):
    data, count, rows = dataset
    scored = score_dataset(RULE, data, count, labelled=True)
    answers = [line.split(",")[0].split("-") for line in data.split("\n")[1:count + 1]]
    assert [text.split("-") for text, _ in rows] == answers
    scores = RULE.score_many(answers).scores if answers else np.zeros(0)
    marks = np.array([np.nan if MARKS.get(m) is None else MARKS[m] for _, m in rows])
    assert np.array_equal(scored.scores, scores, equal_nan=True)
    assert np.array_equal(scored.marks, marks, equal_nan=True)
    unmarked = Counter(m.strip() for _, m in rows if MARKS.get(m) is None)
    assert scored.summary["left_out"] == {"rows": sum(unmarked.values()), "values": dict(unmarked.most_common())}
    assert scored.order.tolist() == disagreement_order(scores, marks)
    expected = agreement(marks, scores)
    figures = scored.summary["agreement"]
    if not expected.n:
        assert figures is None
    else:
        assert figures["n"] == expected.n and figures["confusion"] == expected.confusion
        for name in ("qwk", "exact_agreement", "adjacent_agreement", "kappa", "smd"):
            value = getattr(expected, name)
            assert figures[name]["value"] == (None if value is None or math.isnan(value) else value)
    texts = Counter("-".join(a) for a in answers)
    assert sorted(scored.counts.tolist(), reverse=True) == scored.counts.tolist()
    assert sorted(scored.counts.tolist()) == sorted(texts.values())
    assert sum(scored.summary["distributions"]["scores"]) == count
    for which in ("disagreements", "distinct"):
        listed = page(scored, data, which, 0, 500)
        assert listed["total"] == (len(scored.order) if which == "disagreements" else len(texts))
        for row in listed["rows"]:
            assert row["answer"] == answers[row["row"] - 1]
            if which == "distinct":
                assert row["count"] == texts["-".join(row["answer"])]


def test_an_unlabelled_dataset_has_no_marks():
    scored = score_dataset(RULE, "text\na\nb,4\n前", 3, labelled=False)
    assert scored.marks is None and scored.summary["agreement"] is None and scored.order.size == 0
    assert scored.summary["distributions"]["marks"] is None and scored.summary["answers"] == 3


def test_pages_are_clamped_and_sized():
    data = "text,score\n" + "\n".join(f"a{i % 7},{i % 11}" for i in range(100))
    scored = score_dataset(RULE, data, 100, labelled=True)
    first = page(scored, data, "distinct", 0, 3)
    last = page(scored, data, "distinct", 99, 3)
    assert (first["pages"], first["total"], len(first["rows"])) == (3, 7, 3)
    assert (last["page"], len(last["rows"])) == (2, 1)
    assert [r["count"] for r in first["rows"]] == [15, 15, 14]
