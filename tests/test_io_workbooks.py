"""Legacy ``.xls`` and OpenDocument ``.ods`` workbooks (issue 26, item 1: "where the reader
can"): read by fastexcel in a child process under a memory budget, as ``.xlsx`` is read (the
same header, cells, row numbers, sheets and cell limit); a workbook that asks for more
memory than the budget, or is damaged, is one line."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from coscore.io import InputError, open_reader
from coscore.io.excel.workbook_child import read_sheet

pytest.importorskip("fastexcel")

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


def _read(path, **options):
    with open_reader(path, **options) as reader:
        chunks = list(reader.chunks())
        columns = list(reader.columns)
        sheets = reader.sheets
    values = {name: [v for chunk in chunks for v in chunk.pylist(name)] for name in columns}
    return columns, values, [line for chunk in chunks for line in chunk.lines], sheets


def _cell(text: str, repeat: int = 1) -> str:
    times = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    return f'<table:table-cell{times} office:value-type="string"><text:p>{text}</text:p></table:table-cell>'


def _ods(path: Path, tables: list[tuple[str, str]]) -> None:
    """An OpenDocument spreadsheet of ``tables`` (name, rows' XML)."""
    body = "".join(f'<table:table table:name="{name}">{rows}</table:table>' for name, rows in tables)
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
               f'<office:body><office:spreadsheet>{body}</office:spreadsheet></office:body></office:document-content>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        book.writestr("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                      'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry '
                      'manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                      '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                      '</manifest:manifest>')
        book.writestr("content.xml", content)


def _row(*cells: str, repeat: int = 1) -> str:
    times = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{times}>" + "".join(cells) + "</table:table-row>"


def test_an_xls_workbook_is_read_as_an_xlsx_one():
    columns, values, lines, sheets = _read(DATA / "answers.xls")
    assert sheets == ["答案", "other"] and columns == ["id", "q1", "q2"]
    assert values == {"id": ["1", "2", "3", "4.5"], "q1": ["变换车道后停车", "车道", "", "中文🎉"],
                      "q2": ["笔纸尺", "true", "左转 变道", "x"]}
    assert lines == [2, 3, 4, 5]
    assert _read(DATA / "answers.xls", sheet="other")[1] == {"name": ["v"]}
    assert _read(DATA / "answers.xls", sheet=2)[1] == {"name": ["v"]}
    with pytest.raises(InputError, match="no sheet 'nope'"):
        _read(DATA / "answers.xls", sheet="nope")
    with pytest.raises(InputError, match=r"row 2, column 'B'.*more than 5 characters"):
        _read(DATA / "answers.xls", max_cell_chars=5)


def test_an_ods_workbook_is_read_as_an_xlsx_one(tmp_path):
    _ods(tmp_path / "a.ods", [("答案", _row(_cell("id"), _cell("q")) + _row(_cell("1"), _cell("车道"))
                                + _row() + _row(_cell("2"), _cell("x"), repeat=3)
                                + _row('<table:table-cell table:number-columns-repeated="1024"/>', repeat=1048000)),
                               ("two", _row(_cell("name")) + _row(_cell("v")))])
    columns, values, lines, sheets = _read(tmp_path / "a.ods")
    assert sheets == ["答案", "two"] and columns == ["id", "q"]
    assert values == {"id": ["1", "2", "2", "2"], "q": ["车道", "x", "x", "x"]}
    assert lines == [2, 4, 5, 6]
    assert _read(tmp_path / "a.ods", sheet="two")[1] == {"name": ["v"]}


def test_workbooks_that_ask_for_too_much_are_one_line(tmp_path):
    _ods(tmp_path / "cells.ods", [("S", _row(_cell("x", 16384), repeat=1048576))])   # 17 billion cells
    with pytest.raises(InputError, match=r"not a readable workbook.*Cell limit exceeded") as caught:
        _read(tmp_path / "cells.ods")
    assert "\n" not in str(caught.value)
    # within the reader's own cap, past a small budget: the child dies, the refusal is one line
    _ods(tmp_path / "memory.ods", [("S", _row(_cell("id")) + _row(_cell("中" * 100, 16000), repeat=2000))])
    assert (tmp_path / "memory.ods").stat().st_size < 10_000
    with pytest.raises(InputError, match="needs more than 600 MiB of memory"):
        read_sheet(str(tmp_path / "memory.ods"), "memory.ods", None, ".ods", memory=600 << 20)
    with pytest.raises(InputError, match=r"took more than 0\.01 s"):
        read_sheet(str(tmp_path / "memory.ods"), "memory.ods", None, ".ods", seconds=0.01)


def test_damaged_workbooks_are_one_line(tmp_path):
    (tmp_path / "bad.xls").write_bytes(b"\xd0\xcf\x11\xe0 not really")
    (tmp_path / "bad.ods").write_bytes(b"PK\x03\x04 not really")
    for name in ("bad.xls", "bad.ods"):
        with pytest.raises(InputError, match="not a readable workbook") as caught:
            _read(tmp_path / name)
        assert "\n" not in str(caught.value) and name in str(caught.value)
    with pytest.raises(InputError, match="no such file"):
        _read(tmp_path / "none.ods")


def test_the_command_scores_an_xls_workbook(tmp_path):
    rule = tmp_path / "rule.json"
    rule.write_text('{"atoms": {"0": {"type": "SM", "desc": "车道"}}, "combos": {"A": {"combo": "M(0,T(0))", '
                    '"score": 5, "mode": "value"}}, "comboMode": "ADD"}', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "coscore", "score", str(rule), str(DATA / "answers.xls"),
                          "--blanks", "q1", "-o", str(tmp_path / "out.csv"), "--no-progress"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("id,q1,q2,coscore_score") and [line.split(",")[3] for line in lines[1:]] == \
        ["5.0", "5.0", "0.0", "0.0"]
