"""``coscore suggest`` and :func:`coscore.suggest.suggest`: phrases (character n-grams,
punctuation-aware) that separate high from low marks and no atom covers, with counts
and examples; missed answers grouped, with the closest atom; the documented JSON."""
from __future__ import annotations

import json
import math

import numpy as np

import coscore
from coscore.labelled import read_table
from coscore.suggest import suggest
from coscore.suggest.misses import closest, common_text
from coscore.suggest.phrases import covered, ngrams, segments, split, z_score
from test_cli import DEMO, run, text

LANE = DEMO / "lane-change.rule.json"
LANE_DATA = DEMO / "lane-change.csv"


def test_phrases_never_cross_punctuation_spaces_or_blanks():
    assert segments("先前进，再判断 前方?ab-cd") == ["先前进", "再判断", "前方", "ab", "cd"]
    assert ngrams(["左转，前进"]) == {"左转", "前进"}
    assert ngrams(["变换车道"]) == {"变换", "换车", "车道", "变换车", "换车道", "变换车道"}
    assert ngrams(["ab", "cd"]) == {"ab", "cd"}          # not "bc": the blanks are apart
    assert ngrams(["ｅ́x"], (2,)) == {"ｅ́", "́x"}        # a combining mark belongs to its word


def test_coverage_and_the_split():
    assert covered("车道", ["前进障碍变换车道停止"], [])        # inside an OP key
    assert covered("是否有", ["是否"], ["是否"])               # an SM option inside the phrase
    assert not covered("障碍物", ["前进障碍变换车道停止"], [])
    high, median, how = split(np.array([0.0, 0, 2, 4, 6]))
    assert median == 2 and how == "above 2" and high.tolist() == [False, False, False, True, True]
    high, _, how = split(np.array([0.0, 0, 1]))
    assert how == "above 0" and high.sum() == 1
    high, _, how = split(np.array([3.0, 3, 3]))
    assert how == "3 or more" and high.all()
    expected = math.log(10.5 * 10.5 / (0.5 * 0.5)) / math.sqrt(2 / 10.5 + 2 / 0.5)
    assert math.isclose(z_score(10, 10, 0, 10), expected) and math.isclose(z_score(0, 10, 10, 10), -expected)
    assert z_score(5, 10, 5, 10) == 0


def test_lane_change_lists_phrases_with_counts_and_examples():
    table = read_table(LANE_DATA, "coscore", None, "score")
    found = suggest(LANE, list(table.answers), table.marks)
    assert found.n == 100 and found.split == {"median": 4.0, "high": "above 4", "n_high": 31, "n_low": 69}
    assert found.high, "lane-change has phrases of high marks"
    rule = coscore.compile(LANE)
    for p in found.high:
        assert p.z >= 2 and p.high + p.low == len(p.rows) >= 3
        assert not covered(p.phrase, ["前进障碍变换车道停止"], ["如", "是否", "若", "反之", "开始", "结束"])
        assert 1 <= len(p.examples) <= 3
        for example in p.examples:
            assert p.phrase in "".join(example["answer"])
            assert table.marks[example["row"] - 1] == example["mark"]
            assert rule.score(example["answer"]).score == example["score"]
    top = found.high[0]
    assert (top.phrase, top.high, top.low) == ("有障碍", 22, 11)
    assert math.isclose(top.mean_with, float(np.mean([m for a, m in zip(table.answers, table.marks)
                                                         if "有障碍" in a[0]])))
    assert found.covered > 0
    assert found.groups and all(g.direction in ("under", "over") for g in found.groups)


def test_missed_answers_are_grouped_with_the_closest_atom():
    table = read_table(LANE_DATA, "coscore", None, "score")
    found = suggest(LANE, list(table.answers), table.marks, limit=30)
    first = found.groups[0].answers[0]
    assert first.rows == [100] and first.mark == 6 and first.score == 0 and first.gap == -6
    assert first.closest.atom == "0" and first.closest.kind == "OP" and not first.closest.hit
    assert "< threshold 0.2" in first.closest.detail
    gaps = [abs(m.gap) for g in found.groups for m in g.answers]
    assert len(gaps) == 30 and all(g >= 0.5 for g in gaps)
    together = [g for g in found.groups if len(g.answers) > 1]
    assert together and all(g.shared and all(g.shared in "".join(m.answer) for m in g.answers) for g in together)
    assert common_text([["前进左转前进"], ["前进，左转前进"]]) == "左转前进"
    rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "甲,乙,丙"}, "1": {"type": "EM", "desc": "甲乙"}},
                            "combos": {"A": {"combo": "M(0, T(0)) + G(1, T(0))", "score": 1, "mode": "value"}},
                            "comboMode": "ADD"})
    near = closest(rule, ["甲乙丁"], "under")
    assert (near.atom, near.closeness) == ("0", 2 / 3) and "2 of 3 groups counted" in near.detail
    assert closest(rule, ["甲乙丁"], "over").atom == "0"


def test_the_command_and_its_json():
    proc = run("suggest", LANE, LANE_DATA, "--format", "coscore", "--label", "score")
    out, err = text(proc)
    assert proc.returncode == 0, err
    assert "100 marked rows: high marks are above 4 (31 rows), low the others (69 rows)" in out
    assert "  有障碍  22 / 11  z +4.9  mean mark 6.21 with it, 2.07 without" in out
    assert "      row 18  mark 8  score 7  开始 前进 感应是否[有障碍]物 有障碍物就变道 继续行驶" in out
    assert "answers the rule scores furthest from their marks, grouped by similarity:" in out
    assert "closest atom: 0 (OP, miss, closeness 0.10)" in out
    data = json.loads(text(run("suggest", LANE, LANE_DATA, "--format", "coscore", "--label", "score", "--json",
                               "--top", "3"))[0])
    assert set(data) == {"rule", "data", "label", "n", "split", "phrases", "covered", "groups", "failed",
                         "missing_marks", "left_out"}
    assert len([p for p in data["phrases"] if p["direction"] == "high"]) == 3
    phrase = data["phrases"][0]
    assert set(phrase) == {"phrase", "direction", "rows", "high", "low", "mean_mark_with", "mean_mark_without", "z",
                           "under_scored", "over_scored", "examples"}
    assert set(phrase["examples"][0]) == {"row", "answer", "mark", "score"}
    group = data["groups"][0]
    assert set(group) == {"direction", "shared", "answers"}
    assert set(group["answers"][0]) == {"answer", "rows", "mark", "score", "gap", "closest"}
    assert set(group["answers"][0]["closest"]) == {"atom", "kind", "text", "hit", "closeness", "detail"}


def test_unmarked_rows_are_left_out_and_equal_marks_give_no_phrase():
    rule = {"atoms": {"0": {"type": "SM", "desc": "x"}},
            "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    found = suggest(rule, ["甲乙", "甲乙", "甲乙", "丙丁"], [2, None, 2, 2])
    assert found.n == 3 and found.high == [] and found.low == []
    assert [m.rows for g in found.groups for m in g.answers] == [[1, 3], [4]]
    proc = run("suggest", LANE, LANE_DATA, "--format", "coscore", "--label", "nope")
    assert proc.returncode == 2 and "Traceback" not in text(proc)[1]


def test_the_command_runs_twice_in_one_process(capsys):
    """The package's text function is not shadowed by its module ``render`` once that is
    imported (the second run in one process failed: "'module' object is not callable")."""
    from coscore.cli import main

    for _ in range(2):
        assert main(["suggest", str(LANE), str(LANE_DATA), "--format", "coscore", "--label", "score",
                     "--top", "1", "--limit", "1"]) == 0
        assert "answers the rule scores furthest from their marks" in capsys.readouterr().out
