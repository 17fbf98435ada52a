"""JSON Lines: one JSON object per line; keys become columns in order of first appearance."""
from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from ._text import TextFileReader
from .errors import InputError
from .table import MISSING, Chunk


#: A JSON escape of a surrogate code point (a false alarm after an escaped backslash is harmless).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonlReader(TextFileReader):
    """Read JSON Lines in chunks. Blank lines are skipped; every other line must be an object.

    ``columns`` is the ordered union of the keys seen so far (it can grow from chunk
    to chunk); a row lacking a key holds :data:`MISSING` there.
    """

    #: ``columns`` grows as keys appear (several files are not checked for equal columns).
    columns_grow = True

    def __init__(self, path: str | os.PathLike[str], chunk_size: int = 65536) -> None:
        super().__init__(path, chunk_size)
        self.columns: list[str] = []
        self._known: set[str] = set()

    def chunks(self) -> Iterator[Chunk]:
        """The rows, ``chunk_size`` at a time."""
        rows: list[dict[str, Any]] = []
        lines: list[int] = []
        yielded = False
        for text in self._lines:
            if not text.strip():
                continue
            rows.append(self._parse(text))
            lines.append(self._lines.lineno)
            if len(rows) >= self._chunk_size:
                yield self._chunk(rows, lines)
                rows, lines, yielded = [], [], True
        if rows or not yielded:
            yield self._chunk(rows, lines)

    def _parse(self, text: str) -> dict[str, Any]:
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                self.source, f"invalid JSON at character {exc.colno}: {exc.msg}", line=self._lines.lineno
            ) from None
        except RecursionError:
            raise InputError(self.source, "invalid JSON: nested too deeply", line=self._lines.lineno) from None
        except ValueError:  # an integer of more digits than Python converts
            raise InputError(
                self.source, f"invalid JSON: a number with more than {sys.get_int_max_str_digits():,} digits",
                line=self._lines.lineno,
            ) from None
        if not isinstance(row, dict):
            raise InputError(
                self.source, f"expected a JSON object, got {type(row).__name__}", line=self._lines.lineno
            )
        if _SURROGATE_ESCAPE.search(text):  # "\ud800" alone decodes to a str no file can hold
            self._check_surrogates(row)
        for key in row:
            if key not in self._known:
                self._known.add(key)
                self.columns.append(key)
        return row

    def _check_surrogates(self, row: dict[str, Any]) -> None:
        """Refuse a row holding a lone surrogate (a ``\\udxxx`` escape not part of a pair):
        it is not a character, and no UTF-8 output could hold it."""
        for key, value in row.items():
            pending = [key, value]
            while pending:
                item = pending.pop()
                if isinstance(item, str):
                    found = _LONE_SURROGATE.search(item)
                    if found:
                        raise InputError(
                            self.source, f"\\u{ord(found.group()):04x} is half of a surrogate pair, not a "
                            "character; the file must hold valid Unicode", line=self._lines.lineno, column=key,
                        )
                elif isinstance(item, dict):
                    pending.extend(item)
                    pending.extend(item.values())
                elif isinstance(item, list):
                    pending.extend(item)

    def _chunk(self, rows: list[dict[str, Any]], lines: list[int]) -> Chunk:
        data = {name: [row.get(name, MISSING) for row in rows] for name in self.columns}
        return Chunk(list(self.columns), data, lines, "line", self.source, self._lines.position)


class JsonlWriter:
    """Write chunks as JSON Lines (UTF-8, not ASCII-escaped); NaN is written as ``null``."""

    def __init__(self, stream: TextIO, target: str = "") -> None:
        self._stream = stream
        self._encode = json.JSONEncoder(ensure_ascii=False, default=str).encode

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``, one object per line, keys in column order."""
        names = list(chunk.columns)
        columns = [_json_values(chunk.pylist(name), chunk.types.get(name)) for name in names]
        encode = self._encode
        has_missing = any(v is MISSING for values in columns for v in values)
        lines = []
        for values in zip(*columns):
            if has_missing:
                row = {name: v for name, v in zip(names, values) if v is not MISSING}
            else:
                row = dict(zip(names, values))
            lines.append(encode(row))
        if lines:
            self._stream.write("\n".join(lines))
            self._stream.write("\n")

    def close(self) -> None:
        """Nothing to finish for text output."""


def _json_values(values: list[Any], declared: str | None) -> list[Any]:
    """A column ready for JSON: NaN and infinities (not valid JSON) become ``None``."""
    if declared in ("str", "string"):
        return values
    return [None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v for v in values]
