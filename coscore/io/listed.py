"""Answers held as one Arrow list of blanks per row (a JSON Lines ``answers`` key, the
original layout's text split on ``-``) turned into blank columns, one Arrow array per
blank, which :meth:`coscore.Rule.score_many` scores without a Python object per row."""
from __future__ import annotations

from typing import Any

import numpy as np


def text_lists(lists: Any) -> bool:
    """Whether every row of ``lists`` is a list of blanks: an Arrow list array of strings
    (or of nulls, each an empty blank) without a null list."""
    import pyarrow as pa

    kind = getattr(lists, "type", None)
    if kind is None or not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) or lists.null_count:
        return False
    item = kind.value_type
    return pa.types.is_string(item) or pa.types.is_large_string(item) or pa.types.is_null(item)


def blank_groups(lists: Any, alike: bool = False) -> list[tuple[np.ndarray, list[Any]]] | None:
    """The rows of ``lists`` (rows as :func:`text_lists` says) grouped by their number of
    blanks, fewest first: for each, its rows (increasing row numbers, an intp array) and
    their blank columns, one Arrow array per blank. ``None`` when the rows are not all
    lists of text or a list has no blank (the answers are then taken one by one), and
    with ``alike`` when the rows differ in their number of blanks."""
    import pyarrow as pa

    if not len(lists) or not text_lists(lists):
        return None
    offsets = np.asarray(lists.offsets)
    widths = np.diff(offsets)
    if (widths < 1).any() or (alike and (widths != widths[0]).any()):
        return None
    values = lists.values
    if pa.types.is_null(lists.type.value_type):
        values = pa.nulls(len(values), pa.string())
    if (widths == 1).all():   # the values as they are
        return [(np.arange(len(lists)), [values.slice(int(offsets[0]), len(lists))])]
    import pyarrow.compute as pc

    groups = []
    for width in np.unique(widths):
        rows = np.flatnonzero(widths == width)
        starts = offsets[:-1][rows].astype(np.int64)
        groups.append((rows, [pc.take(values, pa.array(starts + j)) for j in range(int(width))]))
    return groups
