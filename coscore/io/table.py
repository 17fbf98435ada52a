"""What the readers yield and the writers take: :class:`Chunk`, plus format names."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Rows per chunk, everywhere: read from a file, cut from a table or a stream of answers,
#: scored and written at a time (the one chunk size: the readers' default, and the
#: pipeline's, :data:`coscore.pipeline.stream.CHUNK_SIZE`). Large enough to amortise
#: per-chunk costs, small enough to bound memory.
CHUNK_SIZE = 16_384
#: Input formats (``coscore`` is the original CoScore dataset layout).
INPUT_FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet", "xlsx", "xls", "ods", "coscore")
#: Output formats.
OUTPUT_FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet", "xlsx")

_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".xlsx": "xlsx",
    ".xls": "xls",
    ".ods": "ods",
}


class _Missing:
    """The value of a JSON key that a row does not have (written as nothing / empty)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


#: Marks a key absent from one JSON Lines row.
MISSING: Any = _Missing()


@dataclass
class Chunk:
    """A run of consecutive rows, stored by column.

    Attributes:
        columns: the column names, in order.
        data: column name -> values (a list, or a ``pyarrow.Array`` for Parquet input);
            JSON Lines rows that lack a key hold :data:`MISSING` there.
        lines: for each row, where it starts in its file: a 1-based line number
            (text formats) or row number (Parquet, see ``unit``); a ``range`` or
            :class:`LazyLines` where the numbers are found only when asked for.
        unit: ``"line"`` or ``"row"``, what the numbers in ``lines`` count.
        source: the file the rows come from (as the user named it).
        position: bytes of input consumed after this chunk (for progress), or ``None``.
        types: declared types of some columns, for writers with typed columns (Parquet)
            and fast paths: ``"float64"`` (floats or ``None``), ``"string"`` (str or
            ``None``), ``"str"`` (every value a str); others are inferred.
    """

    columns: list[str]
    data: dict[str, Any]
    lines: Sequence[int]
    unit: str = "line"
    source: str = ""
    position: int | None = None
    types: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.lines)

    def pylist(self, column: str) -> list[Any]:
        """The values of ``column`` as a Python list (converting Arrow arrays)."""
        values = self.data[column]
        if isinstance(values, list):
            return values
        if hasattr(values, "to_pylist"):
            return values.to_pylist()
        return list(values)

    def where(self, index: int) -> dict[str, Any]:
        """Keyword arguments locating row ``index`` for :class:`InputError`."""
        return {self.unit: self.lines[index]}


class LazyLines(Sequence[int]):
    """The line numbers of ``size`` rows, found by ``find()`` the first time one is read
    (a columnar reader finds them by re-reading the file, only for an error message)."""

    def __init__(self, size: int, find: Callable[[], Sequence[int]]) -> None:
        self._size = size
        self._find = find
        self._lines: Sequence[int] | None = None

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if self._lines is None:
            self._lines = self._find()
        return self._lines[index]


def format_of(path: str | os.PathLike[str] | None, explicit: str | None = None, *, default: str | None = None) -> str:
    """The format of ``path``: ``explicit`` if given, else from the file extension.

    Raises ``ValueError`` (its message does not repeat the path) when it cannot be told.
    """
    if explicit:
        return explicit
    if path is None or str(path) == "-":
        if default:
            return default
        raise ValueError("cannot tell the format of standard input; give --format")
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".xz"):
        if name.endswith(suffix):
            raise ValueError("compressed files are not supported; decompress first")
    _, ext = os.path.splitext(name)
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if default:
        return default
    known = ", ".join(sorted(_EXTENSIONS))
    raise ValueError(f"cannot tell the format from the extension (known: {known}); give --format")
