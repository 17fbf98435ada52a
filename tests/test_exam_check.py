"""``coscore check EXAM``: every item's rule checked, the blanks each item lists, and with
``--data`` the columns the exam names (and, in the long layout, its items) against the data;
exams built from the demo rules."""
from __future__ import annotations

import csv
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from coscore.cli import main

DEMO = Path(__file__).resolve().parent.parent / "coscore" / "data" / "demo"

EXAM = """
    name: demo midterm
    id: 学号
    items:
      - name: q1
        rule: rules/lab-tools.rule.json
        blanks: [q1]
        label: q1_mark
      - name: q2
        rule: rules/lane-change.rule.json
        blanks: [q2]
      - name: q3
        rule: rules/shortest-path.rule.json
        blanks: [q3_a, q3_b]
      - name: q4
        rule: rules/traffic-light.rule.json
        blanks: [q4]
        weight: 2
    """
WIDE_COLUMNS = ["学号", "q1", "q2", "q3_a", "q3_b", "q4", "q1_mark"]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def write_csv(folder: Path, name: str, columns: list[str], rows: list[list[str]]) -> Path:
    path = folder / name
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)
    return path


def demo_texts(name: str, count: int) -> list[str]:
    """The first ``count`` answers of a demo dataset."""
    with open(DEMO / f"{name}.csv", encoding="utf-8") as handle:
        return [row["text"] for _, row in zip(range(count), csv.DictReader(handle))]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path`` as the current directory, with the demo rules in ``rules/``, the exam in
    ``exam.yaml`` and its answers in ``answers.csv``."""
    (tmp_path / "rules").mkdir()
    for path in DEMO.glob("*.rule.json"):
        shutil.copy(path, tmp_path / "rules" / path.name)
    write(tmp_path, "exam.yaml", EXAM)
    texts = {name: demo_texts(name, 5) for name in ("lab-tools", "lane-change", "shortest-path", "traffic-light")}
    rows = [[f"s{i}", texts["lab-tools"][i], texts["lane-change"][i], *texts["shortest-path"][i].split("-", 1)[:1],
             "", texts["traffic-light"][i], "3"] for i in range(5)]
    write_csv(tmp_path, "answers.csv", WIDE_COLUMNS, rows)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(["check", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out.splitlines(), err


def test_a_good_exam(folder, capsys):
    status, lines, err = check(capsys, "exam.yaml")
    assert status == 0 and err == ""
    assert lines == [
        "exam.yaml: item q1: rules/lab-tools.rule.json, blanks q1: reads 1 blank (T(0)); scores exactly 0–10",
        "exam.yaml: item q2: rules/lane-change.rule.json, blanks q2: reads 1 blank (T(0)); scores exactly 0–10",
        ("exam.yaml: item q3: rules/shortest-path.rule.json, blanks q3_a, q3_b: reads any number of blanks ('*'); "
         "scores exactly 0–10"),
        ("exam.yaml: item q4: rules/traffic-light.rule.json, blanks q4: reads any number of blanks ('*'); "
         "scores exactly 0–10"),
        "exam.yaml: ok (0 errors, 0 warnings)",
    ]
    status, lines, _ = check(capsys, "exam.yaml", "--data", "answers.csv")
    assert status == 0 and lines[-1] == "exam.yaml: ok (0 errors, 0 warnings)"


def test_an_invalid_rule_and_a_warning(folder, capsys):
    write(folder, "rules/bad.rule.json", json.dumps({
        "atoms": {"0": {"type": "EM", "desc": "a"}},
        "combos": {"A": {"combo": "T(0).upper() == 'A'", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}))
    (folder / "exam.yaml").write_text((folder / "exam.yaml").read_text(encoding="utf-8")
                                      .replace("rules/lane-change.rule.json", "rules/bad.rule.json")
                                      .replace("blanks: [q4]", "blanks: [q4]\n    rule_note: x"), encoding="utf-8")
    write(folder, "warned.yaml", """
        items:
          - name: w1
            blanks: [a]
            rule:
              atoms: {0: {type: EM, desc: a}}
              combos:
                A: {combo: "G(0, T(0))", score: 12, mode: logic}
              comboMode: ADD
        """)
    status, lines, _ = check(capsys, "exam.yaml")
    assert status == 1
    assert lines[:3] == [
        ("exam.yaml:9: items[1] (q2).rule: rules/bad.rule.json: combos.A.combo, column 5: attribute access is not "
         "allowed"),
        "    T(0).upper() == 'A'",
        "        ^",
    ]
    assert lines[3] == ("exam.yaml:17: items[3] (q4): unknown key 'rule_note' (did you mean 'rule'? an item's keys "
                        "are name, rule, blanks, label, label2, weight)")
    assert "exam.yaml: item q2: rules/bad.rule.json, blanks q2: the rule does not compile" in lines
    assert lines[-1] == "exam.yaml: invalid (2 errors, 0 warnings)"
    status, lines, _ = check(capsys, "warned.yaml")
    assert status == 0
    assert lines[0] == ("warned.yaml:7: items[0] (w1).rule: warning: combos.A.score: score 12 is outside the 0–10 "
                        "scale")
    assert lines[-1] == "warned.yaml: ok (0 errors, 1 warning)"


def test_missing_columns_name_the_item_and_the_column(folder, capsys):
    write_csv(folder, "fewer.csv", ["学号", "q1", "q2", "q3_a", "q3_b"], [["s1", "a", "b", "c", "d"]])
    status, lines, _ = check(capsys, "exam.yaml", "--data", "fewer.csv")
    assert status == 1
    columns = "(its columns: 学号, q1, q2, q3_a, q3_b)"
    assert lines[:3] == [
        f"exam.yaml:7: items[0] (q1).label: column 'q1_mark' is not in fewer.csv {columns}",
        f"exam.yaml:16: items[3] (q4).blanks[0]: column 'q4' is not in fewer.csv {columns}",
        "exam.yaml: item q1: rules/lab-tools.rule.json, blanks q1: reads 1 blank (T(0)); scores exactly 0–10",
    ]
    assert lines[-1] == "exam.yaml: invalid (2 errors, 0 warnings)"
    write_csv(folder, "no_id.csv", WIDE_COLUMNS[1:], [["a"] * 6])
    status, lines, _ = check(capsys, "exam.yaml", "--data", "no_id.csv")
    assert status == 1 and lines[0].startswith("exam.yaml:2: id: column '学号' is not in no_id.csv")


def test_an_item_with_fewer_blanks_than_its_rule_reads(folder, capsys):
    write(folder, "short.yaml", """
        items:
          - name: q1
            rule: rules/lab-tools.rule.json
            blanks: [q1]
          - name: q2
            rule:
              atoms: {0: {type: EM, desc: a}}
              combos: {A: {combo: "G(0, T(0)) and G(0, T(2))", score: 5, mode: logic}}
              comboMode: ADD
            blanks: [q2_a, q2_b]
          - name: q3
            rule: rules/lane-change.rule.json
            blanks: [q3_a, q3_b]
        """)
    status, lines, _ = check(capsys, "short.yaml")
    assert status == 1
    assert lines[:2] == [
        ("short.yaml:10: items[1] (q2).blanks: lists 2 blanks ('q2_a', 'q2_b'), but its rule reads 3 blanks "
         "(T(0)…T(2)): list 3 columns"),
        ("short.yaml:13: items[2] (q3).blanks: lists 2 blanks ('q3_a', 'q3_b'), but its rule reads 1 blank (T(0)): "
         "column 'q3_b' would never be read; list 1 column"),
    ]
    assert lines[3] == ("short.yaml: item q2: inline rule, blanks q2_a, q2_b: reads 3 blanks (T(0)…T(2)); scores "
                        "exactly 0–5")
    assert lines[-1] == "short.yaml: invalid (2 errors, 0 warnings)"


LONG = """
    id: student
    item_column: item
    items:
      - {name: q1, rule: rules/lab-tools.rule.json, blanks: [answer], label: mark}
      - {name: q2, rule: rules/lane-change.rule.json, blanks: [answer], label: mark}
      - {name: q3, rule: rules/traffic-light.rule.json, blanks: [answer], label: mark}
    """


def test_the_long_layout_checks_the_datas_items(folder, capsys):
    write(folder, "long.yaml", LONG)
    good = [["s1", "q1", "笔", "3"], ["s1", "q2", "选择甲", "0"], ["s1", "q3", "前进", "2"],
            ["s2", "q1", "尺", "1"]]
    write_csv(folder, "long.csv", ["student", "item", "answer", "mark"], good)
    status, lines, _ = check(capsys, "long.yaml", "--data", "long.csv")
    assert status == 0 and lines[-1] == "long.yaml: ok (0 errors, 0 warnings)"
    bad = [["s1", "q1", "笔", "3"], ["s1", "q9", "x", "0"], ["s2", "q9", "y", "0"], ["s2", "Q2", "z", "0"],
           ["s3", "", "z", "0"], ["s3", "q2", "w", "0"]]
    write_csv(folder, "bad.csv", ["student", "item", "answer", "mark"], bad)
    status, lines, _ = check(capsys, "long.yaml", "--data", "bad.csv")
    assert status == 1
    assert lines[:3] == [
        ("long.yaml:2: item_column: bad.csv names items the exam does not have: 'q9' (2 rows), 'Q2' (1 row); add them "
         "to the exam, or leave their rows out"),
        "long.yaml:2: item_column: 1 row of bad.csv names no item (column 'item' is empty)",
        "long.yaml:6: items[2] (q3): has no rows in bad.csv (no row's 'item' is 'q3')",
    ]
    assert lines[-1] == "long.yaml: invalid (3 errors, 0 warnings)"
    write_csv(folder, "wide.csv", WIDE_COLUMNS, [["s1"] * 7])
    status, lines, _ = check(capsys, "long.yaml", "--data", "wide.csv")
    assert status == 1
    assert [line.split(": ")[1] for line in lines if "is not in wide.csv" in line] == [
        "id", "item_column", "items[0] (q1).blanks[0]", "items[0] (q1).label", "items[1] (q2).blanks[0]",
        "items[1] (q2).label", "items[2] (q3).blanks[0]", "items[2] (q3).label"]


def test_json_output(folder, capsys):
    status, lines, _ = check(capsys, "exam.yaml", "--json", "--data", "answers.csv")
    out = json.loads("\n".join(lines))
    assert status == 0
    assert {k: out[k] for k in ("exam", "ok", "errors", "warnings", "layout", "problems")} == {
        "exam": "exam.yaml", "ok": True, "errors": 0, "warnings": 0, "layout": "wide", "problems": []}
    assert out["items"]["q1"] == {"rule": "rules/lab-tools.rule.json", "blanks": ["q1"], "diagnostics": [],
                                  "blanks_needed": 1, "reads_any_number": False}
    assert out["items"]["q3"] == {"rule": "rules/shortest-path.rule.json", "blanks": ["q3_a", "q3_b"],
                                  "diagnostics": [], "blanks_needed": 0, "reads_any_number": True}
    assert list(out["items"]) == ["q1", "q2", "q3", "q4"]
    write_csv(folder, "fewer.csv", ["q1"], [["a"]])
    (folder / "exam.yaml").write_text((folder / "exam.yaml").read_text(encoding="utf-8").replace(
        "rules/lane-change.rule.json", "rules/missing.rule.json"), encoding="utf-8")
    status, lines, _ = check(capsys, "exam.yaml", "--json", "--data", "fewer.csv")
    out = json.loads("\n".join(lines))
    assert status == 1 and out["ok"] is False and out["errors"] == len(out["problems"]) == 7
    assert out["problems"][0] == {"where": "id", "message": "column '学号' is not in fewer.csv (its columns: q1)",
                                  "line": 2, "severity": "error"}
    assert {"where": "items[1] (q2).rule", "message": "rules/missing.rule.json: cannot read it: no such file",
            "line": 9, "severity": "error"} in out["problems"]
    assert out["items"]["q2"] == {"rule": "rules/missing.rule.json", "blanks": ["q2"], "diagnostics": [],
                                  "blanks_needed": None, "reads_any_number": None}


def test_a_json_exam(folder, capsys):
    (folder / "exam.json").write_text(json.dumps({"items": [
        {"name": "q1", "rule": "rules/lab-tools.rule.json", "blanks": ["q1"]},
        {"name": "q2", "rule": "rules/lane-change.rule.json", "blanks": ["q1"]}]}, indent=2), encoding="utf-8")
    status, lines, _ = check(capsys, "exam.json")
    assert status == 1
    assert lines[0].startswith("exam.json:14: items[1] (q2).blanks[0]: column 'q1' is also a blank of items[0] (q1)")


def test_a_rule_budget_is_named_by_its_flag(folder, capsys):
    status, lines, _ = check(capsys, "exam.yaml", "--max-rule-atoms", "2")
    assert status == 1
    assert [line for line in lines if "budget" in line] == [
        ("exam.yaml:9: items[1] (q2).rule: rules/lane-change.rule.json: atoms: rule budget exceeded: 3 atoms, more "
         "than 2 (limit --max-rule-atoms)"),
        ("exam.yaml:15: items[3] (q4).rule: rules/traffic-light.rule.json: atoms: rule budget exceeded: 3 atoms, more "
         "than 2 (limit --max-rule-atoms)")]


@pytest.mark.parametrize("args, message", [
    (["exam.yaml", "--blanks", "q1"], ("coscore: --blanks does not apply to an exam: its file names each item's "
                                       "columns (blanks:, label: in exam.yaml)")),
    (["exam.yaml", "--label", "q1_mark"], "coscore: --label does not apply to an exam"),
    (["missing.yaml"], "coscore: missing.yaml: no such file"),
    (["exam.yaml", "--data", "missing.csv"], "coscore: missing.csv"),
])
def test_usage_errors(folder, capsys, args, message):
    status, lines, err = check(capsys, *args)
    assert status == 2 and lines == [] and err.startswith(message), err


def test_garbage_is_an_invalid_exam_not_a_crash(folder, capsys):
    (folder / "garbage.yaml").write_bytes(b"\x00\xff{[: \x9c")
    status, lines, _ = check(capsys, "garbage.yaml")
    assert status == 1
    assert lines == ["garbage.yaml:1: invalid UTF-8 (byte ff); an exam file must be UTF-8 encoded",
                     "garbage.yaml: invalid (1 error, 0 warnings)"]
    (folder / "list.yaml").write_text("- a\n- b\n", encoding="utf-8")
    status, lines, _ = check(capsys, "list.yaml")
    assert status == 1 and lines[0] == "list.yaml:1: an exam is a mapping with items, not a list (see docs/exams.md)"


def test_check_rule_is_unchanged(folder, capsys):
    status, lines, _ = check(capsys, "rules/lab-tools.rule.json")
    assert status == 0
    assert lines[-2:] == ["rules/lab-tools.rule.json: scores exactly 0–10; needs 1 blank",
                          "rules/lab-tools.rule.json: ok (0 errors, 0 warnings)"]
    status, lines, _ = check(capsys, "rules/lab-tools.rule.json", "--json")
    assert status == 0 and json.loads("\n".join(lines))["rule"] == "rules/lab-tools.rule.json"
