"""CSV and TSV, read and written with the ``csv`` module (RFC 4180 quoting,
newlines inside quoted fields, strict UTF-8 checked line by line)."""
from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterator
from typing import Any, TextIO

from ._text import TextFileReader
from .errors import InputError
from .table import MISSING, Chunk

csv.field_size_limit(2**31 - 1)  # answers can be long; the default 128 KiB limit is not ours to impose

_DELIMITERS = {"csv": ",", "tsv": "\t"}


class DelimitedReader(TextFileReader):
    """Read a CSV or TSV file with a header row, in chunks of ``chunk_size`` rows.

    Every value is a ``str``. A row with more or fewer fields than the header is an
    error; blank lines are skipped, except in a one-column file, where a blank line
    is an empty value. ``columns`` is known as soon as the reader is opened.
    """

    def __init__(self, path: str | os.PathLike[str], fmt: str = "csv", chunk_size: int = 65536) -> None:
        super().__init__(path, chunk_size)
        self._reader = csv.reader(self._lines, delimiter=_DELIMITERS[fmt], strict=True)
        header = self._next_record()
        if header is None:
            raise InputError(self.source, "the file is empty; expected a header row", line=1)
        _, fields = header
        _check_header(self.source, fields)
        self.columns: list[str] = fields

    def _next_record(self) -> tuple[int, list[str]] | None:
        """The next record and the line it starts on, or ``None`` at the end."""
        start = self._reader.line_num + 1
        try:
            fields = next(self._reader)
        except StopIteration:
            return None
        except csv.Error as exc:
            raise InputError(self.source, f"malformed {_kind(self._reader)}: {exc}", line=start) from None
        return start, fields

    def chunks(self) -> Iterator[Chunk]:
        """The data rows, ``chunk_size`` at a time (the last chunk may be shorter)."""
        width = len(self.columns)
        reader = self._reader
        rows: list[list[str]] = []
        lines: list[int] = []
        yielded = False
        start = reader.line_num + 1  # the line the next record starts on
        try:
            for fields in reader:
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
        except csv.Error as exc:
            raise InputError(self.source, f"malformed {_kind(reader)}: {exc}", line=start) from None
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
    """Write chunks as CSV or TSV to a text stream; the header comes from the first chunk.

    Floats are written with ``repr`` (shortest exact form), NaN and missing values
    as empty fields, lists and objects as JSON.
    """

    def __init__(self, stream: TextIO, fmt: str = "csv", target: str = "") -> None:
        self._writer = csv.writer(stream, delimiter=_DELIMITERS[fmt], lineterminator="\n")
        self._columns: list[str] | None = None
        self._target = target

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``."""
        if self._columns is None:
            self._columns = list(chunk.columns)
            self._writer.writerow(self._columns)
        elif chunk.columns != self._columns:
            _new_columns_error(self._target, self._columns, chunk)
        cells = [_cells(chunk.pylist(name), chunk.types.get(name)) for name in self._columns]
        self._writer.writerows(zip(*cells))

    def close(self) -> None:
        """Nothing to finish for text output."""


def _new_columns_error(target: str, header: list[str], chunk: Chunk) -> None:
    extra = [name for name in chunk.columns if name not in header]
    first = chunk.lines[0] if chunk.lines else None
    raise InputError(
        chunk.source,
        f"key {extra[0]!r} first appears after the output header was written "
        f"(at or after this {chunk.unit}); write JSON Lines output, or give that key in an early row",
        **({chunk.unit: first} if first is not None else {}),
    )


def _cells(values: list[Any], declared: str | None) -> list[str]:
    """A column as CSV text; declared float and string columns take a fast path."""
    if declared == "float64":
        return ["" if v is None or v != v else repr(v) for v in values]
    if declared == "str":  # every value is a str already
        return values
    if declared == "string" or all(type(v) is str for v in values):
        return ["" if v is None else v for v in values]
    return [_cell(v) for v in values]


def _cell(value: Any) -> str:
    """One value as CSV text."""
    if isinstance(value, str):
        return value
    if value is None or value is MISSING:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
