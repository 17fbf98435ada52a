"""Bounds on what reading an ``.xlsx`` workbook may cost, checked before it is parsed.

The workbook reader (fastexcel, on calamine) parses a sheet whole into memory and has no
bound of its own. So the parts it will read are first inflated here (by ISA-L where the
isal package is, else zlib), a block at a time, and the workbook is refused, with one
line, when:

- a part inflates to more than :data:`RATIO` times its compressed size (beyond
  :data:`GRACE` bytes), or to more than it declares: a zip bomb;
- a part declares a DTD or an entity (SpreadsheetML uses neither): billion laughs;
- a cell holds more than ``max_cell_chars`` characters (the XML's text is measured in
  bytes, which are never fewer than its characters; a cell over the limit in bytes is
  then counted exactly), or one cell's XML runs past :func:`cell_cap` bytes;
- the sheet's references to shared strings would make more text than
  :data:`EXPANSION` times the XML read (each reference is a copy once parsed): a
  sharedStrings bomb;
- the sheet's cells lie so far apart that the reader's dense grid of them would hold more
  than :data:`~.sheet_grid.CELLS` cells (:mod:`.sheet_grid`): two cells at ``A1`` and
  ``XFD1048576`` would be 17 billion.
"""
from __future__ import annotations

import io
import posixpath
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

import numpy as np

from ..errors import InputError
from .sheet_grid import CELLS, SPARSE, Grid

#: Excel's own limit on the characters of one cell.
EXCEL_CELL_CHARS = 32767
#: A part may inflate to this many times its compressed size (Apache POI's default bound)...
RATIO = 100
#: ...once past this many bytes.
GRACE = 16 << 20
#: Bytes inflated at a time.
BLOCK = 1 << 20
#: Compressed bytes given the inflater at a time.
PIECE = 1 << 16
#: The most bytes of a part read whole (the workbook, its relations, its styles).
SMALL = 64 << 20
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
_START_TAG = re.compile(rb'<[\w:.-]+(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|\'[^\']*\'))*\s*(/?)>')
_SHARED_CELL = re.compile(rb'<(?:\w+:)?c\b[^>]*\bt="s"[^>]*>\s*<(?:\w+:)?v>\s*([0-9]+)\s*<')


def cell_cap(limit: int) -> int:
    """The most bytes of XML one cell may take: 16 per character allowed, plus 1 MiB
    (text escaped as ``&#x10FFFF;`` takes 10 bytes a character)."""
    return 16 * limit + (1 << 20)


@dataclass
class Workbook:
    """What the check found: the sheet names in order, the index of the chosen one,
    ``data``: a zip of the parts the reader needs, each checked (copied as they lie in the
    file, still deflated), and ``opened``: what ``opener(data)`` gave (``None`` without one)."""

    sheets: list[str]
    index: int
    data: bytes = field(default=b"", repr=False)
    opened: Any = field(default=None, repr=False)


def check_workbook(path: str, source: str, sheet: str | int | None, limit: int,
                   opener: Callable[[bytes], Any] | None = None) -> Workbook:
    """Check the workbook at ``path`` and choose its sheet (``None``: the first; an int:
    its number from 1; a str: its name, or its number when no sheet has that name).
    Raises :class:`InputError` (one line) for a damaged or hostile file.

    With ``opener``, ``opener(data)`` (the reader opening the checked parts: fastexcel
    parses the shared strings then) runs in a second thread, once the shared strings are
    held to the zip-bomb bounds, while their text and the sheet are checked; the sheet is
    read only after the check. An exception ``opener`` raises is raised when the check
    passes."""
    try:
        with open(path, "rb") as file:   # read once: the parts checked are the parts read
            raw = file.read()
        book = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(source, f"not a readable .xlsx workbook ({_one_line(exc)})") from None
    with book:
        try:
            return _check(book, raw, source, sheet, limit, opener)
        except InputError:
            raise
        except (zipfile.BadZipFile, zlib.error, _zlib().error, struct.error, OSError, ValueError, EOFError,
                KeyError, NotImplementedError, RuntimeError) as exc:  # a damaged zip, as zipfile or ISA-L finds it
            raise InputError(source, f"not a readable .xlsx workbook ({_one_line(exc)})") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _check(book: zipfile.ZipFile, raw: bytes, source: str, sheet: str | int | None, limit: int,
           opener: Callable[[bytes], Any] | None) -> Workbook:
    names = {info.filename: info for info in book.infolist()}
    kept: list[str] = []

    def small(part: str) -> Any:
        if part not in names:
            raise InputError(source, f"not a readable .xlsx workbook (no part {part})")
        data = _read_small(book, raw, names[part], source)
        kept.append(part)
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError as exc:
            raise InputError(source, f"not a readable .xlsx workbook (part {part}: {exc})") from None

    relations = small("_rels/.rels")
    main = next((r.get("Target", "") for r in relations.iter(f"{{{_PKG_RELS}}}Relationship")
                 if r.get("Type", "").endswith("/officeDocument")), "xl/workbook.xml").lstrip("/")
    workbook = small(main)
    links = {r.get("Id"): r for r in small(_rels_of(main)).iter(f"{{{_PKG_RELS}}}Relationship")}
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
            _read_small(book, raw, names[other], source)
            kept.append(other)
    shared_part = next((_resolve(main, r.get("Target", "")) for r in links.values()
                        if r.get("Type", "").endswith("/sharedStrings")), None)
    shared = names.get(shared_part or "")
    if shared is not None:
        kept.append(shared.filename)
    data = copy_parts(raw, [names[name] for name in dict.fromkeys([*kept, part])], source)

    def opening_of(data: bytes) -> Any:
        if shared is not None:   # its bounds, size and CRC, before the reader inflates it
            _check_inflation(book, raw, shared, source)
        return opener(data) if opener is not None else None

    scanner = _Scanner(source, limit, titles[index])
    with ThreadPoolExecutor(1) as pool:   # the reader opens the parts while their text and the sheet are checked
        opening = pool.submit(opening_of, data)
        try:
            spans = None
            if shared is not None:
                spans = scanner.scan(_inflate(book, raw, shared, source), shared, b"si")
            if scanner.long_shared is not None:
                scanner.find_user(_inflate(book, raw, names[part], source))
            scanner.scan(_inflate(book, raw, names[part], source), names[part], b"c")
            scanner.check_grid()
            if spans is not None and len(spans) and scanner.references * int(spans.max()) > BUDGET:
                scanner.bound_expansion(b"".join(_inflate(book, raw, names[part], source)), spans)
        finally:
            opened = _outcome(opening)
    if isinstance(opened, BaseException):
        raise opened
    return Workbook(titles, index, data, opened)


def _outcome(future: Future) -> Any:
    """What a future gave, or the exception it raised."""
    try:
        return future.result()
    except Exception as exc:   # the caller's opener: raised once the check has passed
        return exc


def copy_parts(raw: bytes, parts: list[zipfile.ZipInfo], source: str) -> bytes:
    """A zip of ``parts`` of the zip file ``raw``, each copied as it lies there (still
    compressed: the reader inflates it, once), with the same names, sizes and CRCs."""
    pieces: list[Any] = []   # joined once at the end: each body is copied once
    entries = []
    offset = 0
    for info in parts:
        if info.flag_bits & 1 or max(info.file_size, info.compress_size, info.header_offset) >= 0xFFFFFFFF:
            raise InputError(source, f"not a readable .xlsx workbook (part {info.filename} is encrypted or "
                             f"over 4 GiB)")
        body = _body(raw, info, source)
        name = info.filename.encode("utf-8")
        flags = 0x800 if not info.filename.isascii() else 0
        pieces += [struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, flags, info.compress_type, 0, 0x21,
                               info.CRC, info.compress_size, info.file_size, len(name), 0), name, body]
        entries.append((info, name, flags, offset))
        offset += 30 + len(name) + len(body)
    directory = offset
    for info, name, flags, start in entries:
        pieces += [struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, flags, info.compress_type, 0,
                               0x21, info.CRC, info.compress_size, info.file_size, len(name), 0, 0, 0, 0, 0,
                               start), name]
        offset += 46 + len(name)
    pieces.append(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries),
                              offset - directory, directory, 0))
    return b"".join(pieces)


def _body(raw: bytes, info: zipfile.ZipInfo, source: str) -> memoryview:
    """The bytes of one part as they lie in the zip file ``raw`` (compressed; not copied)."""
    start = info.header_offset
    if raw[start:start + 4] != b"PK\x03\x04":
        raise _damaged(source, info)
    name_size, extra_size = struct.unpack("<HH", raw[start + 26:start + 30])
    begin = start + 30 + name_size + extra_size
    body = memoryview(raw)[begin:begin + info.compress_size]
    if len(body) != info.compress_size:
        raise InputError(source, f"not a readable .xlsx workbook (part {info.filename} is cut short)")
    return body


def choose_sheet(source: str, titles: list[str], sheet: str | int | None) -> int:
    """The index of the sheet ``sheet`` names among ``titles`` (see :func:`check_workbook`)."""
    if sheet is None:
        return 0
    if isinstance(sheet, int):
        if 1 <= sheet <= len(titles):
            return sheet - 1
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


def _inflate(book: zipfile.ZipFile, raw: bytes, info: zipfile.ZipInfo, source: str) -> Iterator[bytes]:
    """The bytes of one part, a block at a time, refused past the zip-bomb bounds, its
    declared size and CRC checked. A deflated part is inflated by ISA-L where the isal
    package is (some twice as fast as zlib); zipfile's other methods, by zipfile."""
    allowed = max(GRACE, RATIO * info.compress_size)
    if info.file_size > allowed:
        raise _bomb(source, info)
    if info.compress_type not in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED):
        yield from _inflate_other(book, info, source, allowed)
        return
    body = _body(raw, info, source)
    flate = _zlib()
    done = crc = 0
    for block in (_blocks(body) if info.compress_type == zipfile.ZIP_STORED else _inflated(flate, body)):
        done += len(block)
        if done > info.file_size:   # (which is never more than allowed)
            raise InputError(source, f"refused: part {info.filename} inflates to more than the "
                             f"{info.file_size:,} bytes it declares (a zip bomb?)")
        crc = flate.crc32(block, crc)
        yield block
    if done != info.file_size or crc != info.CRC:
        raise _damaged(source, info)


def _inflated(flate: Any, body: memoryview) -> Iterator[bytes]:
    """The raw deflate stream ``body`` inflated, :data:`BLOCK` bytes at a time (the last
    block fewer), as zipfile reads a part; fed :data:`PIECE` bytes at a time, since what
    one call leaves unread is copied."""
    inflater = flate.decompressobj(-15)
    fed = held = 0
    tail: bytes | memoryview = b""
    parts: list[bytes] = []
    while not inflater.eof:
        if not tail:
            tail = body[fed:fed + PIECE]
            fed += len(tail)
        part = inflater.decompress(tail, BLOCK - held)
        tail = inflater.unconsumed_tail
        if part:
            parts.append(part)
            held += len(part)
            if held == BLOCK:
                yield b"".join(parts)
                parts, held = [], 0
        elif not tail and fed >= len(body):   # all of it fed, nothing more comes out
            break
    if parts:
        yield b"".join(parts)


def _inflate_other(book: zipfile.ZipFile, info: zipfile.ZipInfo, source: str, allowed: int) -> Iterator[bytes]:
    """A part compressed by another method zipfile knows, a block at a time (zipfile stops
    at the size it declares and checks its CRC)."""
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


def _damaged(source: str, info: zipfile.ZipInfo) -> InputError:
    return InputError(source, f"not a readable .xlsx workbook (part {info.filename} is damaged)")


def _bomb(source: str, info: zipfile.ZipInfo) -> InputError:
    return InputError(source, f"refused: part {info.filename} inflates more than {RATIO} times its "
                      f"{info.compress_size:,} compressed bytes (a zip bomb?)")


def _no_dtd(source: str, info: zipfile.ZipInfo, head: bytes) -> None:
    """Refuse a DTD (it can only stand before the root element, in the part's first bytes)."""
    if any(mark in head for mark in _DTD):
        raise InputError(source, f"refused: part {info.filename} declares a DTD or an entity, which .xlsx never does")


def _read_small(book: zipfile.ZipFile, raw: bytes, info: zipfile.ZipInfo, source: str) -> bytes:
    """A small part read whole (bounded to :data:`SMALL` bytes, no DTD)."""
    if info.file_size > SMALL:
        raise InputError(source, f"refused: part {info.filename} is larger than {SMALL:,} bytes")
    data = b"".join(_inflate(book, raw, info, source))
    _no_dtd(source, info, data)
    return data


def _zlib() -> Any:
    """ISA-L's zlib where the isal package is, else zlib (the same interface)."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib
    return isal_zlib


def _check_inflation(book: zipfile.ZipFile, raw: bytes, info: zipfile.ZipInfo, source: str) -> None:
    """Inflate a part, keeping nothing: within the zip-bomb bounds, its size and CRC right,
    no DTD."""
    for number, block in enumerate(_inflate(book, raw, info, source)):
        if number == 0:
            _no_dtd(source, info, block[:1 << 16])


def _blocks(data: bytes | memoryview) -> Iterator[bytes]:
    """``data`` a :data:`BLOCK` at a time."""
    for start in range(0, len(data), BLOCK):
        yield bytes(data[start:start + BLOCK])


def _starts(raw: np.ndarray, token: bytes) -> np.ndarray:
    """The positions where element ``token`` starts: ``<`` + token, then white space,
    ``>`` or ``/``."""
    size = len(raw) - len(token) - 1
    if size <= 0:
        return np.zeros(0, dtype=np.int64)
    found = np.flatnonzero((raw[:size] == 60) & (raw[1 : size + 1] == token[0]))
    for offset, byte in enumerate(token[1:], 2):
        found = found[raw[found + offset] == byte]
    follow = raw[found + len(token) + 1]
    keep = (follow == 32) | (follow == 62) | (follow == 47) | (follow == 9) | (follow == 10) | (follow == 13)
    return found[keep]


def _text_bytes(element: bytes) -> int:
    """The bytes of text (outside tags) of one element's XML."""
    return len(element) - sum(len(tag) for tag in _TAG.findall(element))


def exact_chars(xml: bytes) -> int:
    """The characters of text one cell's XML holds (tags dropped; an entity or an
    ``_xHHHH_`` escape is one character)."""
    text = _TAG.sub(b"", xml)
    text = _ENTITY.sub(b"?", text)
    text = _ESCAPE.sub(b"?", text)
    return len(text.decode("utf-8", "replace"))


class _Scanner:
    """Streams a part (the shared strings, the sheet), measuring each element (``si``,
    ``c``): an element spanning more bytes than the limit is counted exactly."""

    def __init__(self, source: str, limit: int, sheet: str) -> None:
        self.source = source
        self.limit = limit
        self.sheet_name = sheet
        self.xml_bytes = 0
        self.references = 0
        self.long_shared: int | None = None
        self.grid: Grid | None = None

    def scan(self, blocks: Iterable[bytes], info: zipfile.ZipInfo, local: bytes) -> Any:
        """Measure the part ``info`` (its bytes: ``blocks``); for ``si``, the span of each
        string (a bound on its text), or ``None`` when a string is over the limit
        (remembered in ``long_shared``)."""
        spans: list[np.ndarray] = []
        pending = b""
        token: bytes | None = None
        before = 0
        cap = cell_cap(self.limit)
        for number, block in enumerate(blocks):
            self.xml_bytes += len(block)
            if local == b"c":
                self.references += block.count(b't="s"')
            if number == 0:
                _no_dtd(self.source, info, block[:1 << 16])
            data = pending + block if pending else block
            if token is None:
                found = re.search(rb"<(\w+:)?(?:worksheet|sst)\b", data)
                if found is None:
                    if len(data) > cap:
                        raise InputError(self.source, f"not a readable .xlsx workbook (part {info.filename})")
                    pending = data
                    continue
                token = (found.group(1) or b"") + local
                if local == b"c":
                    self.grid = Grid((found.group(1) or b"") + b"row", token)
            raw = np.frombuffer(data, dtype=np.uint8)
            starts = _starts(raw, token)
            pending = data
            if len(starts) and starts[-1] > 0:  # the last element may go on in the next block
                cut = int(starts[-1])
                if len(starts) > 1:
                    whole = np.diff(starts)
                    if not self._measure(data, starts, whole, before, local):
                        return None
                    spans.append(whole)
                    before += len(whole)
                self._count(raw, starts[:-1], cut)
                pending = data[cut:]
            if len(pending) > min(cap, BLOCK):   # past the element it begins with (if whole), none: drop it
                pending, element = self._past_gap(pending, token)
                if element is not None:
                    span = np.array([len(element)], dtype=np.int64)
                    if not self._measure(element, np.zeros(1, dtype=np.int64), span, before, local):
                        return None
                    spans.append(span)
                    before += 1
            if len(pending) > cap and not self._over(pending, before, local):
                return None
        if pending and token is not None:
            raw = np.frombuffer(pending, dtype=np.uint8)
            starts = _starts(raw, token)
            self._count(raw, starts, len(raw))
            if len(starts):
                last = np.diff(np.append(starts, len(pending)))
                if not self._measure(pending, starts, last, before, local):
                    return None
                spans.append(last)
        return np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)

    def _past_gap(self, pending: bytes, token: bytes) -> tuple[bytes, bytes | None]:
        """``pending`` (in which no element starts but maybe at 0) without what lies between
        the end of its first element and its last tag, which may go on in the next block
        (empty rows, styles): that part's rows are counted here, and the element, whole,
        is given back to be measured. Unchanged when its element has not ended."""
        raw = np.frombuffer(pending, dtype=np.uint8)
        opens = len(_starts(raw[: len(token) + 2], token)) > 0
        end = _element_end(pending, token) if opens else 0
        if end is None:
            return pending, None
        cut = pending.rfind(b"<", end)
        if cut <= end:
            return pending, None
        self._count(raw, np.zeros(int(opens), dtype=np.int64), cut)
        return pending[cut:], (pending[:end] if opens else None)

    def _count(self, raw: np.ndarray, cells: np.ndarray, upto: int) -> None:
        """Feed the sheet's grid the cells at ``cells`` and the rows starting before ``upto``."""
        if self.grid is None:
            return
        rows = _starts(raw[: upto + len(self.grid.row_token) + 2], self.grid.row_token)
        self.grid.add(raw, cells, rows[rows < upto])

    def check_grid(self) -> None:
        """Refuse a sheet whose cells lie so far apart that the reader's grid of them would
        hold more than :data:`~.sheet_grid.CELLS` cells (see :mod:`.sheet_grid`)."""
        grid = self.grid
        if grid is not None and grid.too_large():
            rows, columns = grid.rows, grid.columns
            raise InputError(self.source, f"refused: sheet {self.sheet_name!r} spreads its {grid.cells:,} cells "
                             f"over up to {rows:,} rows and {columns:,} columns, a grid of {grid.size():,} cells "
                             f"for the reader, more than {max(CELLS, SPARSE * grid.cells):,} (cells far apart?)")

    def _measure(self, data: bytes, starts: np.ndarray, spans: np.ndarray, before: int, local: bytes) -> bool:
        """Whether every element (of ``spans`` bytes from ``starts``) is within the limit."""
        for i in np.flatnonzero(spans > self.limit).tolist():
            element = data[int(starts[i]) : int(starts[i]) + int(spans[i])]
            if _text_bytes(element) > self.limit and exact_chars(element) > self.limit:
                return self._over(element, before + i, local, measured=True)
        return True

    def _over(self, element: bytes, index: int, local: bytes, measured: bool = False) -> bool:
        """An element over the limit (or past the cap): remember a shared string (its
        user is named later), refuse a cell."""
        if local == b"si":
            self.long_shared = index
            return False
        raise self._error(element[:512])

    def _error(self, tag: bytes, shared: int | None = None) -> InputError:
        where = _where(tag)
        what = f" (shared string {shared})" if shared is not None else ""
        return InputError(self.source, f"sheet {self.sheet_name!r}: a cell holds more than {self.limit:,} "
                          f"characters{what}; Excel's own limit is {EXCEL_CELL_CHARS:,} (--max-cell-chars)", **where)

    def find_user(self, sheet: Iterable[bytes]) -> None:
        """Refuse the shared string over the limit, naming the first cell of ``sheet`` (its
        bytes) that uses it."""
        index = self.long_shared
        needle = re.compile(rb"<(?:\w+:)?c\b([^>]*)>\s*<(?:\w+:)?v>\s*" + str(index).encode() + rb"\s*<")
        pending = b""
        for block in sheet:
            data = pending + block
            for found in needle.finditer(data):
                if b't="s"' in found.group(1):
                    raise self._error(found.group(1), index)
            pending = data[-256:]
        raise self._error(b"", index)

    def bound_expansion(self, sheet: bytes, spans: np.ndarray) -> None:
        """Refuse a sheet whose shared-string references make more text than
        :data:`EXPANSION` times the XML read (and more than :data:`BUDGET` bytes)."""
        indices = np.array([int(m.group(1)) for m in _SHARED_CELL.finditer(sheet)], dtype=np.int64)
        total = int(spans[indices[indices < len(spans)]].sum())
        if total > max(BUDGET, EXPANSION * self.xml_bytes):
            raise InputError(self.source, f"refused: sheet {self.sheet_name!r} repeats its shared strings into "
                             f"{total:,} bytes of text, more than {EXPANSION} times its XML (a sharedStrings bomb?)")


def _element_end(data: bytes, token: bytes) -> int | None:
    """Where the element ``token`` that ``data`` begins with ends (``None``: not in
    ``data``, or it holds a CDATA section, whose text may look like its end)."""
    start = _START_TAG.match(data)
    if start is None:
        return None
    if start.group(1):
        return start.end()
    close = re.compile(rb"</" + re.escape(token) + rb"\s*>").search(data, start.end())
    if close is None or data.find(b"<![CDATA[", start.end(), close.start()) >= 0:
        return None
    return close.end()


def _where(tag: bytes) -> dict[str, Any]:
    """The row and column a cell's tag names (``r="B7"``), for :class:`InputError`."""
    found = _REF.search(tag)
    if found is None:
        return {}
    return {"row": int(found.group(2)), "column": found.group(1).decode()}
