"""Issue 35, items 5 and 2: ``.xlsx`` output keeps the types of what it holds (a mark read
as the text ``4`` is the number 4 again, so that a SUM in Excel adds it up; an id
``00123`` stays text) and the input workbook's sheet name; Parquet and ``.xlsx`` outputs
record how they were scored (:func:`coscore.io.scored_metadata`)."""
from __future__ import annotations

import json
import random
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import coscore
from coscore.cli import main
from coscore.io import InputError, open_reader, open_writer, scored_metadata
from coscore.io.excel.xlsx_write import sheet_name
from coscore.io.scored_record import PROPERTY_CHARS, record_pieces
from coscore.io.table import Chunk
from coscore.labelled import file_hash

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"
RULE = {"atoms": {"0": {"type": "SM", "desc": "车道"}},
        "combos": {"A": {"combo": "M(0,T(0))", "score": 2.5, "mode": "value"}}, "comboMode": "ADD"}
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _rule(folder: Path) -> Path:
    path = folder / "rule.json"
    path.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    return path


def _cells(path: Path) -> list[list[tuple[str, str | None]]]:
    """The sheet's rows, each cell as (its kind: ``n`` number, ``s`` text, ``e`` empty; its text)."""
    from xml.etree import ElementTree

    root = ElementTree.fromstring(zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml"))
    rows = []
    for row in root.iter(f"{_MAIN}row"):
        cells = []
        for cell in row.findall(f"{_MAIN}c"):
            kind = cell.get("t")
            if kind == "inlineStr":
                cells.append(("s", "".join(cell.find(f"{_MAIN}is").itertext())))
            elif kind is None and cell.find(f"{_MAIN}v") is not None:
                cells.append(("n", cell.find(f"{_MAIN}v").text))
            else:
                assert kind is None and not len(cell), ElementTree.tostring(cell)
                cells.append(("e", None))
        rows.append(cells)
    return rows


def _column(path: Path, name: str) -> list[tuple[str, str | None]]:
    rows = _cells(path)
    index = [text for _, text in rows[0]].index(name)
    return [row[index] for row in rows[1:]]


def _sheet_names(path: Path) -> list[str]:
    from xml.etree import ElementTree

    root = ElementTree.fromstring(zipfile.ZipFile(path).read("xl/workbook.xml"))
    return [sheet.get("name") for sheet in root.iter(f"{_MAIN}sheet")]


def _is_number_text(text: str) -> bool:
    """The rule of the docs, spelled out on its own: the plain spelling of a number that
    Excel's General format shows the same way and fastexcel reads back as it was."""
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text):
        return False
    body = text.removeprefix("-")
    whole, _, decimals = body.partition(".")
    if text.startswith("-") and float(body) == 0:
        return False                                   # -0 (Excel shows 0)
    if len(whole) > 1 and whole[0] == "0":
        return False                                   # a leading zero: 007, 00123
    if decimals.endswith("0"):
        return False                                   # 4.50, 4.0 (Excel shows 4.5, 4)
    if len(body) > 11:
        return False                                   # Excel shows 12 digits as 1.23457E+11
    if decimals and int(whole) >= 1_000_000:
        return False                                   # fastexcel: 10006558.199999999
    # Excel shows 0.00001 as 1E-05
    return not (whole == "0" and decimals and len(decimals) - len(decimals.lstrip("0")) > 3)


# -- numbers stay numbers, text stays text ---------------------------------------------------

MARKS = ["4", "4.5", "0.25", "-3", "0", "10", "缺考", "4.50", "4.0", "007", "+4", " 4", "4 ", "1,000", "1e-05",
         "1E5", "inf", "nan", "-0", ".5", "5.", "0.0001", "0.00001", "99999999999", "123456789012",
         "1234567890123456", "123456.5", "1234567.5", "-0.5", "0.333333333", "0.1234567891", ""]


def test_csv_marks_ids_and_answers_keep_their_types(tmp_path):
    rule = _rule(tmp_path)
    ids = [f"{i:05d}" if i % 2 else str(i + 1) for i in range(len(MARKS))]   # 00001 … stay text
    answers = ["变换车道" if i % 3 else str(i) for i in range(len(MARKS))]
    lines = ["id,answer,mark", *(f'{i},{a},"{m}"' for i, a, m in zip(ids, answers, MARKS))]
    (tmp_path / "in.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(rule), str(tmp_path / "in.csv"), "--blanks", "answer", "--label", "mark",
                 "-o", str(out), "--no-progress"]) == 0
    marks = _column(out, "mark")
    assert [text for _, text in marks] == MARKS
    assert [kind == "n" for kind, _ in marks] == [_is_number_text(m) for m in MARKS]
    assert dict(zip(MARKS, (kind for kind, _ in marks))) | {"": "s"} == {
        **dict.fromkeys(["4", "4.5", "0.25", "-3", "0", "10", "0.0001", "99999999999", "123456.5", "-0.5",
                         "0.333333333"], "n"),
        **{m: "s" for m in MARKS if m not in ("4", "4.5", "0.25", "-3", "0", "10", "0.0001", "99999999999",
                                               "123456.5", "-0.5", "0.333333333")}}
    assert [kind for kind, _ in _column(out, "id")] == ["n" if i % 2 == 0 else "s" for i in range(len(MARKS))]
    assert all(kind == "n" for kind, _ in _column(out, "coscore_score"))
    assert _column(out, "coscore_score")[1] == ("n", "2.5")
    # what coscore reads back is what it read: a scored workbook scores as its input did
    with open_reader(out) as reader:
        chunk = next(reader.chunks())
    assert chunk.pylist("mark") == MARKS and chunk.pylist("id") == ids and chunk.pylist("answer") == answers
    assert _sheet_names(out) == ["scores"]


def test_a_marks_column_adds_up(tmp_path):
    """The issue's case: marks 4 and 4.5 read from a CSV as text; Excel's SUM adds numbers only."""
    (tmp_path / "in.csv").write_text("学号,answer,mark\n00123,变换车道,4\n00124,不知道,4.5\n00125,车道,缺考\n",
                                     encoding="utf-8")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.csv"), "--blanks", "answer", "--label", "mark",
                 "-o", str(out), "--no-progress"]) == 0
    marks = _column(out, "mark")
    assert sum(float(text) for kind, text in marks if kind == "n") == 8.5     # what =SUM(C2:C4) gives
    assert marks[2] == ("s", "缺考")
    assert _column(out, "学号") == [("s", "00123"), ("s", "00124"), ("s", "00125")]
    assert sum(float(text) for _, text in _column(out, "coscore_score")) == 5.0


def test_every_number_written_reads_back_as_its_text(tmp_path):
    """Random spellings of numbers: each written as a number exactly when the rule says so,
    and every one read back by coscore's reader (fastexcel) as the text it was."""
    rnd = random.Random(35)
    texts = set()
    for _ in range(20_000):
        text = str(rnd.randint(0, 10 ** rnd.randint(0, 12)))
        if rnd.random() < 0.6:
            text += "." + "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 10)))
        if rnd.random() < 0.1:
            text = "0." + "0" * rnd.randint(0, 6) + str(rnd.randint(1, 999))
        texts.add(("-" if rnd.random() < 0.3 else "") + ("0" if rnd.random() < 0.05 else "") + text)
    values = sorted(texts)
    out = tmp_path / "numbers.xlsx"
    with open_writer(out) as writer:
        writer.write(Chunk(["v"], {"v": pa.array(values)}, list(range(2, len(values) + 2)), "row", "x"))
    kinds = [kind for kind, _ in _column(out, "v")]
    assert kinds == ["n" if _is_number_text(v) else "s" for v in values]
    assert 0.3 < kinds.count("n") / len(kinds) < 0.9
    with open_reader(out) as reader:
        assert [v for chunk in reader.chunks() for v in chunk.pylist("v")] == values


def test_numbers_among_long_answers_nulls_and_slices(tmp_path):
    """A column mostly of long answers with a few numbers (the matrix path), nulls, white
    space kept, a slice of a larger array: each cell as it should be."""
    values = (["一个很长很长的回答" * 3, "42", None, " 4", "7.5", "答 ", "-1", "0"] * 50)
    array = pa.array(["skip"] * 3 + values + ["skip"]).slice(3, len(values))
    out = tmp_path / "mixed.xlsx"
    with open_writer(out) as writer:   # "k" keeps every row (a row with no value is skipped when read)
        writer.write(Chunk(["v", "k"], {"v": array, "k": pa.array(["k"] * len(values))},
                           list(range(2, len(values) + 2)), "row", "x"))
    want = {"42": "n", "7.5": "n", "-1": "n", "0": "n", None: "e"}
    assert [kind for kind, _ in _column(out, "v")] == [want.get(v, "s") for v in values]
    with open_reader(out) as reader:
        assert [v for chunk in reader.chunks() for v in chunk.pylist("v")] == [v or "" for v in values]
    assert '<t xml:space="preserve"> 4</t>' in zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()


def test_parquet_int_and_float_columns_are_numbers(tmp_path):
    table = pa.table({"id": pa.array(["00123", "124", "x1"]), "n": pa.array([3, -7, None], pa.int64()),
                      "f": pa.array([0.5, float("nan"), 1e20]), "answer": ["变换车道", "车道", ""]})
    pq.write_table(table, tmp_path / "in.parquet")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.parquet"), "--blanks", "answer",
                 "-o", str(out), "--no-progress"]) == 0
    assert _column(out, "id") == [("s", "00123"), ("n", "124"), ("s", "x1")]
    assert _column(out, "n") == [("n", "3"), ("n", "-7"), ("e", None)]
    assert _column(out, "f") == [("n", "0.5"), ("e", None), ("n", "1e+20")]


# -- the sheet's name --------------------------------------------------------------------------

def _workbook(path: Path, sheet: str = "第5题") -> None:
    xlsxwriter = pytest.importorskip("xlsxwriter")
    book = xlsxwriter.Workbook(str(path))
    first = book.add_worksheet(sheet)
    book.add_worksheet("其他")
    first.write_row(0, 0, ["学号", "班级", "answer", "教师A"])
    first.write_row(1, 0, ["00123", "1班", "变换车道"])
    first.write_number(1, 3, 4)
    first.write_row(2, 0, ["00124", "1班", "不知道"])
    first.write_number(2, 3, 4.5)
    book.close()


def test_a_workbook_keeps_its_sheet_name(tmp_path):
    _workbook(tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.xlsx"), "--blanks", "answer", "--label", "教师A",
                 "-o", str(out), "--no-progress"]) == 0
    assert _sheet_names(out) == ["第5题"]
    with open_reader(out) as reader:
        assert reader.sheets == ["第5题"]
    assert _column(out, "教师A") == [("n", "4"), ("n", "4.5")]
    assert _column(out, "学号") == [("s", "00123"), ("s", "00124")]
    # a sheet chosen by --sheet gives its name; several workbooks, the first one's
    shutil.copy(tmp_path / "in.xlsx", tmp_path / "in2.xlsx")
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.xlsx"), str(tmp_path / "in2.xlsx"),
                 "--blanks", "answer", "--label", "教师A", "-o", str(out), "--no-progress"]) == 0
    assert _sheet_names(out) == ["第5题"]
    # other inputs, and workbook output of another format, keep "scores"
    (tmp_path / "in.csv").write_text("answer\n车道\n", encoding="utf-8")
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.csv"), "-o", str(out), "--no-progress"]) == 0
    assert _sheet_names(out) == ["scores"]


@pytest.mark.parametrize(("given", "made"), [
    ("第5题", "第5题"), ("a/b\\c[1]:*?", "a_b_c_1____"), ("x" * 40, "x" * 31), ("'quoted'", "quoted"),
    ("History", "scores"), ("history", "scores"), ("", "scores"), ("   ", "scores"), (None, "scores"),
    ("\U0001F600" * 20, "\U0001F600" * 15), ("a\x00b\ufffe", "a_b_"), ('A&B "q" <x>', 'A&B "q" <x>'),
])
def test_sheet_names_are_made_valid(tmp_path, given, made):
    assert sheet_name(given) == made
    out = tmp_path / "named.xlsx"
    with open_writer(out, sheet=given) as writer:
        writer.write(Chunk(["v"], {"v": pa.array(["1"])}, [2], "row", "x"))
    assert _sheet_names(out) == [made]
    import fastexcel

    assert fastexcel.read_excel(str(out)).sheet_names == [made]


# -- what scored files record ---------------------------------------------------------------------

def test_parquet_and_xlsx_record_how_they_were_scored(tmp_path):
    rule = _rule(tmp_path)
    (tmp_path / "in.csv").write_text("id,q1,mark\n1,变换车道,4\n2,不知道,0\n", encoding="utf-8")
    records = {}
    for fmt in ("parquet", "xlsx", "csv", "jsonl", "tsv"):
        out = tmp_path / f"out.{fmt}"
        assert main(["score", str(rule), str(tmp_path / "in.csv"), "--blanks", "q1", "--label", "mark",
                     "--decimals", "1", "--max-answer-calls", "500", "-o", str(out), "--no-progress"]) == 0
        records[fmt] = scored_metadata(out)
    assert records["csv"] is records["jsonl"] is records["tsv"] is None
    want = {"record": 1, "coscore_version": coscore.__version__, "kind": "rule",
            "rule": {"file": "rule.json", "sha256": file_hash(rule)}, "format": "csv", "blanks": ["q1"],
            "label": "mark", "decimals": 1, "limits": {"max_atom_calls": 500}}
    assert records["parquet"] == records["xlsx"] == want
    assert json.loads(pq.read_schema(tmp_path / "out.parquet").metadata[b"coscore"]) == want
    assert pq.read_table(tmp_path / "out.parquet").column("coscore_score").to_pylist() == [2.5, 0.0]
    # the record is in the document properties only: the sheet reads as before
    import fastexcel

    assert fastexcel.read_excel(str(tmp_path / "out.xlsx")).load_sheet(0).to_arrow().column_names[:3] == \
        ["id", "q1", "mark"]
    custom = zipfile.ZipFile(tmp_path / "out.xlsx").read("docProps/custom.xml").decode()
    assert 'name="coscore"' in custom and file_hash(rule) in custom


def test_default_blanks_are_recorded_as_resolved(tmp_path):
    (tmp_path / "in.csv").write_text("answer\n变换车道\n", encoding="utf-8")
    out = tmp_path / "out.parquet"
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.csv"), "-o", str(out), "--no-progress"]) == 0
    record = scored_metadata(out)
    assert record["blanks"] == ["answer"] and record["label"] is None and record["limits"] == {}


def test_an_exam_records_each_item(tmp_path):
    (tmp_path / "rules").mkdir()
    for task in ("lab-tools", "lane-change"):
        shutil.copy(DEMO / f"{task}.rule.json", tmp_path / "rules" / f"{task}.rule.json")
    (tmp_path / "exam.yaml").write_text(
        "name: 期中\nid: 学号\nitems:\n"
        "  - {name: q1, rule: rules/lab-tools.rule.json, blanks: [q1], label: m1}\n"
        "  - {name: q2, rule: rules/lane-change.rule.json, blanks: [q2], weight: 2}\n"
        "  - name: q3\n    rule: {atoms: {'0': {type: EM, desc: 等待}},"
        " combos: {A: {combo: 'G(0, T(0))', score: 4, mode: logic}}, comboMode: ADD}\n    blanks: [q3]\n",
        encoding="utf-8")
    (tmp_path / "in.csv").write_text("学号,q1,m1,q2,q3\n00123,镊子,3,变换车道,等待\n00124,,1,,\n", encoding="utf-8")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(tmp_path / "exam.yaml"), str(tmp_path / "in.csv"), "-o", str(out),
                 "--no-progress"]) == 0
    record = scored_metadata(out)
    assert record["kind"] == "exam" and record["coscore_version"] == coscore.__version__
    assert record["exam"] == {"name": "期中", "file": "exam.yaml", "sha256": file_hash(tmp_path / "exam.yaml"),
                              "layout": "wide", "id": "学号", "item_column": None}
    assert record["items"] == [
        {"name": "q1", "rule": {"file": "lab-tools.rule.json", "sha256": file_hash(DEMO / "lab-tools.rule.json")},
         "blanks": ["q1"], "label": "m1", "label2": None, "weight": 1.0},
        {"name": "q2", "rule": {"file": "lane-change.rule.json",
                                "sha256": file_hash(DEMO / "lane-change.rule.json")},
         "blanks": ["q2"], "label": None, "label2": None, "weight": 2.0},
        {"name": "q3", "rule": {"inline": True}, "blanks": ["q3"], "label": None, "label2": None, "weight": 1.0}]
    assert record["decimals"] is None and record["combos"] is False and record["format"] == "csv"
    # totals and item scores are numbers, the ids text
    assert all(kind == "n" for kind, _ in _column(out, "total_score"))
    assert _column(out, "学号") == [("s", "00123"), ("s", "00124")]
    assert _column(out, "m1") == [("n", "3"), ("n", "1")]


def test_a_long_record_is_cut_into_properties_of_255(tmp_path):
    """Office keeps 255 characters of a property's text: a longer record (long column names,
    astral characters, spaces at the cuts) is cut, and read back whole."""
    record = {"blanks": ["空" * 300, " " * 600, "\U0001F600" * 200, "a b " * 100, "&<>\"'"], "label": "x\ud800y"}
    text = json.dumps(record)
    pieces = record_pieces(text)
    assert "".join(pieces) == text and len(pieces) > 5
    for piece in pieces:
        assert len(piece.encode("utf-16-le")) // 2 <= PROPERTY_CHARS
    for fmt in ("xlsx", "parquet"):
        out = tmp_path / f"long.{fmt}"
        with open_writer(out, metadata=record) as writer:
            writer.write(Chunk(["v"], {"v": pa.array(["1"])}, [2], "row", "x"))
        assert scored_metadata(out) == record
    custom = zipfile.ZipFile(tmp_path / "long.xlsx").read("docProps/custom.xml").decode("utf-8")
    names = re.findall(r'name="([^"]+)"', custom)
    assert names[:3] == ["coscore", "coscore (2)", "coscore (3)"] and len(names) > 5
    for value in re.findall(r"<vt:lpwstr>(.*?)</vt:lpwstr>", custom, re.DOTALL):
        assert len(value.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").encode("utf-16-le")) \
            <= 2 * PROPERTY_CHARS


def test_files_without_a_record(tmp_path):
    pq.write_table(pa.table({"a": [1]}), tmp_path / "plain.parquet")
    assert scored_metadata(tmp_path / "plain.parquet") is None
    with open_writer(tmp_path / "plain.xlsx") as writer:     # no metadata: no custom properties part
        writer.write(Chunk(["v"], {"v": pa.array(["1"])}, [2], "row", "x"))
    assert scored_metadata(tmp_path / "plain.xlsx") is None
    assert "docProps/custom.xml" not in zipfile.ZipFile(tmp_path / "plain.xlsx").namelist()
    for name in ("a.csv", "a.jsonl", "a.txt"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
        assert scored_metadata(tmp_path / name) is None
    # CSV, TSV and JSON Lines writers take the keyword and write what they wrote before
    for fmt in ("csv", "tsv", "jsonl"):
        for name, metadata in (("with", {"a": 1}), ("without", None)):
            with open_writer(tmp_path / f"{name}.{fmt}", metadata=metadata, sheet="s") as writer:
                writer.write(Chunk(["v"], {"v": pa.array(["1", "x"])}, [2, 3], "row", "x"))
        assert (tmp_path / f"with.{fmt}").read_bytes() == (tmp_path / f"without.{fmt}").read_bytes()


def _rewritten(path: Path, part: str, data: bytes) -> None:
    with zipfile.ZipFile(path) as book:
        parts = {info.filename: book.read(info) for info in book.infolist()}
    parts[part] = data
    with zipfile.ZipFile(path, "w") as book:
        for name, body in parts.items():
            book.writestr(name, body)


def test_bad_files_are_one_clear_error(tmp_path):
    def refused(path: Path, words: str) -> None:
        with pytest.raises(InputError) as caught:
            scored_metadata(path)
        assert str(caught.value).startswith(str(path)) and words in str(caught.value), str(caught.value)

    refused(tmp_path / "missing.xlsx", "no such file")
    refused(tmp_path, "is a directory")
    (tmp_path / "junk.xlsx").write_bytes(b"not a zip")
    refused(tmp_path / "junk.xlsx", "not a readable .xlsx workbook")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    refused(tmp_path / "junk.parquet", "not a readable Parquet file")
    book = tmp_path / "edited.xlsx"
    with open_writer(book, metadata={"a": 1}) as writer:
        writer.write(Chunk(["v"], {"v": pa.array(["1"])}, [2], "row", "x"))
    custom = zipfile.ZipFile(book).read("docProps/custom.xml")
    _rewritten(book, "docProps/custom.xml", custom.replace(b'{"a":1}', b"[1, 2"))
    refused(book, "score the answers again")
    _rewritten(book, "docProps/custom.xml", b'<!DOCTYPE x [<!ENTITY a "aaaa">]>' + custom)
    refused(book, "declares a DTD")
    _rewritten(book, "docProps/custom.xml", custom.replace(b'name="coscore"', b'name="coscore (2)"'))
    refused(book, "incomplete")
    _rewritten(book, "docProps/custom.xml", custom[:-20])
    refused(book, "not well-formed XML")


def test_openpyxl_sees_numbers_the_sheet_name_and_the_record(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    _workbook(tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    assert main(["score", str(_rule(tmp_path)), str(tmp_path / "in.xlsx"), "--blanks", "answer", "--label", "教师A",
                 "-o", str(out), "--no-progress"]) == 0
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["第5题"]
    rows = list(book.active.iter_rows(values_only=True))
    assert rows[0][:5] == ("学号", "班级", "answer", "教师A", "coscore_score")
    assert [row[3] for row in rows[1:]] == [4, 4.5] and sum(row[3] for row in rows[1:]) == 8.5
    assert [row[0] for row in rows[1:]] == ["00123", "00124"]
    assert all(isinstance(row[4], float) for row in rows[1:])
    properties = {p.name: p.value for p in book.custom_doc_props.props}
    assert json.loads(properties["coscore"]) == scored_metadata(out)


def test_ods_and_xls_inputs_keep_their_sheet_names(tmp_path):
    """A workbook read by the child process (.xls here) has its sheet name kept too."""
    source = ROOT / "tests" / "data" / "answers.xls"
    if not source.exists():
        pytest.skip("no .xls sample")
    import fastexcel

    sheet = fastexcel.read_excel(str(source)).sheet_names[0]
    with open_reader(source) as reader:
        columns = reader.columns
    out = tmp_path / "out.xlsx"
    assert main(["score", str(_rule(tmp_path)), str(source), "--blanks", columns[-1], "-o", str(out),
                 "--no-progress"]) == 0
    assert _sheet_names(out) == [sheet_name(sheet)]


def test_zip_parts_are_those_excel_expects(tmp_path):
    """The custom properties are declared where Excel looks: the package relations and the
    content types name the part."""
    out = tmp_path / "out.xlsx"
    with open_writer(out, metadata={"a": 1}) as writer:
        writer.write(Chunk(["v"], {"v": pa.array(["1"])}, [2], "row", "x"))
    book = zipfile.ZipFile(out)
    assert "custom-properties" in book.read("_rels/.rels").decode() and \
        'Target="docProps/custom.xml"' in book.read("_rels/.rels").decode()
    assert 'PartName="/docProps/custom.xml"' in book.read("[Content_Types].xml").decode()
    assert book.testzip() is None
    assert np.all([name.startswith(("xl/", "_rels/", "[Content_Types]", "docProps/")) for name in book.namelist()])
