"""Readers and writers for answer tables: CSV, TSV, JSON Lines, Parquet, Excel
``.xlsx`` and the original CoScore dataset layout.

Readers open one or more files or globs (``-`` is standard input), read the header
eagerly, and yield :class:`Chunk` objects of consecutive rows, whose columns are Arrow
arrays for CSV/TSV files, Parquet and ``.xlsx``; writers take chunks. Problems are
:class:`InputError` with the file, line (or row) and column.

>>> with open_reader("answers.csv") as reader:            # doctest: +SKIP
...     for chunk in reader.chunks():
...         ...
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ._text import open_file
from .atomic import atomic_output
from .errors import InputError
from .legacy import split_blanks
from .sources import ChainedReader, expand
from .table import INPUT_FORMATS, MISSING, OUTPUT_FORMATS, Chunk, format_of

# The reader and writer of each format are imported when that format is opened: a run
# imports only what it reads and writes (pyarrow.compute, the CSV writer's, takes
# 70 ms to import, more than a Parquet to Parquet run of 100,000 rows spends scoring).

__all__ = [
    "AnswerColumns",
    "Chunk",
    "ID_COLUMN",
    "INPUT_FORMATS",
    "InputError",
    "MISSING",
    "OUTPUT_FORMATS",
    "Reader",
    "Writer",
    "atomic_output",
    "expand",
    "format_of",
    "open_file",
    "open_reader",
    "open_writer",
    "split_blanks",
]

DEFAULT_CHUNK_SIZE = 65536


def __getattr__(name: str) -> Any:
    # AnswerColumns and ID_COLUMN (coscore.io.blanks) need pyarrow and numpy: imported
    # when first used, so that the command's start does not.
    if name in ("AnswerColumns", "ID_COLUMN"):
        from . import blanks

        return getattr(blanks, name)
    raise AttributeError(f"module 'coscore.io' has no attribute {name!r}")


class Reader(Protocol):
    """What every reader offers."""

    source: str
    columns: list[str]
    total_bytes: int | None
    #: the input format (set by :func:`open_reader`)
    format: str

    def chunks(self) -> Iterator[Chunk]: ...

    def close(self) -> None: ...


class Writer(Protocol):
    """What every writer offers."""

    def write(self, chunk: Chunk) -> None: ...

    def close(self) -> None: ...


@contextlib.contextmanager
def open_reader(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    fmt: str | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> Iterator[Reader]:
    """Open ``path`` for reading in format ``fmt`` (default: from the extension of
    the first file). ``path`` may be a glob or a list of paths and globs: their files
    are read one after the other as one table, and must have the same columns.

    Raises :class:`InputError` for a missing or unreadable file or a bad header.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InputError("-", "no input file given")
    files = expand(paths)
    fmt = _format(files[0], fmt, None)
    if fmt not in INPUT_FORMATS:
        raise InputError(files[0], f"unknown input format {fmt!r} (known: {', '.join(INPUT_FORMATS)})")
    reader: Any = (
        _open_one(files[0], fmt, chunk_size) if len(files) == 1
        else ChainedReader(files, lambda name: _open_one(name, fmt, chunk_size))
    )
    reader.format = fmt
    try:
        yield reader
    finally:
        reader.close()


def _open_one(path: str, fmt: str, chunk_size: int) -> Any:
    if fmt in ("csv", "tsv"):
        from .columnar_csv import ColumnarDelimitedReader

        if path == "-":
            import sys

            return ColumnarDelimitedReader.from_stream(sys.stdin.buffer, fmt, chunk_size)
        return ColumnarDelimitedReader(path, fmt, chunk_size)
    if fmt == "jsonl":
        from .jsonl import JsonlReader

        return JsonlReader(path, chunk_size)
    if fmt == "parquet":
        from .parquet import ParquetReader

        return ParquetReader(path, chunk_size)
    if fmt == "xlsx":
        from .xlsx import XlsxReader

        return XlsxReader(path, chunk_size)
    from .legacy import LegacyReader

    return LegacyReader(path, chunk_size)


@contextlib.contextmanager
def open_writer(
    path: str | os.PathLike[str] | None, fmt: str | None = None, *, bom: bool = False
) -> Iterator[Writer]:
    """Open ``path`` for writing in format ``fmt`` (default: from the extension, and
    CSV for standard output; an extension coscore does not know is an error). The
    file appears, complete, only when the block ends without an exception (then the
    writer is closed; after an exception, its ``abort`` is called if it has one). With
    ``bom``, CSV and TSV start with a UTF-8 byte order mark, so that Excel reads
    them as UTF-8."""
    to_stdout = path is None or os.fspath(path) == "-"
    try:
        fmt = format_of(path, fmt, default="csv" if to_stdout else None)
    except ValueError as exc:
        raise InputError(os.fspath(path or "-"), str(exc).replace("--format", "--output-format")) from None
    if fmt not in OUTPUT_FORMATS:
        raise InputError(os.fspath(path or "-"), f"cannot write format {fmt!r} (known: {', '.join(OUTPUT_FORMATS)})")
    target = os.fspath(path) if path is not None else "<stdout>"
    if bom and fmt not in ("csv", "tsv"):
        raise InputError(target, f"a byte order mark (--excel) is for CSV and TSV output, not {fmt}")
    make = _writer_class(fmt)
    if fmt == "parquet":
        make.check_available()
    with atomic_output(path, binary=fmt != "jsonl") as stream:
        writer = make(stream, fmt, target, bom=bom) if fmt in ("csv", "tsv") else make(stream, target)
        try:
            yield writer
        except BaseException:
            abort = getattr(writer, "abort", None)
            if abort is not None:
                abort()
            raise
        writer.close()


def _writer_class(fmt: str) -> Any:
    """The writer class of output format ``fmt`` (its module imported now)."""
    if fmt == "parquet":
        from .parquet import ParquetWriter

        return ParquetWriter
    if fmt == "jsonl":
        from .jsonl import JsonlWriter

        return JsonlWriter
    if fmt == "xlsx":
        from .xlsx import XlsxWriter

        return XlsxWriter
    from .delimited import DelimitedWriter

    return DelimitedWriter


def _format(path: str | os.PathLike[str] | None, fmt: str | None, default: str | None) -> str:
    try:
        return format_of(path, fmt, default=default)
    except ValueError as exc:
        raise InputError(os.fspath(path) if path is not None else "-", str(exc)) from None
