"""Marks as teachers record them (issue 35, item 4): ``--missing-marks {error,skip}`` on
report, compare (with ``--exam`` too), tune, suggest and explain; marks that are not
finite or lie outside 0–10 refused whatever it says; the same for ``--label2`` and for a
compare SCORER column; the workbench's datasets alike. Every case through
``coscore.cli.main`` (or the workbench's API), as a user meets it."""
from __future__ import annotations

import csv
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from coscore.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"
RULE = DEMO / "lane-change.rule.json"
TRAFFIC = DEMO / "traffic-light.rule.json"
#: The rows (1-based) of the sheet that hold what a teacher writes for no mark.
ABSENT = {6: "缺考", 18: "缺考", 41: "缺考", 61: "-"}
LINE = "4 rows left out: their mark in 教师A is empty or not a number (缺考 ×3, - ×1)"


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def _demo(task: str = "lane-change") -> list[tuple[str, str]]:
    with open(DEMO / f"{task}.csv", encoding="utf-8") as f:
        return [(row["text"], row["score"]) for row in csv.DictReader(f)]


def _sheet(path: Path, a: dict[int, str] | None = None, b: dict[int, str] | None = None,
           drop: set[int] = frozenset()) -> Path:
    """The lane-change answers as a teacher's sheet: 学号, 答案, 教师A (the marks, with ``a``
    written over rows), 教师B (every other row marked again, with ``b`` over rows); the rows
    of ``drop`` left out of the file."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["学号", "答案", "教师A", "教师B"])
        for i, (text, mark) in enumerate(_demo(), start=1):
            if i not in drop:
                w.writerow([f"S{i:03d}", text, (a or {}).get(i, mark),
                            (b or {}).get(i, mark if i % 2 else "")])
    return path


def _ok(capsys, *argv) -> str:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def _json(capsys, *argv) -> dict:
    return json.loads(_ok(capsys, *argv, "--json"))


def _refused(capsys, *argv) -> str:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert status == 2 and not out, (status, out, err)
    assert "Traceback" not in err and err.count("\n") == 1
    return err.strip()


def _scored(tmp_path: Path, data: Path, capsys) -> Path:
    out = tmp_path / (data.stem + ".scored.csv")
    _ok(capsys, "score", RULE, data, "--blanks", "答案", "-o", out, "--no-progress")
    return out


# -- a mark that is not a number --------------------------------------------------------------


def test_a_mark_that_is_not_a_number_stops_report_naming_the_flag_line_column_and_value(tmp_path, capsys):
    scored = _scored(tmp_path, _sheet(tmp_path / "sheet.csv", ABSENT), capsys)
    err = _refused(capsys, "report", scored, "--label", "教师A", "--blanks", "答案")
    assert err == (f"coscore: {scored}: line 7, column '教师A': expected a number, got '缺考'; give --missing-marks "
                   "skip to leave such rows out")
    assert _refused(capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", "error") == err


def test_skip_leaves_those_rows_out_and_says_how_many(tmp_path, capsys):
    """The figures are those of the file without the rows left out; the count is one line
    of the text (near the top), a field of the JSON and a line of the page."""
    pytest.importorskip("matplotlib")
    scored = _scored(tmp_path, _sheet(tmp_path / "sheet.csv", ABSENT), capsys)
    clean = _scored(tmp_path, _sheet(tmp_path / "clean.csv", drop=set(ABSENT)), capsys)
    args = ["--label", "教师A", "--blanks", "答案", "--rule", RULE]
    got = _json(capsys, "report", scored, *args, "--missing-marks", "skip")
    want = _json(capsys, "report", clean, *args)
    assert got["missing_marks"] == "skip" and want["missing_marks"] == "error" and want["left_out"] is None
    assert got["left_out"] == {"column": "教师A", "rows": 4, "values": {"缺考": 3, "-": 1}}
    assert got["n"] == want["n"] == 96 and got["n_rows"] == 100 and got["n_without_label"] == 4
    for key in ("qwk", "kappa", "exact_agreement", "adjacent_agreement", "pearson_r", "rmse", "r2", "smd",
                "mean_human", "mean_pred", "confusion", "levels", "combos"):
        assert got[key] == want[key], key
    text = _ok(capsys, "report", scored, *args, "--missing-marks", "skip", "--html", tmp_path / "r.html")
    lines = text.splitlines()
    assert LINE in lines[:6]
    assert LINE in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "left out" not in _ok(capsys, "report", clean, *args).split("\n\n")[0]


def test_empty_marks_are_no_marks_either_way_and_counted_with_skip(tmp_path, capsys):
    scored = _scored(tmp_path, _sheet(tmp_path / "sheet.csv", {**ABSENT, 3: "", 9: "  "}), capsys)
    with_error = _json(capsys, "report", _scored(tmp_path, _sheet(tmp_path / "blank.csv", {3: "", 9: "  "}), capsys),
                       "--label", "教师A", "--blanks", "答案")
    assert with_error["n"] == 98 and with_error["n_without_label"] == 2 and with_error["left_out"] is None
    got = _json(capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", "skip")
    assert got["left_out"] == {"column": "教师A", "rows": 6, "values": {"缺考": 3, "": 2, "-": 1}}
    assert "6 rows left out: their mark in 教师A is empty or not a number (缺考 ×3, empty ×2, - ×1)" in _ok(
        capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", "skip")


@pytest.mark.parametrize("value", ["absent", "n/a", "缺考", "-", "?"])
def test_any_text_that_is_not_a_number_is_a_missing_mark(tmp_path, capsys, value):
    scored = _scored(tmp_path, _sheet(tmp_path / "sheet.csv", {10: value}), capsys)
    err = _refused(capsys, "report", scored, "--label", "教师A", "--blanks", "答案")
    assert f"line 11, column '教师A': expected a number, got {value!r}; give --missing-marks skip" in err
    got = _json(capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", "skip")
    assert got["left_out"]["values"] == {value: 1} and got["n"] == 99


# -- marks that are wrong, not missing ----------------------------------------------------------

WRONG = [("inf", "is not a finite number"), ("-inf", "is not a finite number"), ("nan", "is not a finite number"),
         ("Infinity", "is not a finite number"), ("1e999", "is outside the 0–10 scale"),
         ("50000", "is outside the 0–10 scale"), ("-50000", "is outside the 0–10 scale"),
         ("-3", "is outside the 0–10 scale"), ("10.5", "is outside the 0–10 scale")]


@pytest.mark.parametrize("value, says", WRONG)
@pytest.mark.parametrize("missing", ["error", "skip"])
def test_a_mark_not_finite_or_off_the_scale_is_refused_whatever_missing_marks_says(tmp_path, capsys, value, says,
                                                                                  missing):
    data = _sheet(tmp_path / "sheet.csv", {**ABSENT, 70: value} if missing == "skip" else {70: value})
    scored = _scored(tmp_path, data, capsys)
    err = _refused(capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", missing)
    assert err.startswith(f"coscore: {scored}: line 71, column '教师A': the mark {value!r} {says}"), err
    assert "empty the cell" in err and "--missing-marks skip leaves out only marks that are not recorded" in err
    assert _refused(capsys, "tune", RULE, data, "--label", "教师A", "--blanks", "答案",
                    "--missing-marks", missing) == err.replace(str(scored), str(data))


def test_the_first_problem_in_file_order_is_named(tmp_path, capsys):
    scored = _scored(tmp_path, _sheet(tmp_path / "sheet.csv", {5: "缺考", 9: "50000"}), capsys)
    assert "line 6, column '教师A': expected a number" in _refused(capsys, "report", scored, "--label", "教师A",
                                                                 "--blanks", "答案")
    assert "line 10, column '教师A': the mark '50000'" in _refused(capsys, "report", scored, "--label", "教师A",
                                                                  "--blanks", "答案", "--missing-marks", "skip")


def test_numbers_of_a_parquet_file_are_checked_as_text_is(tmp_path, capsys):
    """A column of numbers: 50000 and inf are refused (named by row), a NaN is an empty cell."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(name: str, marks: list) -> Path:
        path = tmp_path / name
        pq.write_table(pa.table({"answer": ["a", "b", "c", "d"], "mark": pa.array(marks, pa.float64()),
                                 "coscore_score": [1.0, 2.0, 3.0, 4.0]}), path)
        return path

    err = _refused(capsys, "report", write("big.parquet", [1, 50000, None, 4]), "--label", "mark")
    assert "big.parquet: row 2, column 'mark': the mark 50000 is outside the 0–10 scale" in err
    err = _refused(capsys, "report", write("inf.parquet", [1, 2, float("-inf"), 4]), "--label", "mark")
    assert "inf.parquet: row 3, column 'mark': the mark -inf is not a finite number" in err
    got = _json(capsys, "report", write("nan.parquet", [1, float("nan"), None, 4]), "--label", "mark",
                "--missing-marks", "skip")
    assert got["n"] == 2 and got["left_out"] == {"column": "mark", "rows": 2, "values": {"": 2}}


def test_json_lines_marks_of_any_type(tmp_path, capsys):
    """An integer too large for a float is off the scale (not an internal error); true and
    a list are not numbers."""
    path = tmp_path / "m.jsonl"
    rows = [{"answer": "a", "mark": 3, "coscore_score": 3}, {"answer": "b", "mark": 10 ** 400, "coscore_score": 2}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    err = _refused(capsys, "report", path, "--label", "mark")
    assert "m.jsonl: line 2, column 'mark': the mark 1000" in err and "(401 characters) is outside the 0–10" in err
    rows[1:] = [{"answer": "b", "mark": True, "coscore_score": 2}, {"answer": "c", "mark": [1], "coscore_score": 1}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert "line 2, column 'mark': expected a number, got True; give --missing-marks skip" in _refused(
        capsys, "report", path, "--label", "mark")
    got = _json(capsys, "report", path, "--label", "mark", "--missing-marks", "skip")
    assert got["n"] == 1 and got["left_out"]["values"] == {"True": 1, "[1]": 1}


def test_a_workbook_names_the_row(tmp_path, capsys):
    scored = tmp_path / "scored.xlsx"
    _ok(capsys, "score", RULE, _sheet(tmp_path / "sheet.csv", ABSENT), "--blanks", "答案", "-o", scored,
        "--no-progress")
    err = _refused(capsys, "report", scored, "--label", "教师A", "--blanks", "答案")
    assert "scored.xlsx: row 7, column '教师A': expected a number, got '缺考'; give --missing-marks skip" in err
    got = _json(capsys, "report", scored, "--label", "教师A", "--blanks", "答案", "--missing-marks", "skip")
    assert got["n"] == 96 and got["left_out"]["values"] == {"缺考": 3, "-": 1}


# -- the second teacher's marks -----------------------------------------------------------------


def test_second_marks_get_the_same_rule(tmp_path, capsys):
    data = _sheet(tmp_path / "sheet.csv", ABSENT, {6: "缺考", 18: "缺考", 41: "缺考", 7: "absent"})
    scored = _scored(tmp_path, data, capsys)
    args = ["--label", "教师A", "--label2", "教师B", "--blanks", "答案"]
    err = _refused(capsys, "report", scored, *args)
    assert "line 7, column '教师A': expected a number, got '缺考'" in err   # the first mark column first
    err = _refused(capsys, "report", scored, "--label", "教师B", "--label2", "教师A", "--blanks", "答案")
    assert "line 7, column '教师B': expected a number, got '缺考'" in err
    got = _json(capsys, "report", scored, *args, "--missing-marks", "skip")
    # 教师B marks the odd rows: the even ones are empty (but 6 and 18: 缺考); 41 is 缺考, 7 absent
    assert got["left_out_label2"] == {"column": "教师B", "rows": 52, "values": {"": 48, "缺考": 3, "absent": 1}}
    assert got["consistency"]["human_human"]["n"] == 100 - 52 - 1   # and row 61, whose first mark is '-'
    text = _ok(capsys, "report", scored, *args, "--missing-marks", "skip")
    assert ("52 rows left out of the human–human figures: their second mark in 教师B is empty or not a number "
            "(empty ×48, 缺考 ×3, absent ×1)") in text
    wrong = _scored(tmp_path, _sheet(tmp_path / "wrong.csv", b={8: "50000"}), capsys)
    err = _refused(capsys, "report", wrong, *args, "--missing-marks", "skip")
    assert "line 9, column '教师B': the second mark '50000' is outside the 0–10 scale" in err


# -- compare ------------------------------------------------------------------------------------


def test_compare_reads_marks_second_marks_and_score_columns_alike(tmp_path, capsys):
    data = _sheet(tmp_path / "sheet.csv", ABSENT, {6: "缺考", 18: "缺考", 41: "缺考"})
    base = ["compare", data, "--label", "教师A", "--blanks", "答案", "--resamples", "50"]
    assert "line 7, column '教师A': expected a number, got '缺考'; give --missing-marks skip" in _refused(
        capsys, *base, RULE)
    err = _refused(capsys, "compare", data, "--label", "教师B", "--blanks", "答案", RULE, "教师A")
    assert "line 7, column '教师B': expected a number, got '缺考'" in err
    got = _json(capsys, *base, RULE, TRAFFIC, "--label2", "教师B", "--missing-marks", "skip")
    assert got["missing_marks"] == "skip" and got["n"] == 96
    assert got["left_out"] == {"column": "教师A", "rows": 4, "values": {"缺考": 3, "-": 1}}
    assert got["left_out_label2"]["values"] == {"": 48, "缺考": 3} and got["left_out_scorers"] == {}
    # a teacher's column as a SCORER: its 缺考 rows are left out too, and counted
    got = _json(capsys, "compare", data, "--label", "教师A", "--blanks", "答案", "--resamples", "50", RULE, "教师B",
                "--missing-marks", "skip")
    assert got["left_out_scorers"] == {"教师B": {"column": "教师B", "rows": 51, "values": {"": 48, "缺考": 3}}}
    assert got["n"] == 48   # marked by 教师A and by 教师B: the odd rows but 41 (缺考) and 61 ('-' from 教师A)
    text = _ok(capsys, *base, RULE, "--missing-marks", "skip")
    assert LINE in text.splitlines()[:6]
    wrong = _sheet(tmp_path / "wrong.csv", b={9: "inf"})
    err = _refused(capsys, "compare", wrong, "--label", "教师A", "--blanks", "答案", RULE, "教师B",
                   "--missing-marks", "skip")
    assert "line 10, column '教师B': the score 'inf' is not a finite number" in err


# -- tune, suggest and explain ----------------------------------------------------------------


def test_tune_and_suggest_leave_the_rows_out_as_if_they_were_not_there(tmp_path, capsys):
    data = _sheet(tmp_path / "sheet.csv", ABSENT)
    clean = _sheet(tmp_path / "clean.csv", drop=set(ABSENT))
    for command, extra in (("tune", ["--resamples", "100"]), ("suggest", ["--top", "3"])):
        args = [command, RULE, data, "--label", "教师A", "--blanks", "答案", *extra]
        err = _refused(capsys, *args)
        assert err == (f"coscore: {data}: line 7, column '教师A': expected a number, got '缺考'; give "
                       "--missing-marks skip to leave such rows out")
        got = _json(capsys, *args, "--missing-marks", "skip")
        want = _json(capsys, command, RULE, clean, "--label", "教师A", "--blanks", "答案", *extra)
        assert got["missing_marks"] == "skip" and got["left_out"] == {"column": "教师A", "rows": 4,
                                                                      "values": {"缺考": 3, "-": 1}}
        assert got["n"] == want["n"] == 96
        same = ("before", "after", "improvement", "accepted", "changes", "proposed") if command == "tune" else \
            ("split", "covered", "failed")
        for key in same:
            assert got[key] == want[key], (command, key)
        if command == "suggest":
            assert [p["phrase"] for p in got["phrases"]] == [p["phrase"] for p in want["phrases"]]
        lines = _ok(capsys, *args, "--missing-marks", "skip").splitlines()
        assert lines[1] == LINE, lines[:3]


def test_explain_takes_the_option_its_message_names(tmp_path, capsys):
    data = _sheet(tmp_path / "sheet.csv", ABSENT)
    args = ["explain", RULE, data, "--label", "教师A", "--blanks", "答案", "--row", "6", "--json"]
    assert "give --missing-marks skip" in _refused(capsys, *args)
    got = _json(capsys, *args[:-1], "--missing-marks", "skip")
    assert got[0]["row"] == 6 and got[0]["mark"] is None
    got = _json(capsys, "explain", RULE, data, "--label", "教师A", "--blanks", "答案", "--where", "disagree",
                "--limit", "100", "--missing-marks", "skip")
    assert not {r["row"] for r in got} & set(ABSENT)


# -- exams --------------------------------------------------------------------------------------


@pytest.fixture()
def exam(tmp_path, capsys) -> tuple[Path, Path, Path]:
    """A wide exam of two items (lane-change, traffic-light) whose q1 marks hold 缺考 and -,
    its data and the data scored."""
    lane, traffic = _demo(), _demo("traffic-light")
    with open(tmp_path / "wide.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "q1", "q1_mark", "q2", "q2_mark", "q2_mark2"])
        for i in range(1, 101):
            w.writerow([f"S{i:03d}", lane[i - 1][0], ABSENT.get(i, lane[i - 1][1]), traffic[i - 1][0],
                        traffic[i - 1][1], "缺考" if i == 6 else traffic[i - 1][1] if i % 2 else ""])
    items = [{"name": "q1", "rule": str(RULE), "blanks": ["q1"], "label": "q1_mark"},
             {"name": "q2", "rule": str(TRAFFIC), "blanks": ["q2"], "label": "q2_mark", "label2": "q2_mark2"}]
    (tmp_path / "wide.json").write_text(json.dumps({"name": "w", "id": "id", "items": items}), encoding="utf-8")
    (tmp_path / "v2.json").write_text(json.dumps({"name": "w", "id": "id", "items": items}), encoding="utf-8")
    _ok(capsys, "score", tmp_path / "wide.json", tmp_path / "wide.csv", "-o", tmp_path / "scored.csv",
        "--no-progress")
    return tmp_path / "wide.json", tmp_path / "wide.csv", tmp_path / "scored.csv"


def test_an_exam_report_reads_each_items_marks_alike(exam, capsys):
    path, data, scored = exam
    err = _refused(capsys, "report", scored, "--exam", path)
    assert ("line 7, column 'q1_mark': item q1 (the mark column): expected a number, got '缺考'; give "
            "--missing-marks skip") in err
    got = _json(capsys, "report", scored, "--exam", path, "--missing-marks", "skip")
    q1, q2 = got["items"]["q1"], got["items"]["q2"]
    assert q1["left_out"] == {"column": "q1_mark", "rows": 4, "values": {"缺考": 3, "-": 1}} and q1["n"] == 96
    assert q2["left_out"] == {"column": "q2_mark", "rows": 0, "values": {}} and q2["n"] == 100
    assert q2["left_out_label2"]["values"] == {"": 49, "缺考": 1}
    assert got["total"]["missing_marks"] == "skip" and got["total"]["n"] == 96
    text = _ok(capsys, "report", scored, "--exam", path, "--missing-marks", "skip")
    assert "4 rows left out: their mark in q1_mark is empty or not a number (缺考 ×3, - ×1)" in text
    for tool in ("tune", "suggest"):
        assert "give --missing-marks skip" in _refused(capsys, tool, path, data, "--item", "q1")
        got = _json(capsys, tool, path, data, "--item", "q1", "--missing-marks", "skip",
                    *(["--resamples", "50"] if tool == "tune" else []))
        assert got["n"] == 96 and got["left_out"]["rows"] == 4


def test_an_exam_comparison_reads_each_items_marks_alike(exam, capsys):
    path, data, _ = exam
    v2 = path.with_name("v2.json")
    err = _refused(capsys, "compare", data, "--exam", path, v2, "--resamples", "50")
    assert "line 7, column 'q1_mark': item q1 (the mark column): expected a number, got '缺考'" in err
    got = _json(capsys, "compare", data, "--exam", path, v2, "--resamples", "50", "--missing-marks", "skip")
    q1 = got["items"]["q1"]
    assert q1["n"] == 96 and q1["left_out"]["values"] == {"缺考": 3, "-": 1}


# -- the library --------------------------------------------------------------------------------


def test_the_library_reads_marks_the_same_way(tmp_path):
    from coscore.cli.agreement import MISSING_MARKS
    from coscore.io import InputError
    from coscore.labelled import read_table
    from coscore.marks import MISSING_MARKS as LIBRARY
    from coscore.marks import left_out

    assert MISSING_MARKS == LIBRARY == ("error", "skip")
    data = _sheet(tmp_path / "sheet.csv", ABSENT)
    with pytest.raises(InputError, match="expected a number, got '缺考'") as info:
        read_table(data, blanks=["答案"], label="教师A")
    assert (info.value.line, info.value.column) == (7, "教师A")
    table = read_table(data, blanks=["答案"], label="教师A", missing_marks="skip")
    assert left_out(table, "教师A").to_dict() == {"column": "教师A", "rows": 4, "values": {"缺考": 3, "-": 1}}
    with pytest.raises(ValueError, match="missing_marks must be one of error, skip"):
        read_table(data, blanks=["答案"], label="教师A", missing_marks="drop")


# -- the workbench ------------------------------------------------------------------------------


def test_the_workbench_counts_missing_marks_and_refuses_wrong_ones(tmp_path):
    pytest.importorskip("httpx")
    pytest.importorskip("starlette")
    import sqlite3

    from starlette.testclient import TestClient

    from coscore.webapp import create_app
    from test_workbench_api import asked, scored
    from webapp_support import APP_DIR, copy_database

    db = copy_database(tmp_path)
    rows = _demo()

    def store(name: str, marks: dict[int, str]) -> None:
        lines = ["text,score", *(f"{text},{marks.get(i, mark)}" for i, (text, mark) in enumerate(rows, start=1))]
        with sqlite3.connect(db) as connection:
            connection.execute("INSERT INTO data VALUES (?, '', 'labeled', ?, ?, '2025-01-01 00:00:00')",
                               (name, "\n".join(lines), str(len(rows))))

    store("absent", {**ABSENT, 3: ""})
    store("huge", {**ABSENT, 50: "50000"})
    store("infinite", {9: "Infinity"})
    rule = RULE.read_text(encoding="utf-8")
    with TestClient(create_app(APP_DIR, db)) as client:
        data = scored(client, {"dataset": "absent", "rule": rule})
        assert data["marked"] == 95 and data["agreement"]["n"] == 95
        assert data["left_out"] == {"rows": 5, "values": {"缺考": 3, "": 1, "-": 1}}
        status, data = asked(client, {"dataset": "huge", "rule": rule})
        assert status == 422 and data["error"].startswith(
            "row 50 of the dataset (line 51): the mark '50000' is outside the 0–10 scale of coscore's scores")
        status, data = asked(client, {"dataset": "infinite", "rule": rule})
        assert status == 422 and "row 9 of the dataset (line 10): the mark 'Infinity' is not a finite number" \
            in data["error"]
        data = scored(client, {"dataset": "test 2", "rule": rule})
        assert data["left_out"] == {"rows": 0, "values": {}}
    page = (ROOT / "coscore" / "workbench" / "static" / "workbench.js").read_text(encoding="utf-8")
    words = (ROOT / "coscore" / "workbench" / "static" / "words.js").read_text(encoding="utf-8")
    assert "leftOut(reply.data.left_out)" in page and words.count("'data.leftout'") == 2


# -- the docs -----------------------------------------------------------------------------------


def test_the_docs_example_runs_and_prints_what_it_shows(tmp_path, capsys):
    """docs/report.md's example, from a scratch copy of the files it names: every command
    exits as the page says, and every line its console block shows was printed."""
    doc = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = doc[doc.index("<!-- missing-marks -->"):doc.index("<!-- end: missing-marks -->")]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1).replace("\\\n", " ")
    for name in ("coscore/data/demo", "examples/absent-students"):
        shutil.copytree(ROOT / name, tmp_path / name)
    printed: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        for line in block.strip().splitlines():
            command, _, comment = line.partition("#")
            args = shlex.split(command)
            assert args[0] == "coscore"
            status = main(args[1:])
            out, err = capsys.readouterr()
            assert status == (2 if "exit 2" in comment else 0), (line, err)
            printed += out.splitlines() + err.splitlines()
    shown = [line for console in re.findall(r"```console\n(.*?)```", section, re.DOTALL)
             for line in console.splitlines() if line.strip() and line.strip() != "…" and not line.startswith("$")]
    assert shown and all(line in printed for line in shown), [line for line in shown if line not in printed]


def test_the_tune_page_s_example_runs(tmp_path, capsys):
    """docs/tune.md's commands with --missing-marks run (exit 0) and say what they left out."""
    doc = (ROOT / "docs" / "tune.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", doc, re.DOTALL) if "--missing-marks" in b]
    commands = [line for b in blocks for line in b.replace("\\\n", " ").strip().splitlines()]
    assert [shlex.split(c)[1] for c in commands] == ["tune", "suggest"]
    for name in ("coscore/data/demo", "examples/absent-students"):
        shutil.copytree(ROOT / name, tmp_path / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        for command in commands:
            lines = _ok(capsys, *shlex.split(command)[1:]).splitlines()
            assert lines[1] == LINE
