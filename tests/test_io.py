"""Readers and writers of coscore.io: formats, round trips, chunking, errors with locations."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coscore.io import (
    MISSING,
    AnswerColumns,
    Chunk,
    InputError,
    atomic_output,
    format_of,
    open_reader,
    open_writer,
    split_blanks,
)
from coscore.pipeline.tables import answer_lists

DEMO = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo"

TRICKY = [
    "plain",
    "comma, inside",
    'quote " inside',
    "new\nline",
    "tab\tinside",
    "",
    "中文，全角逗号",
    "  spaces  ",
    "emoji 🎉",
    "crlf\r\ninside",
]


def _read_all(path, fmt=None, chunk_size=65536):
    with open_reader(path, fmt, chunk_size) as reader:
        chunks = list(reader.chunks())
        columns = reader.columns
    data = {name: [v for c in chunks for v in c.pylist(name)] for name in columns}
    lines = [line for c in chunks for line in c.lines]
    return columns, data, lines, chunks


def _chunk(columns, data):
    n = len(next(iter(data.values())))
    return Chunk(list(columns), data, list(range(2, n + 2)))


# -- format names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,fmt",
    [("a.csv", "csv"), ("A.CSV", "csv"), ("a.tsv", "tsv"), ("a.jsonl", "jsonl"), ("a.ndjson", "jsonl"),
     ("a.parquet", "parquet"), ("x/*.parquet", "parquet")],
)
def test_format_from_extension(name, fmt):
    assert format_of(name) == fmt


def test_format_explicit_wins_and_unknown_is_an_error():
    assert format_of("a.txt", "coscore") == "coscore"
    with pytest.raises(ValueError, match="--format"):
        format_of("a.txt")
    with pytest.raises(ValueError, match="standard input"):
        format_of("-")
    assert format_of("-", default="csv") == "csv"


# -- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_round_trip_of_strings(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    data = {"id": [str(i) for i in range(len(TRICKY))], "answer": TRICKY, "other": TRICKY[::-1]}
    with open_writer(path) as writer:
        writer.write(_chunk(data.keys(), data))
    columns, back, _, _ = _read_all(path)
    assert columns == ["id", "answer", "other"]
    assert back == data


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_round_trip_of_scores_with_failures(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    data = {"answer": ["a", "b", "c"], "coscore_score": [1.5, None, 10.0], "coscore_error": [None, "combos.A: x", None]}
    chunk = _chunk(data.keys(), data)
    chunk.types = {"coscore_score": "float64", "coscore_error": "string"}
    with open_writer(path) as writer:
        writer.write(chunk)
    _, back, _, _ = _read_all(path)
    if fmt in ("csv", "tsv"):
        assert back["coscore_score"] == ["1.5", "", "10.0"]
        assert back["coscore_error"] == ["", "combos.A: x", ""]
    else:
        assert back["coscore_score"] == [1.5, None, 10.0]
        assert back["coscore_error"] == [None, "combos.A: x", None]


def test_parquet_all_failed_first_chunk_keeps_float_type(tmp_path):
    path = tmp_path / "t.parquet"
    first = _chunk(["coscore_score"], {"coscore_score": [None, None]})
    first.types = {"coscore_score": "float64"}
    second = _chunk(["coscore_score"], {"coscore_score": [2.0]})
    second.types = first.types
    with open_writer(path) as writer:
        writer.write(first)
        writer.write(second)
    _, back, lines, _ = _read_all(path)
    assert back["coscore_score"] == [None, None, 2.0]
    assert lines == [1, 2, 3]


def test_jsonl_keys_are_carried_and_missing_keys_stay_missing(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1, "answers": ["a", "b"]}\n\n{"answer": "c", "extra": {"k": [1]}}\n', encoding="utf-8")
    columns, data, lines, _ = _read_all(path)
    assert columns == ["id", "answers", "answer", "extra"]
    assert data["answer"] == [MISSING, "c"]
    assert lines == [1, 3]
    out = tmp_path / "b.jsonl"
    with open_reader(path) as reader, open_writer(out) as writer:
        for chunk in reader.chunks():
            writer.write(chunk)
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == [
        {"id": 1, "answers": ["a", "b"]},
        {"answer": "c", "extra": {"k": [1]}},
    ]


def test_jsonl_to_csv_writes_lists_as_json(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"answers": ["甲", "乙"], "ok": true}\n', encoding="utf-8")
    out = tmp_path / "a.csv"
    with open_reader(path) as reader, open_writer(out) as writer:
        for chunk in reader.chunks():
            writer.write(chunk)
    assert out.read_text(encoding="utf-8") == 'answers,ok\n"[""甲"", ""乙""]",true\n'


# -- CSV details ----------------------------------------------------------------------------


def test_csv_chunks_keep_order_and_line_numbers(tmp_path):
    path = tmp_path / "a.csv"
    rows = ["id,answer"] + [f"{i},a{i}" for i in range(10)]
    rows[3] = '2,"two\nlines"'  # a quoted newline: the next record starts two lines later
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    _columns, data, lines, chunks = _read_all(path, chunk_size=3)
    assert [len(c) for c in chunks] == [3, 3, 3, 1]
    assert data["id"] == [str(i) for i in range(10)]
    assert data["answer"][2] == "two\nlines"
    assert lines == [2, 3, 4, 6, 7, 8, 9, 10, 11, 12]


def test_csv_bom_is_dropped_and_crlf_handled(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes("\ufeffid,answer\r\n1,x\r\n".encode("utf-8"))
    columns, data, _, _ = _read_all(path)
    assert columns == ["id", "answer"]
    assert data["answer"] == ["x"]


def test_csv_header_only_gives_one_empty_chunk(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("id,answer\n", encoding="utf-8")
    _, data, _, chunks = _read_all(path)
    assert len(chunks) == 1 and data == {"id": [], "answer": []}


def test_blank_lines_skipped_except_in_one_column_files(tmp_path):
    two = tmp_path / "two.csv"
    two.write_text("a,b\n1,2\n\n3,4\n", encoding="utf-8")
    assert _read_all(two)[1] == {"a": ["1", "3"], "b": ["2", "4"]}
    one = tmp_path / "one.csv"
    one.write_text("a\nx\n\ny\n", encoding="utf-8")
    assert _read_all(one)[1] == {"a": ["x", "", "y"]}


@pytest.mark.parametrize(
    "content,line,match",
    [
        (b"id,answer\n1,ok\n2,\xff\xfebad\n", 3, "invalid UTF-8"),
        (b"id,answer\n1,ok\n2,x,y\n", 3, "3 fields, but the header has 2"),
        (b'id,answer\n1,"never closed\n', 2, "malformed CSV"),
        (b"", 1, "empty"),
    ],
)
def test_csv_errors_name_the_line(tmp_path, content, line, match):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=match) as info:
        _read_all(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}: line {line}")


def test_invalid_utf8_names_the_character(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes("id,answer\n1,中文\xff\n".encode().replace("\xff".encode(), b"\xff"))
    with pytest.raises(InputError) as info:
        _read_all(path)
    assert "character 5" in str(info.value) and "ff" in str(info.value)


def test_duplicate_header_column_is_an_error(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("a,b,a\n1,2,3\n", encoding="utf-8")
    with pytest.raises(InputError, match="twice") as info:
        _read_all(path)
    assert info.value.column == "a" and info.value.line == 1


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        _read_all(tmp_path / "nope.csv")


# -- the original CoScore layout --------------------------------------------------------


def test_coscore_layout_keeps_quotes_and_splits_blanks():
    columns, data, lines, _ = _read_all(DEMO / "shortest-path.csv", "coscore")
    assert columns == ["text", "score"]
    assert len(data["text"]) == 100 and lines[0] == 2
    assert data["text"][51].startswith('"1、新建') and data["text"][51].endswith('即可"')
    assert data["score"][51] == "0"
    assert split_blanks(data["text"][70]) == ["", "6.66667E+13"]


def test_coscore_layout_unlabelled():
    columns, data, _, _ = _read_all(DEMO / "lab-tools-unlabeled.csv", "coscore")
    assert columns == ["text"] and len(data["text"]) == 10


def test_coscore_layout_text_is_before_the_first_comma_mark_after_the_last(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("text,score\na-b,c,7\n", encoding="utf-8")
    _, data, _, _ = _read_all(path, "coscore")
    assert data == {"text": ["a-b"], "score": ["7"]}


@pytest.mark.parametrize(
    "content,line,match",
    [("answer,mark\nx,1\n", 1, "header"), ("text,score\nok,1\nno comma\n", 3, "no ','")],
)
def test_coscore_layout_errors(tmp_path, content, line, match):
    path = tmp_path / "a.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=match) as info:
        _read_all(path, "coscore")
    assert info.value.line == line


# -- answers --------------------------------------------------------------------------------


def _answers(cols: AnswerColumns, chunk: Chunk) -> list:
    """The answers ``cols`` selects from ``chunk``, as Python lists of blanks."""
    return answer_lists(cols.select(chunk))


def test_default_blanks_are_all_columns_but_id_and_label():
    cols = AnswerColumns.resolve("csv", "f.csv", ["id", "b0", "mark", "b1"], None, "mark")
    assert cols.blanks == ("b0", "b1")
    chunk = _chunk(["id", "b0", "mark", "b1"], {"id": ["1"], "b0": ["x"], "mark": ["3"], "b1": ["y"]})
    assert _answers(cols, chunk) == [["x", "y"]]


def test_explicit_blanks_keep_their_order():
    cols = AnswerColumns.resolve("csv", "f.csv", ["b0", "b1"], ["b1", "b0"], None)
    assert _answers(cols, _chunk(["b0", "b1"], {"b0": ["x"], "b1": ["y"]})) == [["y", "x"]]


@pytest.mark.parametrize(
    "columns,blanks,label,match",
    [
        (["id", "a"], ["nope"], None, "no such column"),
        (["id", "a"], None, "mark", "no such column"),
        (["id", "mark"], None, "mark", "no column left"),
        (["a", "mark"], ["a", "mark"], "mark", "cannot also be a blank"),
    ],
)
def test_answer_column_errors(columns, blanks, label, match):
    with pytest.raises(InputError, match=match):
        AnswerColumns.resolve("csv", "f.csv", columns, blanks, label)


def test_jsonl_answers_and_answer():
    cols = AnswerColumns.resolve("jsonl", "f.jsonl", [], None, None)
    chunk = _chunk(["answers", "answer"], {"answers": [["a", None], MISSING], "answer": [MISSING, "c"]})
    assert _answers(cols, chunk) == [["a", ""], ["c"]]


@pytest.mark.parametrize(
    "data,match",
    [
        ({"answers": [["a", 1]]}, "list of strings"),
        ({"answer": [3]}, "must be a string"),
        ({"other": ["x"]}, "neither"),
    ],
)
def test_jsonl_answer_errors(data, match):
    cols = AnswerColumns.resolve("jsonl", "f.jsonl", [], None, None)
    with pytest.raises(InputError, match=match) as info:
        _answers(cols, _chunk(data.keys(), data))
    assert info.value.line == 2


def test_coscore_layout_answers():
    cols = AnswerColumns.resolve("coscore", "f.csv", ["text", "score"], None, None)
    assert cols.label == "score"
    assert _answers(cols, _chunk(["text", "score"], {"text": ["a-b", "c"], "score": ["1", "2"]})) == [["a", "b"], ["c"]]
    with pytest.raises(InputError, match="--blanks"):
        AnswerColumns.resolve("coscore", "f.csv", ["text"], ["text"], None)


# -- Parquet ----------------------------------------------------------------------------------


def test_parquet_glob_reads_files_in_order(tmp_path):
    for part in range(3):
        with open_writer(tmp_path / f"part-{part}.parquet") as writer:
            writer.write(_chunk(["answer"], {"answer": [f"{part}-{i}" for i in range(4)]}))
    _columns, data, lines, _ = _read_all(str(tmp_path / "part-*.parquet"), chunk_size=3)
    assert data["answer"] == [f"{p}-{i}" for p in range(3) for i in range(4)]
    assert lines == list(range(1, 13))
    with pytest.raises(InputError, match="no file matches"):
        _read_all(str(tmp_path / "none-*.parquet"))


# -- atomic output ----------------------------------------------------------------------


def test_atomic_output_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_output(target) as stream:
        stream.write("partial")
        raise RuntimeError("boom")
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["out.csv"]


def test_atomic_output_replaces_on_success_with_normal_permissions(tmp_path):
    target = tmp_path / "out.csv"
    with atomic_output(target) as stream:
        stream.write("new")
    assert target.read_text(encoding="utf-8") == "new"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_atomic_output_missing_folder(tmp_path):
    with pytest.raises(InputError, match="folder does not exist"), atomic_output(tmp_path / "no" / "out.csv"):
        pass
