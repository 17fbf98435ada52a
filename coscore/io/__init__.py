"""Readers and writers for answer tables: CSV, TSV, JSON Lines, Parquet and the
original CoScore dataset layout.

Readers open a file (``-`` is standard input), read its header eagerly, and yield
:class:`Chunk` objects of consecutive rows; writers take chunks. Problems are
:class:`InputError` with the file, line and column.

>>> with open_reader("answers.csv") as reader:            # doctest: +SKIP
...     for chunk in reader.chunks():
...         ...
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any, Protocol

from .answers import ID_COLUMN, AnswerColumns
from .atomic import atomic_output
from .delimited import DelimitedReader, DelimitedWriter
from .errors import InputError
from .jsonl import JsonlReader, JsonlWriter
from .legacy import LegacyReader, split_blanks
from .parquet import ParquetReader, ParquetWriter
from .table import INPUT_FORMATS, MISSING, OUTPUT_FORMATS, Chunk, format_of

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
    "format_of",
    "open_reader",
    "open_writer",
    "split_blanks",
]

DEFAULT_CHUNK_SIZE = 65536


class Reader(Protocol):
    """What every reader offers."""

    source: str
    columns: list[str]
    total_bytes: int | None

    def chunks(self) -> Iterator[Chunk]: ...

    def close(self) -> None: ...


class Writer(Protocol):
    """What every writer offers."""

    def write(self, chunk: Chunk) -> None: ...

    def close(self) -> None: ...


@contextlib.contextmanager
def open_reader(
    path: str | os.PathLike[str], fmt: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> Iterator[Reader]:
    """Open ``path`` for reading in format ``fmt`` (default: from the extension).

    Raises :class:`InputError` for a missing or unreadable file or a bad header.
    """
    fmt = _format(path, fmt, None)
    reader: Any
    if fmt in ("csv", "tsv"):
        reader = DelimitedReader(path, fmt, chunk_size)
    elif fmt == "jsonl":
        reader = JsonlReader(path, chunk_size)
    elif fmt == "parquet":
        reader = ParquetReader(path, chunk_size)
    elif fmt == "coscore":
        reader = LegacyReader(path, chunk_size)
    else:
        raise InputError(os.fspath(path), f"unknown input format {fmt!r} (known: {', '.join(INPUT_FORMATS)})")
    try:
        yield reader
    finally:
        reader.close()


@contextlib.contextmanager
def open_writer(path: str | os.PathLike[str] | None, fmt: str | None = None) -> Iterator[Writer]:
    """Open ``path`` for writing in format ``fmt`` (default: from the extension, and
    CSV for standard output). The file appears, complete, only when the block ends
    without an exception."""
    fmt = _format(path, fmt, "csv")
    if fmt not in OUTPUT_FORMATS:
        raise InputError(os.fspath(path or "-"), f"cannot write format {fmt!r} (known: {', '.join(OUTPUT_FORMATS)})")
    target = os.fspath(path) if path is not None else "<stdout>"
    if fmt == "parquet":
        ParquetWriter.check_available()
    with atomic_output(path, binary=fmt == "parquet") as stream:
        writer: Any
        if fmt == "parquet":
            writer = ParquetWriter(stream, target)
        elif fmt == "jsonl":
            writer = JsonlWriter(stream, target)
        else:
            writer = DelimitedWriter(stream, fmt, target)
        yield writer
        writer.close()


def _format(path: str | os.PathLike[str] | None, fmt: str | None, default: str | None) -> str:
    try:
        return format_of(path, fmt, default=default)
    except ValueError as exc:
        raise InputError(os.fspath(path) if path is not None else "-", str(exc)) from None
