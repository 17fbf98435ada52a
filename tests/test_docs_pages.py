"""The docs site's getting-started, tutorial and language pages run as written: their
files are written, their Python runs and prints what its comments say, and every command
of their ``sh`` blocks exits 0 (in a scratch folder, with the bundled demo data)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from coscore.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DEMO = str(ROOT / "coscore" / "data" / "demo") + "/"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _run_python(text: str, where: str, capsys) -> None:
    namespace: dict = {"__name__": "__docs__"}
    for index, code in enumerate(re.findall(r"```python\n(.*?)```", text, flags=re.S)):
        if "# not run by the tests" in code:
            continue
        exec(compile(code, f"{where} python block {index}", "exec"), namespace)  # our documentation
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        for line in code.splitlines():
            if line.startswith("print(") and "# " in line:
                assert line.split("# ", 1)[1].strip() in printed, (where, index, line, printed)


def _run_commands(block: str, folder: Path, capsys) -> list[str]:
    outputs = []
    for line in block.replace("\\\n", " ").strip().splitlines():
        line = line.replace("coscore/data/demo/", DEMO)
        if line.startswith("sed "):
            command, target = line.split(" > ")
            _, expression, source = shlex.split(command)
            old, new = expression.split("/")[1:3]
            (folder / target.strip()).write_text((folder / source).read_text(encoding="utf-8").replace(old, new),
                                                 encoding="utf-8")
            continue
        args = shlex.split(line)
        assert args[0] == "coscore", line
        status = main(args[1:])
        out, err = capsys.readouterr()
        assert status == 0, (line, err)
        outputs.append(out)
    return outputs


def _files(text: str, folder: Path) -> None:
    for name, body in re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, flags=re.S):
        (folder / name).write_text(body, encoding="utf-8")


def test_getting_started_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = _page("getting-started.md")
    _run_python(text, "getting-started.md", capsys)
    block = re.search(r"```sh\n(coscore score.*?)```", text, flags=re.S).group(1)
    _, report = _run_commands(block, tmp_path, capsys)
    assert "coscore_score,coscore_combo_A" in (tmp_path / "scored.csv").read_text(encoding="utf-8")
    assert "exactly on 50.0 % of the 2 answers" in report


def test_the_tutorial_runs_and_shows_what_it_prints(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = _page("tutorial.md")
    _files(text, tmp_path)
    printed = []
    for name in ("draft", "explain", "fix"):
        block = re.search(rf"<!-- commands: {name} -->\n```sh\n(.*?)```", text, flags=re.S).group(1)
        printed += _run_commands(block, tmp_path, capsys)
    everything = "\n".join(printed)
    for console in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for line in console.splitlines():
            if "…" not in line:
                assert line in everything, line
    assert "变道" in (tmp_path / "second.rule.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", ["language.md", "python-api.md", "architecture.md", "commands.md", "tune-and-suggest.md",
                                  "expect.md", "service.md", "tune.md"])
def test_reference_examples_run(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    _run_python(_page(page), page, capsys)
