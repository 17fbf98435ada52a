"""Header rows (issue 35, item 3): a teacher's sheet with a title row above its header.

``--header-row N`` names the row (CSV: the line) of the column names, for .xlsx, .xls,
.ods, CSV and TSV; by default a first row holding one value alone above a row of two or
more is a title, skipped, and said on stderr in one line. Errors that come from the header
name the row taken and ``--header-row``; row and line numbers stay the file's own."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from coscore.cli import main
from coscore.io import InputError, open_reader

xlsxwriter = pytest.importorskip("xlsxwriter")
pytest.importorskip("fastexcel")

DATA = Path(__file__).parent / "data"
TITLE = "2026 期中 第5题"
HEADER = ["学号", "班级", "第1空", "第2空", "教师A", "教师B"]
ROWS = [["S00001", "1班", "我爱祖国", "爱", "3", "3"], ["S00002", "2班", "不知道", "无", "0", "1"]]
SAID = ("header: row 2 (学号, 班级, 第1空, …); the title row 1 ('2026 期中 第5题') was skipped — "
        "give --header-row to choose another")
RULE = {"atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}},
        "combos": {"A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
                   "B": {"combo": "G(0, T(1))", "score": 1, "mode": "logic"}},
        "comboMode": "ADD"}


def _read(path, **options):
    """(columns, values by column, row/line numbers, what on_header was told)."""
    told: list[tuple[str, str]] = []
    with open_reader(path, on_header=lambda source, what: told.append((source, what)), **options) as reader:
        chunks = list(reader.chunks())
        columns = list(reader.columns)
        lines = [line for chunk in chunks for line in chunk.lines]  # found by reading again: while open
    values = {name: [v for chunk in chunks for v in chunk.pylist(name)] for name in columns}
    return columns, values, lines, told


def _sheet(path, rows, *, merge: bool = True, at: tuple[int, int] = (0, 0)) -> None:
    """A workbook whose sheet '第5题' holds the title in its first row (merged across the
    columns with ``merge``) and ``rows`` below it, from cell ``at``."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("第5题")
    top, left = at
    if merge:
        sheet.merge_range(top, left, top, left + len(HEADER) - 1, TITLE, book.add_format({"align": "center"}))
    else:
        sheet.write(top, left, TITLE)
    for r, row in enumerate(rows, top + 1):
        for c, value in enumerate(row, left):
            if value is not None:
                sheet.write(r, c, value)
    book.close()


def _expected(columns=HEADER, rows=ROWS):
    return {name: [row[i] for row in rows] for i, name in enumerate(columns)}


# -- workbooks -----------------------------------------------------------------------------


@pytest.mark.parametrize("merge", [True, False])
def test_a_title_row_above_the_header_is_skipped_and_said(tmp_path, merge):
    path = tmp_path / "teacher.xlsx"
    _sheet(path, [HEADER, *ROWS], merge=merge)
    columns, values, lines, told = _read(path)
    assert columns == HEADER and values == _expected()
    assert lines == [3, 4]  # the sheet's own rows
    assert told == [(str(path), SAID)]


def test_the_header_row_given_reads_from_there_and_says_nothing(tmp_path):
    path = tmp_path / "teacher.xlsx"
    _sheet(path, [HEADER, *ROWS])
    columns, values, lines, told = _read(path, header_row=2)
    assert (columns, values, lines, told) == (HEADER, _expected(), [3, 4], [])
    path = tmp_path / "notes.xlsx"
    _sheet(path, [["notes", "by", "the", "teacher"], HEADER, *ROWS])
    columns, values, lines, _ = _read(path, header_row=3)  # the rows above are skipped, whatever they hold
    assert columns == HEADER and values == _expected() and lines == [4, 5]


def test_the_header_row_1_of_a_titled_sheet_names_the_row_and_the_flag(tmp_path):
    path = tmp_path / "teacher.xlsx"
    _sheet(path, [HEADER, *ROWS])
    with pytest.raises(InputError) as caught:
        _read(path, header_row=1)
    message = str(caught.value)
    assert "row 2: sheet '第5题': a value beyond the 1 named columns (cell B2); the header is row 1" in message
    assert "--header-row N" in message and "\n" not in message


def test_header_errors_name_the_row_taken_and_the_flag(tmp_path):
    repeated = tmp_path / "repeated.xlsx"
    _sheet(repeated, [["学号", "班级", "学号"], ["S1", "1班", "x"]])
    with pytest.raises(InputError, match=r"row 2, column '学号': sheet '第5题': the header \(row 2, below the title "
                       r"in row 1\) has an empty or repeated column name \(cell C2\); .*--header-row N"):
        _read(repeated)
    beyond = tmp_path / "beyond.xlsx"
    _sheet(beyond, [["学号", "第1空"], ["S1", "a", "stray"]])
    with pytest.raises(InputError, match=r"row 3: .*beyond the 2 named columns \(cell C3\); the header is row 2, "
                       r"below the title in row 1; .*--header-row N"):
        _read(beyond)
    with pytest.raises(InputError, match=r"row 9: sheet '第5题': row 9 \(--header-row 9\) holds no value; its last "
                       r"row with a value is row 3; give the row that holds the column names"):
        _read(tmp_path / "repeated.xlsx", header_row=9)
    empty_row = tmp_path / "gap.xlsx"
    _sheet(empty_row, [[], HEADER, *ROWS])
    with pytest.raises(InputError, match=r"row 2 \(--header-row 2\) holds no value"):
        _read(empty_row, header_row=2)


def test_anything_else_ambiguous_stays_an_error(tmp_path):
    """Two values in the first row are no title: the header is that row, and the error says
    which row it took and how to choose another."""
    book = xlsxwriter.Workbook(str(tmp_path / "two.xlsx"))
    sheet = book.add_worksheet("s")
    sheet.write_row(0, 0, [TITLE, "期中"])
    for r, row in enumerate([HEADER, *ROWS], 1):
        sheet.write_row(r, 0, row)
    book.close()
    with pytest.raises(InputError, match=r"row 2: .*beyond the 2 named columns \(cell C2\); the header is row 1; "
                       r".*--header-row N"):
        _read(tmp_path / "two.xlsx")
    one = tmp_path / "one.xlsx"  # one value above one value: a one-column table, as ever
    _sheet(one, [["x"], ["y"]], merge=False)
    assert _read(one)[:3] == ([TITLE], {TITLE: ["x", "y"]}, [2, 3], )


def test_a_title_outside_the_table_columns_is_left_out(tmp_path):
    """The title in A1 over a table from B2, and a title in C3 over a table from B5: the
    columns that hold nothing but the title are not part of the table."""
    path = tmp_path / "b2.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("s")
    sheet.write(0, 0, TITLE)
    for r, row in enumerate([HEADER, *ROWS], 1):
        sheet.write_row(r, 1, row)
    book.close()
    columns, values, lines, told = _read(path)
    assert columns == HEADER and values == _expected() and lines == [3, 4] and len(told) == 1
    path = tmp_path / "c3.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("s")
    sheet.write(2, 2, TITLE)
    for r, row in enumerate([HEADER, *ROWS], 4):
        sheet.write_row(r, 1, row)
    book.close()
    columns, values, lines, told = _read(path)
    assert columns == HEADER and lines == [6, 7]
    assert told[0][1].startswith("header: row 5 (学号, 班级, 第1空, …); the title row 3 (")


def _ods(path: Path, rows: str) -> None:
    from test_io_workbooks import _ods as make

    make(path, [("第5题", rows)])


def test_an_ods_title_merged_across_the_columns(tmp_path):
    from test_io_workbooks import _cell, _row

    merged = (f'<table:table-cell table:number-columns-spanned="{len(HEADER)}" office:value-type="string">'
              f"<text:p>{TITLE}</text:p></table:table-cell>" + "<table:covered-table-cell/>" * (len(HEADER) - 1))
    body = _row(merged) + "".join(_row(*(_cell(v) for v in row)) for row in [HEADER, *ROWS])
    _ods(tmp_path / "t.ods", body)
    columns, values, lines, told = _read(tmp_path / "t.ods")
    assert (columns, values, lines) == (HEADER, _expected(), [3, 4])
    assert told == [(str(tmp_path / "t.ods"), SAID)]
    assert _read(tmp_path / "t.ods", header_row=2)[3] == []
    with pytest.raises(InputError, match=r"row 2: .*beyond the 1 named columns.*the header is row 1.*--header-row"):
        _read(tmp_path / "t.ods", header_row=1)


def test_an_xls_header_row(tmp_path):
    columns, values, lines, told = _read(DATA / "answers.xls", header_row=2)
    assert columns == ["1", "变换车道后停车", "笔纸尺"] and lines == [3, 4, 5] and told == []
    assert values["1"] == ["2", "3", "4.5"]
    assert _read(DATA / "answers.xls")[0] == ["id", "q1", "q2"]  # no title: as ever


# -- CSV and TSV ---------------------------------------------------------------------------


def _csv(rows, title: str | None = TITLE, *, sep: str = ",", end: str = "\n", pad: bool = False) -> str:
    lines = [] if title is None else [title + sep * (len(HEADER) - 1 if pad else 0)]
    return "".join(line + end for line in lines + [sep.join(row) for row in rows])


@pytest.mark.parametrize("text, header_line", [
    (_csv([HEADER, *ROWS]), 2),
    (_csv([HEADER, *ROWS], pad=True), 2),                                 # Excel's export of a merged title
    ("\ufeff" + _csv([HEADER, *ROWS], end="\r\n").replace("\r\n", "\r\n\r\n", 1), 3),  # BOM, CRLF, a blank line
    (_csv([HEADER, *ROWS], end="\r"), 2),                                 # old Mac line ends
])
def test_a_csv_title_line_is_skipped_and_said(tmp_path, text, header_line):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode("utf-8"))
    columns, values, lines, told = _read(path)
    assert columns == HEADER and values == _expected()
    assert lines == [header_line + 1, header_line + 2]
    assert told == [(str(path), SAID.replace("row 2", f"line {header_line}").replace("row 1", "line 1"))]
    assert _read(path, header_row=header_line)[:3] == (HEADER, _expected(), lines)


def test_a_tsv_title_line_and_other_encodings_and_stdin(tmp_path, monkeypatch):
    path = tmp_path / "t.tsv"
    path.write_text(_csv([HEADER, *ROWS], sep="\t"), encoding="utf-8")
    assert _read(path)[:3] == (HEADER, _expected(), [3, 4])
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes(_csv([HEADER, *ROWS]).encode("gb18030"))
    columns, values, lines, told = _read(gbk, encoding="gb18030")
    assert (columns, values, lines) == (HEADER, _expected(), [3, 4]) and len(told) == 1
    assert _read(gbk, encoding="gb18030", header_row=2)[:3] == (HEADER, _expected(), [3, 4])


def test_the_csv_header_line_given(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('"an ""odd"", unclosed title\n' + _csv([HEADER, *ROWS], title="more notes"), encoding="utf-8")
    columns, values, lines, told = _read(path, header_row=3)  # the lines above are skipped as they are
    assert (columns, values, lines, told) == (HEADER, _expected(), [4, 5], [])
    with pytest.raises(InputError, match=r"t.csv: line 9: the file ends before line 9 \(--header-row 9\)"):
        _read(path, header_row=9)
    with pytest.raises(InputError, match=r"line 3: 6 fields, but the header has 1 \(line 2\); .*--header-row N"):
        _read(path, header_row=2)


def test_csv_header_errors_name_the_line_and_the_flag(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_csv([["学号", "班级", "学号"], ["1", "2", "3"]]), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2, column '学号': the header \(line 2\) names this column twice; "
                       r".*--header-row N"):
        _read(path)
    path.write_text(_csv([["学号", "班级"], ["1", "2"]], title="a,b") + "x,y,z\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 4: 3 fields, but the header has 2 \(line 1\)$"):
        _read(path)  # two values: no title; a data line further down says no more than its fault


@pytest.mark.parametrize("text, values, lines", [
    ("answer\nx\ny\n", {"answer": ["x", "y"]}, [2, 3]),     # a one-column file: its second line is data
    ("answer\n\nx\n", {"answer": ["", "x"]}, [2, 3]),       # a blank line of a one-column file is an answer
    ("answer\n\n\n", {"answer": ["", ""]}, [2, 3]),
])
def test_what_is_no_title_reads_as_ever(tmp_path, text, values, lines):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    assert _read(path) == (["answer"], values, lines, [])


def test_the_coscore_layouts_header_is_no_title(tmp_path):
    """``text`` alone above a line with a comma is the original layout, as the commands'
    look at a CSV's header finds it (read as CSV, it has the column ``text``)."""
    path = tmp_path / "t.csv"
    path.write_text("text\n换-车道,3\n", encoding="utf-8")
    told: list[str] = []
    with open_reader(path, on_header=lambda source, what: told.append(what)) as reader:
        assert reader.columns == ["text"] and told == []
    assert _read(path, fmt="coscore")[:3] == (["text"], {"text": ["换-车道"]}, [2])


def test_the_header_row_is_refused_where_the_format_names_its_columns(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"answer": "x"}\n', encoding="utf-8")
    (tmp_path / "a.txt").write_text("text\nx\n", encoding="utf-8")
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.table({"answer": ["x"]}), tmp_path / "a.parquet")
    for name, fmt, why in [("a.jsonl", None, "JSON Lines names its columns"), ("a.parquet", None, "Parquet names"),
                           ("a.txt", "coscore", "the coscore layout's header is its first line")]:
        with pytest.raises(InputError, match=rf"{name}: a header row \(--header-row\) is for CSV, TSV and .xlsx.*"
                           rf"{why}"):
            _read(tmp_path / name, fmt=fmt, header_row=2)
    with pytest.raises(InputError, match="a row number from 1"):
        _read(tmp_path / "a.jsonl", fmt="csv", header_row=0)


# -- the command ---------------------------------------------------------------------------


@pytest.fixture
def teacher(tmp_path):
    (tmp_path / "rule.json").write_text(json.dumps(RULE), encoding="utf-8")
    _sheet(tmp_path / "teacher.xlsx", [HEADER, *ROWS])
    (tmp_path / "teacher.csv").write_text(_csv([HEADER, *ROWS]), encoding="utf-8")
    return tmp_path


def _score(folder, data, *extra):
    out = folder / "out.jsonl"
    status = main(["score", str(folder / "rule.json"), str(folder / data), "--blanks", "第1空,第2空",
                   "--label", "教师A", "-o", str(out), "--no-progress", *extra])
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if status == 0 else []
    return status, rows


@pytest.mark.parametrize("data, unit", [("teacher.xlsx", "row"), ("teacher.csv", "line")])
def test_score_with_the_header_row_and_by_default(teacher, capsys, data, unit):
    status, rows = _score(teacher, data, "--header-row", "2")
    assert status == 0 and capsys.readouterr().err == ""
    assert [r["学号"] for r in rows] == ["S00001", "S00002"]
    assert [r["coscore_score"] for r in rows] == [5.0, 0.0]
    status, default = _score(teacher, data)
    err = capsys.readouterr().err
    assert status == 0 and default == rows
    source = str(teacher / data)
    assert err == f"coscore: {source}: " + SAID.replace("row 2", f"{unit} 2").replace("row 1", f"{unit} 1") + "\n"


def test_score_header_errors_are_one_line_with_exit_2(teacher, capsys):
    for args, words in [(("--header-row", "1"), ["row 2", "beyond the 1 named columns (cell B2)", "--header-row"]),
                        (("--header-row", "0"), ["--header-row", "expected a positive integer"]),
                        (("--header-row", "3"), ["row 3", "empty or repeated column name (cell F3)", "--header-row"]),
                        (("--header-row", "4"), ["row 4", "no such column", "教师A"])]:
        try:
            status, _ = _score(teacher, "teacher.xlsx", *args)
        except SystemExit as exc:  # argparse's refusal: its usage, then one line
            status = exc.code
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert status == 2 and "Traceback" not in err, err
        assert all(word in err for word in words), err
    status, _ = _score(teacher, "teacher.csv", "--header-row", "4")
    err = capsys.readouterr().err.strip()
    assert status == 2 and "line 4, column '教师A': no such column" in err  # the header's line, not line 1


@pytest.mark.parametrize("command", ["check", "tune", "suggest", "explain", "report"])
def test_every_command_that_reads_data_takes_the_header_row(teacher, capsys, command):
    rule, data = str(teacher / "rule.json"), str(teacher / "teacher.xlsx")
    args = {"check": ["check", rule, "--data", data, "--blanks", "第1空,第2空", "--label", "教师A"],
            "tune": ["tune", rule, data, "--blanks", "第1空,第2空", "--label", "教师A"],
            "suggest": ["suggest", rule, data, "--blanks", "第1空,第2空", "--label", "教师A"],
            "explain": ["explain", rule, data, "--blanks", "第1空,第2空", "--row", "1"],
            "report": ["report", data, "--label", "教师A", "--rule", rule, "--blanks", "第1空,第2空"]}[command]
    main([*args, "--header-row", "1"])
    err = capsys.readouterr().err
    assert "the header is row 1" in err and "--header-row N" in err, err
    main([*args, "--header-row", "2"])
    assert "the header is row" not in capsys.readouterr().err
