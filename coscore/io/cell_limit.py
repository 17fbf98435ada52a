"""The limit on the characters of one cell, checked while reading (issue 25): a 300 MB
cell is refused as soon as it is seen to be over, not after it was read whole.

Readers check each chunk's text columns (:func:`check_chunk`: byte lengths from the Arrow
offsets, the exact count only for values over the limit in bytes) and refuse a line
longer than a row of cells within the limit could be (:func:`line_cap`).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from .arrays import int_array
from .errors import InputError
from .table import Chunk

#: The default limit on the characters of one cell.
DEFAULT_MAX_CELL_CHARS = 1_000_000


def limit_of(max_cell_chars: int | None) -> int:
    """The limit in force (``None``: the default)."""
    if max_cell_chars is None:
        return DEFAULT_MAX_CELL_CHARS
    if max_cell_chars < 1:
        raise ValueError("max_cell_chars must be at least 1")
    return max_cell_chars


def line_cap(limit: int, cells: int) -> int:
    """The most bytes a line of ``cells`` cells within ``limit`` characters can take: 4
    bytes a character, quotes doubled, plus 64 KiB for the rest."""
    return max(1, cells) * (8 * limit + 3) + (64 << 10)


def over_limit(source: str, limit: int, **where: Any) -> InputError:
    """The error for a cell over the limit (``where``: line/row and column)."""
    return InputError(source, f"a value longer than {limit:,} characters (raise the limit with --max-cell-chars)",
                      **where)


def check_chunk(chunk: Chunk, limit: int) -> None:
    """Refuse the first text value (or list element) of ``chunk`` over ``limit`` characters."""
    for name in chunk.columns:
        values = chunk.data[name]
        index = _first_over(values, limit)
        if index is not None:
            raise over_limit(chunk.source, limit, column=name, **chunk.where(index))


def _first_over(values: Any, limit: int) -> int | None:
    import pyarrow as pa

    if isinstance(values, list):
        for i, value in enumerate(values):
            if isinstance(value, str) and len(value) > limit:
                return i
            if isinstance(value, list) and any(isinstance(v, str) and len(v) > limit for v in value):
                return i
        return None
    if isinstance(values, pa.ChunkedArray):
        start = 0
        for piece in values.chunks:
            found = _first_over(piece, limit)
            if found is not None:
                return start + found
            start += len(piece)
        return None
    kind = values.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        found = _first_over(values.flatten(), limit)
        if found is None:
            return None
        import pyarrow.compute as pc

        return int(pc.list_parent_indices(values)[found].as_py())
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)) or not len(values):
        return None
    wide = pa.types.is_large_string(kind)
    bounds = np.frombuffer(values.buffers()[1], dtype=np.int64 if wide else np.int32)
    sizes = np.diff(bounds[values.offset : values.offset + len(values) + 1])
    candidates = np.flatnonzero(sizes > limit)
    if not len(candidates):
        return None
    import pyarrow.compute as pc

    lengths = np.asarray(pc.utf8_length(values.take(int_array(candidates))).fill_null(0))
    over = candidates[lengths > limit]
    if not len(over):
        return None
    return int(over[0])


def column_at(text: str, delimiter: str, limit: int) -> int | None:
    """The 0-based field of the CSV record starting ``text`` (known to hold a value over
    ``limit`` characters) that is over it: the first longer than ``limit`` as written, else
    the longest. Quotes are followed as RFC 4180 has them."""
    quoted = False
    sizes: list[int] = []
    start = 0
    for mark in re.finditer('["\n' + re.escape(delimiter) + "]", text):
        at, char = mark.start(), mark.group()
        if char == '"':
            quoted = not quoted
        elif not quoted:
            sizes.append(at - start)
            start = at + 1
            if char == "\n":
                break
    else:
        sizes.append(len(text) - start)
    if not sizes:
        return None
    over = [i for i, size in enumerate(sizes) if size > limit]
    return over[0] if over else max(range(len(sizes)), key=sizes.__getitem__)
