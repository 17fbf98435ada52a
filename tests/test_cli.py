"""The ``coscore`` command end to end, through a real subprocess (``python -m coscore``)."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import coscore_env

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "coscore" / "data" / "demo"
REAL = ROOT / "tests" / "data" / "coscore-real.jsonl"
TASKS = ["lab-tools", "lane-change", "shortest-path", "traffic-light"]

DIVIDE = {
    "atoms": {"0": {"type": "SM", "desc": "a,b"}},
    "combos": {
        "A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
        "B": {"combo": "10 / M(0, T(0))", "score": 1, "mode": "value"},
    },
    "comboMode": "ADD",
}


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = coscore_env()
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "coscore", *map(str, args)],
        input=stdin, capture_output=True, cwd=cwd or ROOT, env=env, timeout=300,
    )


def text(proc: subprocess.CompletedProcess) -> tuple[str, str]:
    return proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def read_csv(data: str | Path) -> list[dict[str, str]]:
    content = Path(data).read_text(encoding="utf-8") if isinstance(data, Path) else data
    return list(csv.DictReader(io.StringIO(content, newline="")))


@pytest.fixture
def divide_rule(tmp_path: Path) -> Path:
    path = tmp_path / "divide.json"
    path.write_text(json.dumps(DIVIDE), encoding="utf-8")
    return path


# -- the demo and the conformance cases -----------------------------------------------------


def test_demo_prints_the_agreement_table():
    proc = run("demo")
    out, err = text(proc)
    assert proc.returncode == 0, err
    for task in TASKS:
        assert task in out
    assert "QWK" in out and "lab-tools-unlabeled" in out


def _cases() -> dict[str, dict]:
    return {c["id"]: c for c in map(json.loads, REAL.read_text(encoding="utf-8").splitlines())}


@pytest.mark.parametrize("task", TASKS)
def test_scores_of_the_demo_data_equal_the_conformance_cases(tmp_path, task):
    out = tmp_path / "out.jsonl"
    proc = run("score", DEMO / f"{task}.rule.json", DEMO / f"{task}.csv", "--format", "coscore", "-o", out)
    assert proc.returncode == 0, text(proc)[1]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    cases = _cases()
    expected = [cases[f"{task}-{i}"] for i in range(1, len(rows) + 1)]
    assert f"{task}-{len(rows) + 1}" not in cases
    for row, case in zip(rows, expected):
        assert row["text"].split("-") == case["answers"]
        assert float(row["score"]) == case["human"]
        assert row["coscore_score"] == case["expect"]["score"], case["id"]
        for cid, value in case["expect"]["combos"].items():
            assert row[f"coscore_combo_{cid}"] == value, (case["id"], cid)
        assert row["coscore_error"] is None


# -- score: formats, order, streaming --------------------------------------------------------


def _many_rows(path: Path, n: int) -> list[str]:
    answers = [f"a{i}" if i % 3 else f"b-{i}" for i in range(n)]
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "answer", "mark"])
        for i, a in enumerate(answers):
            w.writerow([i, a, i % 11])
    return answers


def test_rows_keep_their_order_and_count_across_chunks(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    answers = _many_rows(data, 1000)
    proc = run("score", divide_rule, data, "--label", "mark", "--chunk-size", "7")
    out, err = text(proc)
    assert proc.returncode == 0, err
    rows = read_csv(out)
    assert [r["id"] for r in rows] == [str(i) for i in range(1000)]
    assert [r["answer"] for r in rows] == answers
    assert list(rows[0]) == ["id", "answer", "mark", "coscore_score", "coscore_combo_A", "coscore_combo_B",
                             "coscore_error"]
    assert rows[1] == {"id": "1", "answer": "a1", "mark": "1", "coscore_score": "10.0", "coscore_combo_A": "2.0",
                       "coscore_combo_B": "10.0", "coscore_error": ""}


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_every_format_round_trips_through_score(tmp_path, divide_rule, fmt):
    from coscore.io import open_reader, open_writer
    from coscore.io.table import Chunk

    src = tmp_path / f"in.{fmt}"
    answers = ["a", "b, \"quoted\"", "多\n行", "x"]
    key = "answer"
    with open_writer(src) as writer:
        writer.write(Chunk(["id", key], {"id": ["1", "2", "3", "4"], key: answers}, [2, 3, 4, 5]))
    dst = tmp_path / f"out.{fmt}"
    proc = run("score", divide_rule, src, "-o", dst, *(["--blanks", "answer"] if fmt == "jsonl" else []))
    assert proc.returncode == 0, text(proc)[1]
    with open_reader(dst) as reader:
        chunks = list(reader.chunks())
        assert reader.columns[:2] == ["id", key]
    got = {name: [v for c in chunks for v in c.pylist(name)] for name in ("id", key, "coscore_score", "coscore_error")}
    assert got["id"] == ["1", "2", "3", "4"] and got[key] == answers
    scores = [None if v in ("", None) else float(v) for v in got["coscore_score"]]
    assert scores == [10.0, 10.0, None, None]
    assert [bool(e) for e in got["coscore_error"]] == [False, False, True, True]


def test_jsonl_answers_lists_and_stdin(tmp_path, divide_rule):
    lines = [{"id": 1, "answers": ["a", "x"]}, {"id": 2, "answer": "b"}, {"answers": ["zz"], "note": "n"}]
    payload = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines).encode("utf-8")
    proc = run("score", divide_rule, "-", "--format", "jsonl", "-o", tmp_path / "o.jsonl", stdin=payload)
    assert proc.returncode == 0, text(proc)[1]
    rows = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r.get("id") for r in rows] == [1, 2, None]
    assert rows[0]["answers"] == ["a", "x"] and rows[2]["note"] == "n"
    assert [r["coscore_score"] for r in rows] == [10.0, 10.0, None]


def test_csv_from_stdin_to_stdout(divide_rule):
    proc = run("score", divide_rule, "-", "--format", "csv", stdin=b"answer\na\nq\n")
    out, err = text(proc)
    rows = read_csv(out)
    assert proc.returncode == 0 and [r["coscore_score"] for r in rows] == ["10.0", ""]
    assert "1 of 2 answers could not be scored" in err


# -- per-answer errors and --strict ----------------------------------------------------------


def test_strict_exits_1_on_a_failed_answer(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    data.write_text("answer\na\nnothing\n", encoding="utf-8")
    loose = run("score", divide_rule, data, "-o", tmp_path / "o.csv")
    assert loose.returncode == 0
    rows = read_csv(tmp_path / "o.csv")
    assert rows[1]["coscore_error"] == "combos.B: division by zero" and rows[1]["coscore_score"] == ""
    strict = run("score", divide_rule, data, "-o", tmp_path / "o2.csv", "--strict")
    assert strict.returncode == 1
    assert (tmp_path / "o2.csv").exists()  # the output is still complete
    ok = tmp_path / "ok.csv"
    ok.write_text("answer\na\n", encoding="utf-8")
    assert run("score", divide_rule, ok, "--strict").returncode == 0


# -- input errors: exit 2, one message with file, line, column -----------------------------------


def test_missing_data_file(tmp_path, divide_rule):
    proc = run("score", divide_rule, tmp_path / "nope.csv")
    assert proc.returncode == 2
    assert text(proc)[1].strip() == f"coscore: {tmp_path / 'nope.csv'}: no such file"


def test_missing_rule_file(tmp_path):
    proc = run("score", tmp_path / "nope.json", DEMO / "lab-tools.csv")
    assert proc.returncode == 2 and "nope.json: no such file" in text(proc)[1]


def test_missing_column(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    data.write_text("id,answer\n1,a\n", encoding="utf-8")
    proc = run("score", divide_rule, data, "--blanks", "answer,other")
    err = text(proc)[1]
    assert proc.returncode == 2 and proc.stdout == b""
    assert f"{data}: line 1, column 'other': no such column" in err
    proc = run("score", divide_rule, data, "--label", "mark")
    assert proc.returncode == 2 and "column 'mark'" in text(proc)[1]


def test_invalid_utf8_leaves_no_partial_output(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    data.write_bytes(b"answer\n" + b"a\n" * 10 + b"caf\xe9\n" + b"b\n")
    out = tmp_path / "out.csv"
    proc = run("score", divide_rule, data, "-o", out, "--chunk-size", "3")
    err = text(proc)[1]
    assert proc.returncode == 2
    assert f"{data}: line 12: invalid UTF-8" in err and err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == ["divide.json", "in.csv"]


def test_malformed_row(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    data.write_text("id,answer\n1,a\n2,b,c\n", encoding="utf-8")
    proc = run("score", divide_rule, data)
    assert proc.returncode == 2 and "line 3: 3 fields, but the header has 2" in text(proc)[1]


def test_bad_rule_is_a_usage_error_for_score(tmp_path):
    rule = tmp_path / "bad.json"
    rule.write_text(json.dumps({"atoms": {}, "combos": {"A": {"combo": "G(9, T(0))", "score": 1, "mode": "logic"}},
                                "comboMode": "ADD"}), encoding="utf-8")
    proc = run("score", rule, DEMO / "lab-tools.csv", "--format", "coscore")
    err = text(proc)[1]
    assert proc.returncode == 2 and f"{rule}: invalid rule" in err and "combos.A" in err


def test_scored_file_as_input_is_refused(tmp_path, divide_rule):
    data = tmp_path / "in.csv"
    data.write_text("answer,coscore_score\na,1\n", encoding="utf-8")
    proc = run("score", divide_rule, data, "--blanks", "answer")
    assert proc.returncode == 2 and "column 'coscore_score'" in text(proc)[1]


def test_usage_errors_exit_2(divide_rule):
    assert run("score", divide_rule).returncode == 2
    assert run("score", divide_rule, "x.csv", "--jobs", "0").returncode == 2
    assert run("frobnicate").returncode == 2
    assert run().returncode == 2


# -- check -------------------------------------------------------------------------------------


def test_check_good_rule():
    proc = run("check", DEMO / "lab-tools.rule.json")
    assert proc.returncode == 0 and "ok" in text(proc)[0]


def test_check_bad_rule_lists_every_error_with_carets(tmp_path):
    rule = tmp_path / "bad.json"
    rule.write_text(json.dumps({
        "atoms": {"0": {"type": "SM", "desc": "a,,b"}},
        "combos": {
            "A": {"combo": "G(0, T(0)) +* 2", "score": 1, "mode": "logic"},
            "B": {"combo": "M(0, T(0))", "score": 1, "mode": "bogus"},
        },
        "comboMode": "ADD",
    }), encoding="utf-8")
    proc = run("check", rule)
    out = text(proc)[0]
    assert proc.returncode == 1
    assert "combos.A.combo" in out and "^" in out and "combos.B" in out and "invalid" in out
    proc = run("check", rule, "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["ok"] is False and report["errors"] >= 2
    assert {"path", "message", "column", "severity"} <= set(report["diagnostics"][0])


def test_check_json_of_a_good_rule():
    report = json.loads(run("check", DEMO / "traffic-light.rule.json", "--json").stdout)
    assert report["ok"] is True and report["errors"] == 0


def test_check_unreadable_rule(tmp_path):
    rule = tmp_path / "r.json"
    rule.write_bytes(b'{"atoms": {}\n\xff}')
    proc = run("check", rule)
    assert proc.returncode == 2 and "line 2: invalid UTF-8" in text(proc)[1]


# -- explain -----------------------------------------------------------------------------------


def test_explain_traffic_light():
    answer = ["开始", "前进", "如果红灯等待路灯后左转", "如果路灯直接左转"]
    proc = run("explain", DEMO / "traffic-light.rule.json", *answer)
    out, err = text(proc)
    assert proc.returncode == 0, err
    assert "score   9.0" in out and "combo A = 4.0" in out and "LCS 8/10" in out
    assert "\x1b[" not in out  # not a terminal: no colour
    coloured = run("explain", DEMO / "traffic-light.rule.json", "开始", "--color")
    assert "\x1b[" in text(coloured)[0]


# -- report --------------------------------------------------------------------------------------


def test_report_json_and_html(tmp_path):
    scored = tmp_path / "s.csv"
    scored.write_text("mark,coscore_score\n0,0.0\n1,2.0\n2,2.0\n3,3.0\n4,6.0\n5,\n", encoding="utf-8")
    proc = run("report", scored, "--label", "mark", "--json", "--html", tmp_path / "r.html")
    assert proc.returncode == 0, text(proc)[1]
    stats = json.loads(proc.stdout)
    assert stats["n"] == 5 and stats["n_without_pred"] == 1
    assert stats["exact_agreement"] == pytest.approx(0.6)
    assert stats["adjacent_agreement"] == pytest.approx(0.8)
    assert stats["qwk"] == pytest.approx(26 / 31)
    assert stats["smd"] == pytest.approx(0.6 / 3.65**0.5)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2


def test_report_after_score_on_demo_data(tmp_path):
    out = tmp_path / "lab.csv"
    assert run("score", DEMO / "lab-tools.rule.json", DEMO / "lab-tools.csv", "--format", "coscore",
               "-o", out).returncode == 0
    proc = run("report", out, "--label", "score")
    assert proc.returncode == 0 and "QWK" in text(proc)[0] and "confusion matrix" in text(proc)[0]


def test_report_missing_label_column(tmp_path):
    scored = tmp_path / "s.csv"
    scored.write_text("mark,coscore_score\n1,1\n", encoding="utf-8")
    proc = run("report", scored, "--label", "teacher")
    assert proc.returncode == 2 and "column 'teacher'" in text(proc)[1]


# -- plugins and misc ------------------------------------------------------------------------


def test_missing_plugin_module_exits_2(monkeypatch, capsys):
    from coscore import cli

    monkeypatch.setitem(cli.COMMANDS, "ghost", cli.Command("coscore.no_such_module", "a ghost", "pip install ghost"))
    assert cli.main(["ghost", "--anything"]) == 2
    err = capsys.readouterr().err
    assert "'ghost' is not available" in err and "pip install ghost" in err


def test_plugin_subcommands_are_registered():
    out = text(run("--help"))[0]
    assert "expect" in out and "serve" in out


def test_only_the_chosen_subcommand_is_imported():
    """``coscore --help`` imports no subcommand's module; ``coscore check --help`` only check's."""
    code = ("import sys\nfrom coscore.cli import COMMANDS, main\nstatus = main(sys.argv[1:])\n"
            "print(sorted(n for n, c in COMMANDS.items() if c.module in sys.modules))\n")
    env = coscore_env()
    for argv, imported in ((["--help"], "[]"), (["check", "--help"], "['check']")):
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == imported


def test_python_dash_m_and_version():
    proc = run("--version")
    assert proc.returncode == 0 and text(proc)[0].startswith("coscore ")
