"""CSV and TSV: read line by line with the ``csv`` module (RFC 4180 quoting, newlines
inside quoted fields, strict UTF-8 checked line by line, errors naming the line), and
written column-wise through Arrow with the same quoting."""
from __future__ import annotations

import csv
import io
import itertools
import os
from collections.abc import Iterator
from typing import Any, BinaryIO

import pyarrow as pa

from .._text import LineTooLong, TextFileReader
from ..cell_limit import column_at, limit_of, line_cap, over_limit
from ..cells import joined_lines, quoted, text_column
from ..column_limit import MAX_COLUMNS, FieldCounter, too_wide
from ..encodings import Announce
from ..errors import InputError
from ..header_rows import HINT, OnHeader, announcement, is_title
from ..table import CHUNK_SIZE, Chunk

DELIMITERS = {"csv": ",", "tsv": "\t"}


class DelimitedReader(TextFileReader):
    """Read a CSV or TSV file with a header row, in chunks of ``chunk_size`` rows.

    Every value is a ``str``. A row with more or fewer fields than the header is an
    error; blank lines are skipped, except in a one-column file, where a blank line
    is an empty value. ``columns`` is known as soon as the reader is opened. ``source``
    names the file in messages (default: ``path``). A value over ``max_cell_chars``
    characters is an error as soon as it is seen to be (the ``csv`` module's field limit,
    which is the module's own: the reader sets it before it reads); ``header_bytes`` is
    the length in the file of the header and the lines above it (a byte order mark
    included), ``header_line`` the line the header starts on. Lines end as Python's universal
    newlines end them (and Arrow's CSV parser): LF, CRLF, or a CR alone.

    ``header_row`` is the line of the header (the lines above it are skipped as they are,
    not read as CSV); by default it is line 1, or the line below a lone title
    (:mod:`..header_rows`), which is told to ``on_header``.
    """

    newline = ""

    def __init__(
        self, path: str | os.PathLike[str], fmt: str = "csv", chunk_size: int = CHUNK_SIZE, source: str | None = None,
        *, encoding: str | None = None, announce: Announce | None = None, max_cell_chars: int | None = None,
        header_row: int | None = None, on_header: OnHeader | None = None,
    ) -> None:
        self._limit = limit_of(max_cell_chars)
        super().__init__(path, chunk_size, source, encoding=encoding, announce=announce,
                         max_line_bytes=line_cap(self._limit, 64))
        self._delimiter = DELIMITERS[fmt]
        self._record: list[str] = []
        self._counter = FieldCounter(self._delimiter)   # the fields of a header line, before it is split
        self._record_start = 1
        self._skip = 0 if header_row is None else header_row - 1  # lines above the header, skipped as they are
        self._skipped_bytes = 0
        self._pending: list[tuple[int, list[str]]] = []  # records read ahead, not yet data
        self._start = 1
        self._reader = csv.reader(self._recorded(), delimiter=self._delimiter, strict=True)
        self.columns: list[str] = []
        header = self._next_record()
        if header is None:
            if self._skip:
                raise InputError(self.source, f"the file ends before line {header_row} (--header-row {header_row}); "
                                 f"give the line that holds the column names", line=header_row)
            raise InputError(self.source, "the file is empty; expected a header row", line=1)
        header_bytes = self._record_bytes()
        if header_row is None and is_title([field for field in header[1] if field]):
            below = self._below_title(header, on_header)
            if below is not None:
                self._skipped_bytes += header_bytes
                header = below
                header_bytes = self._record_bytes()
        self.header_line, fields = header
        _check_header(self.source, fields, self.header_line)
        self.columns = fields
        self._lines.max_line_bytes = line_cap(self._limit, len(fields))
        self.header_bytes = self._skipped_bytes + header_bytes + (3 if self._lines.bom else 0)

    def _record_bytes(self) -> int:
        """The bytes in the file of the record just read."""
        return sum(len(line.encode("utf-8")) for line in self._record)

    def _below_title(self, title: tuple[int, list[str]], on_header: OnHeader | None) -> tuple[int, list[str]] | None:
        """The header below the lone title ``title`` (the next record that is not blank), when
        it holds two values or more; else ``None``, and the records read are put back."""
        ahead: list[tuple[int, list[str]]] = []
        gone = 0
        while (record := self._next_record()) is not None and not any(record[1]):
            ahead.append(record)
            gone += self._record_bytes()
        if record is None or sum(1 for field in record[1] if field) < 2:
            self._pending = ahead + ([record] if record is not None else [])
            return None
        self._skipped_bytes += gone
        if on_header is not None:
            on_header(self.source, announcement("line", record[0], record[1], title[0],
                                                next(field for field in title[1] if field)))
        return record

    def _recorded(self) -> Iterator[str]:
        """The file's lines, those of the record being read kept (for messages); the lines
        above the header row skipped."""
        for line in self._lines:
            if self._lines.lineno <= self._skip:
                self._skipped_bytes += len(line.encode("utf-8"))
                continue
            self._record.append(line)
            if not self.columns and self._counter.add(line) > MAX_COLUMNS:   # (the header, or a title above it)
                raise too_wide(self.source, f"more than {MAX_COLUMNS:,}", "the header has", line=self._record_start)
            yield line

    def _next_record(self) -> tuple[int, list[str]] | None:
        """The next record and the line it starts on, or ``None`` at the end."""
        start = self._skip + self._reader.line_num + 1
        self._record = []
        self._record_start = start
        self._counter = FieldCounter(self._delimiter)
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
        elif "new-line character seen in unquoted field" in str(exc):
            return InputError(self.source, f"a carriage return (CR) inside an unquoted {_kind(self._reader)} value: "
                              "the file's line ends are mixed (CR alone, and LF); save it again with one kind of "
                              "line end (LF, or CRLF as Excel writes it), or quote the value", line=start)
        elif "field larger than field limit" not in str(exc):
            return InputError(self.source, f"malformed {_kind(self._reader)}: {exc}", line=start)
        field = column_at(head, self._delimiter, self._limit)
        column = self.columns[field] if field is not None and field < len(self.columns) else None
        return over_limit(self.source, self._limit, line=start, **({"column": column} if column else {}))

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        """The records after the header, each with the line it starts on (``_start``: the
        line of the one being read)."""
        reader = self._reader
        self._start = self._skip + reader.line_num + 1
        for fields in reader:
            self._record = []
            yield self._start, fields
            self._start = self._skip + reader.line_num + 1

    def chunks(self) -> Iterator[Chunk]:
        """The data rows, ``chunk_size`` at a time (the last chunk may be shorter)."""
        width = len(self.columns)
        rows: list[list[str]] = []
        lines: list[int] = []
        yielded = False
        csv.field_size_limit(self._limit)
        pending, self._pending = self._pending, []
        try:
            for start, fields in itertools.chain(pending, self._records()):
                if len(fields) != width:
                    if fields or width != 1:
                        if fields:
                            raise self._wrong_width(len(fields), start)
                        continue  # a blank line
                    fields = [""]
                rows.append(fields)
                lines.append(start)
                if len(rows) >= self._chunk_size:
                    yield self._chunk(rows, lines)
                    rows, lines, yielded = [], [], True
        except (csv.Error, LineTooLong) as exc:
            raise self._problem(exc, self._start) from None
        if rows or not yielded:  # an empty file still yields one (empty) chunk: the header
            yield self._chunk(rows, lines)

    def _wrong_width(self, count: int, line: int) -> InputError:
        """The error for a record of ``count`` fields at ``line``; on the first data line, or
        under a header of one name, the header may be the wrong line: the hint says so."""
        width = len(self.columns)
        hint = f"; {HINT}" if width == 1 or line == self.header_line + 1 else ""
        return InputError(self.source, f"{count} fields, but the header has {width} (line {self.header_line}){hint}",
                          line=line)

    def _chunk(self, rows: list[list[str]], lines: list[int]) -> Chunk:
        data = {name: [row[i] for row in rows] for i, name in enumerate(self.columns)}
        types = dict.fromkeys(self.columns, "str")
        return Chunk(list(self.columns), data, lines, "line", self.source, self._lines.position, types)


def _kind(reader: Any) -> str:
    return "TSV" if reader.dialect.delimiter == "\t" else "CSV"


def _check_header(source: str, names: list[str], line: int = 1) -> None:
    """Reject an empty header or one that names a column twice (the header at ``line``)."""
    if not names or names == [""]:
        raise InputError(source, f"the header row (line {line}) is empty; {HINT}", line=line)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(source, f"the header (line {line}) names this column twice; {HINT}", line=line,
                             column=name)
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
        **(chunk.where(0) if first is not None else {}),
    )


def _list_cells(column: Any) -> Any:
    """An Arrow list column's cells as JSON text (:func:`..json_text.list_cells`), else ``None``."""
    if not isinstance(column, (pa.Array, pa.ChunkedArray)) or not (
            pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        return None
    from ..json_text import list_cells  # pyarrow.compute: only for list columns

    return list_cells(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column)
