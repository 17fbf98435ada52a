"""Excel workbooks (issue 26, item 1; issue 25's cell bounds): .xlsx read by fastexcel after
the bounds check, written column-wise; sheets; text stays text; hostile workbooks are one
line, in bounded memory."""
from __future__ import annotations

import zipfile

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coscore.io import Chunk, InputError, open_reader, open_writer
from coscore.io.excel.workbook_guard import RATIO
from support import examples

xlsxwriter = pytest.importorskip("xlsxwriter")

#: Every character an .xlsx can hold: all of Unicode but surrogates, U+FFFE and U+FFFF.
STORABLE = st.characters(exclude_categories=("Cs",), exclude_characters="\ufffe\uffff")


def _write(path, columns: dict, types: dict | None = None) -> None:
    n = len(next(iter(columns.values())))
    with open_writer(path) as writer:
        writer.write(Chunk(list(columns), columns, range(2, n + 2), "row", "test", None, types or {}))


def _read(path, **options) -> tuple[list[str], dict, list[int]]:
    with open_reader(path, **options) as reader:
        chunks = list(reader.chunks())
        columns = list(reader.columns)
    values = {name: [v for chunk in chunks for v in chunk.pylist(name)] for name in columns}
    return columns, values, [line for chunk in chunks for line in chunk.lines]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(STORABLE, max_size=20), min_size=1, max_size=8))
def test_any_storable_text_round_trips(tmp_path, texts):
    """Control characters, carriage returns, '_x0041_', '&<>', '=1+1', leading spaces: as written."""
    path = tmp_path / "round.xlsx"
    _write(path, {"id": [str(i) for i in range(len(texts))], "text": texts})
    columns, values, lines = _read(path)
    assert columns == ["id", "text"]
    assert values["text"] == texts
    assert lines == list(range(2, len(texts) + 2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.text(STORABLE, max_size=6)),
                               st.one_of(st.none(), st.just(float("nan")), st.integers(-5, 5).map(float)),
                               st.text(STORABLE, max_size=6)), min_size=1, max_size=8))
def test_empty_cells_keep_the_places_of_the_cells_after_them(tmp_path, rows):
    """Cells carry no reference: an empty one (a null, NaN) is written as ``<c/>`` and the
    cells after it stay in their columns."""
    path = tmp_path / "places.xlsx"
    _write(path, {"a": pa.array([r[0] for r in rows], pa.string()), "score": pa.array([r[1] for r in rows], pa.float64()),
                  "b": [r[2] for r in rows]})
    _, values, lines = _read(path)
    assert values["a"] == ["" if r[0] is None else r[0] for r in rows]
    assert values["score"] == ["" if r[1] is None or r[1] != r[1] else f"{r[1]:g}" for r in rows]
    assert values["b"] == [r[2] for r in rows]
    assert lines == list(range(2, len(rows) + 2))


@pytest.mark.parametrize("bad", ["\ufffe", "\uffff", "a\ud800"])
def test_characters_no_workbook_holds_are_refused_with_the_row(tmp_path, bad):
    with pytest.raises(InputError, match=r"row 3, column 'text'.*cannot store"):
        _write(tmp_path / "bad.xlsx", {"text": ["ok", bad]})


def test_numbers_stay_numbers_and_text_stays_text(tmp_path):
    path = tmp_path / "typed.xlsx"
    _write(path, {"text": pa.array(["=1+1", "", None]), "score": pa.array([0.5, float("nan"), float("inf")]),
                  "n": pa.array([1, 2, None]), "ok": pa.array([True, False, None])})
    sheet = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    rows = sheet.split("<row ")[1:]
    assert ' r="A' not in sheet  # cells carry no reference: each row lists its cells in order
    assert rows[1] == ('r="2"><c t="inlineStr"><is><t>=1+1</t></is></c><c><v>0.5</v></c><c><v>1</v></c>'
                       '<c t="b"><v>1</v></c></row>')
    assert rows[2].startswith('r="3"><c t="inlineStr"><is><t></t></is></c><c/>')  # NaN: an empty cell
    assert rows[3].startswith('r="4"><c/>')  # null: an empty cell that holds its place
    _, values, _ = _read(path)
    assert values == {"text": ["=1+1", "", ""], "score": ["0.5", "", "inf"], "n": ["1", "2", ""],
                      "ok": ["true", "false", ""]}


def _book(path, sheets: dict) -> None:
    book = xlsxwriter.Workbook(str(path))
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value is not None:
                    sheet.write(r, c, value)
    book.close()


def test_sheets_by_name_or_number_and_excel_values(tmp_path):
    path = tmp_path / "book.xlsx"
    _book(path, {"first": [["id", "answer"], [1, "甲"]],
                 "2024": [[None], [None, "id", "answer", None], [None, 7, 0.5], [], [None, 42, 1 / 3]]})
    assert _read(path)[1] == {"id": ["1"], "answer": ["甲"]}
    for sheet in ("2024", 2):  # a name (even one of digits); a number from 1
        columns, values, lines = _read(path, sheet=sheet)
        assert columns == ["id", "answer"]  # the header: the first row with a value, from its first cell
        assert values == {"id": ["7", "42"], "answer": ["0.5", "0.333333333"]}
        assert lines == [3, 5]  # the sheet's rows; the empty row 4 is skipped
    assert _read(path, sheet="1")[1] == {"id": ["1"], "answer": ["甲"]}  # 1-based when no sheet has that name
    with pytest.raises(InputError, match=r"no sheet 'third' \(sheets: 'first', '2024'"):
        _read(path, sheet="third")
    (tmp_path / "x.csv").write_text("a\n1\n")
    with pytest.raises(InputError, match=r"a sheet \(--sheet\) is for \.xlsx"), open_reader(tmp_path / "x.csv", sheet="x"):
        pass


def test_bad_headers_and_stray_values_name_the_cell(tmp_path):
    _book(tmp_path / "a.xlsx", {"s": [["id", None, "x"], [1, 2, 3]]})
    with pytest.raises(InputError, match=r"row 1.*empty or repeated column name \(cell B1\)"):
        _read(tmp_path / "a.xlsx")
    _book(tmp_path / "b.xlsx", {"s": [["id", "x"], [1, 2], [3, 4, 5]]})
    with pytest.raises(InputError, match=r"row 3.*beyond the 2 named columns \(cell C3\)"):
        _read(tmp_path / "b.xlsx")
    _book(tmp_path / "c.xlsx", {"s": []})
    with pytest.raises(InputError, match="is empty; expected a header row"):
        _read(tmp_path / "c.xlsx")
    # a grid that starts at column C: the letters are the sheet's, not the grid's
    _book(tmp_path / "d.xlsx", {"s": [[], [None, None, "id", "id"], [None, None, 1, 2]]})
    with pytest.raises(InputError, match=r"row 2.*empty or repeated column name \(cell D2\)"):
        _read(tmp_path / "d.xlsx")
    _book(tmp_path / "e.xlsx", {"s": [[None, None, "id"], [None, None, 1], [None, None, 3, None, 5]]})
    with pytest.raises(InputError, match=r"row 3.*beyond the 1 named columns \(cell E3\)"):
        _read(tmp_path / "e.xlsx")


# -- hostile workbooks -------------------------------------------------------------------

_NS = "http://schemas.openxmlformats.org"


def _hostile(path, sheet: bytes, shared: bytes | None = None) -> None:
    """A workbook of one sheet whose parts are given as they are (deflated)."""
    rels = (f'<Relationships xmlns="{_NS}/package/2006/relationships"><Relationship Id="rId1" '
            f'Type="{_NS}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            + (f'<Relationship Id="rId2" Type="{_NS}/officeDocument/2006/relationships/sharedStrings" '
               'Target="sharedStrings.xml"/>' if shared is not None else "") + "</Relationships>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as book:
        book.writestr("_rels/.rels", f'<Relationships xmlns="{_NS}/package/2006/relationships"><Relationship '
                      f'Id="rId1" Type="{_NS}/officeDocument/2006/relationships/officeDocument" '
                      'Target="xl/workbook.xml"/></Relationships>')
        book.writestr("xl/workbook.xml", f'<workbook xmlns="{_NS}/spreadsheetml/2006/main" xmlns:r="{_NS}/'
                      'officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/>'
                      '</sheets></workbook>')
        book.writestr("xl/_rels/workbook.xml.rels", rels)
        book.writestr("xl/worksheets/sheet1.xml", sheet)
        if shared is not None:
            book.writestr("xl/sharedStrings.xml", shared)


def _sheet(*cells: bytes) -> bytes:
    head = (b'<c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>answer</t></is></c>')
    rows = b"".join(b'<row r="%d">' % (i + 2) + cell + b"</row>" for i, cell in enumerate(cells))
    return (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
            b'<row r="1">' + head + b"</row>" + rows + b"</sheetData></worksheet>")


def _sst(*strings: bytes) -> bytes:
    return (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            + b"".join(b"<si><t>" + s + b"</t></si>" for s in strings) + b"</sst>")


def _one_line(path, *words, **options):
    with pytest.raises(InputError) as caught:
        _read(path, **options)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400, message
    for word in words:
        assert word in message, message
    return message


def test_a_cell_over_excels_limit_names_row_and_column(tmp_path):
    import random
    import string

    text = "".join(random.Random(1).choice(string.ascii_letters) for _ in range(40000)).encode()
    _hostile(tmp_path / "inline.xlsx", _sheet(b'<c r="A2"><v>1</v></c>',
                                              b'<c r="B3" t="inlineStr"><is><r><t>' + text[:20000] + b"</t></r><r><t>"
                                              + text[20000:] + b"</t></r></is></c>"))
    _one_line(tmp_path / "inline.xlsx", "row 3, column 'B'", "more than 32,767 characters", "--max-cell-chars")
    assert _read(tmp_path / "inline.xlsx", max_cell_chars=50000)[1]["answer"] == ["", text.decode()]
    _hostile(tmp_path / "shared.xlsx", _sheet(b'<c r="B2" t="s"><v>0</v></c>', b'<c r="B3" t="s"><v>1</v></c>'),
             _sst(b"ok", text))
    _one_line(tmp_path / "shared.xlsx", "row 3, column 'B'", "shared string 1")
    escaped = b"&amp;" * 30000  # 150,000 bytes, 30,000 characters: within the limit
    _hostile(tmp_path / "entities.xlsx", _sheet(b'<c r="B2" t="inlineStr"><is><t>' + escaped + b"</t></is></c>"))
    assert _read(tmp_path / "entities.xlsx")[1]["answer"] == ["&" * 30000]


def test_zip_bombs_dtds_and_shared_string_bombs_are_refused(tmp_path):
    _hostile(tmp_path / "bomb.xlsx", _sheet(b'<c r="B2" t="inlineStr"><is><t>' + b"a" * (64 << 20) + b"</t></is></c>"))
    assert zipfile.ZipFile(tmp_path / "bomb.xlsx").getinfo("xl/worksheets/sheet1.xml").compress_size < (1 << 20)
    _one_line(tmp_path / "bomb.xlsx", f"inflates more than {RATIO} times")
    laughs = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
              + _sst(b"&b;"))
    _hostile(tmp_path / "laughs.xlsx", _sheet(b'<c r="B2" t="s"><v>0</v></c>'), laughs)
    _one_line(tmp_path / "laughs.xlsx", "declares a DTD")
    cells = b"".join(b'<c r="B%d" t="s"><v>0</v></c>' % i for i in range(2, 40002))
    _hostile(tmp_path / "ss.xlsx", _sheet(cells), _sst("中".encode() * 30000))
    _one_line(tmp_path / "ss.xlsx", "repeats its shared strings", "sharedStrings bomb")


def _rows(*rows: bytes) -> bytes:
    return (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
            + b"".join(rows) + b"</sheetData></worksheet>")


@pytest.mark.parametrize("name, sheet", [
    # two cells far apart: a grid of 17 billion cells for the reader (it died allocating it)
    ("far", _sheet(b'<c r="A2"><v>1</v></c>', b'<c r="XFD1048576" t="inlineStr"><is><t>x</t></is></c>')),
    # the reference after another attribute; rows out of order
    ("late", _rows(b'<row r="1048576"><c s="0" r="XFD1048576"><v>1</v></c></row>', b'<row r="1"><c r="A1"><v>1</v></c></row>')),
    # leading zeros make a short number look long
    ("zeros", _rows(b'<row r="1"><c r="A0000001"><v>1</v></c></row>', b'<row r="999999"><c r="XFD999999"><v>1</v></c></row>')),
    # cells without a reference follow each other: a wide row, then a far row
    ("wide", _rows(b'<row r="1">' + b"<c><v>1</v></c>" * 20000 + b"</row>", b'<row r="1048576"><c><v>1</v></c></row>')),
    # rows without a number follow each other too
    ("many", _rows(b'<row r="1"><c r="ZZZ1"><v>1</v></c></row>' + b"<row><c><v>1</v></c></row>" * 40000)),
    # a reference past Excel's columns
    ("letters", _rows(b'<row r="1"><c r="A1"><v>1</v></c><c r="ABCDEFGHIJKLMNOP1"><v>1</v></c></row>')),
])
def test_cells_far_apart_are_refused_before_the_reader_holds_their_grid(tmp_path, name, sheet):
    _hostile(tmp_path / f"{name}.xlsx", sheet)
    _one_line(tmp_path / f"{name}.xlsx", "refused", "cells far apart")


_EMPTY_ROWS = (b"<row/>", b'<row r="%d"/>', b"<row></row>", b'<row r="%d"></row>', b'<row r="%d" s="1" ht="15"/>')


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(1, 300), st.integers(1, 60), st.booleans(), st.booleans()), min_size=1,
                max_size=30),
       st.lists(st.tuples(st.integers(0, 30), st.sampled_from(_EMPTY_ROWS), st.integers(1, 400)), max_size=12))
def test_the_grid_bound_is_never_below_the_grid_the_reader_makes(tmp_path, cells, empties):
    """Cells at random places, with or without references, rows with or without numbers,
    empty rows (with or without numbers, self-closing or not) among them: the bound
    (``sheet_grid.Grid``) holds at least the reader's grid."""
    import fastexcel

    from coscore.io.excel.sheet_grid import Grid
    from coscore.io.excel.workbook_guard import _Scanner, check_workbook

    by_row: dict[int, list] = {}
    for row, column, cell_ref, _ in sorted(cells):
        by_row.setdefault(row, []).append((column, cell_ref))
    numbered = {row: any(flag for r, _, _, flag in cells if r == row) for row in by_row}
    xml = []
    for row, row_cells in sorted(by_row.items()):
        body = b"".join((b'<c r="%s%d"><v>1</v></c>' % (_letters(c).encode(), row) if ref else b"<c><v>1</v></c>")
                        for c, ref in sorted(set(row_cells)))
        xml.append((b'<row r="%d">' % row if numbered[row] else b"<row>") + body + b"</row>")
    for at, empty, number in sorted(empties, reverse=True):
        xml.insert(min(at, len(xml)), empty.replace(b"%d", b"%d" % number))
    _hostile(tmp_path / "g.xlsx", _rows(*xml))
    seen: list[Grid] = []
    check = _Scanner.check_grid
    try:
        _Scanner.check_grid = lambda self: seen.append(self.grid)
        check_workbook(str(tmp_path / "g.xlsx"), "g.xlsx", None, 32767)
    finally:
        _Scanner.check_grid = check
    sheet = fastexcel.read_excel(str(tmp_path / "g.xlsx")).load_sheet(0, header_row=None)
    grid = sheet.height * sheet.width   # the reader's grid starts at A1 when it gives no offset
    assert seen[0].size() >= grid


@pytest.mark.parametrize("empty", [b"<row/>", b'<row r="%d" spans="1:200" s="1" customFormat="1" ht="15"/>'])
@pytest.mark.parametrize("layout", [("gap", "header", "data", "data"), ("header", "data", "gap", "data"),
                                    ("header", "data", "data", "gap")])
def test_empty_rows_cost_nothing_and_are_never_a_long_cell(tmp_path, empty, layout):
    """Issue 37: 120,000 empty rows (exporters write them for styled rows) were refused as
    'a cell holds more than 32,767 characters' (the XML after a cell was measured with it),
    and 200 columns over them as cells far apart (rows without a cell counted in the grid).
    Before or among the data rows they are rows of the reader's grid: 20 columns there."""
    parts, lines, n = [], [], 1
    width = 200 if layout[-1] == "gap" else 20
    for item in layout:
        if item == "gap":
            parts.append(b"".join(empty.replace(b"%d", b"%d" % (n + i)) for i in range(120000)))
            n += 120000
            continue
        if item == "header":
            parts.append(b'<row r="%d">' % n + b"".join(b'<c r="%s%d" t="inlineStr"><is><t>c%d</t></is></c>'
                                                      % (_letters(i).encode(), n, i) for i in range(1, width + 1)) + b"</row>")
        else:
            parts.append(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>answer %d</t>'
                         b"</is></c></row>" % (n, n, n, n, n))
            lines.append(n)
        n += 1
    _hostile(tmp_path / "rows.xlsx", _rows(*parts))
    columns, values, read = _read(tmp_path / "rows.xlsx")
    assert len(columns) == width and read == lines
    assert values["c2"] == [f"answer {line}" for line in lines]


def test_a_long_cell_before_empty_rows_is_still_measured(tmp_path):
    """The cell before a run of empty rows is measured to its own end, even when an
    attribute's value looks like the end of a tag."""
    text = b"x" * 40000
    cell = b'<c r="B2" x="/>" t="inlineStr"><is><t>' + text + b"</t></is></c>"
    _hostile(tmp_path / "long.xlsx", _rows(b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c>'
                                           b'<c r="B1" t="inlineStr"><is><t>answer</t></is></c></row>',
                                           b'<row r="2">' + cell + b"</row>",
                                           b"".join(b'<row r="%d" s="1"/>' % n for n in range(3, 200003))))
    _one_line(tmp_path / "long.xlsx", "row 2, column 'B'", "more than 32,767 characters")


def _letters(column: int) -> str:
    from coscore.io.excel.xlsx import column_letter

    return column_letter(column - 1)


def test_the_reader_gets_the_checked_parts_as_they_lie_in_the_file(tmp_path):
    """``copy_parts``: the same names, bytes once inflated and CRCs, without inflating;
    the opener runs while the sheet is checked, and a refused sheet is refused whatever it did."""
    import io

    from coscore.io.excel.workbook_guard import check_workbook, copy_parts

    path = tmp_path / "parts.zip"
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("a.xml", b"<a/>" * 1000, zipfile.ZIP_DEFLATED)
        book.writestr("中文/b.xml", b"stored", zipfile.ZIP_STORED)
        book.writestr("c.xml", b"left out", zipfile.ZIP_DEFLATED)
    raw = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as book:
        infos = [book.getinfo("a.xml"), book.getinfo("中文/b.xml")]
        copied = zipfile.ZipFile(io.BytesIO(copy_parts(raw, infos, "parts.zip")))
        assert copied.namelist() == ["a.xml", "中文/b.xml"]
        assert copied.testzip() is None
        assert copied.read("a.xml") == b"<a/>" * 1000 and copied.read("中文/b.xml") == b"stored"
        assert copied.getinfo("a.xml").compress_size == infos[0].compress_size
    good = tmp_path / "good.xlsx"
    _write(good, {"a": ["x", "y"]})
    seen = []
    book = check_workbook(str(good), "good.xlsx", None, 32767, opener=lambda data: seen.append(data) or "opened")
    assert book.opened == "opened" and seen == [book.data]
    _hostile(tmp_path / "far.xlsx", _sheet(b'<c r="XFD1048576"><v>1</v></c>'))
    with pytest.raises(InputError, match="cells far apart"):
        check_workbook(str(tmp_path / "far.xlsx"), "far.xlsx", None, 32767, opener=lambda data: "opened")

    def fails(data):
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):   # raised once the check has passed
        check_workbook(str(good), "good.xlsx", None, 32767, opener=fails)


@pytest.mark.parametrize("flate", ["isal", "zlib"])
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([0, 1, 3, 65535, 65536, 65537]),
       blocks=st.integers(0, 2), level=st.sampled_from([0, 1, 9]), method=st.sampled_from(["deflated", "stored"]))
def test_parts_inflate_as_zipfile_reads_them_in_whole_blocks(monkeypatch, flate, seed, size, blocks, level, method):
    """The guard's own inflation (ISA-L or zlib) gives zipfile's bytes, in blocks of
    ``BLOCK`` bytes but the last: compressible and incompressible parts around the sizes
    where a block or a piece of input ends."""
    import io
    import random
    import zlib

    from coscore.io.excel import workbook_guard as guard

    if flate == "zlib":
        monkeypatch.setattr(guard, "_zlib", lambda: zlib)
    rng = random.Random(seed)
    length = blocks * guard.BLOCK + size
    four = bytes(b"<c>1"[i % 4] for i in range(256))   # half of it compresses well, half not at all
    data = rng.randbytes(length // 2).translate(four) + rng.randbytes(length - length // 2)
    out = io.BytesIO()
    compression = zipfile.ZIP_DEFLATED if method == "deflated" else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w", compression, compresslevel=level) as book:
        book.writestr("part.xml", data)
    raw = out.getvalue()
    with zipfile.ZipFile(io.BytesIO(raw)) as book:
        got = list(guard._inflate(book, raw, book.getinfo("part.xml"), "x.xlsx"))
    assert b"".join(got) == data
    assert all(len(block) == guard.BLOCK for block in got[:-1]) and all(got)


def _lying(path, **fields) -> None:
    """A good workbook whose sheet's central-directory entry says ``fields`` (``size``,
    ``crc``) instead of the truth."""
    import struct

    _hostile(path, _sheet(b'<c r="B2" t="inlineStr"><is><t>' + b"x" * 5000 + b"</t></is></c>"))
    raw = bytearray(path.read_bytes())
    name = b"xl/worksheets/sheet1.xml"
    entry = raw.index(b"PK\x01\x02")
    while raw[entry + 46:entry + 46 + len(name)] != name:
        entry = raw.index(b"PK\x01\x02", entry + 4)
    crc, compressed, size = struct.unpack("<III", raw[entry + 16:entry + 28])
    raw[entry + 16:entry + 28] = struct.pack("<III", fields.get("crc", crc), compressed, fields.get("size", size))
    path.write_bytes(bytes(raw))


def test_parts_that_lie_about_their_size_or_crc_are_refused(tmp_path):
    _lying(tmp_path / "size.xlsx", size=100)
    _one_line(tmp_path / "size.xlsx", "inflates to more than the 100 bytes it declares")
    _lying(tmp_path / "short.xlsx", size=1 << 20)
    _one_line(tmp_path / "short.xlsx", "part xl/worksheets/sheet1.xml is damaged")
    _lying(tmp_path / "crc.xlsx", crc=12345)
    _one_line(tmp_path / "crc.xlsx", "part xl/worksheets/sheet1.xml is damaged")
    raw = bytearray((tmp_path / "crc.xlsx").read_bytes())
    start = raw.index(b"xl/worksheets/sheet1.xml") + 40
    raw[start:start + 16] = b"\xff" * 16   # the deflated stream itself broken
    (tmp_path / "broken.xlsx").write_bytes(bytes(raw))
    _one_line(tmp_path / "broken.xlsx", "broken.xlsx: not a readable .xlsx workbook")


def test_output_without_isal_is_deflated_by_zlib(tmp_path, monkeypatch):
    import coscore.io.excel.xlsx_write as xlsx_write

    monkeypatch.setattr(xlsx_write, "_fast_deflater", lambda: None)
    _write(tmp_path / "zlib.xlsx", {"a": ["中文", "x" * 5000, None], "b": ["1", "2", "3"]})
    assert zipfile.ZipFile(tmp_path / "zlib.xlsx").testzip() is None
    assert _read(tmp_path / "zlib.xlsx")[1] == {"a": ["中文", "x" * 5000, ""], "b": ["1", "2", "3"]}


def test_damaged_workbooks_are_one_line(tmp_path):
    (tmp_path / "garbage.xlsx").write_bytes(b"PK\x03\x04 not really")
    _one_line(tmp_path / "garbage.xlsx", "not a readable .xlsx workbook")
    good = tmp_path / "good.xlsx"
    _write(good, {"a": ["x"]})
    raw = bytearray(good.read_bytes())
    raw[len(raw) // 3] ^= 0xFF
    (tmp_path / "flipped.xlsx").write_bytes(bytes(raw))
    _one_line(tmp_path / "flipped.xlsx", "flipped.xlsx")


def test_the_writer_refuses_what_excel_cannot_hold(tmp_path):
    with pytest.raises(InputError, match=r"row 2, column 'a'.*40,000 characters does not fit an Excel cell"):
        _write(tmp_path / "long.xlsx", {"a": pa.array(["x" * 40000])})
    assert not (tmp_path / "long.xlsx").exists()
