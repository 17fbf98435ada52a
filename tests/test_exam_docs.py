"""docs/exams.md's how-to "Scoring every item in one pass" runs as written: its exam and data
files are written from the page, each ``$ coscore …`` and ``$ cat …`` of its sessions gives
the output the page shows, and its Python prints what its comments say."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from coscore.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"


def _section(name: str) -> str:
    text = (ROOT / "docs" / "exams.md").read_text(encoding="utf-8")
    return text.split(f"<!-- section: {name} -->", 1)[1].split(f"<!-- end: {name} -->", 1)[0]


def test_the_scoring_how_to_runs_as_written(tmp_path, monkeypatch, capsys):
    section = _section("exam-scoring")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules").mkdir()
    for task in ("lab-tools", "lane-change"):
        (tmp_path / "rules" / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    written = []
    for kind, block in re.findall(r"```(yaml|text)\n(.*?)```", section, flags=re.DOTALL):
        first, _, rest = block.partition("\n")
        name = first.removeprefix("# ").strip()
        (tmp_path / name).write_text(block if kind == "yaml" else rest, encoding="utf-8")
        written.append(name)
    assert written == ["paper.yaml", "paper.csv", "paper-long.yaml", "paper-long.csv"]
    sessions = re.findall(r"```console\n(.*?)```", section, flags=re.DOTALL)
    assert len(sessions) == 2
    for session in sessions:
        for command, output in re.findall(r"^\$ (.*?)\n(.*?)(?=^\$ |\Z)", session, flags=re.DOTALL | re.MULTILINE):
            words = shlex.split(command)
            if words[0] == "cat":
                assert (tmp_path / words[1]).read_text(encoding="utf-8") == output, command
                continue
            assert words[0] == "coscore" and main([*words[1:], "--no-progress"]) == 0, command
            assert capsys.readouterr().out == output
    for code in re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL):
        exec(compile(code, "docs/exams.md", "exec"), {})  # noqa: S102 - the project's own docs
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
        assert printed == expected


def test_an_item_scores_as_its_rule_alone_as_the_page_says(tmp_path, monkeypatch):
    """"coscore score rules/lane-change.rule.json paper.csv --blanks q2 gives q2's"."""
    section = _section("exam-scoring")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules").mkdir()
    for task in ("lab-tools", "lane-change"):
        (tmp_path / "rules" / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    for kind, block in re.findall(r"```(yaml|text)\n(.*?)```", section, flags=re.DOTALL):
        first, _, rest = block.partition("\n")
        (tmp_path / first.removeprefix("# ").strip()).write_text(block if kind == "yaml" else rest, encoding="utf-8")
    assert main(["score", "paper.yaml", "paper.csv", "-o", "exam.csv", "--no-progress"]) == 0
    assert main(["score", "rules/lane-change.rule.json", "paper.csv", "--blanks", "q2", "--label", "q2_mark",
                 "-o", "alone.csv", "--no-progress"]) == 0
    exam = [line.split(",") for line in (tmp_path / "exam.csv").read_text(encoding="utf-8").splitlines()]
    alone = [line.split(",") for line in (tmp_path / "alone.csv").read_text(encoding="utf-8").splitlines()]
    q2 = exam[0].index("q2_score")
    assert [row[q2] for row in exam[1:]] == [row[alone[0].index("coscore_score")] for row in alone[1:]]
