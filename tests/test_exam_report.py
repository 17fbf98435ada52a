"""Reports, comparisons and one item at a time for an exam (issue #34): ``report SCORED
--exam EXAM`` gives for each item exactly what ``report`` gives for that item alone, an
overview worst first and the students' totals; ``compare DATA --exam A B`` gives per item
what ``compare`` gives for the two rules; ``explain``/``tune``/``suggest EXAM DATA --item``
give what they give for the item's rule, blanks and marks. Wide and long layouts."""
from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest

import coscore
import coscore.labelled
from conftest import floats, read_columns
from coscore.cli import main
from coscore.report import agreement

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"
TASKS = ("lab-tools", "lane-change", "traffic-light", "shortest-path")
WEIGHTS = (1, 2, 1, 0.5)
#: an item of two blanks, without marks
TWO_BLANKS = {"atoms": {"0": {"type": "SM", "desc": "红灯,绿灯"}, "1": {"type": "OP", "desc": "0.5:左转前进"}},
              "combos": {"A": {"combo": "M(0,T(0))", "score": 1, "mode": "value"},
                         "B": {"combo": "G(1,T(1))", "score": 2.5, "mode": "logic"}},
              "comboMode": "ADD"}
N = 200


def _marked(task: str) -> list[tuple[str, str]]:
    with open(DEMO / f"{task}.csv", encoding="utf-8") as f:
        return [(row["text"], row["score"]) for row in csv.DictReader(f)]


def _run(capsys, *argv: str) -> dict | list:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _fails(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Rules, a wide and a long exam (and a second version of each with a fixed rule for
    item q3), their data and the scored files."""
    folder = tmp_path_factory.mktemp("exam")
    rules = folder / "rules"
    rules.mkdir()
    for task in TASKS[:3]:
        (rules / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    fixed = (DEMO / "traffic-light.rule.json").read_text(encoding="utf-8").replace('"score": 2,', '"score": 1,')
    (rules / "fixed.rule.json").write_text(fixed, encoding="utf-8")
    inline = json.loads((DEMO / "shortest-path.rule.json").read_text(encoding="utf-8"))
    rnd = random.Random(5)
    pools = {task: _marked(task) for task in TASKS}
    wide: dict[str, list] = {"id": [f"S{i:03d}" for i in range(N)], "class": [f"{i % 3 + 1}班" for i in range(N)]}
    for k, task in enumerate(TASKS):
        picked = [rnd.choice(pools[task]) for _ in range(N)]
        wide[f"q{k + 1}"] = [text for text, _ in picked]
        wide[f"q{k + 1}_mark"] = [mark for _, mark in picked]
    wide["q1_mark"][:5] = [""] * 5   # five students without a mark for q1: no total
    wide["q2_mark2"] = [str(min(10, max(0, int(m) + rnd.choice((-1, 0, 0, 1))))) if rnd.random() < 0.6 else ""
                        for m in wide["q2_mark"]]
    wide["q5_a"] = [rnd.choice(["红灯", "绿灯", "", "黄灯 红灯"]) for _ in range(N)]
    wide["q5_b"] = [rnd.choice(["左转前进", "前进", "", "右转"]) for _ in range(N)]
    pa_csv.write_csv(pa.table(wide), folder / "wide.csv")

    def items(q3_rule: str) -> list[dict]:
        out = [{"name": f"q{k + 1}", "rule": f"rules/{task}.rule.json", "blanks": [f"q{k + 1}"],
                "label": f"q{k + 1}_mark", "weight": WEIGHTS[k]} for k, task in enumerate(TASKS[:3])]
        out[1]["label2"] = "q2_mark2"
        out[2]["rule"] = q3_rule
        out.append({"name": "q4", "rule": inline, "blanks": ["q4"], "label": "q4_mark", "weight": WEIGHTS[3]})
        out.append({"name": "q5", "rule": TWO_BLANKS, "blanks": ["q5_a", "q5_b"]})
        return out

    for name, q3 in (("wide.json", "rules/traffic-light.rule.json"), ("wide-v2.json", "rules/fixed.rule.json")):
        (folder / name).write_text(json.dumps({"name": "wide", "id": "id", "items": items(q3)}, ensure_ascii=False),
                                   encoding="utf-8")

    long: dict[str, list] = {"id": [], "class": [], "item": [], "answer": [], "mark": []}
    order = [(i, k) for i in range(N // 2) for k in range(3)]
    rnd.shuffle(order)
    order.remove((3, 1))   # student S003 has no row for q2: no total
    for i, k in order:
        text, mark = rnd.choice(pools[TASKS[k]])
        for column, value in (("id", f"S{i:03d}"), ("class", f"{i % 2 + 1}班"), ("item", f"q{k + 1}"),
                              ("answer", text), ("mark", mark)):
            long[column].append(value)
    pa_csv.write_csv(pa.table(long), folder / "long.csv")
    for name, q3 in (("long.yaml", "rules/traffic-light.rule.json"), ("long-v2.yaml", "rules/fixed.rule.json")):
        lines = ["name: long", "id: id", "item_column: item", "items:"]
        for k, task in enumerate(TASKS[:3]):
            rule = q3 if k == 2 else f"rules/{task}.rule.json"
            lines.append(f"  - {{name: q{k + 1}, rule: {rule}, blanks: [answer], label: mark, weight: {WEIGHTS[k]}}}")
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for exam, data in (("wide.json", "wide.csv"), ("long.yaml", "long.csv")):
        out = folder / data.replace(".csv", ".scored.csv")
        assert main(["score", str(folder / exam), str(folder / data), "-o", str(out), "--combos",
                     "--no-progress"]) == 0
    return folder


def _rule_file(folder: Path, exam: dict, name: str) -> Path:
    """The rule file of item ``name`` (an inline rule written to a file)."""
    item = next(it for it in exam["items"] if it["name"] == name)
    if isinstance(item["rule"], str):
        return folder / item["rule"]
    path = folder / f"inline-{name}.rule.json"
    path.write_text(json.dumps(item["rule"], ensure_ascii=False), encoding="utf-8")
    return path


# -- report --exam ------------------------------------------------------------------------

def test_each_item_of_a_wide_exam_reports_as_report_alone(folder, capsys):
    scored = str(folder / "wide.scored.csv")
    got = _run(capsys, "report", scored, "--exam", str(folder / "wide.json"), "--json", "--by", "class", "--top", "4")
    exam = json.loads((folder / "wide.json").read_text(encoding="utf-8"))
    assert list(got["items"]) == ["q1", "q2", "q3", "q4"]   # q5 has no marks: no report
    for item in exam["items"][:4]:
        name = item["name"]
        argv = ["report", scored, "--json", "--label", item["label"], "--pred", f"{name}_score",
                "--rule", str(_rule_file(folder, exam, name)), "--blanks", ",".join(item["blanks"]),
                "--by", "class", "--top", "4"]
        if "label2" in item:
            argv += ["--label2", item["label2"]]
        alone = _run(capsys, *argv)
        if name == "q4":   # an inline rule: named by the exam file, whose hash it has
            assert got["items"][name]["rule"] == "wide.json (the inline rule of q4)"
            assert got["items"][name]["rule_sha256"] == coscore.labelled.file_hash(folder / "wide.json")
            alone["rule"], alone["rule_sha256"] = got["items"][name]["rule"], got["items"][name]["rule_sha256"]
        assert got["items"][name] == alone, name
    assert got["items"]["q2"]["consistency"] is not None and got["items"]["q3"]["disagreements"][0]["explanation"]


def test_each_item_of_a_long_exam_reports_as_report_on_its_rows(folder, tmp_path, capsys):
    scored = folder / "long.scored.csv"
    got = _run(capsys, "report", str(scored), "--exam", str(folder / "long.yaml"), "--json", "--by", "class")
    rows = read_columns(scored)
    items = np.array(rows["item"])
    for k, task in enumerate(TASKS[:3]):
        name = f"q{k + 1}"
        taken = np.flatnonzero(items == name)
        part = tmp_path / f"{name}.csv"
        pa_csv.write_csv(pa.table({c: [rows[c][i] for i in taken] for c in rows}), part)
        alone = _run(capsys, "report", str(part), "--json", "--label", "mark", "--rule",
                     str(folder / "rules" / f"{task}.rule.json"), "--blanks", "answer", "--by", "class")
        mine = got["items"][name]
        # the same report, but its rows are numbered as in SCORED (the row of the item's k-th row)
        assert [d["row"] for d in mine["disagreements"]] == [int(taken[d["row"] - 1]) + 1
                                                             for d in alone["disagreements"]]
        for d in alone["disagreements"]:
            d["row"] = int(taken[d["row"] - 1]) + 1
        assert mine["data"] == str(scored)
        alone["data"] = mine["data"]
        assert mine == alone, name
        assert mine["n_rows"] == taken.size


def test_the_overview_is_worst_first_and_lists_the_items_without_marks(folder, capsys):
    got = _run(capsys, "report", str(folder / "wide.scored.csv"), "--exam", str(folder / "wide.json"), "--json")
    overview = got["overview"]
    assert [line["item"] for line in overview][-1] == "q5" and overview[-1]["marked"] is False
    marked = overview[:-1]
    qwks = [line["qwk"]["value"] for line in marked]
    assert qwks == sorted(qwks) and len(marked) == 4
    for line in marked:
        report = got["items"][line["item"]]
        assert line["qwk"]["value"] == report["qwk"] and line["n"] == report["n"]
        assert line["exact_agreement"] == report["exact_agreement"] and line["smd"] == report["smd"]
        low, high = line["qwk"]["ci"]
        assert low <= line["qwk"]["value"] <= high
        assert ("QWK < 0.70" in line["flags"]) == (not report["qwk_ok"])
    q2 = next(line for line in marked if line["item"] == "q2")
    assert q2["prmse"] == got["items"]["q2"]["consistency"]["true_score"]["prmse"] is not None
    assert all(line["prmse"] is None for line in marked if line["item"] != "q2")
    assert got["exam"]["layout"] == "wide" and got["exam"]["items"] == ["q1", "q2", "q3", "q4", "q5"]


def test_the_text_starts_with_the_overview_and_the_page_has_every_item(folder, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    page = tmp_path / "exam.html"
    assert main(["report", str(folder / "wide.scored.csv"), "--exam", str(folder / "wide.json"),
                 "--html", str(page)]) == 0
    text = capsys.readouterr().out
    head = text.split("\n\n")[1].splitlines()
    assert head[0].startswith("overview, worst first") and head[1].split()[:2] == ["item", "marks"]
    assert any(line.split()[:2] == ["q5", "—"] and "no marks" in line for line in head)
    assert head[-1].split()[0] == "total"
    positions = [text.index(f"══ item {name}:") for name in ("q1", "q2", "q3", "q4")]
    assert positions == sorted(positions) and text.index("══ total ══") > positions[-1]
    assert "══ item q5" not in text
    html = page.read_text(encoding="utf-8")
    for name in ("q1", "q2", "q3", "q4"):
        assert f"Item {name}:" in html
    assert html.count("<h1>") == 1 and 'id="total"' in html and html.count("<img") >= 10


def test_the_wide_total_is_total_score_against_the_weighted_marks(folder, capsys):
    got = _run(capsys, "report", str(folder / "wide.scored.csv"), "--exam", str(folder / "wide.json"), "--json")
    total = got["total"]
    rows = read_columns(folder / "wide.scored.csv")
    divisor = sum(WEIGHTS)
    marks = sum(w * floats(rows[f"q{k + 1}_mark"]) for k, w in enumerate(WEIGHTS))
    # q5 has no marks: the total is over q1–q4, Σ weight × score (total_score counts q5 too)
    scores = sum(w * floats(rows[f"q{k + 1}_score"]) for k, w in enumerate(WEIGHTS))
    expected = agreement(marks / divisor, scores / divisor)
    assert total["items"] == ["q1", "q2", "q3", "q4"] and total["without_marks"] == ["q5"]
    assert total["divisor"] == divisor and total["students"] == N
    assert total["n"] == expected.n == N - 5 and total["n_without_label"] == 5
    assert total["qwk"] == pytest.approx(expected.qwk) and total["rmse"] == pytest.approx(expected.rmse)
    assert total["mean_total_mark"] == pytest.approx(np.nanmean(marks))
    assert total["pred"] == f"total score ÷ {divisor:g}" and total["label"] == f"total mark ÷ {divisor:g}"
    low, high = total["qwk_ci"]
    assert low <= total["qwk"] <= high and "total" not in [line["item"] for line in got["overview"]]
    # each item's mark and score are shown with the disagreement of a student's total
    first = total["disagreements"][0]
    assert first["answer"][0].startswith("q1: mark ") and len(first["answer"]) == 4


def test_total_score_is_the_total_when_every_item_has_marks(folder, tmp_path, capsys):
    exam = json.loads((folder / "wide.json").read_text(encoding="utf-8"))
    exam["items"] = exam["items"][:4]
    path = folder / "four.json"
    path.write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    scored = tmp_path / "four.csv"
    assert main(["score", str(path), str(folder / "wide.csv"), "-o", str(scored), "--no-progress"]) == 0
    got = _run(capsys, "report", str(scored), "--exam", str(path), "--json")
    rows = read_columns(scored)
    divisor = sum(WEIGHTS)
    marks = sum(w * floats(rows[f"q{k + 1}_mark"]) for k, w in enumerate(WEIGHTS))
    expected = agreement(marks / divisor, floats(rows["total_score"]) / divisor)
    assert got["total"]["pred"] == f"total_score ÷ {divisor:g}" and got["total"]["without_marks"] == []
    assert got["total"]["qwk"] == pytest.approx(expected.qwk) and got["total"]["n"] == expected.n


def test_the_long_total_gathers_each_students_rows(folder, capsys):
    got = _run(capsys, "report", str(folder / "long.scored.csv"), "--exam", str(folder / "long.yaml"), "--json",
               "--by", "class")
    rows = read_columns(folder / "long.scored.csv")
    students: dict[str, dict[str, tuple[float, float]]] = {}
    for student, item, mark, score in zip(rows["id"], rows["item"], rows["mark"], rows["coscore_score"]):
        students.setdefault(student, {})[item] = (float(mark), float(score))
    divisor = sum(WEIGHTS[:3])
    complete = [s for s in students.values() if len(s) == 3]
    marks = [sum(WEIGHTS[k] * s[f"q{k + 1}"][0] for k in range(3)) / divisor for s in complete]
    scores = [sum(WEIGHTS[k] * s[f"q{k + 1}"][1] for k in range(3)) / divisor for s in complete]
    total = got["total"]
    assert total["students"] == N // 2 and total["incomplete"] == 1 and total["n"] == len(complete) == N // 2 - 1
    assert total["qwk"] == pytest.approx(agreement(marks, scores).qwk)
    assert total["by"] == "class" and {g["value"] for g in total["groups"]} == {"1班", "2班"}
    ids = [d["id"] for d in total["disagreements"]]
    assert all(i.startswith("S") for i in ids) and len(set(ids)) == len(ids)
    # the row of a student is their first row in SCORED
    assert all(rows["id"][d["row"] - 1] == d["id"] for d in total["disagreements"])


def test_the_scored_file_is_read_once(folder, monkeypatch, capsys):
    opened = []
    real = coscore.labelled.open_reader

    def counting(*args, **kwargs):
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(coscore.labelled, "open_reader", counting)
    _run(capsys, "report", str(folder / "wide.scored.csv"), "--exam", str(folder / "wide.json"), "--json")
    assert opened == [str(folder / "wide.scored.csv")]


def test_report_exam_refusals(folder, tmp_path, capsys):
    scored, exam = str(folder / "wide.scored.csv"), str(folder / "wide.json")
    for extra in (["--label", "q1_mark"], ["--pred", "q1_score"], ["--rule", exam], ["--blanks", "q1"],
                  ["--label2", "q2_mark2"]):
        assert "does not apply to an exam" in _fails(capsys, "report", scored, "--exam", exam, *extra)
    # without --exam, --label is required as before (argparse's own message)
    assert "the following arguments are required: --label" in _fails(capsys, "report", scored)
    # a file not scored by the exam: the missing score column is named
    err = _fails(capsys, "report", str(folder / "wide.csv"), "--exam", exam)
    assert "q1_score" in err and "coscore score EXAM" in err
    # the long layout without an id has no total: refused, saying what to give
    text = (folder / "long.yaml").read_text(encoding="utf-8").replace("id: id\n", "")
    (folder / "noid.yaml").write_text(text, encoding="utf-8")
    assert "'id:'" in _fails(capsys, "report", str(folder / "long.scored.csv"), "--exam", str(folder / "noid.yaml"))
    assert "missing.yaml" in _fails(capsys, "report", scored, "--exam", str(folder / "missing.yaml"))
    assert "--html names an input" in _fails(capsys, "report", scored, "--exam", exam, "--html", exam)


# -- compare --exam -----------------------------------------------------------------------

def _renamed(value, names: dict[str, str]):
    """``value`` with every key and string in ``names`` renamed."""
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_compare_exams_per_item_as_compare_of_the_two_rules(folder, tmp_path, capsys, layout):
    a, b = (str(folder / f"{layout}.json"), str(folder / f"{layout}-v2.json")) if layout == "wide" else \
        (str(folder / "long.yaml"), str(folder / "long-v2.yaml"))
    data = folder / f"{layout}.csv"
    got = _run(capsys, "compare", str(data), "--exam", a, b, "--json", "--resamples", "200", "--top", "3")
    shown = [Path(a).name, Path(b).name]
    assert got["exams"]["a"]["shown"] == shown[0] and got["exams"]["b"]["shown"] == shown[1]
    rows = read_columns(data)
    exam_a = json.loads(Path(a).read_text(encoding="utf-8")) if layout == "wide" else None
    for k, task in enumerate(TASKS[:3]):
        name = f"q{k + 1}"
        rule_a = folder / "rules" / f"{task}.rule.json"
        rule_b = folder / "rules" / ("fixed.rule.json" if name == "q3" else f"{task}.rule.json")
        if layout == "wide":
            source, argv = data, ["--label", f"{name}_mark", "--blanks", name]
            if name == "q2":
                argv += ["--label2", "q2_mark2"]
        else:
            taken = np.flatnonzero(np.array(rows["item"]) == name)
            source = tmp_path / f"{name}.csv"
            pa_csv.write_csv(pa.table({c: [rows[c][i] for i in taken] for c in rows}), source)
            argv = ["--label", "mark", "--blanks", "answer"]
        alone = _run(capsys, "compare", str(source), *argv, str(rule_a), str(rule_b), "--json", "--resamples", "200",
                     "--top", "3")
        names = {s["name"]: label for s, label in zip(alone["scorers"], shown)}
        summary = alone.pop("summary")
        for old in sorted(names, key=len, reverse=True):   # the names inside its sentences
            summary = [line.replace(old, names[old]) for line in summary]
        alone = {**_renamed(alone, names), "summary": summary}
        mine = got["items"][name]
        if layout == "long":
            for r in alone["disagreements"]:
                r["row"] = int(taken[r["row"] - 1]) + 1
            alone["data"] = mine["data"]
        assert mine == alone, name
    assert got["items"]["q1"]["pairs"][0]["qwk_difference"]["value"] == 0
    assert got["items"]["q3"]["pairs"][0]["qwk_difference"]["value"] < 0   # the fix helps
    if exam_a is not None:
        assert got["without_marks"] == ["q5"] and "q5" not in got["items"]
    total = got["total"]
    assert [s["name"] for s in total["scorers"]] == shown and total["students"] == N // (1 if layout == "wide" else 2)
    items = ["q1", "q2", "q3", "q4"] if layout == "wide" else ["q1", "q2", "q3"]
    assert [line["item"] for line in got["overview"]] == [*items, "total"]


def test_compare_exams_total_against_the_weighted_marks(folder, capsys):
    got = _run(capsys, "compare", str(folder / "wide.csv"), "--exam", str(folder / "wide.json"),
               str(folder / "wide-v2.json"), "--json", "--resamples", "100")
    rows = read_columns(folder / "wide.csv")
    divisor = sum(WEIGHTS)
    marks = sum(w * floats(rows[f"q{k + 1}_mark"]) for k, w in enumerate(WEIGHTS)) / divisor
    scores = {}
    for exam in ("wide.json", "wide-v2.json"):
        totals = np.zeros(N)
        for k, w in enumerate(WEIGHTS):
            rule = {"q3": "fixed" if exam == "wide-v2.json" else "traffic-light"}.get(f"q{k + 1}", TASKS[k])
            path = folder / "rules" / f"{rule}.rule.json"
            if k == 3:
                path = DEMO / "shortest-path.rule.json"
            totals += w * coscore.compile(path).score_many([[t] for t in rows[f"q{k + 1}"]]).scores
        scores[exam] = totals / divisor
    total = got["total"]
    assert total["items"] == ["q1", "q2", "q3", "q4"] and total["n"] == N - 5
    for s in total["scorers"]:
        assert s["qwk"]["value"] == pytest.approx(agreement(marks, scores[s["name"]]).qwk)
    assert [line["item"] for line in got["overview"]] == ["q1", "q2", "q3", "q4", "total"]
    assert got["overview"][-1]["qwk_difference"] == total["pairs"][0]["qwk_difference"]


def test_compare_exams_text_and_items_in_one_exam_only(folder, tmp_path, capsys):
    exam = json.loads((folder / "wide-v2.json").read_text(encoding="utf-8"))
    exam["items"] = [it for it in exam["items"] if it["name"] != "q2"]
    exam["items"].append({"name": "q9", "rule": TWO_BLANKS, "blanks": ["q2", "q2_mark2"]})
    fewer = folder / "fewer.json"
    fewer.write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    assert main(["compare", str(folder / "wide.csv"), "--exam", str(folder / "wide.json"), str(fewer),
                 "--resamples", "50"]) == 0
    text = capsys.readouterr().out
    assert "left out, only in wide.json: q2" in text and "left out, only in fewer.json: q9" in text
    assert "left out, without marks: q5" in text and "══ item q2" not in text
    assert text.index("overview") < text.index("══ item q1 ══") < text.index("══ total ══")


def test_compare_exams_page_has_every_item(folder, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    page = tmp_path / "compare.html"
    assert main(["compare", str(folder / "long.csv"), "--exam", str(folder / "long.yaml"), str(folder / "long-v2.yaml"),
                 "--resamples", "50", "--html", str(page), "--by", "class"]) == 0
    html = page.read_text(encoding="utf-8")
    assert html.count("<h1>") == 1 and all(f'<h2 id="item-{k}">Item q{k + 1}</h2>' in html for k in range(3))
    assert '<h2 id="total">Total</h2>' in html and "<h4>long.yaml by class</h4>" in html
    assert "only in" not in capsys.readouterr().out


def test_compare_exams_refusals(folder, capsys):
    data, a = str(folder / "wide.csv"), str(folder / "wide.json")
    exam = json.loads((folder / "wide-v2.json").read_text(encoding="utf-8"))
    exam["items"][0]["blanks"] = ["class"]
    (folder / "other-blanks.json").write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    err = _fails(capsys, "compare", data, "--exam", a, str(folder / "other-blanks.json"))
    assert "item q1" in err and "different blanks" in err
    exam["items"][0]["blanks"], exam["items"][0]["label"] = ["q1"], "class"
    (folder / "other-label.json").write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    assert "different label" in _fails(capsys, "compare", data, "--exam", a, str(folder / "other-label.json"))
    assert "differ in layout" in _fails(capsys, "compare", data, "--exam", a, str(folder / "long.yaml"))
    assert "two exams" in _fails(capsys, "compare", data, "--exam", a)
    assert "not an exam file" in _fails(capsys, "compare", data, "--exam", a, str(folder / "rules" / "fixed.rule.json"))
    assert "does not apply to an exam" in _fails(capsys, "compare", data, "--exam", a, a, "--label", "q1_mark")
    assert "--exam EXAM_A EXAM_B" in _fails(capsys, "compare", data, "--label", "q1_mark", a, a)
    assert "required: --label" in _fails(capsys, "compare", data, str(folder / "rules" / "fixed.rule.json"))


# -- explain, tune, suggest --item ------------------------------------------------------------

def test_explain_an_item_of_a_wide_exam(folder, capsys):
    exam, data = str(folder / "wide.json"), str(folder / "wide.csv")
    got = _run(capsys, "explain", exam, data, "--item", "q3", "--where", "disagree", "--limit", "3", "--json")
    alone = _run(capsys, "explain", str(folder / "rules" / "traffic-light.rule.json"), data, "--blanks", "q3",
                 "--label", "q3_mark", "--where", "disagree", "--limit", "3", "--json")
    assert got == alone and len(got) == 3
    inline = _run(capsys, "explain", exam, data, "--item", "q4", "--row", "7", "--json")
    alone = _run(capsys, "explain", str(DEMO / "shortest-path.rule.json"), data, "--blanks", "q4", "--label",
                 "q4_mark", "--row", "7", "--json")
    assert inline == alone
    typed = _run(capsys, "explain", exam, "--item", "q5", "红灯", "左转前进", "--json")
    assert typed["score"] == 3.5


def test_explain_an_item_of_a_long_exam_numbers_rows_as_in_the_file(folder, capsys):
    exam, data = str(folder / "long.yaml"), str(folder / "long.csv")
    rows = read_columns(folder / "long.csv")
    own = [i + 1 for i, item in enumerate(rows["item"]) if item == "q2"]
    other = next(i + 1 for i, item in enumerate(rows["item"]) if item != "q2")
    got = _run(capsys, "explain", exam, data, "--item", "q2", "--row", str(own[4]), "--json")
    assert got[0]["row"] == own[4] and got[0]["id"] == rows["id"][own[4] - 1]
    assert got[0]["answer"] == [rows["answer"][own[4] - 1]] and got[0]["mark"] == float(rows["mark"][own[4] - 1])
    err = _fails(capsys, "explain", exam, data, "--item", "q2", "--row", str(other))
    assert f"row {other} is not an answer to item q2" in err
    by_id = _run(capsys, "explain", exam, data, "--item", "q2", "--id", "S010", "--json")
    assert len(by_id) == 1 and rows["item"][by_id[0]["row"] - 1] == "q2" and by_id[0]["id"] == "S010"
    worst = _run(capsys, "explain", exam, data, "--item", "q2", "--where", "disagree", "--json")
    assert worst and all(rows["item"][r["row"] - 1] == "q2" for r in worst)


def test_one_item_options_are_checked(folder, capsys):
    exam, data = str(folder / "wide.json"), str(folder / "wide.csv")
    rule = str(folder / "rules" / "fixed.rule.json")
    for command in ("explain", "tune", "suggest"):
        extra = ["--row", "1"] if command == "explain" else []
        err = _fails(capsys, command, exam, data, *extra)
        assert "--item NAME" in err and "q1, q2, q3, q4, q5" in err
        assert "q1, q2" in _fails(capsys, command, exam, data, "--item", "q7", *extra)
        assert "does not apply to an exam" in _fails(capsys, command, exam, data, "--item", "q1", "--blanks", "q1",
                                                     *extra)
        assert "does not apply to an exam" in _fails(capsys, command, exam, data, "--item", "q1", "--label",
                                                     "q1_mark", *extra)
        assert "--item is for an exam" in _fails(capsys, command, rule, data, "--item", "q1", "--label", "q3_mark",
                                                 *extra)
    for command in ("tune", "suggest"):
        assert "required: --label" in _fails(capsys, command, rule, data)


def test_an_item_without_marks_cannot_be_tuned(folder, capsys):
    err = _fails(capsys, "tune", str(folder / "wide.json"), str(folder / "wide.csv"), "--item", "q5")
    assert "item q5" in err and "no marks" in err and "'label:'" in err


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_tune_an_item_as_its_rule(folder, tmp_path, capsys, layout):
    exam = str(folder / ("wide.json" if layout == "wide" else "long.yaml"))
    data = folder / f"{layout}.csv"
    rule = folder / "rules" / "traffic-light.rule.json"
    if layout == "wide":
        source, argv = data, ["--blanks", "q3", "--label", "q3_mark"]
    else:
        rows = read_columns(data)
        taken = [i for i, item in enumerate(rows["item"]) if item == "q3"]
        source = tmp_path / "q3.csv"
        pa_csv.write_csv(pa.table({c: [rows[c][i] for i in taken] for c in rows}), source)
        argv = ["--blanks", "answer", "--label", "mark"]
    tuned, alone_out = tmp_path / "tuned.json", tmp_path / "alone.json"
    got = _run(capsys, "tune", exam, str(data), "--item", "q3", "-o", str(tuned), "--json", "--resamples", "200")
    alone = _run(capsys, "tune", str(rule), str(source), *argv, "-o", str(alone_out), "--json", "--resamples", "200")
    assert tuned.read_text(encoding="utf-8") == alone_out.read_text(encoding="utf-8")
    assert got["item"] == "q3" and got["exam"] == exam and got["rule"] == str(rule)
    skip = {"exam", "item", "rule", "data", "output", "seconds", "work"}
    assert {k: v for k, v in got.items() if k not in skip} == {k: v for k, v in alone.items() if k not in skip}
    assert got["accepted"] is True
    assert main(["tune", exam, str(data), "--item", "q3", "-o", str(tuned), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"coscore tune: item q3 of {Path(exam).name} (rule traffic-light.rule.json)")
    assert f"{tuned} is item q3's rule (traffic-light.rule.json) as tuned" in text


def test_tune_an_inline_item(folder, tmp_path, capsys):
    out = tmp_path / "q4.json"
    got = _run(capsys, "tune", str(folder / "wide.json"), str(folder / "wide.csv"), "--item", "q4", "-o", str(out),
               "--json", "--resamples", "100")
    alone = _run(capsys, "tune", str(DEMO / "shortest-path.rule.json"), str(folder / "wide.csv"), "--blanks", "q4",
                 "--label", "q4_mark", "--json", "--resamples", "100")
    assert got["rule"] is None and got["changes"] == alone["changes"] and got["before"] == alone["before"]
    assert coscore.compile(json.loads(out.read_text(encoding="utf-8")))


@pytest.mark.parametrize("layout", ["wide", "long"])
def test_suggest_for_an_item_as_for_its_rule(folder, tmp_path, capsys, layout):
    exam = str(folder / ("wide.json" if layout == "wide" else "long.yaml"))
    data = folder / f"{layout}.csv"
    rule = folder / "rules" / "lane-change.rule.json"
    taken = None
    if layout == "wide":
        source, argv = data, ["--blanks", "q2", "--label", "q2_mark"]
    else:
        rows = read_columns(data)
        taken = [i for i, item in enumerate(rows["item"]) if item == "q2"]
        source = tmp_path / "q2.csv"
        pa_csv.write_csv(pa.table({c: [rows[c][i] for i in taken] for c in rows}), source)
        argv = ["--blanks", "answer", "--label", "mark"]
    got = _run(capsys, "suggest", exam, str(data), "--item", "q2", "--json", "--top", "3", "--limit", "5")
    alone = _run(capsys, "suggest", str(rule), str(source), *argv, "--json", "--top", "3", "--limit", "5")
    if taken is not None:   # rows numbered as in DATA
        for phrase in alone["phrases"]:
            for example in phrase["examples"]:
                example["row"] = taken[example["row"] - 1] + 1
        for group in alone["groups"]:
            for missed in group["answers"]:
                missed["rows"] = [taken[r - 1] + 1 for r in missed["rows"]]
    skip = {"exam", "item", "rule", "data"}
    assert {k: v for k, v in got.items() if k not in skip} == {k: v for k, v in alone.items() if k not in skip}
    assert got["phrases"] and got["item"] == "q2"



# -- the documentation --------------------------------------------------------------------

def test_the_docs_section_runs_as_written(tmp_path, monkeypatch, capsys):
    """docs/exams.md's "Reports, comparisons and one item at a time": its Python and exam
    files written and run from a folder where ``coscore/`` is the repository's; each
    ``$ coscore …`` succeeds and prints the lines the page shows, in order (``…`` elides)."""
    import re
    import shlex

    text = (ROOT / "docs" / "exams.md").read_text(encoding="utf-8")
    section = text.split("<!-- section: exam-reports -->", 1)[1].split("<!-- end: exam-reports -->", 1)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "coscore").symlink_to(ROOT / "coscore")
    blocks = re.findall(r"```(python|yaml|console)\n(.*?)```", section, flags=re.DOTALL)
    assert [kind for kind, _ in blocks] == ["python", "yaml", "console", "console", "yaml", "console", "python"]
    for kind, block in blocks:
        if kind == "yaml":
            (tmp_path / block.splitlines()[0].removeprefix("# ").strip()).write_text(block, encoding="utf-8")
        elif kind == "python":
            exec(compile(block, "docs/exams.md", "exec"), {})  # noqa: S102 - the project's own docs
            printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
            assert printed == [line.split("  # ", 1)[1].strip() for line in block.splitlines()
                               if line.startswith("print(")]
        else:
            for command, shown in re.findall(r"^\$ (.*?)\n(.*?)(?=^\$ |\Z)", block, flags=re.DOTALL | re.MULTILINE):
                words = shlex.split(command)
                extra = ["--no-progress"] if words[1] == "score" else []
                assert words[0] == "coscore" and main(words[1:] + extra) == 0, command
                out = iter(capsys.readouterr().out.splitlines())
                for line in shown.splitlines():
                    if line != "…":
                        assert any(got == line for got in out), (command, line)
