"""Columns as text cells, computed on whole Arrow arrays: numbers in the exact form
Python's ``repr`` gives, and CSV/TSV quoting as the ``csv`` module's minimal quoting."""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .arrays import bool_array, float_array, float_values, string_array, string_scalar
from .table import MISSING

_EMPTY = string_scalar("")
#: Arrow's CSV writer writing text as it is (it refuses a value that would need quotes).
_PLAIN_CSV = {
    d: pa_csv.WriteOptions(include_header=False, delimiter=d, quoting_style="none") for d in (",", "\t")
}

#: Below and above these magnitudes Arrow and ``repr`` format floats differently
#: (exponents): such values, rare in scores, are formatted by ``repr`` one by one.
_PLAIN_LOW, _PLAIN_HIGH = 1e-4, 1e9


def float_texts(values: Any) -> Any:
    """A float64 Arrow array as strings, each ``repr(value)``; nulls stay null.

    Scores take few distinct values: those are formatted once each and looked up."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values)
    distinct = encoded.dictionary
    if len(distinct) * 4 <= len(values) or len(distinct) <= 64:
        texts = string_array([repr(v) for v in distinct.to_pylist()])
        return texts.take(encoded.indices)
    return _float_texts_at_once(values)


def _float_texts_at_once(values: Any) -> Any:
    """:func:`float_texts` for many distinct values: Arrow's conversion, with the forms
    where it differs from ``repr`` put right."""
    texts = pc.cast(values, pa.string())
    numbers = float_values(values)  # NaN where null: neither odd nor whole
    with np.errstate(invalid="ignore"):
        size = np.abs(numbers)
        odd = ((size < _PLAIN_LOW) & (size != 0)) | (size >= _PLAIN_HIGH)
        whole = (numbers == np.floor(numbers)) & ~odd  # Arrow writes 1.0 as "1", repr as "1.0"
    if whole.any():
        texts = pc.if_else(bool_array(whole), pc.binary_join_element_wise(texts, string_scalar(".0"), _EMPTY), texts)
    if odd.any():
        texts = pc.replace_with_mask(texts, bool_array(odd), string_array([repr(v) for v in numbers[odd].tolist()]))
    return texts


def text_column(values: Any, declared: str | None = None) -> Any:
    """Any column (an Arrow array or a list) as an Arrow string array: strings as they
    are, floats as ``repr``, booleans ``true``/``false``, lists and objects as JSON,
    NaN, null and missing values as ``""``."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        kind = values.type
        if pa.types.is_dictionary(kind):
            values, kind = values.cast(kind.value_type), kind.value_type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            texts = values
        elif pa.types.is_floating(kind):
            texts = float_texts(values.cast(pa.float64()))
        elif pa.types.is_integer(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind):
            texts = pc.cast(values, pa.string())
        elif _json_list(kind):
            from .json_text import json_texts

            texts = pc.if_else(values.is_null(), _EMPTY, json_texts(values)) if values.null_count else json_texts(values)
        else:
            return string_array([cell_text(v) for v in values.to_pylist()])
        return pc.fill_null(texts, _EMPTY) if texts.null_count else texts
    if declared in ("str", "string"):
        return pc.fill_null(string_array(values), _EMPTY)
    if declared == "float64":
        return pc.fill_null(float_texts(float_array([math.nan if v is None else v for v in values])), _EMPTY)
    return string_array([cell_text(v) for v in values])


def _json_list(kind: Any) -> bool:
    """A list type whose values :func:`cell_text` writes as :mod:`.json_text` does (no floats:
    ``json.dumps`` writes their NaN as ``NaN``)."""
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        return False
    item = kind.value_type
    return any(test(item) for test in (pa.types.is_string, pa.types.is_integer, pa.types.is_boolean, pa.types.is_null))


def cell_text(value: Any) -> str:
    """One value as text."""
    if isinstance(value, str):
        return value
    if value is None or value is MISSING:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def quoted(texts: Any, delimiter: str, alone: bool = False) -> Any:
    """``texts`` quoted as the ``csv`` module's minimal quoting does: a value holding the
    delimiter, a quote, a newline (or, unlike the ``csv`` module, a carriage return,
    which other readers take for a line end) is enclosed in quotes, its quotes doubled; with
    ``alone`` (a one-column table) the empty value is written ``""`` too. When no value
    needs quotes, ``texts`` itself is returned."""
    given = texts
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    need = _holding(texts, (delimiter + '"\n\r').encode())
    if alone:
        empty = pc.binary_length(texts).to_numpy(zero_copy_only=False) == 0
        need = empty if need is None else need | empty
    if need is None or not need.any():
        return given
    quote = string_scalar('"')
    enclosed = pc.binary_join_element_wise(quote, pc.replace_substring(texts, '"', '""'), quote, _EMPTY)
    return pc.if_else(bool_array(need), enclosed, texts)


def _holding(texts: Any, special: bytes) -> np.ndarray | None:
    """A mask of the values of the string array ``texts`` holding one of the ASCII bytes
    ``special``, found on its UTF-8 data buffer at once; ``None`` when none does."""
    if len(texts) == 0:
        return None
    wide = pa.types.is_large_string(texts.type)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[texts.offset : texts.offset + len(texts) + 1]
    data = texts.buffers()[2]
    if data is None:
        return None
    raw = bytes(memoryview(data)[int(offsets[0]) : int(offsets[-1])])
    if all(raw.find(bytes([b])) < 0 for b in special):  # memchr: the usual case, nothing to quote
        return None
    array = np.frombuffer(raw, dtype=np.uint8)
    found = array == special[0]
    for b in special[1:]:
        found |= array == b
    hits = np.flatnonzero(found)
    rows = np.searchsorted(offsets, hits + int(offsets[0]), side="right") - 1
    rows = rows[rows < len(texts)]
    need = np.zeros(len(texts), dtype=bool)
    need[rows] = True
    return need


def joined_lines(columns: list[Any], delimiter: str, plain: bool = False) -> Any:
    """The rows of the text ``columns`` joined by ``delimiter``, each ended by ``\\n``,
    as the bytes of one buffer. ``plain`` says that no value holds the delimiter, a quote
    or a line end: Arrow's CSV writer then joins them (faster than a join per row)."""
    if plain and columns and len(columns[0]):
        sink = pa.BufferOutputStream()
        names = [str(i) for i in range(len(columns))]
        pa_csv.write_csv(pa.table(columns, names=names), sink, _PLAIN_CSV[delimiter])
        return sink.getvalue()
    ended = pc.binary_join_element_wise(columns[-1], _EMPTY, string_scalar("\n"))  # the last value ends its line
    lines = pc.binary_join_element_wise(*columns[:-1], ended, string_scalar(delimiter)) if len(columns) > 1 else ended
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    if len(lines) == 0:
        return b""
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
