"""Writing Excel workbooks (``.xlsx``) column by column, at Arrow speed.

A workbook is a zip of a few XML parts; the one that grows with the data, the sheet, is
made here a chunk at a time from whole Arrow columns (as the CSV writer makes its lines)
and deflated as it goes, so memory stays flat. A per-cell writer (xlsxwriter, openpyxl)
spends some 9 microseconds a cell in Python: 10 s for 200,000 scored rows.

- Floats and integers are stored as numbers (floats exactly: ``repr``), booleans as
  booleans; NaN and missing values are empty cells, infinities the text ``inf``. Text is
  stored as text (an inline string: an answer ``=1+1`` is never a formula), but for a cell
  whose text is the plain spelling of a number that Excel shows the same way
  (:data:`NUMBER_TEXT`: ``4``, ``-3``, ``4.5``, ``0.25``): readers give every CSV and workbook
  cell as text, and a mark kept as text would not add up in Excel. A leading zero (``007``,
  ``00123``), a ``+``, spaces, a thousands separator, an exponent, a trailing zero after the
  point (``4.50``), more than 11 characters (Excel shows 12 digits as ``1.23457E+11``),
  decimals on a million or more, or ``inf``/``nan`` keep the text; each number so written
  reads back (fastexcel, calamine) as the text it was. An empty text is an empty text cell
  (the row stays). A column of Python values mixing text and numbers, lists or objects is
  written as text (lists and objects as JSON).
- The sheet is named ``sheet`` (the input's sheet, when it was a workbook), made valid for
  Excel (:func:`sheet_name`), else ``scores``; a ``record`` of the run
  (:mod:`..scored_record`) is written as custom document properties.
- Cells carry no reference (``r="B7"``): each row lists all its cells in order, an empty
  one as ``<c/>`` (the rows keep their numbers). Excel, LibreOffice and calamine place
  such cells by their order; the sheet is a quarter smaller and deflates faster.
- The sheet is deflated in a second thread while the next chunk's XML is made.
- Characters XML cannot hold literally are written as OOXML's ``_xHHHH_`` escapes
  (control characters, carriage returns), and a text holding ``_x`` has its ``_``
  escaped, so every text reads back as it was. U+FFFE, U+FFFF and lone surrogates, which
  no .xlsx can hold, are an error naming the row and column, as is a text over Excel's
  32,767 characters, more than 1,048,576 rows or 16,384 columns.
"""
from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from ...errors import CoscoreError
from ..arrays import int_array, string_array, string_scalar
from ..cells import offsets_of, text_bytes, text_column
from ..errors import InputError
from ..table import MISSING, Chunk
from .workbook_guard import EXCEL_CELL_CHARS

#: The most rows and columns of one Excel sheet.
EXCEL_ROWS = 1_048_576
EXCEL_COLUMNS = 16_384
#: The sheet's name when the input names none.
DEFAULT_SHEET = "scores"
#: Excel's longest sheet name (in UTF-16 code units) and the characters it refuses in one.
SHEET_NAME_CHARS = 31
_SHEET_NAME_REFUSED = frozenset("[]:*?/\\")
#: A text written as a number (RE2): no leading zero, sign but ``-``, exponent, nor
#: trailing zero after the point; no more than 3 zeros after ``0.`` (Excel shows
#: ``0.00001`` as ``1E-05``); decimals only below a million (fastexcel reads a number
#: back rounded to 9 decimals: below 2**52 * 1e-9 every one comes back as it was written,
#: above it ``10006558.2`` reads ``10006558.199999999``). Its length is bound apart
#: (:data:`NUMBER_CHARS`).
NUMBER_TEXT = r"^(0|-?[1-9][0-9]*|-?[1-9][0-9]{0,5}\.[0-9]*[1-9]|-?0\.0{0,3}[1-9]([0-9]*[1-9])?)$"
#: The most characters (the ``-`` apart) of a text written as a number: what Excel's
#: General format shows without exponent, and (at most 9 decimals) what fastexcel reads
#: back as the same text.
NUMBER_CHARS = 11
_NUMBER_START = np.zeros(256, dtype=bool)
_NUMBER_START[list(b"-0123456789")] = True
#: The deflate level for the sheet: zlib's level 1 deflates XML some 3 times faster than
#: its default level 6, for a file about 20 % larger; ISA-L's level 1 (used when the isal
#: package is there) 4 times faster again, for about the size of zlib's.
COMPRESS_LEVEL = 1

_SHEET = "xl/worksheets/sheet1.xml"
_HEAD = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
_FOOT = b"</sheetData></worksheet>"
_NS = "http://schemas.openxmlformats.org"
_TYPES = (
    f'<Types xmlns="{_NS}/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/styles.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>{custom}</Types>')
_RELS = (
    f'<Relationships xmlns="{_NS}/package/2006/relationships"><Relationship Id="rId1" '
    f'Type="{_NS}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>{{custom}}'
    '</Relationships>')
_WORKBOOK = (
    f'<workbook xmlns="{_NS}/spreadsheetml/2006/main" xmlns:r="{_NS}/officeDocument/2006/relationships">'
    '<sheets><sheet name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>')
_PARTS = {
    "xl/_rels/workbook.xml.rels": (
        f'<Relationships xmlns="{_NS}/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_NS}/officeDocument/2006/relationships/worksheet" '
        'Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{_NS}/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
        '</Relationships>'),
    "xl/styles.xml": (
        f'<styleSheet xmlns="{_NS}/spreadsheetml/2006/main">'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="2"><fill><patternFill patternType="none"/></fill>'
        '<fill><patternFill patternType="gray125"/></fill></fills>'
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'),
}
#: An empty cell (it holds its place: cells carry no reference).
_EMPTY = "<c/>"
_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
#: Bytes of UTF-8 text that need more than joining: XML's specials, ``_`` (of ``_x``) and controls.
_SPECIAL = bytes([*range(9), *range(11, 32), ord("&"), ord("<"), ord(">"), ord("_")])
#: The bytes of white space an XML reader may trim from a text's ends (space, tab, LF, CR).
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[32, 9, 10, 13]] = True
_NONCHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")


def _fast_deflater() -> Any:
    """A raw deflater (as zipfile's own) from ISA-L at level 1: some 4 times as fast as
    zlib's level 1 on sheet XML, for the same size; ``None`` without the isal package."""
    try:
        from isal import isal_zlib
    except ImportError:
        return None
    return isal_zlib.compressobj(COMPRESS_LEVEL, isal_zlib.DEFLATED, -15)


def _pc() -> Any:
    import pyarrow.compute as pc

    return pc


class XlsxWriter:
    """Write chunks to the one sheet of a new ``.xlsx`` workbook (streamed), named ``sheet``
    (:func:`sheet_name`; default ``scores``); ``record`` (a JSON-able mapping: how the file was
    scored, :mod:`..scored_record`) is written as custom document properties."""

    def __init__(self, stream: BinaryIO, target: str = "", *, sheet: str | None = None,
                 record: Mapping[str, Any] | None = None) -> None:
        self._target = target
        self._sheet_name = sheet_name(sheet)
        self._record = record
        self._zip = zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL)
        self._sheet: Any = None
        self._deflater: ThreadPoolExecutor | None = None
        self._pending: Future[None] | None = None
        self._columns: list[str] | None = None
        self._row = 0  # rows written, the header included

    def write(self, chunk: Chunk) -> None:
        """Append the rows of ``chunk``."""
        if self._columns is None:
            self._start(chunk)
        elif chunk.columns != self._columns:
            extra = [name for name in chunk.columns if name not in self._columns]
            raise InputError(chunk.source, f"key {(extra or chunk.columns)[0]!r} first appears after the output header "
                             "was written; write JSON Lines output, or give that key in an early row")
        n = len(chunk)
        if not n:
            return
        if self._row + n > EXCEL_ROWS:
            where = chunk.where(EXCEL_ROWS - self._row) if EXCEL_ROWS - self._row < n else {}
            raise InputError(chunk.source, f"more than {EXCEL_ROWS:,} rows do not fit an Excel sheet; "
                             "write CSV or Parquet instead", **where)
        pc = _pc()
        numbers = pc.cast(int_array(np.arange(self._row + 1, self._row + n + 1)), pa.string())
        assert self._columns is not None
        cells = [self._cells(chunk, name) for name in self._columns]
        rows = pc.binary_join_element_wise(string_scalar('<row r="'), numbers, string_scalar('">'), *cells,
                                           string_scalar("</row>"), string_scalar(""))
        self._deflate(rows)
        self._row += n

    def _deflate(self, rows: Any) -> None:
        """Hand the rows' XML to the deflating thread, once it is done with the last chunk's."""
        self._wait()
        if self._deflater is None:
            self._deflater = ThreadPoolExecutor(1, thread_name_prefix="coscore-xlsx")
        self._pending = self._deflater.submit(self._sheet.write, _bytes_of(rows))

    def _wait(self) -> None:
        """Wait for the chunk being deflated (its error, if any, is raised here)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _start(self, chunk: Chunk) -> None:
        self._columns = list(chunk.columns)
        if len(self._columns) > EXCEL_COLUMNS:
            raise InputError(chunk.source, f"{len(self._columns):,} columns do not fit an Excel sheet "
                             f"({EXCEL_COLUMNS:,} at most); write CSV or Parquet instead")
        self._sheet = self._zip.open(_SHEET, "w")
        deflater = _fast_deflater()
        if deflater is not None and getattr(self._sheet, "_compressor", None) is not None:
            self._sheet._compressor = deflater   # zipfile's own entry writer, deflating with ISA-L
        self._sheet.write(_HEAD)
        header = Chunk(["name"], {"name": self._columns}, [1] * len(self._columns), "row", chunk.source)
        try:
            texts = _checked_text(_strings(self._columns), header, "(the header)")
        except _Unstorable as exc:
            raise _unstorable(header, self._columns[exc.index], exc) from None
        cells = [f'<c t="inlineStr"><is><t xml:space="preserve">{v}</t></is></c>' for v in _escaped(texts).to_pylist()]
        self._sheet.write(('<row r="1">' + "".join(cells) + "</row>").encode("utf-8"))
        self._row = 1

    def _cells(self, chunk: Chunk, name: str) -> Any:
        """The XML of column ``name``'s cells (``<c/>`` where a cell is left empty)."""
        cells = self._values(chunk, name)
        if cells.null_count:
            cells = _pc().fill_null(cells, string_scalar(_EMPTY))
        return cells

    def _values(self, chunk: Chunk, name: str) -> Any:
        """The XML of column ``name``'s cells (null where a cell is left empty)."""
        pc = _pc()
        try:
            kind, values = _column_kind(chunk.data[name], chunk.types.get(name))
        except _Unstorable as exc:
            raise _unstorable(chunk, name, exc) from None
        if kind == "empty":
            return pa.nulls(len(chunk), pa.string())
        if kind == "bool":
            flags = pc.if_else(values, string_scalar("1"), string_scalar("0"))
            return pc.binary_join_element_wise(string_scalar('<c t="b"><v>'), flags, string_scalar("</v></c>"),
                                               string_scalar(""))
        if kind in ("int", "float"):
            texts = pc.cast(values, pa.string()) if kind == "int" else _float_cells(values)
            number = pc.binary_join_element_wise(string_scalar("<c><v>"), texts, string_scalar("</v></c>"),
                                                 string_scalar(""))
            if kind == "int":
                return number
            infinite = pc.is_inf(values)
            if not pc.any(infinite).as_py():
                return number
            shown = pc.if_else(infinite, pc.cast(values, pa.string()), pa.nulls(len(values), pa.string()))
            text = self._text_cells(shown, chunk, name)
            return pc.if_else(infinite, text, number)
        return self._text_cells(values, chunk, name)

    def _text_cells(self, texts: Any, chunk: Chunk, name: str) -> Any:
        """Inline strings; ``xml:space="preserve"`` only on a text that starts or ends with
        white space (XML readers may trim it otherwise): 19 bytes a cell less to deflate. A
        text that is the plain spelling of a number (:func:`_numbers`) is that number."""
        pc = _pc()
        texts = _escaped(_checked_text(texts, chunk, name))
        numbers = _numbers(texts)
        if numbers is not None and numbers.all():
            kinds = None
            opening, closing = string_scalar(_OPENINGS[2]), string_scalar(_CLOSINGS[2])
        else:
            spaced = _spaced_ends(texts)
            if spaced is None and numbers is None:
                kinds = None
                opening, closing = string_scalar(_OPENINGS[0]), string_scalar(_CLOSINGS[0])
            else:   # each cell's tags picked from the three kinds: the texts are copied once
                kinds = np.zeros(len(texts), dtype=np.int8)
                if spaced is not None:
                    kinds[spaced] = 1
                if numbers is not None:
                    kinds[numbers] = 2
                opening = _tags(_OPENINGS, kinds)
                closing = _tags(_CLOSINGS, kinds) if numbers is not None else string_scalar(_CLOSINGS[0])
        return pc.binary_join_element_wise(opening, texts, closing, string_scalar(""))

    def abort(self) -> None:
        """Give up the file (it is being discarded): its handles are closed now, so that
        nothing is left for the collector to finish (and to complain about)."""
        if self._deflater is not None:
            self._deflater.shutdown(wait=True, cancel_futures=True)
            self._deflater, self._pending = None, None
        for handle in (self._sheet, self._zip):
            if handle is not None:
                with contextlib.suppress(Exception):
                    handle.close()
        self._sheet = None

    def close(self) -> None:
        """Finish the sheet and write the workbook's other parts."""
        if self._columns is None:
            self._start(Chunk([], {}, [], "row", self._target))
        self._wait()
        if self._deflater is not None:
            self._deflater.shutdown()
            self._deflater = None
        self._sheet.write(_FOOT)
        try:
            self._sheet.close()
        except RuntimeError as exc:  # zipfile: a sheet over 4 GiB
            raise InputError(self._target, f"the sheet is too large for one .xlsx part ({exc}); "
                             "write CSV or Parquet instead") from None
        for part, xml in _parts(self._sheet_name, self._record).items():
            self._zip.writestr(part, _DECLARATION + xml)
        self._zip.close()


def sheet_name(name: str | None) -> str:
    """``name`` made a valid Excel sheet name: each of ``[]:*?/\\`` and each character XML
    cannot hold made ``_``, cut to 31 UTF-16 code units, without a ``'`` at either end;
    :data:`DEFAULT_SHEET` when nothing is left (or for ``History``, which Excel reserves)."""
    if not isinstance(name, str):
        return DEFAULT_SHEET
    kept = "".join("_" if c in _SHEET_NAME_REFUSED or not _xml_char(c) else c for c in name)
    cut, units = [], 0
    for c in kept:
        units += 2 if ord(c) > 0xFFFF else 1
        if units > SHEET_NAME_CHARS:
            break
        cut.append(c)
    kept = "".join(cut).strip("'")
    return DEFAULT_SHEET if not kept.strip() or kept.lower() == "history" else kept


def _xml_char(c: str) -> bool:
    """Whether XML 1.0 can hold ``c`` (literally or as a character reference)."""
    n = ord(c)
    return n in (9, 10, 13) or 0x20 <= n <= 0xD7FF or 0xE000 <= n <= 0xFFFD or n >= 0x10000


def _parts(sheet: str, record: Mapping[str, Any] | None) -> dict[str, str]:
    """The workbook's parts but the sheet: its sheet named ``sheet``; with ``record``, the
    custom properties that hold it."""
    from xml.sax.saxutils import quoteattr

    parts = {"xl/workbook.xml": _WORKBOOK.replace('"{name}"', quoteattr(sheet)), **_PARTS}
    if record is None:
        parts["[Content_Types].xml"] = _TYPES.replace("{custom}", "")
        parts["_rels/.rels"] = _RELS.replace("{custom}", "")
        return parts
    from ..scored_record import CUSTOM_PART, CUSTOM_RELATION, CUSTOM_TYPE, custom_properties

    parts["[Content_Types].xml"] = _TYPES.replace(
        "{custom}", f'<Override PartName="/{CUSTOM_PART}" ContentType="{CUSTOM_TYPE}"/>')
    parts["_rels/.rels"] = _RELS.replace(
        "{custom}", f'<Relationship Id="rId2" Type="{CUSTOM_RELATION}" Target="{CUSTOM_PART}"/>')
    parts[CUSTOM_PART] = custom_properties(record)
    return parts


def _unstorable(chunk: Chunk, name: str, exc: _Unstorable) -> InputError:
    return InputError(chunk.source, f"this value holds {exc.what}, which an .xlsx file cannot store; "
                      "write CSV or Parquet instead", column=name, **chunk.where(exc.index))


def _column_kind(values: Any, declared: str | None) -> tuple[str, Any]:
    """What a column is written as (``text``, ``float``, ``int``, ``bool`` or ``empty``) and
    its values as an Arrow array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = _arrow_of(list(values), declared)
    kind = values.type
    if pa.types.is_dictionary(kind):
        values = _pc().cast(values, kind.value_type)
        kind = kind.value_type
    if pa.types.is_null(kind) or values.null_count == len(values):
        return "empty", values
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "text", values
    if pa.types.is_floating(kind):
        return "float", values.cast(pa.float64())
    if pa.types.is_integer(kind):
        return "int", values
    if pa.types.is_boolean(kind):
        return "bool", values
    return "text", text_column(values)


def _arrow_of(values: list[Any], declared: str | None) -> Any:
    """A column of Python values as an Arrow array: text, numbers or booleans when every
    value is one of them (or missing), else text (:func:`..cells.text_column`)."""
    values = [None if v is MISSING else v for v in values]
    if declared in ("str", "string") or all(v is None or isinstance(v, str) for v in values):
        return _strings(values)
    if declared == "float64" or all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                                    for v in values):
        if all(v is None or isinstance(v, int) for v in values) and all(v is None or abs(v) < 1 << 63 for v in values):
            return pa.array(values, pa.int64())
        return pa.array([None if v is None else float(v) for v in values], pa.float64())
    if all(v is None or isinstance(v, bool) for v in values):
        return pa.array(values, pa.bool_())
    return text_column(values)


def _strings(values: list[Any]) -> Any:
    try:
        return string_array(values)
    except UnicodeEncodeError:
        index = next(i for i, v in enumerate(values) if isinstance(v, str) and _surrogate(v))
        raise _Unstorable(index, "a lone surrogate") from None


def _surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Unstorable(CoscoreError, ValueError):
    def __init__(self, index: int, what: str) -> None:
        super().__init__(what)
        self.index = index
        self.what = what


def _float_cells(values: Any) -> Any:
    """Floats as ``repr`` text; NaN and null as null (an empty cell)."""
    from ..cells import float_texts

    pc = _pc()
    texts = float_texts(values)
    if pa.types.is_dictionary(texts.type):
        texts = pc.take(texts.dictionary, texts.indices)
    missing = pc.or_(pc.is_null(values), pc.is_nan(values))
    if pc.any(missing).as_py():
        texts = pc.if_else(missing, pa.nulls(len(texts), pa.string()), texts)
    return texts


def _checked_text(texts: Any, chunk: Chunk, name: str) -> Any:
    """``texts`` (a string array), after refusing a value Excel cannot hold: over its
    32,767 characters, or holding U+FFFE or U+FFFF."""
    pc = _pc()
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if not len(texts) or texts.null_count == len(texts):
        return texts
    offsets = offsets_of(texts)
    sizes = np.diff(offsets)
    where = np.flatnonzero(sizes > EXCEL_CELL_CHARS)
    if len(where):
        lengths = np.asarray(pc.utf8_length(texts.take(int_array(where))).fill_null(0))
        over = where[lengths > EXCEL_CELL_CHARS]
        if len(over):
            i = int(over[0])
            raise InputError(chunk.source, f"a value of {int(lengths[lengths > EXCEL_CELL_CHARS][0]):,} characters "
                             f"does not fit an Excel cell ({EXCEL_CELL_CHARS:,} at most); write CSV or Parquet instead",
                             column=name, **chunk.where(i))
    raw = text_bytes(texts)
    if raw:
        for mark in _NONCHARACTERS:
            at = raw.find(mark)
            if at >= 0:
                i = int(np.searchsorted(offsets, at + int(offsets[0]), side="right") - 1)
                code = mark.decode("utf-8").encode("utf-16-be").hex().upper()
                raise InputError(chunk.source, f"this value holds U+{code}, "
                                 "which an .xlsx file cannot store; write CSV or Parquet instead",
                                 column=name, **chunk.where(i))
    return texts


#: A text cell's opening and closing tags: plain, keeping white space at its ends, a number.
_OPENINGS = ('<c t="inlineStr"><is><t>', '<c t="inlineStr"><is><t xml:space="preserve">', "<c><v>")
_CLOSINGS = ("</t></is></c>", "</t></is></c>", "</v></c>")


def _tags(tags: tuple[str, ...], kinds: np.ndarray) -> Any:
    """The string array of ``tags[kind]`` for each of ``kinds``."""
    return _pc().take(string_array(list(tags)), pa.array(kinds, pa.int8()))


def _numbers(texts: Any) -> np.ndarray | None:
    """Which of ``texts`` (a string array, after :func:`_escaped`: a number holds nothing it
    escapes) are written as numbers (a mask: :data:`NUMBER_TEXT`, at most
    :data:`NUMBER_CHARS` characters), or ``None`` when none is. Only short texts that start
    with a digit or ``-`` are matched: most answers are ruled out by two looks at their
    offsets and first byte, on the Arrow buffers where they lie."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if not len(texts) or texts.null_count == len(texts):
        return None
    offsets = offsets_of(texts)
    sizes = np.diff(offsets)
    short = np.flatnonzero((sizes > 0) & (sizes <= NUMBER_CHARS + 1))
    if not len(short):
        return None
    first = np.frombuffer(texts.buffers()[2], dtype=np.uint8)[offsets[:-1][short]]
    fits = _NUMBER_START[first] & (sizes[short] <= NUMBER_CHARS + (first == ord("-")))
    if texts.null_count:
        fits &= np.asarray(texts.is_valid())[short]
    candidates = short[fits]
    if not len(candidates):
        return None
    # whole numbers (digits only, no leading zero) are told by counting the bytes that are
    # no digit; only the others (a '-' or a '.') go to the pattern
    digits = _no_other_bytes(texts, offsets, candidates)
    matched = digits & ((first[fits] != ord("0")) | (sizes[candidates] == 1))
    others = np.flatnonzero(~digits)
    if len(others):
        shortlist = texts.take(int_array(candidates[others]))
        matched[others] = np.asarray(_pc().match_substring_regex(shortlist, NUMBER_TEXT).fill_null(False), dtype=bool)
    if not matched.any():
        return None
    if len(candidates) == len(texts):
        return matched
    mask = np.zeros(len(texts), dtype=bool)
    mask[candidates[matched]] = True
    return mask


def _no_other_bytes(texts: Any, offsets: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Whether each of the ``chosen`` texts (their indices; each at most a dozen bytes) holds
    digits only: counted over the column's bytes at once when most texts are chosen, else
    over a small matrix of the chosen texts' bytes."""
    data = np.frombuffer(texts.buffers()[2], dtype=np.uint8)
    if 2 * len(chosen) >= len(texts):
        region = data[offsets[0] : offsets[-1]]
        other = (region - np.uint8(48)) > 9   # no digit: '0'..'9' wrap to 0..9, the rest above
        if not other.any():
            return np.ones(len(chosen), dtype=bool)
        counts = np.zeros(len(region) + 1, dtype=np.int32)
        np.cumsum(other, out=counts[1:])
        start = offsets[:-1][chosen] - offsets[0]
        return counts[start + np.diff(offsets)[chosen]] == counts[start]
    lengths = np.diff(offsets)[chosen]
    span = np.arange(int(lengths.max()))
    raw = data[np.minimum(offsets[:-1][chosen][:, None] + span, len(data) - 1)]
    return (((raw - np.uint8(48)) <= 9) | (span >= lengths[:, None])).all(axis=1)


def _spaced_ends(texts: Any) -> np.ndarray | None:
    """Which texts start or end with white space (a mask), or ``None`` when none does."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    raw = text_bytes(texts)
    if not raw:
        return None
    data = np.frombuffer(raw, dtype=np.uint8)
    offsets = offsets_of(texts) - offsets_of(texts)[0]
    filled = np.diff(offsets) > 0
    mask = np.zeros(len(texts), dtype=bool)
    mask[filled] = _SPACE[data[offsets[:-1][filled]]] | _SPACE[data[offsets[1:][filled] - 1]]  # first, last bytes
    return mask if mask.any() else None


def _escaped(texts: Any) -> Any:
    """Text made fit for an inline string: ``& < >`` as entities, ``_x`` as ``_x005F_x``
    and control characters (but tab and line feed) as ``_xHHHH_``."""
    raw = text_bytes(texts)
    if not any(raw.find(bytes([b])) >= 0 for b in _SPECIAL):
        return texts
    pc = _pc()
    for plain, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("_x", "_x005F_x"), ("_X", "_x005F_X")):
        if plain.encode() in raw:
            texts = pc.replace_substring(texts, plain, escaped)
    controls = np.unique(np.frombuffer(raw, dtype=np.uint8))
    for byte in controls[(controls < 32) & (controls != 9) & (controls != 10)].tolist():
        texts = pc.replace_substring(texts, chr(byte), f"_x{byte:04X}_")
    return texts


def _bytes_of(lines: Any) -> Any:
    """The concatenated values of a string array (nulls hold nothing), as a buffer."""
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = offsets_of(lines)
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]

