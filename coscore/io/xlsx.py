"""Excel workbooks (``.xlsx``) through openpyxl, streamed: the first sheet is read
row by row (read-only mode) and written row by row (write-only mode).

Reading: the first row is the header; every cell becomes text (numbers as Excel shows
them in general format: ``42``, ``0.5``; empty cells ``""``); rows with no value are
skipped. Writing: text is always stored as text (never as a formula, whatever its first
character), floats as numbers, missing values as empty cells. The ``xlsx`` extra installs
defusedxml, with which openpyxl refuses XML entity bombs in untrusted workbooks.
"""
from __future__ import annotations

import datetime
import math
import os
from collections.abc import Iterator
from typing import Any, BinaryIO

import pyarrow as pa

from ._text import display_name
from .cells import cell_text
from .errors import InputError
from .table import Chunk

#: The most characters Excel stores in one cell.
CELL_LIMIT = 32767


def _openpyxl() -> Any:
    try:
        import openpyxl
    except ImportError:
        raise InputError("xlsx", "reading or writing .xlsx needs openpyxl: pip install 'coscore[xlsx]'") from None
    return openpyxl


def _text(value: Any) -> str:
    """One cell's value as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    return cell_text(value)


class XlsxReader:
    """Read the first sheet of an ``.xlsx`` workbook in chunks; row numbers are the
    sheet's (the header is row 1)."""

    unit = "row"

    def __init__(self, path: str | os.PathLike[str], chunk_size: int = 65536) -> None:
        openpyxl = _openpyxl()
        self.source = display_name(path)
        self.total_bytes: int | None = None
        self.total_rows: int | None = None
        self._chunk_size = chunk_size
        if os.fspath(path) == "-":
            raise InputError(self.source, "an .xlsx workbook cannot be read from standard input; give its file")
        if not os.path.exists(path):
            raise InputError(self.source, "no such file")
        try:
            self._book = openpyxl.load_workbook(os.fspath(path), read_only=True, data_only=True)
            sheet = self._book.worksheets[0]
            self._rows = sheet.iter_rows(values_only=True)
            header = next(self._rows, None)
        except Exception as exc:  # zipfile/XML errors of a damaged or foreign file
            raise InputError(self.source, f"not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
        if header is None or all(v is None for v in header):
            raise InputError(self.source, "the sheet is empty; expected a header row", row=1)
        names = [_text(v) if v is not None else "" for v in header]
        while names and names[-1] == "":
            names.pop()
        seen: set[str] = set()
        for name in names:
            if name == "" or name in seen:
                raise InputError(self.source, "the header has an empty or repeated column name", row=1, column=name)
            seen.add(name)
        self.columns: list[str] = names

    def chunks(self) -> Iterator[Chunk]:
        """The rows, ``chunk_size`` at a time."""
        width = len(self.columns)
        cells: list[list[str]] = [[] for _ in range(width)]
        numbers: list[int] = []
        yielded = False
        number = 1
        for values in self._rows:
            number += 1
            if all(v is None for v in values):
                continue
            if len(values) > width and any(v is not None for v in values[width:]):
                raise InputError(self.source, f"a value beyond the {width} named columns", row=number)
            for i in range(width):
                v = values[i] if i < len(values) else None
                cells[i].append("" if v is None else _text(v))
            numbers.append(number)
            if len(numbers) >= self._chunk_size:
                yield self._chunk(cells, numbers)
                cells, numbers, yielded = [[] for _ in range(width)], [], True
        if numbers or not yielded:
            yield self._chunk(cells, numbers)

    def _chunk(self, cells: list[list[str]], numbers: list[int]) -> Chunk:
        data = {name: pa.array(cells[i], pa.string()) for i, name in enumerate(self.columns)}
        return Chunk(list(self.columns), data, numbers, "row", self.source, None, dict.fromkeys(self.columns, "str"))

    def close(self) -> None:
        """Close the workbook."""
        self._book.close()


class XlsxWriter:
    """Write chunks to one sheet of a new ``.xlsx`` workbook (write-only, streamed)."""

    def __init__(self, stream: BinaryIO, target: str = "") -> None:
        openpyxl = _openpyxl()
        from openpyxl.cell import WriteOnlyCell

        self._new_cell = WriteOnlyCell
        self._stream = stream
        self._target = target
        self._book = openpyxl.Workbook(write_only=True)
        self._sheet = self._book.create_sheet("scores")
        self._columns: list[str] | None = None
        self._row = 0

    def _text_cell(self, text: str, chunk: Chunk, index: int | None, column: str) -> Any:
        if len(text) > CELL_LIMIT:
            where = chunk.where(index) if index is not None else {}
            raise InputError(chunk.source, f"a value of {len(text)} characters does not fit an Excel cell "
                             f"({CELL_LIMIT} at most); write CSV or Parquet instead", column=column, **where)
        cell = self._new_cell(self._sheet)
        try:
            cell.value = text
        except ValueError:  # control characters XML cannot hold
            where = chunk.where(index) if index is not None else {}
            raise InputError(chunk.source, "this value holds control characters an .xlsx file cannot store; "
                             "write CSV or Parquet instead", column=column, **where) from None
        cell.data_type = "s"  # text, even when it starts with '='
        return cell

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``."""
        if self._columns is None:
            self._columns = list(chunk.columns)
            self._sheet.append([self._text_cell(name, chunk, None, name) for name in self._columns])
        columns = []
        for name in self._columns:
            values = chunk.data[name]
            listed = values.to_pylist() if hasattr(values, "to_pylist") else list(values)
            columns.append(listed)
        for i, row in enumerate(zip(*columns)):
            out = []
            for name, v in zip(self._columns, row):
                if isinstance(v, str):
                    out.append(self._text_cell(v, chunk, i, name))
                elif v is None or (isinstance(v, float) and v != v):
                    out.append(None)
                elif isinstance(v, (bool, int)) or (isinstance(v, float) and abs(v) != math.inf):
                    out.append(v)
                else:
                    out.append(self._text_cell(_text(v), chunk, i, name))
            self._sheet.append(out)

    def close(self) -> None:
        """Write the workbook."""
        self._book.save(self._stream)
