"""JSON Lines: one JSON object per line; keys become columns in order of first appearance.

Read in blocks of ``chunk_size`` lines. A block is parsed by Arrow's JSON reader into
Arrow arrays when the result is provably what Python's ``json`` gives (checks below);
otherwise (a missing key, a float column, blank lines, an error to report, ...) it is
parsed line by line with ``json``, the contract. Written column by column as JSON text
(:mod:`coscore.io.json_text`), byte for byte what ``json.dumps`` of each row gives.
"""
from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np

from ._text import LineTooLong, TextFileReader
from .cell_limit import check_chunk, limit_of, line_cap, over_limit
from .column_limit import MAX_COLUMNS, too_wide
from .encodings import Announce
from .errors import InputError
from .jsonl_width import few_keys
from .line_blocks import LineBlock, LineBlocks
from .table import CHUNK_SIZE, MISSING, Chunk

#: A JSON escape of a surrogate code point (a false alarm after an escaped backslash is harmless).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: The largest block handed to Arrow's JSON reader (its block size is a 32-bit int).
_MAX_FAST_BYTES = 1 << 30
#: A line with more brackets than this is not given to Arrow (nothing read as Arrow arrays
#: nests deeper than a list in an object, and very deep nesting crashes Arrow's parser).
_MAX_OPENS = 32
#: JSON's white space, as a regular expression on bytes.
_SPACE = rb"[ \t\r\n]*"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")
#: The most cells (rows × columns, a missing key counted) of a chunk read line by line.
_CHUNK_CELLS = 1 << 22
#: At most this share of a block's rows is re-read with ``json`` to tell a ``null`` from a missing key.
_NULL_SHARE = 4


class JsonlReader(TextFileReader):
    """Read JSON Lines in chunks. Blank lines are skipped; every other line must be an object.

    ``columns`` is the ordered union of the keys seen so far (it can grow from chunk
    to chunk); a row lacking a key holds :data:`MISSING` there (in a chunk whose columns
    are Python lists; Arrow arrays hold no missing key). A text value (or list element)
    over ``max_cell_chars`` characters is an error, as is a line longer than 16 such values.
    """

    #: ``columns`` grows as keys appear (several files are not checked for equal columns).
    columns_grow = True

    def __init__(
        self, path: Any, chunk_size: int = CHUNK_SIZE, *, encoding: str | None = None, announce: Announce | None = None,
        max_cell_chars: int | None = None,
    ) -> None:
        super().__init__(path, chunk_size, encoding=encoding, announce=announce)
        self.columns: list[str] = []
        self._known: set[str] = set()
        self._limit = limit_of(max_cell_chars)
        self._blocks = LineBlocks(self._stream, self.source, line_cap(self._limit, 16))

    def chunks(self) -> Iterator[Chunk]:
        """The rows, ``chunk_size`` at a time."""
        try:
            for chunk in self._chunks():
                check_chunk(chunk, self._limit)
                yield chunk
        except LineTooLong as exc:
            key = _last_key(exc.head)
            raise over_limit(self.source, self._limit, line=exc.lineno, **({"column": key} if key else {})) from None

    def _chunks(self) -> Iterator[Chunk]:
        rows: list[dict[str, Any]] = []
        lines: list[int] = []
        yielded = False
        while True:
            block = self._blocks.take(self._chunk_size - len(rows))
            if block is None:
                break
            if not rows:
                fast = self._arrow_chunk(block)
                if fast is not None:
                    yield fast
                    yielded = True
                    continue
            for number, text in block.lines():
                if not text.strip():
                    continue
                rows.append(self._parse(text, number))
                lines.append(number)
                if len(rows) * len(self.columns) > _CHUNK_CELLS:   # rows of keys of their own: a smaller chunk
                    yield self._chunk(rows, lines)
                    rows, lines, yielded = [], [], True
            if len(rows) >= self._chunk_size:
                yield self._chunk(rows, lines)
                rows, lines, yielded = [], [], True
        if rows or not yielded:
            yield self._chunk(rows, lines)

    # -- the exact reader -------------------------------------------------------------------

    def _parse(self, text: str, line: int) -> dict[str, Any]:
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(self.source, f"invalid JSON at character {exc.colno}: {exc.msg}", line=line) from None
        except RecursionError:
            raise InputError(self.source, "invalid JSON: nested too deeply", line=line) from None
        except ValueError:  # an integer of more digits than Python converts
            raise InputError(
                self.source, f"invalid JSON: a number with more than {sys.get_int_max_str_digits():,} digits",
                line=line,
            ) from None
        if not isinstance(row, dict):
            raise InputError(self.source, f"expected a JSON object, got {type(row).__name__}", line=line)
        if _SURROGATE_ESCAPE.search(text):  # "\ud800" alone decodes to a str no file can hold
            self._check_surrogates(row, line)
        for key in row:
            if key not in self._known:
                if len(self.columns) >= MAX_COLUMNS:
                    raise too_wide(self.source, f"more than {MAX_COLUMNS:,}", "the objects have", line=line)
                self._known.add(key)
                self.columns.append(key)
        return row

    def _check_surrogates(self, row: dict[str, Any], line: int) -> None:
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
                            "character; the file must hold valid Unicode", line=line, column=key,
                        )
                elif isinstance(item, dict):
                    pending.extend(item)
                    pending.extend(item.values())
                elif isinstance(item, list):
                    pending.extend(item)

    def _chunk(self, rows: list[dict[str, Any]], lines: list[int]) -> Chunk:
        data = {name: [row.get(name, MISSING) for row in rows] for name in self.columns}
        return Chunk(list(self.columns), data, lines, "line", self.source, self._blocks.position)

    # -- the Arrow reader -------------------------------------------------------------------

    def _arrow_chunk(self, block: LineBlock) -> Chunk | None:
        """``block`` read by Arrow as a chunk, or ``None`` when that could differ from
        what :meth:`_parse` gives line by line (or the block holds an error to report)."""
        table = _arrow_table(block)
        if table is None:
            return None
        names = table.column_names
        if any(n not in names for n in self.columns):
            return None  # a key of earlier rows missing from every row here
        if any(not _exact_type(table.column(n).type) and not _floats_only(block, n, table.column(n).type)
               for n in names):
            return None
        if not _nulls_are_values(block, table, names):
            return None
        for name in names:
            if name not in self._known:
                self._known.add(name)
                self.columns.append(name)
        data = {n: _column(table.column(n)) for n in self.columns}
        lines = range(block.first, block.first + block.count)
        return Chunk(list(data), data, lines, "line", self.source, self._blocks.position)


def _last_key(head: bytes) -> str | None:
    """The last key named in the start of a (too long) line, or ``None``."""
    found = None
    for found in re.finditer(rb'"((?:[^"\\]|\\.){0,200})"' + _SPACE + rb":", head[:1 << 20]):  # noqa: B007 - the last
        pass
    if found is None:
        return None
    try:
        key = json.loads(b'"' + found.group(1) + b'"')
    except ValueError:
        return None
    return key if isinstance(key, str) else None


def _arrow_table(block: LineBlock) -> Any:
    """The block parsed by Arrow, or ``None`` unless every line starts with ``{`` (no
    blank lines), holds no control character but tab and CR, no surrogate escape, at
    most :data:`_MAX_OPENS` brackets, and
    Arrow reads it as one row per line of valid UTF-8 without a complaint."""
    data = block.data
    if not data or len(data) > _MAX_FAST_BYTES:
        return None
    raw = np.frombuffer(data, dtype=np.uint8)
    starts = block.starts()[:-1]
    if not (raw[starts] == ord("{")).all():
        return None
    controls = int(np.count_nonzero(raw < 32))
    if controls and controls != data.count(b"\n") + data.count(b"\r") + data.count(b"\t"):
        return None
    if _SURROGATE_ESCAPE_BYTES.search(data):
        return None
    opens = (raw == ord("[")) | (raw == ord("{"))
    if np.add.reduceat(opens, starts, dtype=np.int64).max() > _MAX_OPENS:
        return None  # possibly nested deeper than Arrow's parser can take (it would crash)
    if not few_keys(data):
        return None  # many keys: Arrow would fill each with nulls for every row before it
    import pyarrow as pa
    import pyarrow.json as pa_json

    read = pa_json.ReadOptions(use_threads=False, block_size=len(data) + 1)
    try:
        table = pa_json.read_json(pa.py_buffer(data), read_options=read)
        dated = [f.name for f in table.schema if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)]
        if dated:  # text that looks like a date stays text
            schema = pa.schema([(name, pa.string()) for name in dated])
            parse = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer")
            table = pa_json.read_json(pa.py_buffer(data), read_options=read, parse_options=parse)
        if table.num_rows != block.count:
            return None
        table.validate(full=True)  # invalid UTF-8
    except (pa.ArrowException, ValueError):
        return None
    return table


def _column(values: Any) -> Any:
    """A column of the table as one array; all nulls as a string column (as the writers
    take a column of Python ``None``)."""
    import pyarrow as pa

    if pa.types.is_null(values.type):
        return pa.nulls(len(values), pa.string())
    return values.combine_chunks()


def _plain(block: LineBlock, name: str) -> bool:
    """Whether key ``name`` can only be spelled ``"name"`` in the block: a name of ASCII
    letters, digits and ``_``, and no ``\\u00XX`` escape (which could spell one of those)."""
    return _PLAIN_NAME.fullmatch(name) is not None and b"\\u00" not in block.data


def _key_pattern(name: str, value: bytes) -> bytes:
    """A regular expression of key ``name`` (a plain name) followed by a value matching ``value``."""
    return b'"' + name.encode() + b'"' + _SPACE + b":" + _SPACE + value


def _floats_only(block: LineBlock, name: str, kind: Any) -> bool:
    """Whether the float64 column ``name`` holds floats for ``json`` too: its key is plain
    and no row gives it an integer (``json`` reads ``1`` as an int, Arrow as 1.0). Nothing
    in the block nests (objects are not read by Arrow here), so every ``"name":`` is a key
    of a row; a match elsewhere (in a string) only makes the block go line by line."""
    import pyarrow as pa

    if not pa.types.is_float64(kind) or not _plain(block, name):
        return False
    return re.search(_key_pattern(name, rb"-?[0-9]+" + _SPACE + rb"[,}]"), block.data) is None


def _exact_type(kind: Any) -> bool:
    """A type whose values ``to_pylist`` gives as ``json.loads`` does (not a float: ``1``
    and ``1.0`` are both 1.0 there; not an object: its missing keys become nulls)."""
    import pyarrow as pa

    if pa.types.is_list(kind):  # a list of such values (one level: a list of lists is not one)
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_int64(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind)


def _nulls_are_values(block: LineBlock, table: Any, names: list[str]) -> bool:
    """Whether every null of the columns ``names`` is a ``null`` in its row, not a key the
    row lacks (Arrow reads both as null). With a plain key, the nulls must be as many as the
    ``"key": null`` in the block (no column nests: every such text is a key of a row);
    else the rows holding one are read again with ``json``, unless they are too many to
    be worth it (then ``False``)."""
    rows: dict[int, list[str]] = {}
    for name in names:
        column = table.column(name)
        if (column.null_count and _plain(block, name) and b'\\"' + name.encode() + b'"' not in block.data
                and len(re.findall(_key_pattern(name, rb"null"), block.data)) == column.null_count):
            continue  # as many "name": null as nulls (a key appears once per row, at the top)
        if column.null_count:
            if column.null_count * _NULL_SHARE > block.count:
                return False
            valid = np.asarray(column.is_valid())
            for i in np.flatnonzero(~valid).tolist():
                rows.setdefault(i, []).append(name)
    if len(rows) * _NULL_SHARE > block.count:
        return False
    if not rows:
        return True
    starts = block.starts()
    for i, keys in rows.items():
        try:
            row = json.loads(block.data[starts[i] : starts[i + 1]])
        except (ValueError, RecursionError):
            return False
        if not isinstance(row, dict) or any(k not in row for k in keys):
            return False
    return True


class JsonlWriter:
    """Write chunks as JSON Lines (UTF-8, not ASCII-escaped); NaN is written as ``null``.

    Each row is what ``json.dumps(row, ensure_ascii=False)`` writes, keys in column order
    and a missing key left out; Arrow columns are encoded as whole arrays."""

    def __init__(self, stream: TextIO, target: str = "") -> None:
        self._stream = stream
        self._encode = json.JSONEncoder(ensure_ascii=False, default=str).encode

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``, one object per line, keys in column order."""
        if not len(chunk):
            return
        import pyarrow.compute as pc

        from .arrays import string_array, string_scalar
        from .json_text import json_texts

        pairs = []
        for name in chunk.columns:
            values = chunk.data[name]
            texts = json_texts(values) if hasattr(values, "type") and hasattr(values, "to_pylist") else None
            if texts is None:  # a list, or an Arrow type encoded value by value: None where missing
                column = _json_values(chunk.pylist(name), chunk.types.get(name))
                texts = string_array([None if v is MISSING else self._encode(v) for v in column])
            pairs.append(pc.binary_join_element_wise(string_scalar(self._encode(name) + ": "), texts,
                                                     string_scalar("")))
        if pairs:
            objects = pc.binary_join_element_wise(*pairs, string_scalar(", "), null_handling="skip")
            lines = pc.binary_join_element_wise(string_scalar("{"), objects, string_scalar("}\n"), string_scalar(""))
        else:
            lines = string_array(["{}\n"] * len(chunk))
        self._stream.write(_text_of(lines))

    def close(self) -> None:
        """Nothing to finish for text output."""


def _text_of(lines: Any) -> str:
    """The concatenated values of a string array, as one ``str``."""
    import pyarrow as pa

    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset : lines.offset + len(lines) + 1]
    return bytes(memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]).decode("utf-8")


def _json_values(values: list[Any], declared: str | None) -> list[Any]:
    """A column ready for JSON: NaN and infinities (not valid JSON) become ``None``."""
    if declared in ("str", "string"):
        return values
    return [None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v for v in values]
