"""The reading options of the command (``--encoding``, ``--sheet``, ``--max-cell-chars``) on
every subcommand that reads data: a GB18030, a UTF-16 (BOM) and a UTF-8-with-BOM file score
exactly as the UTF-8 file; a GBK file without the flag is one line naming ``--encoding``."""
from __future__ import annotations

from pathlib import Path

import pytest

from coscore.cli import main

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
RULE = str(DEMO / "lane-change.rule.json")


@pytest.fixture()
def encoded(tmp_path: Path) -> Path:
    text = (DEMO / "lane-change.csv").read_text(encoding="utf-8")
    (tmp_path / "utf8.csv").write_text(text, encoding="utf-8")
    (tmp_path / "gb.csv").write_bytes(text.encode("gb18030"))
    (tmp_path / "u16.csv").write_bytes(text.encode("utf-16"))
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    return tmp_path


@pytest.mark.parametrize("name,encoding", [("gb.csv", "gb18030"), ("gb.csv", "auto"), ("u16.csv", "auto"),
                                           ("bom.csv", "auto"), ("u16.csv", "utf-16")])
def test_encoded_files_score_as_the_utf8_file(encoded, capsys, name, encoding):
    def run(data: str, out: str, *more: str) -> bytes:
        assert main(["score", RULE, str(encoded / data), "--format", "coscore", "-o", str(encoded / out),
                     "--no-progress", *more]) == 0
        return (encoded / out).read_bytes()

    assert run(name, "got.csv", "--encoding", encoding) == run("utf8.csv", "want.csv")
    err = capsys.readouterr().err
    assert (f"{name}: read as" in err) == (encoding == "auto")


def test_a_gbk_file_without_the_flag_is_one_line_naming_encoding(encoded, capsys):
    assert main(["score", RULE, str(encoded / "gb.csv"), "--format", "coscore", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--encoding" in err[0] and "line 2" in err[0]


@pytest.mark.parametrize("command", [["check", RULE, "--data"], ["explain", RULE], ["compare"], ["tune", RULE],
                                     ["suggest", RULE]])
def test_every_command_that_reads_data_takes_the_encoding(encoded, capsys, command):
    data = str(encoded / "gb.csv")
    args = [*command, data, "--format", "coscore", "--encoding", "gb18030"]
    if command[0] == "explain":
        args += ["--row", "1"]
    if command[0] == "compare":
        args = ["compare", data, "--label", "score", RULE, "--format", "coscore", "--encoding", "gb18030",
                "--resamples", "50"]
    if command[0] in ("tune", "suggest"):
        args += ["--label", "score"]
    assert main(args) == 0, capsys.readouterr().err


def test_a_cell_over_the_limit_is_one_line(encoded, capsys):
    assert main(["score", RULE, str(encoded / "utf8.csv"), "--format", "coscore", "--max-cell-chars", "5",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line" in err[0]


def test_a_sheet_by_name_or_number(tmp_path, capsys):
    xlsxwriter = pytest.importorskip("xlsxwriter")
    book = xlsxwriter.Workbook(str(tmp_path / "two.xlsx"))
    for name, answer in (("first", "x"), ("answers", "左转")):
        sheet = book.add_worksheet(name)
        sheet.write_row(0, 0, ["id", "answer"])
        sheet.write_row(1, 0, ["1", answer])
    book.close()
    for sheet in ("answers", "2"):
        out = tmp_path / f"out-{sheet}.csv"
        assert main(["score", RULE, str(tmp_path / "two.xlsx"), "--sheet", sheet, "-o", str(out),
                     "--no-progress"]) == 0
        assert "左转" in out.read_text(encoding="utf-8")
    assert main(["score", RULE, str(tmp_path / "two.xlsx"), "--sheet", "nope", "--no-progress"]) == 2
    assert "nope" in capsys.readouterr().err


def test_reading_a_workbook_is_announced_where_the_bar_would_be(tmp_path, capsys):
    """A workbook is read whole before the first row is scored: with the bar on, stderr
    says so first (a CSV file's bar starts at once)."""
    data = Path(__file__).parent / "data" / "answers.xls"
    assert main(["score", RULE, str(data), "--blanks", "q1", "-o", str(tmp_path / "out.csv"), "--progress"]) == 0
    assert capsys.readouterr().err.startswith(f"reading {data} (a workbook is read whole")
    assert main(["score", RULE, str(data), "--blanks", "q1", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["score", RULE, str(DEMO / "lane-change.csv"), "--format", "coscore", "-o", str(tmp_path / "c.csv"),
                 "--progress"]) == 0
    assert "reading" not in capsys.readouterr().err
