"""Blanks cannot be mistaken (issue 35, item 1): a teacher's sheet (学号, 班级, two blanks,
two raters' marks) never has its ids or classes scored as answers. Default blank columns
are taken only when they fit what the rule reads; columns that look like identifiers or
groups are never default blanks; every command and the library refuse a misfit, naming
the rule's need, the columns and ``--blanks``; rows are named by the id column."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import coscore
from coscore.cli import main
from coscore.io.identifiers import id_column, kind_of_name, looks_like_codes

RULE = {"atoms": {"0": {"type": "SM", "desc": "阻尼器"}, "1": {"type": "SM", "desc": "大楼,模型"}},
        "combos": {"A": {"combo": "M(0,T(0))", "score": 4, "mode": "value"},
                   "B": {"combo": "G(1,T(1))", "score": 6, "mode": "logic"}},
        "comboMode": "ADD"}
HEADER = ["学号", "班级", "第1空", "第2空", "教师A", "教师B"]


@pytest.fixture
def sheet(tmp_path: Path) -> tuple[Path, Path]:
    """A two-blank rule and a teacher's sheet of 40 students."""
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "sheet.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        for i in range(40):
            writer.writerow([f"S{i:05d}", f"{i % 3 + 1}班", ["阻尼器", "积木", ""][i % 3], ["大楼模型", "纸"][i % 2],
                             str(i % 11), str((i + 1) % 11)])
    return rule, data


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_whole_sheet_is_refused_with_the_rule_s_need_and_the_columns(sheet, tmp_path, capsys):
    rule, data = sheet
    out = tmp_path / "out.csv"
    status, _, err = _run(capsys, "score", rule, data, "-o", out, "--no-progress")
    assert status == 2 and not out.exists()
    assert "reads 2 blanks (T(0)…T(1))" in err and "4 columns that could be blanks (第1空, 第2空, 教师A, 教师B)" in err
    assert "not taken: 学号 (looks like an identifier), 班级 (looks like a group)" in err and "--blanks" in err
    status, _, err = _run(capsys, "score", rule, data, "--label", "教师A", "-o", out, "--no-progress")
    assert status == 2 and "3 columns that could be blanks (第1空, 第2空, 教师B)" in err and not out.exists()


def test_a_full_width_comma_separates_blank_columns(sheet, tmp_path, capsys):
    rule, data = sheet
    out = tmp_path / "out.csv"
    status, _, err = _run(capsys, "score", rule, data, "--blanks", "第1空，第2空", "--label", "教师A", "-o", out,
                          "--no-progress")
    assert status == 0, err
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert rows[0]["coscore_score"] == "10.0"   # 阻尼器 and 大楼模型: 4 + 6


def test_default_blanks_that_fit_are_taken_and_the_ids_are_named(tmp_path, capsys):
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "fit.csv"
    data.write_text("学号,姓名,第1空,第2空,教师A\nS001,张三,阻尼器,大楼,4\nS002,李四,,纸,0\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    status, _, err = _run(capsys, "score", rule, data, "--label", "教师A", "-o", out, "--no-progress")
    assert status == 0 and "not taken as blanks" in err and "学号 (an identifier)" in err and "姓名 (an identifier)" in err
    assert [r["coscore_score"] for r in csv.DictReader(out.open(encoding="utf-8"))] == ["10.0", "0.0"]


def test_a_column_of_codes_is_no_default_blank(tmp_path, capsys):
    one = {"atoms": {"0": {"type": "SM", "desc": "阻尼器"}},
           "combos": {"A": {"combo": "M(0,T(0))", "score": 4, "mode": "value"}}, "comboMode": "ADD"}
    rule = tmp_path / "one.json"
    rule.write_text(json.dumps(one, ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "codes.csv"
    data.write_text("code,answer\n" + "".join(f"K{i:04d},阻尼器{i % 2}\n" for i in range(20)), encoding="utf-8")
    out = tmp_path / "out.csv"
    status, _, err = _run(capsys, "score", rule, data, "-o", out, "--no-progress")
    assert status == 0 and "code (an identifier)" in err
    assert [r["coscore_score"] for r in csv.DictReader(out.open(encoding="utf-8"))] == ["4.0"] * 20


@pytest.mark.parametrize("argv", [
    ["explain", "{rule}", "{data}", "--row", "1", "--label", "教师A"],
    ["report", "{data}", "--label", "教师A", "--pred", "教师B", "--rule", "{rule}"],
    ["compare", "{data}", "--label", "教师A", "{rule}"],
    ["tune", "{rule}", "{data}", "--label", "教师A"],
    ["suggest", "{rule}", "{data}", "--label", "教师A"],
])
def test_every_command_refuses_the_misfit(sheet, capsys, argv):
    rule, data = sheet
    status, _, err = _run(capsys, *[a.format(rule=rule, data=data) for a in argv])
    assert status == 2 and "reads 2 blanks" in err and "--blanks" in err and "Traceback" not in err, err


def test_check_says_the_data_does_not_fit(sheet, capsys):
    rule, data = sheet
    status, out, _err = _run(capsys, "check", rule, "--data", data, "--label", "教师A")
    assert status == 1 and "data:" in out and "reads 2 blanks" in out and "教师B" in out
    status, out, _ = _run(capsys, "check", rule, "--data", data, "--label", "教师A", "--blanks", "第1空,第2空")
    assert status == 0 and "(the data has 2 blanks)" in out


def test_explain_agrees_with_the_scored_file(sheet, tmp_path, capsys):
    """The evidence is for the score the file holds: explain reads the same blanks."""
    rule, data = sheet
    out = tmp_path / "scored.csv"
    assert _run(capsys, "score", rule, data, "--blanks", "第1空,第2空", "--label", "教师A", "-o", out,
                "--no-progress")[0] == 0
    status, text, err = _run(capsys, "explain", rule, data, "--blanks", "第1空,第2空", "--row", "1", "--json")
    assert status == 0, err
    explained = json.loads(text)[0]
    scored = next(csv.DictReader(out.open(encoding="utf-8")))
    assert explained["score"] == float(scored["coscore_score"]) and explained["id"] == "S00000"


def test_rows_are_named_by_the_id_column(sheet, tmp_path, capsys):
    rule, data = sheet
    scored = tmp_path / "scored.csv"
    assert _run(capsys, "score", rule, data, "--blanks", "第1空,第2空", "--label", "教师A", "-o", scored,
                "--no-progress")[0] == 0
    status, out, err = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule, "--blanks", "第1空,第2空",
                            "--json")
    assert status == 0, err
    rows = json.loads(out)["disagreements"]
    assert rows and all(r["id"].startswith("S000") for r in rows)
    status, out, _ = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule, "--blanks", "第1空,第2空",
                          "--id-column", "班级", "--json")
    assert status == 0 and all(r["id"].endswith("班") for r in json.loads(out)["disagreements"])
    status, _, err = _run(capsys, "report", scored, "--label", "教师A", "--id-column", "nope")
    assert status == 2 and "nope" in err


def test_the_library_refuses_a_whole_sheet():
    rule = coscore.compile(RULE)
    frame = pd.DataFrame({"学号": ["S1", "S2"], "班级": ["1班", "2班"], "第1空": ["阻尼器", ""],
                          "第2空": ["大楼", "模型"]})
    for whole in (frame, pa.table(frame), frame.iloc[:, 1:]):
        with pytest.raises(ValueError, match=r"looks like an? (identifier|group), not a blank.*pass only the blank"):
            rule.score_many(whole)
    assert rule.score_many(frame[["第1空", "第2空"]]).scores.tolist() == [10.0, 6.0]
    assert rule.score_many([frame["学号"].to_numpy().astype(str).tolist()]).errors   # a list is taken as given


@pytest.mark.parametrize("name, kind", [
    ("学号", "an identifier"), ("考号", "an identifier"), ("准考证号", "an identifier"), ("姓名", "an identifier"),
    ("班级", "a group"), ("学校", "a group"), ("班", "a group"), ("id", "an identifier"),
    ("Student ID", "an identifier"), ("student_id", "an identifier"), ("name", "an identifier"),
    ("class", "a group"), ("School", "a group"), ("q1", None), ("第1空", None), ("answer", None), ("idea", None),
    ("classification", None), ("mark", None), ("教师A", None),
])
def test_names_of_identifiers_and_groups(name, kind):
    assert kind_of_name(name) == kind


def test_codes_and_ids():
    assert looks_like_codes([f"S{i:05d}" for i in range(12)])
    assert looks_like_codes([str(2024000 + i) for i in range(12)])
    assert not looks_like_codes([f"S{i:05d}" for i in range(5)])                   # too few rows to tell
    assert not looks_like_codes(["12", "15"] * 6)                                   # repeats
    assert not looks_like_codes([f"答案{i}" for i in range(12)])                     # text, not codes
    assert not looks_like_codes([str(i) for i in range(12)])                        # short numbers: answers
    assert id_column(["q1", "学号"]) == "学号" and id_column(["ID", "q1"]) == "ID" and id_column(["q1"]) is None
    assert id_column(["学号", "code"], "code") == "code"


def test_a_scored_file_says_which_blanks_and_a_report_says_when_the_rule_disagrees(sheet, tmp_path, capsys):
    """Issue 35, item 2: report --rule takes the blank columns a Parquet or .xlsx file
    records; when the rule scores rows otherwise than the file, it says so."""
    rule, data = sheet
    for suffix in (".parquet", ".xlsx"):
        scored = tmp_path / f"scored{suffix}"
        assert _run(capsys, "score", rule, data, "--blanks", "第1空,第2空", "--label", "教师A", "-o", scored,
                    "--no-progress")[0] == 0
        status, out, err = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule, "--json")
        assert status == 0, err
        assert json.loads(out)["rescored_differ"] is None
        status, out, _ = _run(capsys, "explain", rule, scored, "--row", "1", "--json")
        assert status == 0 and json.loads(out)[0]["answer"] == ["阻尼器", "大楼模型"]
    scored = tmp_path / "scored.csv"
    assert _run(capsys, "score", rule, data, "--blanks", "第1空,第2空", "--label", "教师A", "-o", scored,
                "--no-progress")[0] == 0
    status, _, err = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule)
    assert status == 2 and "reads 2 blanks" in err   # a CSV records nothing: the columns must be named
    status, out, err = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule, "--blanks", "第2空,第1空")
    assert status == 0 and "warning: the rule scores" in out and "otherwise than the file's coscore_score" in out
    status, out, _ = _run(capsys, "report", scored, "--label", "教师A", "--rule", rule, "--blanks", "第2空,第1空",
                          "--json")
    differ = json.loads(out)["rescored_differ"]
    assert differ["rows"] > 0 and differ["first_row"] >= 1
