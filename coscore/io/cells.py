"""Columns as text cells, computed on whole Arrow arrays: numbers in the exact form
Python's ``repr`` gives, and CSV/TSV quoting as the ``csv`` module's minimal quoting.

The usual columns (text, scores with few distinct values, nothing to quote) are made
from their buffers with numpy; ``pyarrow.compute`` (some 0.05-0.1 s to import) is
imported only for the rarer cases that need it."""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from .arrays import bool_array, float_array, float_values, string_array, string_scalar
from .table import MISSING

#: Arrow's CSV writer writing text as it is (it refuses a value that would need quotes).
_PLAIN_CSV = {
    d: pa_csv.WriteOptions(include_header=False, delimiter=d, quoting_style="none") for d in (",", "\t")
}

#: Below and above these magnitudes Arrow and ``repr`` format floats differently
#: (exponents): such values, rare in scores, are formatted by ``repr`` one by one.
_PLAIN_LOW, _PLAIN_HIGH = 1e-4, 1e9


def _pc() -> Any:
    """``pyarrow.compute``, imported when first needed."""
    import pyarrow.compute as pc

    return pc


def float_texts(values: Any) -> Any:
    """A float64 Arrow array as strings, each ``repr(value)``; nulls as ``""``.

    Scores take few distinct values: those are formatted once each, and the column is
    a dictionary array of them (Arrow's CSV writer decodes it as it writes)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    n = len(values)
    numbers = float_values(values)  # NaN where null
    valid = _valid(values)
    found = _distinct(numbers if valid is None else numbers[valid])
    if found is None:
        return _empty_for_null(_float_texts_at_once(values))
    distinct, index = found
    cells = [repr(v) for v in distinct.tolist()]
    if valid is not None:
        cells.append("")
        full = np.full(n, len(cells) - 1, dtype=np.int32)
        full[valid] = index
        index = full
    indices = pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(np.ascontiguousarray(index, np.int32))])
    return pa.DictionaryArray.from_arrays(indices, string_array(cells))


#: Powers of two a score is multiplied by to make it whole (exactly: no rounding).
_SCALES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
#: The most distinct whole values counted in a table rather than sorted.
_SPAN = 1 << 16


def _distinct(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct values of ``numbers`` (bit for bit: ``-0.0`` is not ``0.0``) and the
    index of each value among them, or ``None`` when there are too many to look up.

    Scores are mostly whole or halves: scaled by a power of two (exact) they are
    counted in a table, without sorting; other values are sorted (``numpy.unique``)."""
    if len(numbers) == 0:
        return numbers, np.zeros(0, dtype=np.int32)
    with np.errstate(invalid="ignore", over="ignore"):
        negative_zero = bool(np.any(np.signbit(numbers) & (numbers == 0)))
        if not negative_zero and np.isfinite(numbers).all():
            for scale in _SCALES:
                scaled = numbers * scale
                if np.array_equal(scaled, np.floor(scaled)):
                    low, high = scaled.min(), scaled.max()
                    if high - low >= _SPAN:
                        break
                    codes = (scaled - low).astype(np.int64)
                    present = np.zeros(int(high - low) + 1, dtype=bool)
                    present[codes] = True
                    kept = np.flatnonzero(present)
                    where = np.zeros(len(present), dtype=np.int32)
                    where[kept] = np.arange(len(kept), dtype=np.int32)
                    return (kept + low) / scale, where[codes]
    bits = np.ascontiguousarray(numbers).view(np.uint64)
    distinct, index = np.unique(bits, return_inverse=True)
    if len(distinct) * 4 > len(numbers) and len(distinct) > 64:
        return None
    return distinct.view(np.float64), index.reshape(-1).astype(np.int32)


def _valid(array: Any) -> np.ndarray | None:
    """A bool mask of the valid values of ``array``, or ``None`` when none is null."""
    if array.null_count == 0:
        return None
    bits = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + len(array)].astype(bool)


def _empty_for_null(texts: Any) -> Any:
    """A string array (or chunked array) with its nulls as ``""``."""
    if not texts.null_count:
        return texts
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    n = len(texts)
    if texts.null_count == n:
        return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(np.zeros(n + 1, dtype=np.int32)),
                                                     pa.py_buffer(b"")])
    if pa.types.is_string(texts.type):
        valid = _valid(texts)
        assert valid is not None  # some value is null (above)
        if not np.diff(offsets_of(texts))[~valid].any():  # the nulls hold no bytes: drop the bitmap
            return pa.Array.from_buffers(pa.string(), n, [None, *texts.buffers()[1:]], offset=texts.offset)
    pc = _pc()
    return pc.fill_null(texts, pa.scalar("", texts.type))


def _float_texts_at_once(values: Any) -> Any:
    """:func:`float_texts` for many distinct values: Arrow's conversion, with the forms
    where it differs from ``repr`` put right (nulls stay null)."""
    pc = _pc()
    empty = string_scalar("")
    texts = pc.cast(values, pa.string())
    numbers = float_values(values)  # NaN where null: neither odd nor whole
    with np.errstate(invalid="ignore"):
        size = np.abs(numbers)
        odd = ((size < _PLAIN_LOW) & (size != 0)) | (size >= _PLAIN_HIGH)
        whole = (numbers == np.floor(numbers)) & ~odd  # Arrow writes 1.0 as "1", repr as "1.0"
    if whole.any():
        texts = pc.if_else(bool_array(whole), pc.binary_join_element_wise(texts, string_scalar(".0"), empty), texts)
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
            values, kind = _pc().cast(values, kind.value_type), kind.value_type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            texts = values
        elif pa.types.is_float64(kind):
            return float_texts(values)
        elif pa.types.is_floating(kind):
            return float_texts(_pc().cast(values, pa.float64()))
        elif pa.types.is_null(kind):
            texts = pa.nulls(len(values), pa.string())
        elif pa.types.is_integer(kind) or pa.types.is_boolean(kind):
            texts = _pc().cast(values, pa.string())
        else:
            return string_array([cell_text(v) for v in values.to_pylist()])
        return _empty_for_null(texts)
    if declared in ("str", "string"):
        return _empty_for_null(string_array(values))
    if declared == "float64":
        return float_texts(float_array([math.nan if v is None else v for v in values]))
    return string_array([cell_text(v) for v in values])


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
    texts = _decoded(texts)
    need = _holding(texts, (delimiter + '"\n\r').encode())
    if alone:
        empty = np.diff(offsets_of(texts)) == 0
        need = empty if need is None else need | empty
    if need is None or not need.any():
        return given
    pc = _pc()
    quote = string_scalar('"')
    enclosed = pc.binary_join_element_wise(quote, pc.replace_substring(texts, '"', '""'), quote, string_scalar(""))
    return pc.if_else(bool_array(need), enclosed, texts)


def text_bytes(texts: Any) -> bytes:
    """The UTF-8 bytes of all the values of the string array ``texts``, end to end."""
    if len(texts) == 0:
        return b""
    offsets = offsets_of(texts)
    data = texts.buffers()[2]
    return b"" if data is None else bytes(memoryview(data)[int(offsets[0]) : int(offsets[-1])])


def _holding(texts: Any, special: bytes) -> np.ndarray | None:
    """A mask of the values of the string array ``texts`` holding one of the ASCII bytes
    ``special``, found on its UTF-8 data buffer at once; ``None`` when none does."""
    raw = text_bytes(texts)
    if all(raw.find(bytes([b])) < 0 for b in special):  # memchr: the usual case, nothing to quote
        return None
    offsets = offsets_of(texts)
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


def _decoded(texts: Any) -> Any:
    """A dictionary array of strings as a plain string array (anything else as it is)."""
    if pa.types.is_dictionary(texts.type):
        return _pc().take(texts.dictionary, texts.indices)
    return texts


def offsets_of(texts: Any) -> np.ndarray:
    """The value offsets of the string (or large_string) array ``texts``, one more than its length."""
    wide = pa.types.is_large_string(texts.type)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64 if wide else np.int32)
    return offsets[texts.offset : texts.offset + len(texts) + 1]


def joined_lines(columns: list[Any], delimiter: str, plain: bool = False) -> Any:
    """The rows of the text ``columns`` joined by ``delimiter``, each ended by ``\\n``,
    as the bytes of one buffer. ``plain`` says that no value holds the delimiter, a quote
    or a line end: Arrow's CSV writer then joins them (faster than a join per row)."""
    if plain and columns and len(columns[0]):
        sink = pa.BufferOutputStream()
        names = [str(i) for i in range(len(columns))]
        pa_csv.write_csv(pa.table(columns, names=names), sink, _PLAIN_CSV[delimiter])
        return sink.getvalue()
    pc = _pc()
    columns = [_decoded(c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c) for c in columns]
    # the last value ends its line
    ended = pc.binary_join_element_wise(columns[-1], string_scalar(""), string_scalar("\n"))
    lines = pc.binary_join_element_wise(*columns[:-1], ended, string_scalar(delimiter)) if len(columns) > 1 else ended
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    if len(lines) == 0:
        return b""
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
