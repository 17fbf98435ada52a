"""Arrow columns as JSON text, computed on whole arrays: the same text, byte for byte,
as ``json.dumps(value, ensure_ascii=False)`` of each value (``None`` as ``null``; a
float's NaN or infinity as ``null`` too, as the JSON Lines writer writes them)."""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrays import float_array, float_values, string_array, string_scalar
from .cells import float_texts

_NULL = string_scalar("null")
_EMPTY = string_scalar("")
_QUOTE = string_scalar('"')
_OPEN, _CLOSE = string_scalar("["), string_scalar("]")
#: A character ``json.dumps`` escapes in a string (ensure_ascii=False): quote, backslash, controls.
_ESCAPED = r'["\\\x00-\x1f]'
_dumps = json.JSONEncoder(ensure_ascii=False).encode


def json_texts(values: Any) -> Any:
    """The JSON text of each value of the Arrow array ``values`` as a ``string`` array
    without nulls, or ``None`` for a type not encoded here (structs, maps, decimals,
    dates, ...: encode those value by value)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    kind = values.type
    if pa.types.is_dictionary(kind):
        values, kind = values.cast(kind.value_type), kind.value_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        texts = _string_texts(values.cast(pa.string()) if pa.types.is_large_string(kind) else values)
    elif pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        texts = pc.cast(values, pa.string())
    elif pa.types.is_null(kind):
        return pc.fill_null(pa.nulls(len(values), pa.string()), _NULL)
    elif pa.types.is_float32(kind) or pa.types.is_float64(kind):
        numbers = float_values(values.cast(pa.float64()))
        finite = float_array(np.where(np.isfinite(numbers), numbers, np.nan))
        texts = float_texts(finite)  # its nulls (NaN, inf) are "" cells there: null here
        if pa.types.is_dictionary(texts.type):
            texts = texts.dictionary_decode()
        if finite.null_count:
            texts = pc.if_else(finite.is_null(), _NULL, texts)
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
        items = json_texts(values.values)
        if items is None:
            return None
        lists = type(values).from_arrays(values.offsets, items, mask=values.is_null() if values.null_count else None)
        texts = pc.binary_join_element_wise(_OPEN, pc.binary_join(lists, ", "), _CLOSE, _EMPTY)
    else:
        return None
    return pc.fill_null(texts, _NULL) if texts.null_count else texts


def list_cells(values: Any) -> Any:
    """The CSV cells of an Arrow list column of text, integers, booleans or nulls: each list
    as its JSON text (what ``cell_text`` writes for it), a null list as ``""``; ``None`` for
    any other column (floats too: ``json.dumps`` writes their NaN as ``NaN``)."""
    kind = values.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        return None
    item = kind.value_type
    if not any(test(item) for test in (pa.types.is_string, pa.types.is_integer, pa.types.is_boolean, pa.types.is_null)):
        return None
    texts = json_texts(values)
    if values.null_count:
        texts = pc.if_else(values.is_null(), _EMPTY, texts)
    return texts


def _string_texts(values: Any) -> Any:
    """Strings quoted, with ``json.dumps``'s escapes where a value needs any."""
    texts = pc.binary_join_element_wise(_QUOTE, values, _QUOTE, _EMPTY)
    need = pc.match_substring_regex(values, _ESCAPED)
    if need.null_count:
        need = pc.fill_null(need, False)
    if not pc.any(need).as_py():
        return texts
    escaped = string_array([_dumps(v) for v in values.filter(need).to_pylist()])
    return pc.replace_with_mask(texts, need, escaped)
