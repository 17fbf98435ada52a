"""A Parquet dataset cut into pieces that can be read one by one, each then written to a
file of its own (what :func:`coscore.dask.score_files` hands to each worker).

A piece is consecutive row groups of one file, together at least :data:`PIECE_ROWS` rows
(or the whole file). Files are opened through an fsspec filesystem, so pieces may live
on any storage fsspec knows.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError

#: Rows a piece holds at least, unless its file has fewer: about a second of work.
PIECE_ROWS = 1 << 20


@dataclass(frozen=True)
class Piece:
    """Row groups ``row_groups`` of the file ``path`` (as its filesystem names it), after
    ``first_row`` rows of that file; ``rows`` rows in all."""

    path: str
    row_groups: tuple[int, ...]
    first_row: int
    rows: int


def natural_order(paths: Sequence[str]) -> list[str]:
    """``paths`` sorted with their numbers compared as numbers (``part.2`` before ``part.10``)."""
    return sorted(paths, key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p)])


def plan(fs: Any, files: Sequence[str], source: str, piece_rows: int = PIECE_ROWS) -> tuple[Any, list[Piece]]:
    """The Arrow schema of the dataset ``files`` (read from each file's footer) and its
    pieces, in order. Raises :class:`InputError` for a file that is not Parquet or whose
    columns differ from the first file's."""
    import pyarrow.parquet as pq

    schema = None
    pieces: list[Piece] = []
    for path in files:
        try:
            with fs.open(path, "rb") as handle:
                meta = pq.ParquetFile(handle).metadata
                names = meta.schema.to_arrow_schema()
        except (OSError, ValueError) as exc:
            raise InputError(path, f"not a readable Parquet file ({exc})") from None
        if schema is None:
            schema = names
        elif names.names != schema.names:
            raise InputError(path, f"its columns {names.names} differ from those of {files[0]}: {schema.names}")
        groups: list[int] = []
        first = rows = 0
        for g in range(meta.num_row_groups):
            groups.append(g)
            rows += meta.row_group(g).num_rows
            if rows >= piece_rows and g + 1 < meta.num_row_groups:
                pieces.append(Piece(path, tuple(groups), first, rows))
                first, groups, rows = first + rows, [], 0
        pieces.append(Piece(path, tuple(groups), first, rows))
    if schema is None:
        raise InputError(source, "no Parquet file to read")
    return schema, pieces
