"""The file pipeline of ``coscore score``: chunks read ahead, scored and written behind in
threads; order kept across chunks; an error in any stage (or Ctrl-C) stops the run with
one line, no traceback, no output file and no thread left; CSV cells made without
``pyarrow.compute``."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore import cli
from coscore.engine import chunk as chunk_scoring
from coscore.io import open_reader
from coscore.io.cells import cell_text, float_texts, text_column
from coscore.pipeline import stream

ROOT = Path(__file__).resolve().parent.parent
RULE = {
    "atoms": {"0": {"type": "SM", "desc": "车道"}, "1": {"type": "SM", "desc": "变"}},
    "combos": {"A": {"combo": "M(0,T(0))>=1", "score": 2, "mode": "logic"},
               "B": {"combo": "M(1,T(1))", "score": 0.5, "mode": "value"}},
    "comboMode": "ADD",
}
WORDS = ["车道", "变", "变车道", "", "x", "中🎉", "车", "道变"]


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("coscore-")}


def _answers(n: int) -> list[list[str]]:
    return [[WORDS[i % len(WORDS)], WORDS[(i * 3 + 1) % len(WORDS)]] for i in range(n)]


def _files(tmp_path: Path, n: int) -> tuple[str, list[list[str]]]:
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    answers = _answers(n)
    table = pa.table({"id": [str(i) for i in range(n)], "b1": pa.array([a[0] for a in answers], pa.string()),
                      "b2": pa.array([a[1] for a in answers], pa.string())})
    pa_csv.write_csv(table, tmp_path / "in.csv")
    pq.write_table(table, tmp_path / "in.parquet")
    return str(rule), answers


def _scores(path: Path) -> tuple[list[str], list[float]]:
    ids, scores = [], []
    with open_reader(path) as reader:
        for chunk in reader.chunks():
            ids += [str(v) for v in chunk.pylist("id")]
            scores += [math.nan if v in ("", None) else float(v) for v in chunk.pylist("coscore_score")]
    return ids, scores


@pytest.mark.parametrize("n", [0, 1, 2, 157])
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_rows_keep_their_order_across_chunks(tmp_path, fmt, n):
    rule, answers = _files(tmp_path, n)
    out = tmp_path / f"out.{fmt}"
    status = cli.main(["score", rule, str(tmp_path / f"in.{fmt}"), "-o", str(out), "--chunk-size", "7",
                       "--no-progress"])
    assert status == 0
    ids, scores = _scores(out)
    assert ids == [str(i) for i in range(n)]
    expected = coscore.compile(Path(rule)).score_many(answers).scores if n else []
    np.testing.assert_array_equal(np.array(scores), np.array(expected, dtype=float))
    assert not _threads()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_empty_input_writes_the_header_only(tmp_path, fmt):
    rule, _ = _files(tmp_path, 0)
    out = tmp_path / f"out.{fmt}"
    assert cli.main(["score", rule, str(tmp_path / f"in.{fmt}"), "-o", str(out), "--no-progress"]) == 0
    if fmt == "csv":
        assert out.read_text(encoding="utf-8") == (
            "id,b1,b2,coscore_score,coscore_combo_A,coscore_combo_B,coscore_error\n")
    else:
        assert pq.read_table(out).num_rows == 0
        assert pq.read_schema(out).names[-1] == "coscore_error"


def test_a_bad_row_late_in_the_file_stops_the_run(tmp_path, capsys):
    rule, _ = _files(tmp_path, 100)
    source = tmp_path / "in.csv"
    with open(source, "a", encoding="utf-8") as f:
        f.write("100,a,b,c\n")  # four fields: read by the reader thread after many chunks
    out = tmp_path / "out.csv"
    status = cli.main(["score", rule, str(source), "-o", str(out), "--chunk-size", "8", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "line 102" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.glob(".out.csv.*")) and not _threads()


def test_a_quote_left_open_in_the_last_chunk_stops_the_run(tmp_path, capsys):
    rule, _ = _files(tmp_path, 20)
    source = tmp_path / "in.csv"
    with open(source, "a", encoding="utf-8") as f:
        f.write('20,a,"b\n')
    out = tmp_path / "out.csv"
    status = cli.main(["score", rule, str(source), "-o", str(out), "--chunk-size", "8", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and not out.exists() and not _threads()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_write_error_mid_file_stops_the_run(tmp_path, capsys, monkeypatch, fmt):
    from coscore.io.delimited.delimited import DelimitedWriter
    from coscore.io.parquet import ParquetWriter

    writer = DelimitedWriter if fmt == "csv" else ParquetWriter
    original = writer.write
    calls = []

    def failing(self, chunk):
        calls.append(len(chunk))
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        original(self, chunk)

    monkeypatch.setattr(writer, "write", failing)
    _fails_cleanly(tmp_path, capsys, fmt, 5, "No space left on device")
    assert len(calls) < 20  # the run stopped soon after the error, not at the end of the file


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_read_error_mid_file_stops_the_run(tmp_path, capsys, monkeypatch, fmt):
    from coscore.io.delimited.columnar_csv import ColumnarDelimitedReader
    from coscore.io.parquet import ParquetReader

    reader = ColumnarDelimitedReader if fmt == "csv" else ParquetReader
    original = reader.chunks

    def failing(self):
        for number, chunk in enumerate(original(self)):
            if number == 2:
                raise OSError(5, "Input/output error")
            yield chunk

    monkeypatch.setattr(reader, "chunks", failing)
    _fails_cleanly(tmp_path, capsys, fmt, 10, "Input/output error")


def _fails_cleanly(tmp_path: Path, capsys, fmt: str, chunk_size: int, message: str) -> None:
    """Score 100 rows of ``fmt``: exit 2 with ``message`` on one line, no output, no thread left."""
    rule, _ = _files(tmp_path, 100)
    out = tmp_path / f"out.{fmt}"
    status = cli.main(["score", rule, str(tmp_path / f"in.{fmt}"), "-o", str(out), "--chunk-size",
                       str(chunk_size), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.glob(f".out.{fmt}.*")) and not _threads()


def test_ctrl_c_while_scoring_stops_every_thread(tmp_path, capsys, monkeypatch):
    calls = []
    real = chunk_scoring.score_texts

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(stream, "score_texts", interrupted)
    rule, _ = _files(tmp_path, 100)
    out = tmp_path / "out.csv"
    status = cli.main(["score", rule, str(tmp_path / "in.csv"), "-o", str(out), "--chunk-size", "10",
                       "--no-progress"])
    assert status == 130 and "interrupted" in capsys.readouterr().err
    assert not out.exists() and not _threads()


def test_a_plain_csv_run_imports_no_pyarrow_compute(tmp_path):
    """Scores and text with nothing to quote are written without pyarrow.compute (its
    import costs more than scoring a small file)."""
    rule, _ = _files(tmp_path, 50)
    out = tmp_path / "out.csv"
    code = ("import sys\nfrom coscore.cli import main\nstatus = main(sys.argv[1:])\n"
            "print('pyarrow.compute' in sys.modules)\nsys.exit(status)\n")
    done = subprocess.run([sys.executable, "-c", code, "score", rule, str(tmp_path / "in.csv"), "-o", str(out),
                           "--no-progress"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


NUMBERS = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, -1.5, 0.25, 1e9, 3e-5, 2.0**60, 7.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMBERS, max_size=40), st.integers(0, 3))
def test_float_cells_are_repr_and_nulls_empty(values, cut):
    array = pa.array(values, pa.float64()).slice(min(cut, len(values)))
    expected = ["" if v is None else repr(v) for v in values[min(cut, len(values)):]]
    assert float_texts(array).to_pylist() == expected
    assert text_column(array).to_pylist() == expected
    many = pa.array(values * 30, pa.float64())  # the same values, looked up
    assert float_texts(many).to_pylist() == ["" if v is None else repr(v) for v in values] * 30


def test_many_distinct_floats_and_text_nulls():
    rng = np.random.default_rng(1)
    values = rng.normal(size=500) * 10.0 ** rng.integers(-8, 12, size=500)
    assert float_texts(pa.array(values)).to_pylist() == [repr(v) for v in values.tolist()]
    texts = pa.array(["a", None, "", "中🎉", None])
    assert text_column(texts).to_pylist() == [cell_text(v) for v in texts.to_pylist()]
    assert text_column(pa.nulls(3, pa.string())).to_pylist() == ["", "", ""]
    # a null slot that holds bytes (Arrow allows it) is still an empty cell
    held = pa.Array.from_buffers(pa.string(), 2, [pa.py_buffer(bytes([0b01])),
                                                   pa.py_buffer(np.array([0, 1, 3], np.int32)),
                                                   pa.py_buffer(b"abc")])
    assert text_column(held).to_pylist() == ["a", ""]


def test_a_parquet_file_is_read_without_keeping_the_row_groups_read(tmp_path):
    """Memory stays bounded by a row group or two, not by the file: Arrow's allocations
    while a file of 12 row groups is read stay under three groups' bytes (pyarrow's
    pre-buffer cache would keep every column chunk read until the file is closed)."""
    rows, groups = 20_000, 12
    text = pa.array([f"{WORDS[i % len(WORDS)]}{i:08d}" * 4 for i in range(rows)])
    writer = pq.ParquetWriter(tmp_path / "in.parquet", pa.schema([("b0", pa.string())]), compression="none")
    for _ in range(groups):
        writer.write_table(pa.table({"b0": text}), row_group_size=rows)
    writer.close()
    start, held = pa.total_allocated_bytes(), []
    with open_reader(str(tmp_path / "in.parquet"), None, rows // 4) as reader:
        for chunk in reader.chunks():
            del chunk
            held.append(pa.total_allocated_bytes() - start)
    assert len(held) == 4 * groups
    assert max(held) < 3 * text.nbytes, (held, text.nbytes)


def test_parquet_output_keeps_dictionaries_only_for_columns_of_few_values(tmp_path):
    """Mostly distinct text (ids, answers) is written without a dictionary, which Parquet
    would build and give up in every row group; text of few values, marks and scores keep
    one. The values read back are those scored either way."""
    rows = 5000
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": [f"s{i}" for i in range(rows)], "answer": [f"车道 {i}" for i in range(rows)],
                             "class": [f"c{i % 3}" for i in range(rows)], "mark": [float(i % 3) for i in range(rows)]}),
                   src)
    rule = Path(__file__).parent.parent / "coscore" / "data" / "demo" / "lane-change.rule.json"
    out = tmp_path / "out.parquet"
    assert cli.main(["score", str(rule), str(src), "--blanks", "answer", "-o", str(out), "--no-progress"]) == 0
    meta = pq.ParquetFile(out).metadata
    dictionary = {meta.schema.column(i).name: meta.row_group(0).column(i).has_dictionary_page
                  for i in range(meta.num_columns)}
    assert dictionary == {"id": False, "answer": False, "class": True, "mark": True, "coscore_score": True,
                          **{name: True for name in dictionary if name.startswith("coscore_combo_")},
                          "coscore_error": True}
    scored = pq.read_table(out)
    want = coscore.compile(rule).score_many([[a] for a in scored.column("answer").to_pylist()])
    assert scored.column("coscore_score").to_numpy().tobytes() == want.scores.tobytes()
    assert scored.column("id").to_pylist() == [f"s{i}" for i in range(rows)]
