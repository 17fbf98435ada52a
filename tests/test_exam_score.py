"""``coscore score EXAM``: every item of an exam in one pass over the data. Each item's
scores equal ``coscore score RULE DATA --blanks …`` of that item, wide and long, in CSV,
Parquet and .xlsx, on both kernel implementations; totals are the weighted sums; nothing
is written when a column is missing or a row names no item."""
from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

import coscore
from conftest import floats, read_columns
from coscore.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"
TASKS = ("lab-tools", "lane-change", "shortest-path", "traffic-light")
#: an item of two blanks, and one whose combo fails on some answers (division by zero)
TWO_BLANKS = {"atoms": {"0": {"type": "SM", "desc": "红灯,绿灯"}, "1": {"type": "OP", "desc": "0.5:左转前进"}},
              "combos": {"A": {"combo": "M(0,T(0))", "score": 1, "mode": "value"},
                         "B": {"combo": "G(1,T(1))", "score": 2.5, "mode": "logic"}},
              "comboMode": "ADD"}
FAILING = {"atoms": {"0": {"type": "SM", "desc": "前进"}},
           "combos": {"A": {"combo": "3 / M(0,T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"}


def _answers(n: int, seed: int = 1) -> dict[str, list[str]]:
    """For each demo task, ``n`` of its answers (drawn with repetition), with some empty."""
    rnd = random.Random(seed)
    out = {}
    for task in TASKS:
        with open(DEMO / f"{task}.csv", encoding="utf-8") as f:
            texts = [row["text"] for row in csv.DictReader(f)]
        out[task] = [rnd.choice(texts) if rnd.random() > 0.05 else "" for _ in range(n)]
    return out


def _write(table: pa.Table, path: Path) -> None:
    if path.suffix == ".csv":
        pa_csv.write_csv(table, path)
    elif path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        import xlsxwriter

        book = xlsxwriter.Workbook(str(path))
        sheet = book.add_worksheet("第5题")
        for j, name in enumerate(table.column_names):
            sheet.write_string(0, j, name)
            for i, value in enumerate(table.column(name).to_pylist()):
                if value not in (None, ""):
                    sheet.write_string(i + 1, j, str(value))
        book.close()


def _same(a: list, b: list) -> None:
    np.testing.assert_array_equal(floats(a), floats(b))


@pytest.fixture(scope="module")
def exam_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("exam")
    rules = folder / "rules"
    rules.mkdir()
    for task in TASKS:
        (rules / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    (rules / "two.rule.json").write_text(json.dumps(TWO_BLANKS, ensure_ascii=False), encoding="utf-8")
    n = 500
    answers = _answers(n)
    rnd = random.Random(7)
    wide = {"学号": [f"S{i:05d}" for i in range(n)], "班级": [f"{i % 4 + 1}班" for i in range(n)]}
    for k, task in enumerate(TASKS):
        wide[f"q{k + 1}"] = answers[task]
        wide[f"q{k + 1}_mark"] = [str(rnd.randrange(0, 11)) for _ in range(n)]
    wide["q5_a"] = [rnd.choice(["红灯", "绿灯", "", "黄灯 红灯"]) for _ in range(n)]
    wide["q5_b"] = [rnd.choice(["左转前进", "前进", "", "右转"]) for _ in range(n)]
    wide["q6"] = answers["traffic-light"]
    table = pa.table(wide)
    for suffix in (".csv", ".parquet"):
        _write(table, folder / f"wide{suffix}")
    _write(table, folder / "wide.xlsx")
    items = [{"name": f"q{k + 1}", "rule": f"rules/{task}.rule.json", "blanks": [f"q{k + 1}"],
              "label": f"q{k + 1}_mark", "weight": k + 1} for k, task in enumerate(TASKS)]
    items.append({"name": "q5", "rule": "rules/two.rule.json", "blanks": ["q5_a", "q5_b"], "weight": 0.5})
    items.append({"name": "q6", "rule": FAILING, "blanks": ["q6"]})
    (folder / "wide.json").write_text(json.dumps({"name": "t", "id": "学号", "items": items}, ensure_ascii=False),
                                      encoding="utf-8")
    long = {"学号": [], "item": [], "answer": [], "mark": []}
    order = [(i, k) for i in range(n // 5) for k in range(len(TASKS))]
    rnd.shuffle(order)   # rows in any order: items and students interleaved
    for i, k in order:
        long["学号"].append(f"S{i:05d}")
        long["item"].append(f"q{k + 1}")
        long["answer"].append(answers[TASKS[k]][i])
        long["mark"].append(str(rnd.randrange(0, 11)))
    long_table = pa.table(long)
    for suffix in (".csv", ".parquet"):
        _write(long_table, folder / f"long{suffix}")
    _write(long_table, folder / "long.xlsx")
    long_items = [{"name": f"q{k + 1}", "rule": f"rules/{task}.rule.json", "blanks": ["answer"], "label": "mark",
                   "weight": k + 1} for k, task in enumerate(TASKS)]
    (folder / "long.yaml").write_text(
        "name: long\nid: 学号\nitem_column: item\nitems:\n" + "".join(
            f"  - name: {it['name']}\n    rule: {it['rule']}\n    blanks: [answer]\n    label: mark\n"
            f"    weight: {it['weight']}\n" for it in long_items), encoding="utf-8")
    return folder


def _single(folder: Path, rule: str, data: Path, blanks: list[str], out: Path) -> dict[str, list]:
    if not rule.endswith(".json"):
        raise AssertionError(rule)
    assert main(["score", str(folder / rule), str(data), "--blanks", ",".join(blanks), "-o", str(out),
                 "--no-progress"]) == 0
    return read_columns(out)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx"])
def test_every_item_of_a_wide_exam_scores_as_its_rule_alone(exam_folder, tmp_path, suffix):
    data = exam_folder / f"wide{suffix}"
    out = tmp_path / f"out{suffix}"
    assert main(["score", str(exam_folder / "wide.json"), str(data), "-o", str(out), "--no-progress"]) == 0
    got = read_columns(out)
    exam = json.loads((exam_folder / "wide.json").read_text(encoding="utf-8"))
    assert list(got)[-1] == "total_score"
    assert [c for c in got if c.endswith(("_score", "_error"))] == [
        *(f"q{k}_{what}" for k in range(1, 7) for what in ("score", "error")), "total_score"]
    total = np.zeros(len(got["学号"]))
    for item in exam["items"]:
        rule = item["rule"] if isinstance(item["rule"], str) else "inline.rule.json"
        if not isinstance(item["rule"], str):
            (exam_folder / rule).write_text(json.dumps(item["rule"]), encoding="utf-8")
        alone = _single(exam_folder, rule, data, item["blanks"], tmp_path / f"{item['name']}{suffix}")
        _same(got[f"{item['name']}_score"], alone["coscore_score"])
        assert [e or None for e in got[f"{item['name']}_error"]] == [e or None for e in alone["coscore_error"]]
        total += item.get("weight", 1) * floats(alone["coscore_score"])
    np.testing.assert_array_equal(floats(got["total_score"]), total)
    assert np.isnan(total).any() and not np.isnan(total).all()   # q6 fails on some answers: no total there


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx"])
def test_every_row_of_a_long_exam_scores_as_its_items_rule(exam_folder, tmp_path, suffix):
    data = exam_folder / f"long{suffix}"
    out = tmp_path / f"out{suffix}"
    totals = tmp_path / "totals.csv"
    assert main(["score", str(exam_folder / "long.yaml"), str(data), "-o", str(out), "--totals", str(totals),
                 "--no-progress"]) == 0
    got = read_columns(out)
    rows = read_columns(data)
    assert got["学号"] == rows["学号"] and got["item"] == rows["item"]   # nothing lost or reordered
    items = np.array(rows["item"])
    expected = np.full(len(items), np.nan)
    per_student: dict[str, dict[str, float]] = {}
    for k, task in enumerate(TASKS):
        name = f"q{k + 1}"
        taken = np.flatnonzero(items == name)
        part = pa.table({"answer": [rows["answer"][i] or None for i in taken]})
        pq.write_table(part, tmp_path / f"{name}.parquet")
        alone = _single(exam_folder, f"rules/{task}.rule.json", tmp_path / f"{name}.parquet", ["answer"],
                        tmp_path / f"{name}.out.parquet")
        expected[taken] = floats(alone["coscore_score"])
        for i, score in zip(taken.tolist(), floats(alone["coscore_score"]).tolist()):
            per_student.setdefault(rows["学号"][i], {})[name] = score
    np.testing.assert_array_equal(floats(got["coscore_score"]), expected)
    written = read_columns(totals)
    assert written["学号"] == list(dict.fromkeys(rows["学号"]))
    for i, student in enumerate(written["学号"]):
        scores = per_student[student]
        assert float(written["total_score"][i]) == sum((k + 1) * scores[f"q{k + 1}"] for k in range(len(TASKS)))
        for name, score in scores.items():
            assert float(written[f"{name}_score"][i]) == score


def test_the_python_kernels_score_an_exam_as_the_compiled_ones(exam_folder, tmp_path):
    outputs = {}
    for implementation in ("python", "cython"):
        out = tmp_path / f"{implementation}.csv"
        env = {**os.environ, "COSCORE_IMPLEMENTATION": implementation}
        done = subprocess.run([sys.executable, "-m", "coscore", "score", str(exam_folder / "wide.json"),
                               str(exam_folder / "wide.parquet"), "-o", str(out), "--combos", "--no-progress"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs[implementation] = out.read_bytes()
    assert outputs["python"] == outputs["cython"]


def test_threads_score_items_and_chunks_as_one_thread(exam_folder, tmp_path):
    runs = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out{jobs}.csv"
        assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.parquet"), "-o", str(out),
                     "--jobs", jobs, "--chunk-size", "97", "--combos", "--no-progress"]) == 0
        runs.append(out.read_bytes())
    assert runs[0] == runs[1] == runs[2]


def test_combos_and_decimals(exam_folder, tmp_path):
    out = tmp_path / "out.csv"
    assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.csv"), "-o", str(out),
                 "--combos", "--decimals", "1", "--no-progress"]) == 0
    got = read_columns(out)
    assert "q5_combo_A" in got and "q5_combo_B" in got and "q1_combo_A" in got
    exam = json.loads((exam_folder / "wide.json").read_text(encoding="utf-8"))
    weights = [item.get("weight", 1) for item in exam["items"]]
    items = np.array([floats(got[f"q{k}_score"]) for k in range(1, 7)])
    np.testing.assert_array_equal(items, np.round(items, 1))
    np.testing.assert_array_equal(floats(got["total_score"]), np.round(np.array(weights) @ items, 1))


def test_a_missing_column_writes_nothing(exam_folder, tmp_path, capsys):
    exam = json.loads((exam_folder / "wide.json").read_text(encoding="utf-8"))
    exam["items"][1]["blanks"] = ["q2_typo"]
    path = exam_folder / "typo.json"
    path.write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out.csv"
    assert main(["score", str(path), str(exam_folder / "wide.csv"), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "item q2" in err and "q2_typo" in err and "Traceback" not in err
    assert not out.exists()


def test_a_row_naming_no_item_writes_nothing(exam_folder, tmp_path, capsys):
    rows = read_columns(exam_folder / "long.csv")
    rows["item"][30] = "q9"
    data = tmp_path / "long.csv"
    pa_csv.write_csv(pa.table(rows), data)
    out = tmp_path / "out.csv"
    assert main(["score", str(exam_folder / "long.yaml"), str(data), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "line 32" in err and "'q9'" in err and "q1, q2, q3, q4" in err
    assert not out.exists()


def test_a_second_row_for_one_item_is_refused_with_totals(exam_folder, tmp_path, capsys):
    rows = read_columns(exam_folder / "long.csv")
    for name in rows:
        rows[name].append(rows[name][5])
    data = tmp_path / "long.csv"
    pa_csv.write_csv(pa.table(rows), data)
    out, totals = tmp_path / "out.csv", tmp_path / "totals.csv"
    assert main(["score", str(exam_folder / "long.yaml"), str(data), "-o", str(out), "--totals", str(totals),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "second row for item" in err and rows["学号"][5] in err
    assert not out.exists() and not totals.exists()
    # without --totals, each row is scored on its own
    assert main(["score", str(exam_folder / "long.yaml"), str(data), "-o", str(out), "--no-progress"]) == 0


def test_totals_need_the_long_layout_and_an_id(exam_folder, tmp_path, capsys):
    out, totals = tmp_path / "out.csv", tmp_path / "totals.csv"
    assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.csv"), "-o", str(out),
                 "--totals", str(totals), "--no-progress"]) == 2
    assert "long layout" in capsys.readouterr().err
    text = (exam_folder / "long.yaml").read_text(encoding="utf-8").replace("id: 学号\n", "")
    (tmp_path / "noid.yaml").write_text(text, encoding="utf-8")
    for rule in (exam_folder / "rules").iterdir():
        (tmp_path / "rules").mkdir(exist_ok=True)
        (tmp_path / "rules" / rule.name).write_bytes(rule.read_bytes())
    assert main(["score", str(tmp_path / "noid.yaml"), str(exam_folder / "long.csv"), "-o", str(out),
                 "--totals", str(totals), "--no-progress"]) == 2
    assert "id" in capsys.readouterr().err and not out.exists()


def test_a_scored_file_is_refused(exam_folder, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.csv"), "-o", str(out),
                 "--no-progress"]) == 0
    again = tmp_path / "again.csv"
    assert main(["score", str(exam_folder / "wide.json"), str(out), "-o", str(again), "--no-progress"]) == 2
    assert "scored file" in capsys.readouterr().err and not again.exists()


def test_rule_options_are_refused_for_an_exam(exam_folder, tmp_path, capsys):
    for extra in (["--blanks", "q1"], ["--label", "q1_mark"]):
        assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.csv"), *extra,
                     "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
        assert "does not apply to an exam" in capsys.readouterr().err
    assert main(["score", str(DEMO / "lane-change.rule.json"), str(DEMO / "lane-change.csv"), "--combos",
                 "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
    assert "--combos is for an exam" in capsys.readouterr().err


def test_a_rule_is_an_exam_of_one_item(exam_folder, tmp_path):
    """The library's table scoring of a one-item exam gives the rule's own scores."""
    exam = coscore.load_exam({"items": [{"name": "q2", "rule": str(exam_folder / "rules" / "lane-change.rule.json"),
                                         "blanks": ["q2"]}]})
    table = pq.read_table(exam_folder / "wide.parquet")
    scored = exam.score_table(table)
    rule = coscore.compile(exam_folder / "rules" / "lane-change.rule.json")
    np.testing.assert_array_equal(scored.column("q2_score").to_numpy(zero_copy_only=False),
                                  rule.score_many(table.select(["q2"])).scores)
    assert scored.column_names[: table.num_columns] == table.column_names


@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
def test_score_table_gives_the_commands_columns_and_values(exam_folder, tmp_path, kind):
    out = tmp_path / "out.parquet"
    assert main(["score", str(exam_folder / "wide.json"), str(exam_folder / "wide.parquet"), "-o", str(out),
                 "--combos", "--no-progress"]) == 0
    table = pq.read_table(exam_folder / "wide.parquet")
    if kind == "pandas":
        table = table.to_pandas()
    elif kind == "polars":
        polars = pytest.importorskip("polars")
        table = polars.from_arrow(table)
    exam = coscore.load_exam(exam_folder / "wide.json")
    scored = exam.score_table(table, combos=True)
    expected = pq.read_table(out)
    assert scored.column_names == expected.column_names
    for name in expected.column_names:
        if name.endswith(("_score", "_error")) or "_combo_" in name:
            assert scored.column(name).to_pylist() == expected.column(name).to_pylist(), name
