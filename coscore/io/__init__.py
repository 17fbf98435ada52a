"""Readers and writers for answer tables: CSV, TSV, JSON Lines, Parquet, Excel
``.xlsx`` and the original CoScore dataset layout (and, read only, ``.xls`` and ``.ods``).

Readers open one or more files or globs (``-`` is standard input), read the header
eagerly, and yield :class:`Chunk` objects of consecutive rows, whose columns are Arrow
arrays for CSV/TSV files, Parquet and workbooks; writers take chunks. Problems are
:class:`InputError` with the file, line (or row) and column.

>>> with open_reader("answers.csv") as reader:            # doctest: +SKIP
...     for chunk in reader.chunks():
...         ...
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ._text import open_file
from .atomic import atomic_output, clashing_input
from .errors import InputError
from .identifiers import id_column, kind_of_name, looks_like_marks
from .sources import ChainedReader, expand
from .table import CHUNK_SIZE, INPUT_FORMATS, MISSING, OUTPUT_FORMATS, Chunk, format_of

# The reader and writer of each format are imported when that format is opened: a run
# imports only what it reads and writes (pyarrow.compute, the CSV writer's, takes
# 70 ms to import, more than a Parquet to Parquet run of 100,000 rows spends scoring).

# What io offers the rest of the package: the fronts (the command, the servers, the apps,
# report, expect...) import these from ``coscore.io``, never an io module (tests/test_layers.py).
__all__ = [
    "ID_COLUMN",
    "INPUT_FORMATS",
    "MISSING",
    "OUTPUT_FORMATS",
    "AnswerColumns",
    "BlanksMisfit",
    "Chunk",
    "DelimitedReader",
    "InputError",
    "JsonlReader",
    "Reader",
    "Writer",
    "atomic_output",
    "blank_lists",
    "clashing_input",
    "expand",
    "float_values",
    "format_of",
    "id_column",
    "kind_of_name",
    "looks_like_marks",
    "open_file",
    "open_reader",
    "open_writer",
    "scored_metadata",
    "split_blanks",
    "string_array",
]

#: The names imported when first used, and their modules: they need pyarrow and numpy, which
#: the command's start does not load.
_LAZY = {
    "AnswerColumns": "blanks", "ID_COLUMN": "blanks", "BlanksMisfit": "blanks",
    "split_blanks": "legacy", "blank_lists": "legacy",
    "scored_metadata": "scored_record",
    "string_array": "arrays", "float_values": "arrays",
    "DelimitedReader": "delimited.delimited", "JsonlReader": "jsonl",
}

def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'coscore.io' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


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
    chunk_size: int = CHUNK_SIZE,
    *,
    encoding: str | None = None,
    sheet: str | int | None = None,
    max_cell_chars: int | None = None,
    on_encoding: Callable[[str, str], None] | None = None,
    header_row: int | None = None,
    on_header: Callable[[str, str], None] | None = None,
) -> Iterator[Reader]:
    """Open ``path`` for reading in format ``fmt`` (default: from the extension of
    the first file). ``path`` may be a glob or a list of paths and globs: their files
    are read one after the other as one table, and must have the same columns.

    ``encoding`` (CSV, TSV, JSON Lines, the ``coscore`` layout): any codec Python knows,
    or ``"auto"`` (a byte order mark, else charset-normalizer's guess, which is told to
    ``on_encoding(file, choice)``); default UTF-8. ``sheet`` (``.xlsx``, ``.xls``, ``.ods``): a
    sheet's name or number from 1 (as an ``int`` or a ``str``); default the first.
    ``max_cell_chars``: the most characters of one cell (default 1,000,000; Excel's 32,767
    for workbooks).

    ``header_row`` (CSV, TSV, ``.xlsx``, ``.xls``, ``.ods``): the 1-based row (line) of the
    file that holds the column names; the rows above it are skipped. By default the header
    is the first row holding a value, unless that row holds one value alone (a title, often
    merged across the columns) above a row of two or more: then that row is the header, and
    ``on_header(file, what)`` is told (``what``: ``"header: row 2 (…); the title row 1 …"``).

    Raises :class:`InputError` for a missing or unreadable file, a bad header, a cell
    over the limit, or an option the format does not take.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InputError("-", "no input file given")
    files = expand(paths)
    fmt = _format(files[0], fmt, None)
    if fmt not in INPUT_FORMATS:
        raise InputError(files[0], f"unknown input format {fmt!r} (known: {', '.join(INPUT_FORMATS)})")
    options = _options(files[0], fmt, encoding, sheet, max_cell_chars, on_encoding)
    options.update(_header_options(files[0], fmt, header_row, on_header))
    reader: Any = (
        _open_one(files[0], fmt, chunk_size, options) if len(files) == 1
        else ChainedReader(files, lambda name: _open_one(name, fmt, chunk_size, options))
    )
    reader.format = fmt
    try:
        yield reader
    finally:
        reader.close()


def _options(first: str, fmt: str, encoding: str | None, sheet: str | int | None, max_cell_chars: int | None,
             on_encoding: Callable[[str, str], None] | None) -> dict[str, Any]:
    """The options of the readers of format ``fmt``, checked."""
    if max_cell_chars is not None and max_cell_chars < 1:
        raise InputError(first, "the cell limit (--max-cell-chars) must be at least 1")
    options: dict[str, Any] = {"max_cell_chars": max_cell_chars}
    if encoding is not None:
        if fmt in ("parquet", "xlsx", "xls", "ods"):
            raise InputError(first, f"an encoding (--encoding) is for CSV, TSV, JSON Lines and the coscore layout, "
                             f"not {fmt}")
        if encoding.lower() != "auto":
            from .encodings import codec_name

            codec_name(encoding, first)
        options.update(encoding=encoding, announce=on_encoding)
    if sheet is not None:
        if fmt not in ("xlsx", "xls", "ods"):
            raise InputError(first, f"a sheet (--sheet) is for .xlsx, .xls and .ods workbooks, not {fmt}")
        options["sheet"] = sheet
    return options


def _header_options(first: str, fmt: str, header_row: int | None,
                    on_header: Callable[[str, str], None] | None) -> dict[str, Any]:
    """The header options of the readers of format ``fmt``, checked."""
    if fmt not in ("csv", "tsv", "xlsx", "xls", "ods"):
        if header_row is not None:
            names = ("Parquet names its columns in its schema" if fmt == "parquet" else
                     "JSON Lines names its columns in each row's keys" if fmt == "jsonl" else
                     "the coscore layout's header is its first line, 'text' or 'text,score'")
            raise InputError(first, f"a header row (--header-row) is for CSV, TSV and .xlsx, .xls and .ods "
                             f"workbooks, not {fmt}: {names}")
        return {}
    if header_row is not None and (isinstance(header_row, bool) or not isinstance(header_row, int)
                                   or header_row < 1):
        raise InputError(first, f"the header row (--header-row) is a row number from 1, not {header_row!r}")
    return {"header_row": header_row, "on_header": on_header}


def _open_one(path: str, fmt: str, chunk_size: int, options: dict[str, Any]) -> Any:
    if fmt in ("csv", "tsv"):
        return _delimited(path, fmt, chunk_size, **options)
    if fmt == "jsonl":
        from .jsonl import JsonlReader

        return JsonlReader(path, chunk_size, **options)
    if fmt == "parquet":
        from .parquet import ParquetReader

        return ParquetReader(path, chunk_size, **options)
    if fmt == "xlsx":
        from .excel.xlsx import XlsxReader

        return XlsxReader(path, chunk_size, **options)
    if fmt in ("xls", "ods"):
        from .excel.xlsx import WorkbookReader

        return WorkbookReader(path, chunk_size, kind=f".{fmt}", **options)
    from .legacy import LegacyReader

    return LegacyReader(path, chunk_size, **options)


def _delimited(path: str, fmt: str, chunk_size: int, *, max_cell_chars: int | None = None,
               encoding: str | None = None, announce: Callable[[str, str], None] | None = None,
               header_row: int | None = None, on_header: Callable[[str, str], None] | None = None) -> Any:
    """A CSV/TSV reader: of the file itself when it is UTF-8 (with LF or CRLF line ends),
    else of its text decoded to UTF-8 (its CR line ends as LF) in blocks into a temporary
    file (as standard input is copied)."""
    from ._text import display_name, open_binary
    from .delimited.columnar_csv import ColumnarDelimitedReader
    from .encodings import decoded, rewritten

    header: dict[str, Any] = {"header_row": header_row, "on_header": on_header, "max_cell_chars": max_cell_chars}
    raw = open_binary(path)
    try:
        stream = decoded(raw, encoding, display_name(path), announce)
        if path != "-" and not rewritten(stream):
            return ColumnarDelimitedReader(path, fmt, chunk_size, **header)
        return ColumnarDelimitedReader.from_stream(stream, fmt, chunk_size, display_name(path), **header)
    finally:
        if path != "-":
            raw.close()


@contextlib.contextmanager
def open_writer(
    path: str | os.PathLike[str] | None, fmt: str | None = None, *, bom: bool = False,
    metadata: Mapping[str, Any] | None = None, sheet: str | None = None,
) -> Iterator[Writer]:
    """Open ``path`` for writing in format ``fmt`` (default: from the extension, and
    CSV for standard output; an extension coscore does not know is an error). The
    file appears, complete, only when the block ends without an exception (then the
    writer is closed; after an exception, its ``abort`` is called if it has one). With
    ``bom``, CSV and TSV start with a UTF-8 byte order mark, so that Excel reads
    them as UTF-8.

    ``metadata`` (a JSON-able mapping: how the file was scored) is recorded by Parquet
    (schema metadata ``coscore``) and ``.xlsx`` (custom document properties), and read
    back by :func:`scored_metadata`; CSV, TSV and JSON Lines have no place for it.
    ``sheet`` names the ``.xlsx`` output's sheet (made valid for Excel; default
    ``scores``); other formats ignore it."""
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
        if fmt in ("csv", "tsv"):
            writer = make(stream, fmt, target, bom=bom)
        elif fmt == "xlsx":
            writer = make(stream, target, sheet=sheet, record=metadata)
        elif fmt == "parquet":
            writer = make(stream, target, record=metadata)
        else:
            writer = make(stream, target)
        try:
            yield writer
            writer.close()  # closing can fail too (the xlsx writer finishes its zip): then abort
        except BaseException:
            abort = getattr(writer, "abort", None)
            if abort is not None:
                abort()
            raise


def _writer_class(fmt: str) -> Any:
    """The writer class of output format ``fmt`` (its module imported now)."""
    if fmt == "parquet":
        from .parquet import ParquetWriter

        return ParquetWriter
    if fmt == "jsonl":
        from .jsonl import JsonlWriter

        return JsonlWriter
    if fmt == "xlsx":
        from .excel.xlsx_write import XlsxWriter

        return XlsxWriter
    from .delimited.delimited import DelimitedWriter

    return DelimitedWriter


def _format(path: str | os.PathLike[str] | None, fmt: str | None, default: str | None) -> str:
    try:
        return format_of(path, fmt, default=default)
    except ValueError as exc:
        raise InputError(os.fspath(path) if path is not None else "-", str(exc)) from None
