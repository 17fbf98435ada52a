"""The rule author's loop through the command: check, explain rows of a file, report."""
from __future__ import annotations

import json

from test_cli import DEMO, run, text

LANE = DEMO / "lane-change.rule.json"
LANE_DATA = DEMO / "lane-change.csv"


def write_rule(tmp_path, combos: dict, mode: str = "ADD"):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"atoms": {"0": {"type": "SM", "desc": "a,b"}}, "combos": combos, "comboMode": mode}),
                    encoding="utf-8")
    return path


def test_check_finds_what_the_issue_listed(tmp_path):
    rule = write_rule(tmp_path, {
        "A": {"combo": "T(0) > 3", "score": 2, "mode": "logic"},
        "B": {"combo": "G(0, T(1))", "score": 20, "mode": "logic"},
        "C": {"combo": "M(0, T(0))", "score": -2, "mode": "value"},
    })
    data = tmp_path / "d.csv"
    data.write_text("id,answer\n1,a\n", encoding="utf-8")
    proc = run("check", rule, "--data", data)
    out, err = text(proc)
    assert proc.returncode == 1, (out, err)
    assert "combos.A.combo, column 6: '>' orders text against a number: always fails" in out
    assert "combos.B.combo, column 8: reads blank 1, but the data has 1 blank" in out
    assert "score 20 is outside the 0–10 scale" in out and "score -2 is outside" in out
    assert "every answer fails: no score; needs 2 blanks (the data has 1 blank)" in out
    report = json.loads(text(run("check", rule, "--data", data, "--json"))[0])
    assert "data: " in out and "reads 2 blanks (T(0)…T(1)), but the data has 1 column that could be blanks" in out
    assert report["errors"] == 3 and report["data_blanks"] == {"min": 1, "max": 1} and report["blanks_needed"] == 2
    assert report["always_fails"] and report["score_range"] is None


def test_check_prints_the_score_range(tmp_path):
    rule = write_rule(tmp_path, {
        "A": {"combo": "M(0, T(0))", "score": 3, "mode": "value"},
        "B": {"combo": "G(0, T(0))", "score": 2, "mode": "logic"},
        "C": {"combo": "F(0) > 100", "score": 1, "mode": "logic"},
    }, "MAX")
    out, _ = text(run("check", rule))
    assert "combos.B: warning: never reaches the MAX total" in out
    assert "scores exactly 0–6; needs 1 blank" in out
    assert "combo A (value × 3): number, contributes 0, 3 or 6" in out
    assert "combo B (logic, 2): bool, contributes 0 or 2" in out and "combo C (logic, 1): bool, contributes 0 or 1" in out
    report = json.loads(text(run("check", rule, "--json"))[0])
    assert report["score_range"] == {"min": 0.0, "max": 6.0, "exact": True}
    assert [c["contribution"] for c in report["combos"]] == [{"min": 0, "max": 6}, {"min": 0, "max": 2},
                                                            {"min": 0, "max": 1}]
    assert [c["values"] for c in report["combos"]] == [[0, 3, 6], [0, 2], None]


def test_check_no_combos(tmp_path):
    out, _ = text(run("check", write_rule(tmp_path, {})))
    assert "no combos: every answer scores 0" in out and "1 warning" in out


def test_check_demo_rules_with_their_data():
    for task in ("lab-tools", "lane-change", "shortest-path", "traffic-light"):
        proc = run("check", DEMO / f"{task}.rule.json", "--data", DEMO / f"{task}.csv")
        out, err = text(proc)
        assert proc.returncode == 0 and "ok (0 errors" in out, (task, out, err)


def test_explain_rows_of_a_file():
    out, err = text(run("explain", LANE, LANE_DATA, "--row", "3", "--color" if False else "--no-color"))
    assert out.startswith("── row 3  id 3  mark 6.0"), (out, err)
    assert "M(0,T(0))  →  0.5" in out and "atom calls: [1] M(0)" in out and "[1]  M(0, " in out
    proc = run("explain", LANE, LANE_DATA, "--where", "disagree", "--limit", "2", "--json")
    rows = json.loads(text(proc)[0])
    assert len(rows) == 2 and rows[0]["row"] == 100 and rows[0]["mark"] == 6.0 and rows[0]["score"] == 0.0
    assert rows[0]["combos"][0]["calls"] == [1] and rows[0]["calls"][0]["evidence"]["type"] == "OPEvidence"
    by_id = json.loads(text(run("explain", LANE, LANE_DATA, "--id", "100", "--json"))[0])
    assert by_id[0]["row"] == 100


def test_explain_shares_atom_calls_and_keeps_the_answer_form(tmp_path):
    rule = write_rule(tmp_path, {"A": {"combo": "M(0,T(0))==2", "score": 5, "mode": "logic"},
                                 "B": {"combo": "M(0,T(0))>=1", "score": 2, "mode": "logic"}}, "MAX")
    out, _ = text(run("explain", rule, "ab", "--no-color"))
    assert out.count("M(0, \"ab\") = 2") == 1
    assert "M(0,T(0))==2  →  True" in out and out.count("atom calls: [1] M(0)") == 2
    data = json.loads(text(run("explain", rule, "b", "--json"))[0])
    assert data["score"] == 2 and data["combos"][0]["expression_value"] is False


def test_explain_row_errors():
    proc = run("explain", LANE, LANE_DATA, "--row", "1000")
    assert proc.returncode == 2 and "no row 1000" in text(proc)[1]
    proc = run("explain", LANE, LANE_DATA, "extra", "--row", "1")
    assert proc.returncode == 2 and "one data file" in text(proc)[1]
    proc = run("explain", LANE, LANE_DATA)
    assert proc.returncode == 2 and "pick its rows with --row N, --id X or --where disagree" in text(proc)[1]


def test_report_sections(tmp_path):
    scored = tmp_path / "s.csv"
    assert run("score", LANE, LANE_DATA, "--format", "coscore", "-o", scored).returncode == 0
    lines = scored.read_text(encoding="utf-8").splitlines()
    with_group = [lines[0] + ",school"] + [f"{line},{'north' if i % 2 else 'south'}" for i, line in enumerate(lines[1:])]
    scored.write_text("\n".join(with_group) + "\n", encoding="utf-8")
    proc = run("report", scored, "--label", "score", "--rule", LANE, "--by", "school", "--top", "3", "--json",
               "--html", tmp_path / "r.html")
    out, err = text(proc)
    assert proc.returncode == 0, err
    report = json.loads(out)
    assert report["rule"] == "lane-change.rule.json" and len(report["rule_sha256"]) == 64
    assert report["data"].endswith("s.csv") and report["date"]
    assert {"rmse", "r2", "kappa", "qwk"} <= set(report)
    (worst, *_) = report["disagreements"]
    assert worst["row"] == 100 and worst["mark"] == 6 and worst["score"] == 0
    assert worst["answer"] and any("OP miss" in line for line in worst["explanation"])
    assert [c["id"] for c in report["combos"]] == ["A", "B", "C"]
    assert {"counts", "mean_contribution", "correlation"} <= set(report["combos"][0])
    assert sum(level["n"] for level in report["levels"]) == report["n"]
    assert [g["value"] for g in report["groups"]] == ["north", "south"]
    assert sum(g["n"] for g in report["groups"]) == report["n"]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Largest disagreements" in page and "By school" in page and "lane-change.rule.json" in page
    plain, _ = text(run("report", scored, "--label", "score", "--by", "school"))
    assert "largest disagreements" in plain and "by mark level" in plain and "by school" in plain
    assert "rule: not given" in plain and "date: " in plain


def test_the_readme_loop_runs(tmp_path):
    """The rule author's loop of docs/commands.md, command by command, in a scratch directory."""
    import re
    import shlex
    import subprocess

    from test_cli import ROOT

    readme = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The rule author's loop"):]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S).group(1).replace("\\\n", " ")
    demo = str(ROOT / "coscore" / "data" / "demo") + "/"
    outputs = []
    for line in block.strip().splitlines():
        line = line.replace("coscore/data/demo/", demo)
        if line.startswith("sed "):
            command, target = line.split(" > ")
            fixed = subprocess.run(shlex.split(command), capture_output=True, check=True).stdout
            (tmp_path / target.strip()).write_bytes(fixed)
            continue
        args = shlex.split(line)
        assert args[0] == "coscore"
        proc = run(*args[1:], cwd=tmp_path)
        out, err = text(proc)
        assert proc.returncode == 0, (line, err)
        outputs.append(out)
    check, explained, compared = outputs
    assert "ok (0 errors, 0 warnings)" in check
    assert explained.startswith("── row 29  id 29  mark 5.0") and "combo C = 4.0" in explained
    assert "QWK                         0.966 [0.949, 0.977]        0.988 [0.979, 0.995]" in compared
    assert "traffic-light.rule.json − fixed.rule.json: -0.023 [-0.037, -0.012]" in compared
    assert (tmp_path / "compare.html").exists()


def test_a_file_scored_from_the_original_layout_keeps_its_blanks(tmp_path):
    """``score --format coscore`` splits ``text`` on '-'; report and explain read the
    scored file so again (traffic-light's line 15 has four blanks)."""
    rule, scored = DEMO / "traffic-light.rule.json", tmp_path / "s.csv"
    assert run("score", rule, DEMO / "traffic-light.csv", "--format", "coscore", "-o", scored).returncode == 0
    (row,) = json.loads(text(run("explain", rule, scored, "--row", "14", "--json"))[0])
    assert row["answer"] == ["开始", "前进", "如果红灯等待路灯后左转", "如果路灯直接左转"] and row["mark"] == 8.0
    assert row["score"] == 9.0
    report = json.loads(text(run("report", scored, "--label", "score", "--rule", rule, "--top", "100", "--json"))[0])
    assert all(isinstance(d["answer"], list) for d in report["disagreements"])
    assert ["直行", "停车", "等待红灯", "左转", "直行"] in [d["answer"] for d in report["disagreements"]]


def test_the_docs_show_check_as_it_prints():
    from test_cli import ROOT

    readme = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    proc = run("check", "coscore/data/demo/traffic-light.rule.json", cwd=ROOT)
    out, err = text(proc)
    assert proc.returncode == 0, err
    for line in out.splitlines():
        assert line in readme, line
