"""What keeps the file path at engine speed: Arrow arrays built from buffers (no pandas
import), CSV rows joined by Arrow's writer when nothing needs quotes, Parquet row groups
of many chunks, and the pieces a Parquet dataset is cut into for coscore.dask. Each is
checked against the plain way of doing the same thing."""
from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import coscore
from coscore.io import Chunk, open_reader, open_writer
from coscore.io import parquet as parquet_module
from coscore.io.arrays import bool_array, float_array, float_values, string_array, string_scalar
from coscore.io.blanks import AnswerColumns
from coscore.io.delimited.columnar_csv import ColumnarDelimitedReader
from coscore.io.pieces import Piece, natural_order, plan
from coscore.pipeline.scoring import ItemPlan, Scoring

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"

#: ASCII, CJK (3 bytes), astral (4 bytes) characters, empty strings; and the CSV specials.
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
PLAIN = st.text(st.sampled_from([*list("ab -."), "中", "文", "，", "🎉", "𠀀", "é"]), max_size=10)
SPECIAL = st.text(st.sampled_from([*list('ab ,"\t\n'), "中", "🎉"]), max_size=8)


# -- Arrow arrays from buffers ---------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), TEXT), max_size=40), st.integers(0, 5))
def test_string_array_equals_pyarrow_array(values, cut):
    built = string_array(values)
    assert built.equals(pa.array(values, pa.string()))
    assert built.slice(min(cut, len(values))).to_pylist() == values[min(cut, len(values)):]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=40), st.integers(0, 5))
def test_float_array_and_values_round_trip(values, cut):
    built = float_array(np.array(values, dtype=np.float64))
    expect = pa.array([None if math.isnan(v) else v for v in values], pa.float64())
    assert built.equals(expect)
    back = float_values(expect.slice(min(cut, len(values))))
    np.testing.assert_array_equal(back, np.array(values[min(cut, len(values)):], dtype=np.float64))
    np.testing.assert_array_equal(float_values(pa.chunked_array([expect, expect], pa.float64())),
                                  np.array(values * 2, dtype=np.float64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), max_size=40))
def test_bool_array_equals_pyarrow_array(values):
    assert bool_array(np.array(values, dtype=bool)).equals(pa.array(values, pa.bool_()))


def test_string_scalar_and_refusals():
    assert string_scalar("中").as_py() == "中" and string_scalar("").type == pa.string()
    with pytest.raises(TypeError):
        string_array(["a", 1])
    with pytest.raises(UnicodeEncodeError):
        string_array(["\ud800"])


BLOCK_PANDAS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not needed here")
sys.meta_path.insert(0, Block())
from coscore.cli import main
status = main(sys.argv[1:])
print(sorted(m for m in ("pandas", "pyarrow.compute", "pyarrow.csv") if m in sys.modules))
sys.exit(status)
"""


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_score_imports_only_what_its_formats_need(tmp_path, fmt):
    """pyarrow.array imports pandas (0.4 s): the score path never calls it; a Parquet run
    does not import the CSV writer's pyarrow.compute either."""
    answers = [["车道", "x"], ["", "中🎉"], ["a,b", 'q"'], ["0", "1"]] * 50
    table = pa.table({"id": [str(i) for i in range(len(answers))],
                      "b1": [a[0] for a in answers], "b2": [a[1] for a in answers]})
    source = tmp_path / f"in.{fmt}"
    if fmt == "csv":
        import pyarrow.csv as pa_csv

        pa_csv.write_csv(table, source)
    else:
        pq.write_table(table, source)
    rule = DEMO / "lane-change.rule.json"
    out = tmp_path / f"out.{fmt}"
    done = subprocess.run([sys.executable, "-c", BLOCK_PANDAS, "score", str(rule), str(source), "-o", str(out),
                           "--blanks", "b1,b2", "--no-progress"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().replace("'", '"'))
    assert loaded == (["pyarrow.compute", "pyarrow.csv"] if fmt == "csv" else [])
    expected = coscore.compile(rule).score_many(answers).scores
    with open_reader(out) as reader:
        got = [float(v) if v not in ("", None) else math.nan for c in reader.chunks() for v in c.pylist("coscore_score")]
    np.testing.assert_array_equal(np.array(got), expected)


# -- CSV rows joined by Arrow's writer -------------------------------------------------------


def _csv_module(rows: list[list], delimiter: str) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
    return out.getvalue().encode("utf-8")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.one_of(PLAIN, SPECIAL), st.one_of(st.none(), PLAIN),
                          st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))),
                min_size=1, max_size=25),
       st.sampled_from(["csv", "tsv"]), st.integers(1, 9))
def test_csv_output_equals_the_csv_module(tmp_path_factory, rows, fmt, chunk_size):
    """Whether or not a chunk needs quotes (Arrow's writer or the join), the bytes are the
    csv module's."""
    path = tmp_path_factory.mktemp("w") / f"out.{fmt}"
    names = ["a", "b", "s"]
    with open_writer(path) as writer:
        for start in range(0, len(rows), chunk_size):
            part = rows[start : start + chunk_size]
            data = {"a": pa.array([r[0] for r in part], pa.string()), "b": pa.array([r[1] for r in part], pa.string()),
                    "s": pa.array([r[2] for r in part], pa.float64())}
            writer.write(Chunk(names, data, range(len(part)), types={"s": "float64"}))
    delimiter = "," if fmt == "csv" else "\t"
    assert path.read_bytes() == _csv_module([names, *map(list, rows)], delimiter)


# -- Parquet row groups ------------------------------------------------------------------------


def test_parquet_output_holds_chunks_in_large_row_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_module, "ROW_GROUP_ROWS", 25)
    path = tmp_path / "out.parquet"
    values = [f"答{i}" for i in range(100)]
    with open_writer(path) as writer:
        for start in range(0, 100, 10):  # ten chunks of 10 rows: row groups of 30, 30, 30, 10
            data = {"t": pa.array(values[start : start + 10], pa.string()),
                    "s": float_array(np.arange(start, start + 10, dtype=np.float64))}
            writer.write(Chunk(["t", "s"], data, range(10), "row", types={"s": "float64"}))
    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == [30, 30, 30, 10]
    table = pq.read_table(path)
    assert table.column("t").to_pylist() == values and table.column("s").to_pylist() == list(map(float, range(100)))


def test_empty_parquet_output_keeps_its_schema(tmp_path):
    path = tmp_path / "out.parquet"
    with open_writer(path) as writer:
        writer.write(Chunk(["t"], {"t": pa.array([], pa.string())}, range(0), "row"))
    assert pq.read_table(path).schema.names == ["t"] and pq.read_table(path).num_rows == 0


# -- pieces of a Parquet dataset (coscore.dask.score_files) ------------------------------------


def test_natural_order():
    assert natural_order(["p/part.10.parquet", "p/part.2.parquet", "p/part.1.parquet"]) == [
        "p/part.1.parquet", "p/part.2.parquet", "p/part.10.parquet"]


def test_pieces_cut_files_at_row_groups_and_score_as_score_many(tmp_path):
    from coscore.dask import score_piece

    texts = [f"车道{i}" if i % 3 else "" for i in range(70)]
    table = pa.table({"id": [str(i) for i in range(70)], "b1": texts})
    pq.write_table(table.slice(0, 50), tmp_path / "a.parquet", row_group_size=10)  # 5 row groups
    pq.write_table(table.slice(50), tmp_path / "b.parquet")  # 1 row group
    fs = fsspec.filesystem("file")
    files = [str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]
    schema, pieces = plan(fs, files, "data", piece_rows=20)
    assert schema.names == ["id", "b1"]
    assert [(Path(p.path).name, p.row_groups, p.first_row, p.rows) for p in pieces] == [
        ("a.parquet", (0, 1), 0, 20), ("a.parquet", (2, 3), 20, 20), ("a.parquet", (4,), 40, 10),
        ("b.parquet", (0,), 0, 20)]
    rule = coscore.compile((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"))
    columns = AnswerColumns.resolve("parquet", "data", schema.names, None, None)
    parts = []
    for i, piece in enumerate(pieces):
        out = tmp_path / f"part.{i}.parquet"
        totals = score_piece(Scoring((ItemPlan(rule.plan, columns),)), fs, piece, fs, str(out), chunk_size=7)
        assert totals.rows == piece.rows
        parts.append(pq.read_table(out))
    got = pa.concat_tables(parts)
    assert got.column("id").to_pylist() == [str(i) for i in range(70)]
    batch = rule.score_many([[t] for t in texts])
    np.testing.assert_array_equal(got.column("coscore_score").to_numpy(), batch.scores)


def test_a_piece_of_another_schema_is_refused(tmp_path):
    pq.write_table(pa.table({"id": ["1"], "b1": ["x"]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"id": ["1"], "b2": ["x"]}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match="differ"):
        plan(fsspec.filesystem("file"), [str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")], "data")
    assert Piece("x", (), 0, 0).rows == 0


# -- CSV on standard input ---------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.one_of(PLAIN, SPECIAL), st.one_of(PLAIN, SPECIAL)), min_size=1, max_size=20))
@example(rows=[("", "\n")])  # the last value a line break: the file ends as an open quote would
def test_csv_on_stdin_is_read_as_the_same_file(tmp_path_factory, rows):
    import pyarrow.csv as pa_csv

    folder = tmp_path_factory.mktemp("stdin")
    path = folder / "in.csv"
    pa_csv.write_csv(pa.table({"b1": [r[0] for r in rows], "b2": [r[1] for r in rows]}), path)
    with open_reader(path) as reader:
        chunks = list(reader.chunks())
        from_file = {n: [v for c in chunks for v in c.pylist(n)] for n in reader.columns}
    with open(path, "rb") as stream:
        reader = ColumnarDelimitedReader.from_stream(stream, "csv", 7)
        spool = reader._path
        try:
            chunks = list(reader.chunks())
            from_stdin = {n: [v for c in chunks for v in c.pylist(n)] for n in reader.columns}
        finally:
            reader.close()
    assert reader.source == "<stdin>" and not Path(spool).exists()
    assert from_stdin == from_file


def test_csv_errors_on_stdin_name_stdin_and_the_line(tmp_path):
    rule = str(DEMO / "lane-change.rule.json")
    for payload, expect in ((b'id,answer\n1,x\n2,"a\n', "<stdin>: line 3: malformed CSV"),
                            (b"id,answer\n1,x\n2,y,z\n", "<stdin>: line 3: 3 fields, but the header has 2"),
                            (b"", "<stdin>: line 1: the file is empty")):
        done = subprocess.run([sys.executable, "-m", "coscore", "score", rule, "-", "--format", "csv"], input=payload,
                              capture_output=True, cwd=ROOT, timeout=120)
        assert done.returncode == 2 and expect in done.stderr.decode(), done.stderr
