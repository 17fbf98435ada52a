"""Answers whose number of blanks differs from row to row (JSON Lines ``answers`` lists,
the original CoScore layout's text split on ``-``) are scored as Arrow columns, one group
of rows per number of blanks, and give, byte for byte, the output of scoring them row by
row: rules that read a blank by position, the last blank and the number of blanks."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from coscore.cli import main
from coscore.pipeline import scoring, tables

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"

TEXTS = ["", "a", "阻尼器", "模型 大楼", "😀x", "é", "积木", " ", "阻尼器 模型"]

#: reads blank 1 (missing from one-blank answers), the last blank and the blanks joined
#: and counted, so that an answer's number of blanks changes its score
RULE = {"atoms": {"0": {"type": "SM", "desc": "阻尼器,a"}, "1": {"type": "OP", "desc": "0.3:模型大楼"},
                  "2": {"type": "CS", "desc": "0.2:积木"}},
        "combos": {"A": {"combo": "G(0,T(1))", "score": 2, "mode": "logic"},
                   "B": {"combo": "M(1,T(-1))", "score": 3, "mode": "value"},
                   "C": {"combo": "M(2,T('*'))*Q('*')", "score": 1, "mode": "value"}},
        "comboMode": "ADD"}


def _row_by_row(columns, reads=None, cast=False):
    """The answers of a chunk's blank columns as Python lists of blanks (each scored
    answer by answer), instead of the grouped columns."""
    return tables.BlankTable.of_answers(tables.answer_lists(columns))


def _score(monkeypatch, capsys, args: list[str], out: Path, grouped: bool) -> tuple[int, str, bytes, int]:
    calls = []
    real = tables._groups
    with monkeypatch.context() as patch:
        if grouped:   # how many chunks had more than one group
            patch.setattr(tables, "_groups", lambda *a: (lambda g: calls.append(len(g) > 1) or g)(real(*a)))
        else:   # the reference: every answer taken one by one
            patch.setattr(scoring, "from_columns", _row_by_row)
        status = main([*args, "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    return status, err, out.read_bytes() if out.exists() else b"", sum(calls)


def _rules(tmp_path: Path) -> list[Path]:
    path = tmp_path / "widths.rule.json"
    path.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    return [path, DEMO / "lane-change.rule.json"]


@pytest.mark.parametrize("seed", range(10))
def test_json_lines_answers_of_differing_lengths_score_as_row_by_row(tmp_path, monkeypatch, capsys, seed):
    rnd = random.Random(seed)
    rows = [{"id": i, "answers": [rnd.choice([*TEXTS, None]) for _ in range(rnd.randrange(1, 5))]}
            for i in range(rnd.randrange(2, 60))]
    rows[0]["answers"], rows[1]["answers"] = ["a"], ["a", "阻尼器"]   # at least two lengths
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n", encoding="utf-8")
    for rule in _rules(tmp_path):
        for suffix in ("jsonl", "csv"):
            args = ["score", str(rule), str(path), "--chunk-size", str(rnd.choice([2, 7, 65536]))]
            new = _score(monkeypatch, capsys, args, tmp_path / f"new.{suffix}", grouped=True)
            old = _score(monkeypatch, capsys, args, tmp_path / f"old.{suffix}", grouped=False)
            assert new[0] == 0 and new[3] > 0   # scored, by groups
            assert new[:3] == old[:3]


@pytest.mark.parametrize("seed", range(6))
def test_original_layout_answers_of_differing_lengths_score_as_row_by_row(tmp_path, monkeypatch, capsys, seed):
    rnd = random.Random(seed)
    texts = ["-".join(rnd.choice(TEXTS).replace(" ", "") for _ in range(rnd.randrange(1, 5)))
             for _ in range(rnd.randrange(2, 60))]
    texts[:2] = ["阻尼器", "a-模型大楼"]
    path = tmp_path / "in.csv"
    path.write_text("text,score\n" + "".join(f"{t},{rnd.randrange(3)}\n" for t in texts), encoding="utf-8")
    for rule in _rules(tmp_path):
        args = ["score", str(rule), str(path), "--format", "coscore", "--chunk-size", str(rnd.choice([3, 65536]))]
        new = _score(monkeypatch, capsys, args, tmp_path / "new.csv", grouped=True)
        old = _score(monkeypatch, capsys, args, tmp_path / "old.csv", grouped=False)
        assert new[0] == 0 and new[3] > 0
        assert new[:3] == old[:3]


def test_a_list_without_blanks_scores_as_row_by_row(tmp_path, monkeypatch, capsys):
    """An empty ``answers`` list is a group of its own: answers without blanks."""
    path = tmp_path / "in.jsonl"
    path.write_text('{"answers": ["a"]}\n{"answers": []}\n{"answers": ["a", "b"]}\n', encoding="utf-8")
    rule = _rules(tmp_path)[0]
    new = _score(monkeypatch, capsys, ["score", str(rule), str(path)], tmp_path / "new.csv", grouped=True)
    old = _score(monkeypatch, capsys, ["score", str(rule), str(path)], tmp_path / "old.csv", grouped=False)
    assert new[3] == 1
    assert new[:3] == old[:3]
