"""Bounds on what reading an ``.xlsx`` workbook may cost, checked before it is parsed.

The workbook reader (fastexcel, on calamine) parses a sheet whole into memory and has no
bound of its own. So the parts it will read are first inflated here as a stream, a block
at a time (memory stays flat), and the workbook is refused, with one line, when:

- a part inflates to more than :data:`RATIO` times its compressed size (beyond
  :data:`GRACE` bytes), or to more than it declares: a zip bomb;
- a part declares a DTD or an entity (SpreadsheetML uses neither): billion laughs;
- a cell holds more than ``max_cell_chars`` characters (the XML's text is measured in
  bytes, which are never fewer than its characters; a cell over the limit in bytes is
  then counted exactly), or one cell's XML runs past :func:`cell_cap` bytes;
- the sheet's references to shared strings would make more text than
  :data:`EXPANSION` times the XML read (each reference is a copy once parsed): a
  sharedStrings bomb.
"""
from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

import numpy as np

from .errors import InputError

#: Excel's own limit on the characters of one cell.
EXCEL_CELL_CHARS = 32767
#: A part may inflate to this many times its compressed size (Apache POI's default bound)...
RATIO = 100
#: ...once past this many bytes.
GRACE = 16 << 20
#: Bytes inflated at a time.
BLOCK = 1 << 20
#: Text the sheet's shared-string references may make, beyond which they are counted exactly...
BUDGET = 1 << 30
#: ...and refused when more than this many times the XML read (and more than BUDGET).
EXPANSION = 16

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DTD = (b"<!DOCTYPE", b"<!ENTITY")
_ENTITY = re.compile(rb"&(?:#[0-9]+|#x[0-9A-Fa-f]+|[A-Za-z]+);")
_ESCAPE = re.compile(rb"_x[0-9A-Fa-f]{4}_")
_TAG = re.compile(rb"<[^>]*>")
_REF = re.compile(rb'\br="([A-Z]+)([0-9]+)"')
_SHARED_CELL = re.compile(rb'<(?:\w+:)?c\b[^>]*\bt="s"[^>]*>\s*<(?:\w+:)?v>\s*([0-9]+)\s*<')


def cell_cap(limit: int) -> int:
    """The most bytes of XML one cell may take: 16 per character allowed, plus 1 MiB
    (text escaped as ``&#x10FFFF;`` takes 10 bytes a character)."""
    return 16 * limit + (1 << 20)


@dataclass
class Workbook:
    """What the check found: the sheet names in order, and the part of the chosen sheet."""

    sheets: list[str]
    index: int
    part: str = ""
    shared_text: Any = field(default=None, repr=False)


def check_workbook(path: str, source: str, sheet: str | int | None, limit: int) -> Workbook:
    """Check the workbook at ``path`` and choose its sheet (``None``: the first; an int:
    0-based; a str: the name, or a 1-based number when no sheet has that name).
    Raises :class:`InputError` (one line) for a damaged or hostile file."""
    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(source, f"not a readable .xlsx workbook ({_one_line(exc)})") from None
    with book:
        try:
            return _check(book, source, sheet, limit)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(source, f"not a readable .xlsx workbook ({_one_line(exc)})") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _check(book: zipfile.ZipFile, source: str, sheet: str | int | None, limit: int) -> Workbook:
    names = {info.filename: info for info in book.infolist()}
    relations = _parse(book, names, "_rels/.rels", source)
    main = next((r.get("Target", "") for r in relations.iter(f"{{{_PKG_RELS}}}Relationship")
                 if r.get("Type", "").endswith("/officeDocument")), "xl/workbook.xml").lstrip("/")
    workbook = _parse(book, names, main, source)
    links = {r.get("Id"): r for r in _parse(book, names, _rels_of(main), source).iter(f"{{{_PKG_RELS}}}Relationship")}
    sheets = [(s.get("name", ""), s.get(f"{{{_DOC_RELS}}}id")) for s in workbook.iter(f"{{{_MAIN}}}sheet")]
    if not sheets:
        raise InputError(source, "not a readable .xlsx workbook (it has no sheet)")
    titles = [name for name, _ in sheets]
    index = choose_sheet(source, titles, sheet)
    target = links.get(sheets[index][1])
    part = _resolve(main, target.get("Target", "")) if target is not None else ""
    if part not in names:
        raise InputError(source, f"not a readable .xlsx workbook (sheet {titles[index]!r} has no part)")
    for other in ("[Content_Types].xml", _resolve(main, "styles.xml")):
        if other in names:
            _scan_plain(book, names[other], source)
    shared_part = next((_resolve(main, r.get("Target", "")) for r in links.values()
                        if r.get("Type", "").endswith("/sharedStrings")), None)
    scanner = _Scanner(source, limit, titles[index])
    shared = None
    if shared_part in names:
        shared = scanner.shared(book, names[shared_part])
    scanner.sheet(book, names[part], shared)
    return Workbook(titles, index, part, shared)


def choose_sheet(source: str, titles: list[str], sheet: str | int | None) -> int:
    """The index of the sheet ``sheet`` names among ``titles`` (see :func:`check_workbook`)."""
    if sheet is None:
        return 0
    if isinstance(sheet, int):
        if 0 <= sheet < len(titles):
            return sheet
    elif sheet in titles:
        return titles.index(sheet)
    elif sheet.strip().isdigit() and 1 <= int(sheet) <= len(titles):
        return int(sheet) - 1
    shown = ", ".join(repr(t) for t in titles)
    raise InputError(source, f"no sheet {sheet!r} (sheets: {shown}; give a name or a number from 1)")


def _rels_of(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", name + ".rels")


def _resolve(base: str, target: str) -> str:
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), target))


def _inflate(book: zipfile.ZipFile, info: zipfile.ZipInfo, source: str) -> Iterator[bytes]:
    """The bytes of one part, a block at a time, refused past the zip-bomb bounds.
    (``zipfile`` stops at the size the part declares and checks its CRC.)"""
    allowed = max(GRACE, RATIO * info.compress_size)
    if info.file_size > allowed:
        raise _bomb(source, info)
    done = 0
    with book.open(info) as stream:
        while True:
            block = stream.read(BLOCK)
            if not block:
                return
            done += len(block)
            if done > allowed:
                raise _bomb(source, info)
            yield block


def _bomb(source: str, info: zipfile.ZipInfo) -> InputError:
    return InputError(source, f"refused: part {info.filename} inflates more than {RATIO} times its "
                      f"{info.compress_size:,} compressed bytes (a zip bomb?)")


def _no_dtd(source: str, info: zipfile.ZipInfo, data: bytes) -> None:
    if any(mark in data for mark in _DTD):
        raise InputError(source, f"refused: part {info.filename} declares a DTD or an entity, which .xlsx never does")


def _scan_plain(book: zipfile.ZipFile, info: zipfile.ZipInfo, source: str) -> bytes:
    """A small part read whole (bounded, no DTD); its bytes."""
    tail = b""
    kept = []
    for block in _inflate(book, info, source):
        _no_dtd(source, info, tail + block)
        tail = block[-16:]
        kept.append(block)
    return b"".join(kept)


def _parse(book: zipfile.ZipFile, names: dict[str, zipfile.ZipInfo], part: str, source: str) -> Any:
    if part not in names:
        raise InputError(source, f"not a readable .xlsx workbook (no part {part})")
    data = _scan_plain(book, names[part], source)
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise InputError(source, f"not a readable .xlsx workbook (part {part}: {exc})") from None


def _container_starts(raw: np.ndarray, lt: np.ndarray, token: bytes) -> np.ndarray:
    """The positions (among ``lt``, the positions of ``<``) where element ``token`` starts:
    ``<`` + token followed by white space, ``>`` or ``/``."""
    size = len(raw)
    mask = np.ones(len(lt), dtype=bool)
    for offset, byte in enumerate(token, 1):
        at = np.minimum(lt + offset, size - 1)
        mask &= (raw[at] == byte) & (lt + offset < size)
    after = np.minimum(lt + len(token) + 1, size - 1)
    follow = raw[after]
    mask &= (lt + len(token) + 1 < size) & ((follow == 32) | (follow == 62) | (follow == 47) | (follow == 9)
                                             | (follow == 10) | (follow == 13))
    return lt[mask]


def _text_bytes(raw: np.ndarray, lt: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The bytes of text (outside tags) of each element starting at ``starts`` and running
    to the next start (the last to the end of ``raw``)."""
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    gt = np.flatnonzero(raw == 62)
    at = np.searchsorted(gt, lt)
    ends = np.where(at < len(gt), gt[np.minimum(at, max(len(gt) - 1, 0))] if len(gt) else len(raw), len(raw))
    following = np.append(lt[1:], len(raw))
    text = np.maximum(following - ends - 1, 0)
    first = np.searchsorted(lt, starts)
    return np.add.reduceat(text, first) if len(text) else np.zeros(len(starts), dtype=np.int64)


def exact_chars(xml: bytes) -> int:
    """The characters of text one cell's XML holds (tags dropped; an entity or an
    ``_xHHHH_`` escape is one character)."""
    text = _TAG.sub(b"", xml)
    text = _ENTITY.sub(b"?", text)
    text = _ESCAPE.sub(b"?", text)
    return len(text.decode("utf-8", "replace"))


class _Oversized(Exception):
    """An element over the cell limit: its index in the part and the start of its XML."""

    def __init__(self, index: int, head: bytes) -> None:
        super().__init__(index)
        self.index = index
        self.head = head


class _Scanner:
    """Streams the shared strings and the sheet, measuring each cell."""

    def __init__(self, source: str, limit: int, sheet: str) -> None:
        self.source = source
        self.limit = limit
        self.sheet_name = sheet
        self.xml_bytes = 0
        self.long_shared: int | None = None

    def _elements(self, book: zipfile.ZipFile, info: zipfile.ZipInfo, local: bytes) -> Iterator[tuple[bytes, np.ndarray]]:
        """Runs of whole elements ``local`` (with the document's prefix): each run's bytes
        and the start of each element in it. Raises :class:`_Oversized` for an element
        over the limit, or whose XML runs past :func:`cell_cap`."""
        pending = b""
        tail = b""
        token: bytes | None = None
        before = 0
        cap = cell_cap(self.limit)
        for block in _inflate(book, info, self.source):
            self.xml_bytes += len(block)
            _no_dtd(self.source, info, tail + block[:4096])
            _no_dtd(self.source, info, block)
            tail = block[-16:]
            data = pending + block if pending else block
            if token is None:
                found = re.search(rb"<(\w+:)?(?:worksheet|sst)\b", data)
                if found is None:
                    if len(data) > cap:
                        raise InputError(self.source, f"not a readable .xlsx workbook (part {info.filename})")
                    pending = data
                    continue
                token = (found.group(1) or b"") + local
            raw = np.frombuffer(data, dtype=np.uint8)
            lt = np.flatnonzero(raw == 60)
            starts = _container_starts(raw, lt, token)
            pending = data
            if len(starts) and starts[-1] > 0:  # the last element may go on in the next block
                cut = int(starts[-1])
                whole = starts[:-1]  # what comes before the first start (the part's head) is no cell
                if len(whole):
                    self._measure(data[:cut], whole, lt[lt < cut], before)
                    yield data[:cut], whole
                    before += len(whole)
                pending = data[cut:]
            if len(pending) > cap:
                raise _Oversized(before, pending[:512])
        if pending and token is not None:
            raw = np.frombuffer(pending, dtype=np.uint8)
            lt = np.flatnonzero(raw == 60)
            starts = _container_starts(raw, lt, token)
            if len(starts):
                self._measure(pending, starts, lt, before)
                yield pending, starts

    def _measure(self, data: bytes, starts: np.ndarray, lt: np.ndarray, before: int) -> None:
        """Raise :class:`_Oversized` for the first element of ``data`` over the limit."""
        text = _text_bytes(np.frombuffer(data, dtype=np.uint8), lt, starts)
        for i in np.flatnonzero(text > self.limit).tolist():
            end = int(starts[i + 1]) if i + 1 < len(starts) else len(data)
            element = data[int(starts[i]) : end]
            if exact_chars(element) > self.limit:
                raise _Oversized(before + i, element[:512])

    def _error(self, tag: bytes, shared: int | None = None) -> InputError:
        where = _where(tag)
        what = f" (shared string {shared})" if shared is not None else ""
        return InputError(self.source, f"sheet {self.sheet_name!r}: a cell holds more than {self.limit:,} "
                          f"characters{what}; Excel's own limit is {EXCEL_CELL_CHARS:,} (--max-cell-chars)", **where)

    def shared(self, book: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
        """The text bytes of every shared string. A string over the limit is remembered
        (:meth:`sheet` then names the first cell that uses it) and the rest not read."""
        sizes = []
        try:
            for data, starts in self._elements(book, info, b"si"):
                raw = np.frombuffer(data, dtype=np.uint8)
                sizes.append(_text_bytes(raw, np.flatnonzero(raw == 60), starts))
        except _Oversized as over:
            self.long_shared = over.index
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)

    def sheet(self, book: zipfile.ZipFile, info: zipfile.ZipInfo, shared: np.ndarray | None) -> None:
        """Measure every cell of the sheet part, and bound its shared-string references."""
        long_shared = self.long_shared
        if long_shared is not None:
            needle = re.compile(rb"<(?:\w+:)?c\b([^>]*)>\s*<(?:\w+:)?v>\s*" + str(long_shared).encode() + rb"\s*<")
            for block in self._whole_cells(book, info):
                for found in needle.finditer(block):
                    if b't="s"' in found.group(1):
                        raise self._error(found.group(1), long_shared)
            raise self._error(b"", long_shared)
        references = 0
        try:
            for data, _ in self._elements(book, info, b"c"):
                references += data.count(b't="s"')
        except _Oversized as over:
            raise self._error(over.head) from None
        if shared is None or not len(shared) or references * int(shared.max()) <= BUDGET:
            return
        total = 0
        for block in self._whole_cells(book, info):
            indices = np.array([int(m.group(1)) for m in _SHARED_CELL.finditer(block)], dtype=np.int64)
            indices = indices[indices < len(shared)]
            total += int(shared[indices].sum())
        if total > max(BUDGET, EXPANSION * self.xml_bytes):
            raise InputError(self.source, f"refused: sheet {self.sheet_name!r} repeats its shared strings into "
                             f"{total:,} bytes of text, more than {EXPANSION} times its XML (a sharedStrings bomb?)")

    def _whole_cells(self, book: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """The sheet part again, in blocks cut before a tag."""
        pending = b""
        for block in _inflate(book, info, self.source):
            data = pending + block
            cut = data.rfind(b"<")
            if cut <= 0 or len(data) - cut > cell_cap(self.limit):
                cut = len(data)
            yield data[:cut]
            pending = data[cut:]
        if pending:
            yield pending


def _where(tag: bytes) -> dict[str, Any]:
    """The row and column a cell's tag names (``r="B7"``), for :class:`InputError`."""
    found = _REF.search(tag)
    if found is None:
        return {}
    return {"row": int(found.group(2)), "column": found.group(1).decode()}
