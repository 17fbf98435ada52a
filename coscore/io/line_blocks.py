"""A text file read as runs of whole lines, as bytes, for the columnar readers of the
line formats (JSON Lines, the original CoScore layout): no ``str`` per line."""
from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from ._text import LineTooLong, decode_error

#: Bytes read from the stream at a time.
READ_SIZE = 1 << 20
_BOM = b"\xef\xbb\xbf"


class Readable(Protocol):
    """What :class:`LineBlocks` reads from: a binary stream's ``read`` (``None`` or ``b""`` at the end)."""

    def read(self, size: int = ..., /) -> bytes | None: ...


class LineBlock:
    """``count`` consecutive lines of a file as bytes: ``data`` (each line keeps its
    ``\\n``; the file's last line may lack it), starting at line ``first`` (1-based)."""

    def __init__(self, data: bytes, count: int, first: int, source: str, bom: bool = False) -> None:
        self.data = data
        self._bom = bom  # the file's byte order mark was dropped from ``data``
        self.count = count
        self.first = first
        self.source = source

    def starts(self) -> np.ndarray:
        """The byte offset where each line starts, and the end of the block: ``count + 1`` offsets."""
        ends = np.flatnonzero(np.frombuffer(self.data, dtype=np.uint8) == 10) + 1
        out = np.empty(self.count + 1, dtype=np.int64)
        out[0] = 0
        out[1 : 1 + len(ends)] = ends[: self.count]
        out[self.count] = len(self.data)
        return out

    def text(self) -> str:
        """The block decoded; invalid UTF-8 raises :class:`InputError` naming the line and character."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if self._bom:  # located as in the file, where the mark counts as a character
                located = _decode_exception(_BOM + self.data)
                raise decode_error(self.source, self.first - 1, _BOM + self.data, located) from None
            raise decode_error(self.source, self.first - 1, self.data, exc) from None

    def lines(self) -> Iterator[tuple[int, str]]:
        """Each line's number and text (ending with its ``\\n``), decoded."""
        yield from enumerate(io.StringIO(self.text(), newline="\n"), self.first)


class LineBlocks:
    """Take the lines of a binary stream ``count`` at a time. A UTF-8 byte order mark at
    the start is dropped; lines end at ``\\n`` only. ``position`` is the bytes taken so far.
    A line longer than ``max_line_bytes`` raises :class:`~._text.LineTooLong` as soon as
    it is seen to be (before the rest of it is read)."""

    def __init__(
        self, stream: Readable, source: str, max_line_bytes: int | None = None
    ) -> None:
        self._stream = stream
        self.source = source
        self._pending: list[bytes] = []
        self._newlines = 0  # in the pending bytes
        self._tail = 0  # bytes pending after the last line end
        self._ended = False
        self.lines_taken = 0
        self.position = 0
        self.max_line_bytes = max_line_bytes

    def take(self, count: int) -> LineBlock | None:
        """The next ``count`` lines (fewer at the end of the file), or ``None`` when none is left."""
        while self._newlines < count and not self._ended:
            data = self._stream.read(READ_SIZE)
            if not data:
                self._ended = True
                break
            self._pending.append(data)
            found = data.count(b"\n")
            self._newlines += found
            self._tail = len(data) - data.rfind(b"\n") - 1 if found else self._tail + len(data)
            if self.max_line_bytes is not None and self._tail > self.max_line_bytes:
                whole = b"".join(self._pending)
                start = whole.rfind(b"\n") + 1
                raise LineTooLong(self.lines_taken + self._newlines + 1, whole[start : start + self.max_line_bytes])
        buffer = b"".join(self._pending)
        if self._newlines >= count:
            cut = int(np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8) == 10)[count - 1]) + 1
            block, rest = buffer[:cut], buffer[cut:]
            taken = count
        else:
            block, rest = buffer, b""
            taken = self._newlines + (1 if block and not block.endswith(b"\n") else 0)
        self._pending = [rest] if rest else []
        self._newlines -= block.count(b"\n")
        if not block:
            return None
        first = self.lines_taken + 1
        if self.max_line_bytes is not None and len(block) > self.max_line_bytes:
            starts = LineBlock(block, taken, first, self.source).starts()
            long = np.flatnonzero(np.diff(starts) > self.max_line_bytes)
            if len(long):
                at = int(starts[long[0]])
                raise LineTooLong(first + int(long[0]), block[at : at + self.max_line_bytes])
        self.lines_taken += taken
        self.position += len(block)
        bom = first == 1 and block.startswith(_BOM)
        return LineBlock(block[len(_BOM) :] if bom else block, taken, first, self.source, bom)


def _decode_exception(data: bytes) -> UnicodeDecodeError:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc
    raise AssertionError("the data decodes")
