"""CSV and TSV files read in Arrow record batches (pyarrow's multi-threaded parser).

Same results as :class:`~coscore.io.delimited.delimited.DelimitedReader` (every value a ``str``,
empty cells ``""``, blank lines skipped except in a one-column file) without a Python
object per cell. Problems the Arrow parser reports without a line (invalid UTF-8,
a wrong number of fields, an unclosed quote) are located by re-reading the file with
the line-by-line reader, which names the line; so are the line numbers of a chunk
(:class:`~coscore.io.table.LazyLines`), found only if something asks for them.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.csv as pa_csv

from .._text import display_name, size_of
from ..cell_limit import check_chunk, limit_of, line_cap
from ..errors import InputError
from ..header_rows import OnHeader
from ..table import CHUNK_SIZE, Chunk, LazyLines
from .delimited import DELIMITERS, DelimitedReader

#: Bytes the Arrow parser reads at a time; a row must fit in one block, so a file with a
#: longer row is read again with blocks large enough for it (up to :data:`MAX_BLOCK_SIZE`).
#: The parser keeps a few dozen blocks in flight (about 150 MB at 4 MiB), so the block size
#: bounds the reader's memory; 1 MiB parses as fast as 4 MiB.
BLOCK_SIZE = 1 << 20
#: The largest block the Arrow parser takes (its offsets are 32-bit).
MAX_BLOCK_SIZE = (1 << 31) - 1


class ColumnarDelimitedReader:
    """Read a CSV or TSV file in chunks of ``chunk_size`` rows whose columns are Arrow
    string arrays. ``columns`` is known once opened; ``source`` names the file in
    messages (default: ``path``). Standard input and other encodings than UTF-8:
    :meth:`from_stream`. A value over ``max_cell_chars`` characters is an error naming its
    line and column; the header may be of any length (the parser starts after it).
    ``header_row`` and ``on_header``: where the header is (:class:`DelimitedReader`)."""

    unit = "line"

    def __init__(
        self, path: str | os.PathLike[str], fmt: str = "csv", chunk_size: int = CHUNK_SIZE, source: str | None = None,
        *, max_cell_chars: int | None = None, header_row: int | None = None, on_header: OnHeader | None = None,
    ) -> None:
        self._path = os.fspath(path)
        self._fmt = fmt
        self.source = source or display_name(path)
        self.total_bytes = size_of(path)
        self._chunk_size = chunk_size
        self._spool: str | None = None
        self._limit = limit_of(max_cell_chars)
        exact = DelimitedReader(self._path, fmt, chunk_size, self.source, max_cell_chars=self._limit,
                                header_row=header_row, on_header=on_header)  # the header, checked as always
        self.columns: list[str] = exact.columns
        self._header_bytes = exact.header_bytes
        #: the line of the header (read again from there, below a title that was skipped)
        self.header_row: int = exact.header_line
        exact.close()
        self._file: Any = None
        self._line_numbers: list[int] | None = None
        self._consumed = self._header_bytes

    def _exact(self, chunk_size: int) -> DelimitedReader:
        return DelimitedReader(self._path, self._fmt, chunk_size, self.source, max_cell_chars=self._limit,
                               header_row=self.header_row)

    def _open(self, block_size: int) -> Any:
        width = len(self.columns)
        if self._file is not None:
            self._file.close()
        self._file = pa.OSFile(os.fsencode(self._path))  # bytes: a name that is not UTF-8 too
        self._file.seek(self._header_bytes)  # the header is known: a long one need not fit a block
        return pa_csv.open_csv(
            self._file,
            read_options=pa_csv.ReadOptions(block_size=block_size, use_threads=True, column_names=self.columns),
            parse_options=pa_csv.ParseOptions(
                delimiter=DELIMITERS[self._fmt], quote_char='"', double_quote=True, escape_char=False,
                newlines_in_values=True, ignore_empty_lines=width != 1,
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={name: pa.string() for name in self.columns},
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )

    def chunks(self) -> Iterator[Chunk]:
        """The data rows, ``chunk_size`` at a time (the last chunk may be shorter).

        A chunk goes on as soon as a row after it is read (the reader need not hold one
        back); the last one is checked first (for a quote left open)."""
        row = 0
        block = BLOCK_SIZE
        largest = max(BLOCK_SIZE, min(MAX_BLOCK_SIZE, line_cap(self._limit, len(self.columns))))
        while True:
            try:
                reader = self._open(block)
                if reader.schema.names != self.columns:
                    self._diagnose("the Arrow parser read another header")
                # read again after a row too long for the blocks: skip the rows already yielded
                for table, last in _rebatched(reader, self._chunk_size, reader.schema, skip=row):
                    chunk = self._chunk(table, row)
                    if last:
                        if self._unclosed_quote(table.column(len(self.columns) - 1)[-1].as_py()):
                            self._diagnose("a quoted value runs to the end of the file")
                        chunk.position = self.total_bytes  # the whole file is read
                    row += table.num_rows
                    yield chunk
                break
            except pa.ArrowException as exc:
                if "Empty CSV file" in str(exc) and not row:  # nothing after the header but blank lines
                    break
                if "straddl" not in str(exc) or block >= largest:  # no row within the cell limit is longer
                    self._diagnose(str(exc))
                block = min(largest, max(block * 4, (self.total_bytes or 0) + 1))
        if not row:  # no data row: one empty chunk stands for the table
            empty = pa.table({name: pa.array([], pa.string()) for name in self.columns})
            only = self._chunk(empty, 0)
            only.position = self.total_bytes
            yield only

    def _chunk(self, table: Any, start: int) -> Chunk:
        data = {name: table.column(i) for i, name in enumerate(self.columns)}
        n = table.num_rows
        lines = LazyLines(n, lambda: self._lines()[start : start + n])
        # bytes read so far, as near as the values tell (the parser reads ahead of them)
        self._consumed += sum(_span(column) for column in data.values()) + n * len(self.columns)
        position = min(self._consumed, self.total_bytes) if self.total_bytes else None
        types = dict.fromkeys(self.columns, "str")
        chunk = Chunk(list(self.columns), data, lines, "line", self.source, position, types)
        check_chunk(chunk, self._limit)
        return chunk

    @classmethod
    def from_stream(
        cls, stream: Any, fmt: str = "csv", chunk_size: int = CHUNK_SIZE, source: str = "<stdin>",
        *, max_cell_chars: int | None = None, header_row: int | None = None, on_header: OnHeader | None = None,
    ) -> ColumnarDelimitedReader:
        """Read ``stream`` (standard input, or a file decoded to UTF-8) as a file: it is
        copied to a temporary file first (the Arrow parser reads blocks ahead, and an error
        is located by reading the text again), which is removed when the reader is closed."""
        # closed by the with below, removed when the reader is closed
        spool = tempfile.NamedTemporaryFile(prefix="coscore-input-", suffix=f".{fmt}", delete=False)  # noqa: SIM115
        try:
            with spool:
                shutil.copyfileobj(stream, spool, 1 << 20)
            reader = cls(spool.name, fmt, chunk_size, source, max_cell_chars=max_cell_chars, header_row=header_row,
                         on_header=on_header)
        except BaseException:
            os.unlink(spool.name)
            raise
        reader._spool = spool.name
        return reader

    def _exact_chunks(self) -> Iterator[Chunk]:
        exact = self._exact(1 << 16)
        try:
            yield from exact.chunks()
        finally:
            exact.close()

    def _lines(self) -> list[int]:
        """The line each data row starts on, by re-reading the file line by line."""
        if self._line_numbers is None:
            self._line_numbers = [line for chunk in self._exact_chunks() for line in chunk.lines]
        return self._line_numbers

    def _diagnose(self, problem: str) -> None:
        """Re-read the file line by line to raise its error with the line; if that reader
        finds none, say what the Arrow parser found."""
        for _ in self._exact_chunks():
            pass
        raise InputError(self.source, f"cannot read: {problem}")

    def _unclosed_quote(self, last_value: str) -> bool:
        """Whether the file may end inside a quoted value (the Arrow parser takes the rest
        of the file as that value): the last value ends the file right after a quote."""
        raw = last_value.replace('"', '""').encode("utf-8")
        if not raw:
            return False
        with open(self._path, "rb") as f:
            f.seek(max(0, (self.total_bytes or 0) - len(raw) - 3))
            tail = f.read()
        if tail.endswith((b'"' + raw + b'"\n', b'"' + raw + b'"\r\n')):
            return False  # closed, then the line ends (a value such as "\n" ends like an open one)
        return tail.endswith(b'"' + raw)

    def close(self) -> None:
        """Close the file (and remove the copy of standard input)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._spool is not None:
            os.unlink(self._spool)
            self._spool = None


def _span(column: Any) -> int:
    """The bytes of text a string column holds (from its offsets, without reading it)."""
    total = 0
    for chunk in column.chunks:
        if len(chunk):
            offsets = chunk.buffers()[1]
            width = 8 if pa.types.is_large_string(chunk.type) else 4
            first = int.from_bytes(offsets[chunk.offset * width : (chunk.offset + 1) * width], "little")
            end = chunk.offset + len(chunk)
            last = int.from_bytes(offsets[end * width : (end + 1) * width], "little")
            total += last - first
    return total


def _rebatched(batches: Any, size: int, schema: Any, skip: int = 0) -> Iterator[tuple[Any, bool]]:
    """The rows of ``batches`` after the first ``skip``, as tables of exactly ``size``
    rows (the last may be shorter), each with whether it is the last. A table is
    yielded once a row after it is read, or at the end."""
    pending: list[Any] = []
    count = 0
    for batch in batches:
        if skip:
            if batch.num_rows <= skip:
                skip -= batch.num_rows
                continue
            batch, skip = batch.slice(skip), 0
        pending.append(batch)
        count += batch.num_rows
        while count > size:
            table = pa.Table.from_batches(pending, schema)
            yield table.slice(0, size), False
            rest = table.slice(size)
            pending, count = rest.to_batches(), rest.num_rows
    if count:
        yield pa.Table.from_batches(pending, schema), True
