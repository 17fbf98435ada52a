"""The web app's tasks read their dataset's text as the original does
(``line.split(',')[0].split('-')``) into one Arrow column of lists of blanks, and score
it exactly as ``score_many`` scores those lists in Python."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore.webapp.tasks import task_answers

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
RULES = [coscore.compile(json.loads(p.read_text(encoding="utf-8"))) for p in sorted(DEMO.glob("*.rule.json"))]

LINE = st.lists(st.sampled_from([*list("ab,-\r 车道左转右变 "), "🎉", "\u3000", "null"]), max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=40), st.integers(0, 3), st.sampled_from(range(len(RULES))))
def test_task_answers_score_as_the_original_split_lines(lines, extra, which):
    data = "text,score\n" + "\n".join(lines) + "\n" * extra
    count = len(lines)
    answers = task_answers(data, count)
    expected = [line.split(",")[0].split("-") for line in data.split("\n")[1:count + 1]]
    assert list(answers) == expected
    rule = RULES[which]
    got, want = rule.score_many(answers.blanks), rule.score_many(expected)
    assert got.scores.tobytes() == want.scores.tobytes() and got.errors == want.errors
    for cid in rule.combo_ids:
        assert got.combos[cid].tobytes() == want.combos[cid].tobytes()
