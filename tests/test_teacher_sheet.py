"""Issue 35's "Done when": a teacher's sheet — a title row above the header, 学号, 班级, two
blanks, two raters' marks with 缺考 (absent) among them, a second sheet — goes through
score → report → tune with the right blanks or a clear refusal, never a silent zero."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import read_columns
from coscore.cli import main
from workbench_files import RULE, teacher_sheet


@pytest.fixture(scope="module")
def sheet(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("teacher")
    rule = folder / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    book_path = teacher_sheet(folder / "期中.xlsx", merged_title=True, another_sheet=True)
    return rule, book_path


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_sheet_is_refused_until_its_blanks_are_named(sheet, tmp_path, capsys):
    rule, book = sheet
    out = tmp_path / "scored.xlsx"
    status, _, err = _run(capsys, "score", rule, book, "--label", "教师A", "-o", out, "--no-progress")
    assert status == 2 and not out.exists()
    assert "header: row 2 (学号, 班级, 第1空" in err and "title row 1" in err
    assert "reads 2 blanks" in err and "第1空, 第2空, 教师B" in err and "学号 (looks like an identifier)" in err


def test_score_report_tune_with_the_right_blanks(sheet, tmp_path, capsys):
    rule, book = sheet
    out = tmp_path / "scored.xlsx"
    status, _, err = _run(capsys, "score", rule, book, "--blanks", "第1空,第2空", "--label", "教师A", "-o", out,
                          "--no-progress")
    assert status == 0, err
    scored = read_columns(out)
    scores = [float(v) for v in scored["coscore_score"]]     # xlsx number cells, read back as text
    assert scores[:3] == [10.0, 0.0, 4.0]   # 阻尼器 + 大楼模型; 积木 + 纸; both words in blank 0, blank 1 empty
    assert set(scores) != {0.0}             # never a silent zero
    status, _, err = _run(capsys, "report", out, "--label", "教师A", "--rule", rule)
    assert status == 2 and "缺考" in err and "--missing-marks skip" in err
    status, text, err = _run(capsys, "report", out, "--label", "教师A", "--label2", "教师B", "--rule", rule,
                             "--missing-marks", "skip", "--json")
    assert status == 0, err
    report = json.loads(text)
    assert report["left_out"]["rows"] == 12 and report["left_out"]["values"] == {"缺考": 12}
    assert report["rescored_differ"] is None and report["n"] == 288 and report["summary"]
    assert all(d["id"].startswith("S") for d in report["disagreements"])
    status, text, err = _run(capsys, "tune", rule, book, "--blanks", "第1空,第2空", "--label", "教师A",
                             "--missing-marks", "skip", "--json", "--folds", "3", "--resamples", "200")
    assert status == 0, err
    assert json.loads(text)["left_out"]["rows"] == 12
