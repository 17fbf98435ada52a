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


def blank_columns(lists: Any) -> list[Any] | None:
    """The blank columns of ``lists`` (rows as :func:`text_lists` says) when every list
    has the same number (one or more) of blanks; else ``None`` (the answers are then
    taken one by one)."""
    import pyarrow as pa

    if not len(lists) or not text_lists(lists):
        return None
    item = lists.type.value_type
    offsets = np.asarray(lists.offsets)
    width = int(offsets[1] - offsets[0])
    if width < 1 or not (np.diff(offsets) == width).all():
        return None
    values = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    if pa.types.is_null(item):
        values = pa.nulls(len(values), pa.string())
    if width == 1:
        return [values]
    import pyarrow.compute as pc

    every = np.arange(len(lists), dtype=np.int64) * width
    return [pc.take(values, pa.array(every + j)) for j in range(width)]
