"""Several input files read as one table: paths and globs expanded once, the readers
of the files chained, their columns checked against the first file's."""
from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .errors import InputError
from .table import Chunk


def expand(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The files that ``paths`` name, in order; a glob (``*``, ``?``, ``[...]``, ``**``)
    names its matches in sorted order. ``-`` (standard input) stays as it is.
    Raises :class:`InputError` for a missing file or a glob matching nothing."""
    files: list[str] = []
    for path in paths:
        text = os.fspath(path)
        if text == "-" or os.path.exists(text) or not glob.has_magic(text):
            if text != "-" and not os.path.exists(text):
                raise InputError(text, "no such file")
            files.append(text)
            continue
        matches = sorted(name for name in glob.glob(text, recursive=True) if os.path.isfile(name))
        if not matches:
            raise InputError(text, "no file matches this pattern")
        files.extend(matches)
    if files.count("-") > 1 or ("-" in files and len(files) > 1):
        raise InputError("-", "standard input cannot be read together with other files")
    return files


class ChainedReader:
    """The readers of several files, one after the other, as one reader.

    Every file must have the first file's columns (JSON Lines files, whose columns
    grow as keys appear, are not checked). Row numbers (``unit == "row"``) count on
    across the files; line numbers are each file's own, with the file named.
    """

    def __init__(self, files: list[str], open_one: Callable[[str], Any]) -> None:
        self._files = files
        self._open_one = open_one
        self._first = open_one(files[0])
        self.source = self._first.source
        self.columns: list[str] = self._first.columns
        self.unit = getattr(self._first, "unit", "line")
        #: the first workbook's sheet (``None`` for other files): an .xlsx output keeps its name
        self.sheet: str | None = getattr(self._first, "sheet", None)
        #: the first file's row (line) of the header, where its format has one
        self.header_row: int | None = getattr(self._first, "header_row", None)
        sizes = [os.path.getsize(name) for name in files]
        self.total_bytes: int | None = sum(sizes) if all(sizes) else None
        self.total_rows: int | None = None
        self._current: Any = self._first

    def chunks(self) -> Iterator[Chunk]:
        """The chunks of every file in turn."""
        rows = 0
        done_bytes = 0
        for number, name in enumerate(self._files):
            reader = self._first if number == 0 else self._open_one(name)
            self._current = reader
            offset = rows if self.unit == "row" else 0
            try:
                if number and not _same_columns(reader, self._first):
                    raise InputError(
                        reader.source, f"its columns {reader.columns} differ from those of "
                        f"{self._first.source}: {self.columns}"
                    )
                for chunk in reader.chunks():
                    if offset:
                        chunk.lines = _shifted(chunk.lines, offset)
                    if chunk.position is not None:
                        chunk.position += done_bytes
                    if number and not len(chunk):
                        continue  # only the first file's empty chunk stands for an empty table
                    yield chunk
                    rows += len(chunk)
            finally:
                if number:
                    reader.close()
            done_bytes += os.path.getsize(name)

    def close(self) -> None:
        """Close the files still open."""
        self._first.close()
        if self._current is not self._first:
            self._current.close()


def _shifted(lines: Sequence[int], offset: int) -> Sequence[int]:
    if isinstance(lines, range):
        return range(lines.start + offset, lines.stop + offset)
    return [offset + line for line in lines]


def _same_columns(reader: Any, first: Any) -> bool:
    if getattr(reader, "columns_grow", False):
        return True
    return list(reader.columns) == list(first.columns)
