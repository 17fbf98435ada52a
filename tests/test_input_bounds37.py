"""Issue 37, item 4: a table's columns are bounded before its rows are parsed (CSV, TSV,
JSON Lines); no input makes the process abort."""
from __future__ import annotations

import pytest

from coscore.io import InputError


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_header_of_too_many_columns_is_refused_before_the_parse(tmp_path, fmt):
    """300,000 columns in 2.9 MB aborted the process (std::bad_alloc); 16,384 are read."""
    from coscore.io import open_reader
    from coscore.io.column_limit import MAX_COLUMNS

    sep = "," if fmt == "csv" else "\t"
    wide = tmp_path / f"wide.{fmt}"
    wide.write_text(sep.join(f"c{i}" for i in range(300_000)) + "\n" + sep.join("x" * 300_000) + "\n")
    with pytest.raises(InputError) as caught, open_reader(str(wide)) as reader:
        list(reader.chunks())
    message = str(caught.value)
    assert "line 1" in message and f"more than {MAX_COLUMNS:,} columns" in message and "\n" not in message
    edge = tmp_path / f"edge.{fmt}"
    edge.write_text(sep.join(f"c{i}" for i in range(MAX_COLUMNS)) + "\n" + sep.join("x" * MAX_COLUMNS) + "\n")
    with open_reader(str(edge)) as reader:
        assert len(reader.columns) == MAX_COLUMNS
    quoted = tmp_path / f"quoted.{fmt}"   # delimiters inside quotes are not columns
    quoted.write_text('"a' + sep * 20000 + '"' + sep + "b\n1" + sep + "2\n")
    with open_reader(str(quoted)) as reader:
        assert len(reader.columns) == 2


def test_json_lines_of_too_many_keys_are_refused_and_many_keys_skip_arrow(tmp_path):
    import json

    from coscore.io import open_reader
    from coscore.io.jsonl_width import few_keys

    wide = tmp_path / "wide.jsonl"
    wide.write_text(json.dumps({f"k{i}": "x" for i in range(20_000)}) + "\n")
    with pytest.raises(InputError, match="more than 16,384 columns"), open_reader(str(wide)) as reader:
        list(reader.chunks())
    rows = [json.dumps({"id": i, f"k{i}": 1}) for i in range(2000)]   # a key of its own per row
    assert not few_keys("".join(row + "\n" for row in rows).encode())
    rows = [json.dumps({"id": i, "answer": 'said "a: b" \\ \\\\', "k": [1, {"x": 2}]}) for i in range(2000)]
    assert few_keys("".join(row + "\n" for row in rows).encode())
    grown = tmp_path / "grown.jsonl"
    grown.write_text("".join(row + "\n" for row in rows[:10]) + "".join(
        json.dumps({"id": i, f"k{i}": 1}) + "\n" for i in range(3000)))
    with open_reader(str(grown)) as reader:
        chunks = list(reader.chunks())
    assert sum(len(chunk.lines) for chunk in chunks) == 3010 and len(reader.columns) == 3003


def test_a_parquet_file_of_too_many_columns_or_too_large_a_footer_is_refused(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from coscore.io import open_reader, parquet
    from coscore.io.column_limit import MAX_COLUMNS

    wide = tmp_path / "wide.parquet"
    pq.write_table(pa.table({f"c{i}": ["x"] for i in range(MAX_COLUMNS + 1)}), wide)
    with pytest.raises(InputError, match=f"the file has {MAX_COLUMNS + 1:,} columns; coscore reads at most"), \
            open_reader(str(wide)):
        pass
    edge = tmp_path / "edge.parquet"
    pq.write_table(pa.table({f"c{i}": ["x"] for i in range(50)}), edge)
    with open_reader(str(edge)) as reader:
        assert len(reader.columns) == 50
    monkeypatch.setattr(parquet, "MAX_FOOTER", 1000)   # the footer is refused before pyarrow parses it
    with pytest.raises(InputError, match="the file has metadata of 0 MB, as for far more than 16,384 columns"), \
            open_reader(str(edge)):
        pass
    with open(edge, "rb") as handle, pytest.raises(InputError, match="metadata of"):
        parquet.ParquetReader("remote.parquet", handle=handle)

