"""The result columns a scored table gains: their names, and their Arrow arrays.

After every input column: ``coscore_score``, ``coscore_combo_<ID>`` for each combo, and
``coscore_error`` (null unless that answer failed). A failed answer's score is null.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..io.arrays import float_array, string_array
from ..results import Batch

#: The score column written after the input columns.
SCORE_COLUMN = "coscore_score"
#: The error column, empty unless that answer failed.
ERROR_COLUMN = "coscore_error"
#: Prefix of the per-combo columns (``coscore_combo_A``, ...).
COMBO_PREFIX = "coscore_combo_"
#: The types of the result columns, for writers with typed columns.
SCORE_TYPE, ERROR_TYPE = "float64", "string"


def result_columns(combo_ids: Iterable[str]) -> list[str]:
    """The columns scoring appends, in order."""
    return [SCORE_COLUMN, *(COMBO_PREFIX + cid for cid in combo_ids), ERROR_COLUMN]


def result_arrays(batch: Batch, combo_ids: Iterable[str], decimals: int | None = None) -> dict[str, Any]:
    """The result columns of ``batch`` as Arrow arrays, by name, in order: the engine's
    arrays wrapped, not copied (rounded first with ``decimals``, as ``numpy.round``:
    halves to even); NaN is null."""
    import pyarrow as pa

    arrays = {SCORE_COLUMN: _floats(batch.scores, decimals)}
    for cid in combo_ids:
        arrays[COMBO_PREFIX + cid] = _floats(batch.combos[cid], decimals)
    failed = len(batch.errors) - batch.errors.count(None)
    arrays[ERROR_COLUMN] = string_array(batch.errors) if failed else pa.nulls(len(batch.errors), pa.string())
    return arrays


def _floats(values: np.ndarray, decimals: int | None) -> Any:
    """A float array as an Arrow float64 array, NaN (a failed answer) as null."""
    return float_array(np.round(values, decimals) if decimals is not None else values)
