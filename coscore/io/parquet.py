"""Parquet through pyarrow, streamed in record batches."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from ._text import display_name
from .cell_limit import check_chunk, limit_of
from .column_limit import MAX_COLUMNS, too_wide
from .errors import InputError
from .table import CHUNK_SIZE, MISSING, Chunk

#: The largest footer (the file's metadata) read: a table of 16,384 short columns has one
#: of about 3.5 MB, and parsing a footer takes about 15 times its size in memory.
MAX_FOOTER = 32 << 20


def _pyarrow() -> Any:
    """pyarrow, with pyarrow.parquet loaded (imported when a Parquet file is first read or
    written, so that the command's start stays light)."""
    import pyarrow
    import pyarrow.parquet

    return pyarrow


def _footer_size(source: Any) -> int | None:
    """The length of a Parquet file's footer, from its last 8 bytes (``None`` when they
    cannot be read or are not a Parquet file's end: pyarrow then says what is wrong)."""
    try:
        position = source.tell()
        source.seek(-8, 2)
        end = source.read(8)
        source.seek(position)
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    if len(end) != 8 or bytes(end[4:]) != b"PAR1":
        return None
    return int.from_bytes(bytes(end[:4]), "little")


class ParquetReader:
    """Read one Parquet file (or standard input) ``chunk_size`` rows at a time; its
    columns stay Arrow arrays. Row numbers in messages are 1-based.

    ``handle`` is the file already open (e.g. by fsspec, for a remote file; ``path`` then
    only names it), ``row_groups`` the row groups to read (default all) and
    ``first_row`` the number of the rows before them (for messages). A text value over
    ``max_cell_chars`` characters is an error naming its row and column."""

    unit = "row"

    def __init__(
        self, path: str | os.PathLike[str], chunk_size: int = CHUNK_SIZE, *,
        handle: Any = None, row_groups: list[int] | None = None, first_row: int = 0,
        max_cell_chars: int | None = None,
    ) -> None:
        self._limit = limit_of(max_cell_chars)
        pa = _pyarrow()
        self._pq = sys.modules["pyarrow.parquet"]
        self._pa = pa
        self.source = display_name(path)
        self._chunk_size = chunk_size
        self._file = self._open(os.fspath(path)) if handle is None else self._parquet_file(handle)
        self._row_groups = row_groups
        self._first_row = first_row
        meta = self._file.metadata
        if meta.num_columns > MAX_COLUMNS:
            raise too_wide(self.source, meta.num_columns, "the file has")
        self.columns: list[str] = list(self._file.schema_arrow.names)
        self.total_rows: int | None = (
            meta.num_rows if row_groups is None else sum(meta.row_group(g).num_rows for g in row_groups)
        )
        self.total_bytes: int | None = None

    def _open(self, name: str) -> Any:
        if name != "-" and not os.path.exists(name):
            raise InputError(self.source, "no such file")
        if os.path.isdir(name):
            raise InputError(self.source, "is a directory, not a file")
        try:
            if name == "-":
                return self._parquet_file(self._pa.BufferReader(sys.stdin.buffer.read()))
            return self._parquet_file(self._pa.OSFile(os.fsencode(name)))  # bytes: a name that is not UTF-8 too
        except (OSError, self._pa.ArrowException) as exc:
            raise InputError(self.source, f"not a readable Parquet file ({exc})") from None

    def _parquet_file(self, source: Any) -> Any:
        """``source`` opened as a Parquet file without pre-buffering: pyarrow's pre-buffer
        cache keeps every column chunk it has read until the file is closed, so memory
        would grow with the file (about 35 MB per million rows of short answers) instead
        of staying at a row group or two. A footer over :data:`MAX_FOOTER` is refused
        before it is parsed."""
        footer = _footer_size(source)
        if footer is not None and footer > MAX_FOOTER:
            raise too_wide(self.source, f"metadata of {footer / (1 << 20):.0f} MB, as for far more than "
                           f"{MAX_COLUMNS:,}", "the file has")
        return self._pq.ParquetFile(source, pre_buffer=False, buffer_size=1 << 20)

    def chunks(self) -> Iterator[Chunk]:
        """The rows, at most ``chunk_size`` at a time."""
        row = self._first_row
        yielded = False
        try:
            for batch in self._file.iter_batches(batch_size=self._chunk_size, row_groups=self._row_groups):
                n = batch.num_rows
                data = {col: batch.column(i) for i, col in enumerate(self.columns)}
                chunk = Chunk(list(self.columns), data, range(row + 1, row + n + 1), "row", self.source)
                check_chunk(chunk, self._limit)
                yield chunk
                row += n
                yielded = True
        except self._pa.ArrowException as exc:
            raise InputError(self.source, f"cannot read: {exc}", row=row + 1) from None
        if not yielded:
            empty = self._file.schema_arrow.empty_table()
            data = {col: empty.column(i) for i, col in enumerate(self.columns)}
            yield Chunk(list(self.columns), data, range(0), "row", self.source)

    def close(self) -> None:
        """Nothing to close: pyarrow owns the file handle."""


#: Rows and bytes of chunks a :class:`ParquetWriter` holds before writing them as one row
#: group: Arrow's own row group size, or less for wide rows. A row group per chunk would
#: make Parquet try (and give up) a dictionary for every text column of every chunk. The
#: last row group is written after the last chunk is scored, so smaller groups leave less
#: writing at the end: with the command's 16,384-row chunks, 4 MiB groups took 0.94-0.97
#: the time of 8 MiB ones end to end on 1 M rows (and 16 or 32 MiB 1.13-1.19).
ROW_GROUP_ROWS = 1 << 20
ROW_GROUP_BYTES = 4 << 20
#: A text column whose first values (this many, at most) are more than half distinct is
#: written without a dictionary: Parquet would build one for every row group and give it
#: up (ids, answers). Columns of few values (marks, scores, empty blanks) keep theirs.
DICTIONARY_SAMPLE = 4096


class ParquetWriter:
    """Write chunks to a Parquet file. The schema is that of the first chunk (Arrow
    types are kept from Parquet input; Python values are inferred, all-null columns
    become strings). Consecutive chunks are written as one row group of up to
    :data:`ROW_GROUP_ROWS` rows or :data:`ROW_GROUP_BYTES` bytes; columns of mostly
    distinct text are written without a dictionary (:data:`DICTIONARY_SAMPLE`). ``record``
    (a JSON-able mapping: how the file was scored) is kept in the schema's metadata under
    the key ``coscore`` (:mod:`.scored_record`)."""

    @staticmethod
    def check_available() -> None:
        """Raise :class:`InputError` now, before any output is made, if pyarrow is missing."""
        _pyarrow()

    def __init__(self, stream: BinaryIO, target: str = "", *, record: Mapping[str, Any] | None = None) -> None:
        self._pa = _pyarrow()
        self._metadata: dict[bytes, bytes] | None = None
        if record is not None:
            from .scored_record import RECORD_KEY, record_json

            self._metadata = {RECORD_KEY.encode(): record_json(record).encode("utf-8")}
        self._pq = sys.modules["pyarrow.parquet"]
        self._stream = stream
        self._target = target
        self._writer: Any = None
        self._schema: Any = None
        self._held: list[Any] = []
        self._held_rows = 0
        self._held_bytes = 0

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk`` as one row group (or more)."""
        pa = self._pa
        arrays = {}
        for name in chunk.columns:
            values = chunk.data[name]
            if isinstance(values, list):
                values = [None if v is MISSING else v for v in values]
            arrays[name] = values
        try:
            if self._schema is None:
                declared = {k: _ARROW_TYPES[t](pa) for k, t in chunk.types.items() if t in _ARROW_TYPES}
                table = pa.table({k: _arrow_array(pa, v, declared.get(k)) for k, v in arrays.items()})
                if self._metadata is not None:
                    table = table.replace_schema_metadata(self._metadata)
                self._schema = table.schema
                self._writer = self._pq.ParquetWriter(self._stream, self._schema,
                                                      use_dictionary=_dictionary_columns(pa, table))
            else:
                table = pa.table(
                    {k: _arrow_array(pa, v, self._schema.field(k).type) for k, v in arrays.items()},
                    schema=self._schema,
                )
        except (pa.ArrowException, KeyError) as exc:
            first = chunk.lines[0] if chunk.lines else None
            raise InputError(
                chunk.source,
                f"these rows do not fit one Parquet schema ({exc}); write CSV or JSON Lines instead",
                **(chunk.where(0) if first is not None else {}),
            ) from None
        self._held.append(table)
        self._held_rows += table.num_rows
        self._held_bytes += table.nbytes
        if self._held_rows >= ROW_GROUP_ROWS or self._held_bytes >= ROW_GROUP_BYTES:
            self._flush()

    def _flush(self) -> None:
        """Write the chunks held as one row group."""
        if self._held_rows:
            self._writer.write_table(self._pa.concat_tables(self._held), row_group_size=max(1, self._held_rows))
        self._held, self._held_rows, self._held_bytes = [], 0, 0

    def abort(self) -> None:
        """Give up the file (it is being discarded): nothing more is written, not even
        by pyarrow's writer when it is collected (it would write to a closed file)."""
        if self._writer is not None:
            self._writer.is_open = False
            self._writer = None
        self._held = []

    def close(self) -> None:
        """Write what is held, then the Parquet footer."""
        if self._writer is not None:
            self._flush()
            self._writer.close()


def _dictionary_columns(pa: Any, table: Any) -> list[str]:
    """The columns of ``table`` (a first chunk) worth a dictionary: all but the text
    columns whose first :data:`DICTIONARY_SAMPLE` values are more than half distinct."""
    chosen = []
    for name, column in zip(table.column_names, table.columns):
        kind = column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind):
            sample = [v for v in column.slice(0, DICTIONARY_SAMPLE).to_pylist() if v is not None]
            if len(sample) >= 64 and len(set(sample)) > len(sample) // 2:
                continue
        chosen.append(name)
    return chosen


_ARROW_TYPES = {"float64": lambda pa: pa.float64(), "string": lambda pa: pa.string(), "str": lambda pa: pa.string()}


def _arrow_array(pa: Any, values: Any, type_: Any = None) -> Any:
    """``values`` as an Arrow array (of ``type_`` when given); all-null columns are strings."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if type_ is None or values.type == type_:
            return values
        if pa.types.is_null(values.type):
            return values.cast(type_)
        values = values.to_pylist()  # converted as Python values are, whether read as lists or as Arrow
    if type_ is not None:
        return pa.array(values, type=type_)
    array = pa.array(values)
    return array.cast(pa.string()) if pa.types.is_null(array.type) else array
