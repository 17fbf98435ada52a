"""docs/commands.md's format examples for ``coscore score`` run as written (in a scratch
folder holding the demo files), and write what they say."""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pyarrow.parquet as pq

from coscore.cli import main
from coscore.io import open_reader

ROOT = Path(__file__).parent.parent
BLOCK = re.search(r"<!-- formats -->\n```sh\n(.*?)```", (ROOT / "docs" / "commands.md").read_text(encoding="utf-8"), re.S)


def test_readme_format_examples_run(tmp_path, monkeypatch, capsys):
    assert BLOCK, "docs/commands.md's formats block is missing"
    shutil.copytree(ROOT / "coscore" / "data" / "demo", tmp_path / "coscore" / "data" / "demo")
    monkeypatch.chdir(tmp_path)
    variables: dict[str, str] = {}
    statuses = []
    for line in BLOCK.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line.split()[0]:
            name, value = line.split("=", 1)
            variables[name] = value
            continue
        words = [variables.get(w[1:], w) if w.startswith("$") else w for w in shlex.split(line)]
        assert words[0] == "coscore"
        statuses.append(main([*words[1:], "--no-progress"]))
    assert statuses == [0, 0, 0, 0, 0, 0, 0, 2]
    assert "lab.txt" in capsys.readouterr().err
    rows = pq.read_table("lab.parquet").num_rows
    for name in ("lab.tsv", "lab.jsonl", "lab.xlsx", "lab.parquet"):
        with open_reader(name) as reader:
            chunks = list(reader.chunks())
        assert all("coscore_score" in chunk.columns for chunk in chunks)
        assert sum(len(chunk) for chunk in chunks) == rows
    raw = Path("excel.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert all(len(cell.split(".")[1]) <= 1 for cell in re.findall(rb",(\d+\.\d+),", raw)[:50] for cell in [cell.decode()])
    with open_reader("twice.csv") as reader:
        assert sum(len(chunk) for chunk in reader.chunks()) == 2 * rows
    assert not Path("lab.txt").exists()
