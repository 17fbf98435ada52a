"""Issue 35's "Done when": a teacher's sheet — a title row above the header, 学号, 班级, two
blanks, two raters' marks with 缺考 (absent) among them, a second sheet — goes through
score → report → tune with the right blanks or a clear refusal, never a silent zero."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import read_columns
from coscore.cli import main

RULE = {"atoms": {"0": {"type": "SM", "desc": "阻尼器"}, "1": {"type": "SM", "desc": "大楼,模型"}},
        "combos": {"A": {"combo": "M(0,T(0))", "score": 4, "mode": "value"},
                   "B": {"combo": "G(1,T(1))", "score": 6, "mode": "logic"}},
        "comboMode": "ADD"}


@pytest.fixture(scope="module")
def sheet(tmp_path_factory) -> tuple[Path, Path]:
    import xlsxwriter

    folder = tmp_path_factory.mktemp("teacher")
    rule = folder / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    book_path = folder / "期中.xlsx"
    book = xlsxwriter.Workbook(str(book_path))
    first = book.add_worksheet("第5题")
    first.merge_range(0, 0, 0, 5, "2026 期中 第5题")
    for j, name in enumerate(["学号", "班级", "第1空", "第2空", "教师A", "教师B"]):
        first.write_string(1, j, name)
    for i in range(300):
        row = i + 2
        first.write_string(row, 0, f"S{i:05d}")
        first.write_string(row, 1, f"{i % 4 + 1}班")
        first.write_string(row, 2, ["阻尼器", "积木", "阻尼器和大楼"][i % 3])
        first.write_string(row, 3, ["大楼模型", "纸", ""][i % 3])
        if i % 25 == 0:
            first.write_string(row, 4, "缺考")
        else:
            first.write_number(row, 4, [10, 4, 4][i % 3] if i % 7 else 6)
        first.write_number(row, 5, [10, 4, 0][i % 3])
    book.add_worksheet("第6题").write_string(0, 0, "另一题")
    book.close()
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
