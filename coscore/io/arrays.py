"""Arrow arrays made from numpy arrays and Python lists without ``pyarrow.array``.

``pyarrow.array`` imports pandas the first time it is called (to recognise pandas
objects), which costs some 0.4 s of a ``coscore score`` run that never needs pandas. These
build the arrays from their buffers instead: the same arrays, nothing imported.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

#: The most bytes of text a ``string`` array (32-bit offsets) holds.
_STRING_LIMIT = (1 << 31) - 1


def _validity(valid: np.ndarray) -> Any:
    """The validity bitmap of ``valid`` (a bool array), or ``None`` when all are valid."""
    if valid.all():
        return None
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def float_array(values: Any) -> Any:
    """A float64 Arrow array of ``values`` (anything numpy takes as floats), NaN as null."""
    array = np.ascontiguousarray(values, dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), len(array), [_validity(~np.isnan(array)), pa.py_buffer(array)])


def int_array(values: Any) -> Any:
    """An int64 Arrow array of ``values`` (anything numpy takes as integers; no nulls)."""
    array = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(array), [None, pa.py_buffer(array)])


def valid_mask(array: Any) -> np.ndarray:
    """A numpy bool array: which values of the Arrow array ``array`` are not null."""
    n = len(array)
    if not array.null_count:
        return np.ones(n, dtype=bool)
    bits = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + n].astype(bool)


def bool_array(values: np.ndarray) -> Any:
    """A boolean Arrow array of a numpy bool array (no nulls)."""
    mask = np.ascontiguousarray(values, dtype=bool)
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, pa.py_buffer(np.packbits(mask, bitorder="little"))])


def string_array(values: Sequence[str | None]) -> Any:
    """A ``string`` Arrow array of ``values`` (each a ``str`` or ``None``, a null).
    Raises ``TypeError`` for another value, ``UnicodeEncodeError`` for a lone surrogate."""
    encoded = [b"" if v is None else str.encode(v, "utf-8") for v in values]
    n = len(encoded)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
    if int(lengths.sum()) > _STRING_LIMIT:
        return pa.array(values, pa.string())  # too long for one buffer: Arrow splits it
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    valid = np.fromiter((v is not None for v in values), dtype=bool, count=n)
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.string(), n, [_validity(valid), pa.py_buffer(offsets), data])


def string_scalar(text: str) -> Any:
    """``text`` as an Arrow string scalar (what ``pyarrow.compute`` takes for a ``str``)."""
    return string_array([text])[0]


def float_values(array: Any) -> np.ndarray:
    """The values of a float64 Arrow array (or chunked array) as a numpy array, null as NaN
    (``to_numpy`` would import pandas for an array with nulls)."""
    if isinstance(array, pa.ChunkedArray):
        parts = [float_values(chunk) for chunk in array.chunks]
        return np.concatenate(parts) if parts else np.empty(0)
    n, offset = len(array), array.offset
    validity, data = array.buffers()[:2]
    if data is None:
        return np.full(n, np.nan)
    values = np.frombuffer(data, dtype=np.float64)[offset : offset + n]
    if array.null_count == 0:
        return values
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[offset : offset + n]
    values = values.copy()
    values[bits == 0] = np.nan
    return values


def is_text(kind: Any) -> bool:
    """Whether an Arrow type holds text as it is: ``string`` or ``large_string``, text
    dictionary-encoded, or nulls only (each an empty text)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)


def text_lists(lists: Any) -> bool:
    """Whether every row of ``lists`` is a list of texts: an Arrow list array of strings
    (or of nulls, each an empty text) without a null list."""
    kind = getattr(lists, "type", None)
    if kind is None or not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) or lists.null_count:
        return False
    item = kind.value_type
    return pa.types.is_string(item) or pa.types.is_large_string(item) or pa.types.is_null(item)
