"""What the tests of ``coscore workbench`` share: a teacher's sheet, an exam and its data,
and the workbench served in a subprocess."""
from __future__ import annotations

import json
from pathlib import Path

from support import LiveServer, coscore_env

ROOT = Path(__file__).resolve().parents[1]

#: The rule of the teacher's sheet (tests/test_teacher_sheet.py and the workbench's tests): two blanks.
RULE = {"atoms": {"0": {"type": "SM", "desc": "阻尼器"}, "1": {"type": "SM", "desc": "大楼,模型"}},
        "combos": {"A": {"combo": "M(0,T(0))", "score": 4, "mode": "value"},
                   "B": {"combo": "G(1,T(1))", "score": 6, "mode": "logic"}},
        "comboMode": "ADD"}
RULE_TEXT = json.dumps(RULE, ensure_ascii=False, indent=2)


def teacher_sheet(path: Path, rows: int = 300, *, merged_title: bool = False, another_sheet: bool = False) -> Path:
    """A teacher's .xlsx: a title row (merged across the columns when ``merged_title``), 学号,
    班级, two blanks, two raters (教师A with 缺考); with ``another_sheet``, a second sheet after it."""
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    sheet = book.add_worksheet("第5题")
    if merged_title:
        sheet.merge_range(0, 0, 0, 5, "2026 期中 第5题")
    else:
        sheet.write_string(0, 0, "2026 期中 第5题")
    for j, name in enumerate(["学号", "班级", "第1空", "第2空", "教师A", "教师B"]):
        sheet.write_string(1, j, name)
    for i in range(rows):
        row = i + 2
        sheet.write_string(row, 0, f"S{i:06d}")
        sheet.write_string(row, 1, f"{i % 4 + 1}班")
        sheet.write_string(row, 2, ["阻尼器", "积木", "阻尼器和大楼"][i % 3])
        sheet.write_string(row, 3, ["大楼模型", "纸", ""][i % 3])
        if i % 25 == 0:
            sheet.write_string(row, 4, "缺考")
        else:
            sheet.write_number(row, 4, [10, 4, 4][i % 3] if i % 7 else 6)
        sheet.write_number(row, 5, [10, 4, 0][i % 3])
    if another_sheet:
        book.add_worksheet("第6题").write_string(0, 0, "另一题")
    book.close()
    return path


def exam_files(folder: Path) -> tuple[Path, Path]:
    """An exam of three items (rules inline) and a CSV of its columns: q2 agrees worst."""
    items = []
    for name, word, marks in (("q1", "光合作用", "m1"), ("q2", "蒸发", "m2"), ("q3", "重力", "m3")):
        rule = {"atoms": {"0": {"type": "SM", "desc": word}},
                "combos": {"A": {"combo": "G(0,T(0))", "score": 10, "mode": "logic"}}, "comboMode": "ADD"}
        items.append({"name": name, "rule": rule, "blanks": [f"{name}_a"], "label": marks})
    exam = folder / "exam.yaml"
    exam.write_text(json.dumps({"name": "期中", "id": "学号", "items": items}, ensure_ascii=False), encoding="utf-8")
    lines = ["学号,q1_a,m1,q2_a,m2,q3_a,m3"]
    for i in range(60):
        hit = i % 2 == 0
        lines.append(",".join([f"S{i:04d}", "光合作用" if hit else "呼吸", "10" if hit else "0",
                               "蒸发" if hit else "沸腾", "0" if i % 3 else "10",
                               "重力" if i % 3 else "浮力", "10" if i % 3 else ("0" if i % 5 else "10")]))
    data = folder / "exam.csv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return exam, data


class LiveWorkbench(LiveServer):
    """``coscore workbench ARGS`` in a subprocess (working folder ``cwd``, its own data folder)."""

    def __init__(self, cwd: Path, *args: str):
        super().__init__("workbench", *args, cwd=cwd, env=coscore_env(XDG_DATA_HOME=str(cwd / "data-home")),
                         timeout=90)
