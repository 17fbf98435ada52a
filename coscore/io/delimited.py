"""CSV and TSV: read line by line with the ``csv`` module (RFC 4180 quoting, newlines
inside quoted fields, strict UTF-8 checked line by line, errors naming the line), and
written column-wise through Arrow with the same quoting."""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from typing import Any, BinaryIO

import pyarrow as pa

from ._text import LineTooLong, TextFileReader
from .cell_limit import column_at, limit_of, line_cap, over_limit
from .encodings import Announce
from .errors import InputError
from .cells import joined_lines, quoted, text_column
from .table import CHUNK_SIZE, Chunk

DELIMITERS = {"csv": ",", "tsv": "\t"}


class DelimitedReader(TextFileReader):
    """Read a CSV or TSV file with a header row, in chunks of ``chunk_size`` rows.

    Every value is a ``str``. A row with more or fewer fields than the header is an
    error; blank lines are skipped, except in a one-column file, where a blank line
    is an empty value. ``columns`` is known as soon as the reader is opened. ``source``
    names the file in messages (default: ``path``). A value over ``max_cell_chars``
    characters is an error as soon as it is seen to be (the ``csv`` module's field limit,
    which is the module's own: the reader sets it before it reads); ``header_bytes`` is
    the header's length in the file (a byte order mark included).
    """

    def __init__(
        self, path: str | os.PathLike[str], fmt: str = "csv", chunk_size: int = CHUNK_SIZE, source: str | None = None,
        *, encoding: str | None = None, announce: Announce | None = None, max_cell_chars: int | None = None,
    ) -> None:
        self._limit = limit_of(max_cell_chars)
        super().__init__(path, chunk_size, source, encoding=encoding, announce=announce,
                         max_line_bytes=line_cap(self._limit, 64))
        self._delimiter = DELIMITERS[fmt]
        self._record: list[str] = []
        self._reader = csv.reader(self._recorded(), delimiter=self._delimiter, strict=True)
        self.columns: list[str] = []
        header = self._next_record()
        if header is None:
            raise InputError(self.source, "the file is empty; expected a header row", line=1)
        _, fields = header
        _check_header(self.source, fields)
        self.columns = fields
        self._lines.max_line_bytes = line_cap(self._limit, len(fields))
        self.header_bytes = sum(len(line.encode("utf-8")) for line in self._record) + (3 if self._lines.bom else 0)

    def _recorded(self) -> Iterator[str]:
        """The file's lines, those of the record being read kept (for messages)."""
        for line in self._lines:
            self._record.append(line)
            yield line

    def _next_record(self) -> tuple[int, list[str]] | None:
        """The next record and the line it starts on, or ``None`` at the end."""
        start = self._reader.line_num + 1
        self._record = []
        csv.field_size_limit(self._limit)
        try:
            fields = next(self._reader)
        except StopIteration:
            return None
        except (csv.Error, LineTooLong) as exc:
            raise self._problem(exc, start) from None
        return start, fields

    def _problem(self, exc: Exception, start: int) -> InputError:
        """The error for what the ``csv`` module or the lines raised, in the record at line ``start``."""
        head = "".join(self._record)
        if isinstance(exc, LineTooLong):
            head += exc.head.decode("utf-8", "replace")
        elif "field larger than field limit" not in str(exc):
            return InputError(self.source, f"malformed {_kind(self._reader)}: {exc}", line=start)
        field = column_at(head, self._delimiter, self._limit)
        column = self.columns[field] if field is not None and field < len(self.columns) else None
        return over_limit(self.source, self._limit, line=start, **({"column": column} if column else {}))

    def chunks(self) -> Iterator[Chunk]:
        """The data rows, ``chunk_size`` at a time (the last chunk may be shorter)."""
        width = len(self.columns)
        reader = self._reader
        rows: list[list[str]] = []
        lines: list[int] = []
        yielded = False
        start = reader.line_num + 1  # the line the next record starts on
        csv.field_size_limit(self._limit)
        try:
            for fields in reader:
                self._record = []
                if len(fields) != width:
                    if fields or width != 1:
                        if fields:
                            raise InputError(
                                self.source, f"{len(fields)} fields, but the header has {width}", line=start
                            )
                        start = reader.line_num + 1
                        continue  # a blank line
                    fields = [""]
                rows.append(fields)
                lines.append(start)
                start = reader.line_num + 1
                if len(rows) >= self._chunk_size:
                    yield self._chunk(rows, lines)
                    rows, lines, yielded = [], [], True
        except (csv.Error, LineTooLong) as exc:
            raise self._problem(exc, start) from None
        if rows or not yielded:  # an empty file still yields one (empty) chunk: the header
            yield self._chunk(rows, lines)

    def _chunk(self, rows: list[list[str]], lines: list[int]) -> Chunk:
        data = {name: [row[i] for row in rows] for i, name in enumerate(self.columns)}
        types = dict.fromkeys(self.columns, "str")
        return Chunk(list(self.columns), data, lines, "line", self.source, self._lines.position, types)


def _kind(reader: Any) -> str:
    return "TSV" if reader.dialect.delimiter == "\t" else "CSV"


def _check_header(source: str, names: list[str]) -> None:
    """Reject an empty header or one that names a column twice."""
    if not names or names == [""]:
        raise InputError(source, "the header row is empty", line=1)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(source, "the header names this column twice", line=1, column=name)
        seen.add(name)


class DelimitedWriter:
    """Write chunks as CSV or TSV to a binary stream (UTF-8); the header comes from the
    first chunk. Whole columns are turned into text at once (:mod:`coscore.io.cells`):
    floats in ``repr`` form (shortest exact), NaN and missing values as empty fields,
    lists and objects as JSON, quoting as the ``csv`` module's minimal quoting.
    With ``bom``, the file starts with a UTF-8 byte order mark (for Excel).
    """

    def __init__(self, stream: BinaryIO, fmt: str = "csv", target: str = "", bom: bool = False) -> None:
        self._stream = stream
        self._delimiter = DELIMITERS[fmt]
        self._columns: list[str] | None = None
        self._target = target
        self._bom = bom

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``."""
        if self._columns is None:
            self._columns = list(chunk.columns)
            header = io.StringIO()
            csv.writer(header, delimiter=self._delimiter, lineterminator="\n").writerow(self._columns)
            self._stream.write(("\ufeff" if self._bom else "").encode() + header.getvalue().encode("utf-8"))
        elif chunk.columns != self._columns:
            _new_columns_error(self._target, self._columns, chunk)
        if not len(chunk):
            return
        alone = len(self._columns) == 1
        texts = []
        plain = True  # no value quoted
        for name in self._columns:
            column = chunk.data[name]
            text = listed if (listed := _list_cells(column)) is not None else text_column(column, chunk.types.get(name))
            if alone or not _is_float(column, chunk.types.get(name)):  # numbers need no quotes
                given, text = text, quoted(text, self._delimiter, alone)
                plain = plain and text is given
            texts.append(text)
        self._stream.write(joined_lines(texts, self._delimiter, plain))

    def close(self) -> None:
        """Nothing to finish."""


def _is_float(values: Any, declared: str | None) -> bool:
    kind = getattr(values, "type", None)
    return declared == "float64" or (kind is not None and pa.types.is_floating(kind))


def _new_columns_error(target: str, header: list[str], chunk: Chunk) -> None:
    extra = [name for name in chunk.columns if name not in header]
    first = chunk.lines[0] if chunk.lines else None
    raise InputError(
        chunk.source,
        f"key {extra[0]!r} first appears after the output header was written "
        f"(at or after this {chunk.unit}); write JSON Lines output, or give that key in an early row",
        **({chunk.unit: first} if first is not None else {}),
    )


def _list_cells(column: Any) -> Any:
    """An Arrow list column's cells as JSON text (:func:`.json_text.list_cells`), else ``None``."""
    if not isinstance(column, (pa.Array, pa.ChunkedArray)) or not (
            pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        return None
    from .json_text import list_cells  # pyarrow.compute: only for list columns

    return list_cells(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column)
