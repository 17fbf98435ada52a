"""Opening inputs (in any encoding, read as UTF-8: :mod:`.encodings`) and decoding UTF-8
line by line, so that errors can name a line."""
from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from ..errors import CoscoreError
from .encodings import Announce, decoded, transcoded
from .errors import InputError


def display_name(path: str | os.PathLike[str]) -> str:
    """How a path is named in messages (``-`` is standard input)."""
    text = os.fspath(path)
    return "<stdin>" if text == "-" else text


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` (or standard input for ``-``) for binary reading, with clear errors."""
    text = os.fspath(path)
    if text == "-":
        return sys.stdin.buffer
    return open_file(text)


def open_file(path: str | os.PathLike[str]) -> BinaryIO:
    """Open the file ``path`` for binary reading, with clear errors (``-`` is a file name here)."""
    text = os.fspath(path)
    try:
        return open(text, "rb")
    except FileNotFoundError:
        raise InputError(text, "no such file") from None
    except IsADirectoryError:
        raise InputError(text, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(text, "permission denied") from None
    except OSError as exc:
        raise InputError(text, exc.strerror or str(exc)) from None


def size_of(path: str | os.PathLike[str]) -> int | None:
    """The size in bytes of a regular file, or ``None`` (stdin, pipes)."""
    text = os.fspath(path)
    if text == "-":
        return None
    try:
        st = os.stat(text)
    except OSError:
        return None
    return st.st_size if st.st_size > 0 else None


class DecodedLines:
    """Iterate the lines of a binary stream as ``str``, validating UTF-8.

    Lines end at ``\n`` only (with ``newline=""``: at ``\n``, ``\r\n`` and a ``\r`` alone, as
    Python's universal newlines, and as Arrow's CSV parser, end them) and keep their end (as
    the ``csv`` module wants). The stream is
    read and decoded in blocks of whole lines, which is much faster than line by line.
    A UTF-8 byte order mark at the start is dropped. ``lineno`` is the number of the
    last line yielded and ``position`` the bytes read so far. Invalid UTF-8 raises
    :class:`InputError` naming the line and the character; a line longer than
    ``max_line_bytes`` raises :class:`LineTooLong` as soon as it is seen to be.
    """

    BLOCK = 1 << 20

    def __init__(self, stream: BinaryIO, source: str, max_line_bytes: int | None = None, newline: str = "\n") -> None:
        self._stream = stream
        self._newline = newline
        self.source = source
        self.lineno = 0
        self.position = 0
        self.max_line_bytes = max_line_bytes
        #: whether a byte order mark was dropped from the start
        self.bom = False

    def _blocks(self) -> Iterator[bytes]:
        """Runs of whole lines (the last one may lack its ``\n``)."""
        pending = bytearray()
        while True:
            data = self._stream.read(self.BLOCK)
            if not data:
                if pending:
                    yield bytes(pending)
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                pending += data
                if self.max_line_bytes is not None and len(pending) > self.max_line_bytes:
                    raise LineTooLong(self.lineno + 1, bytes(pending[: self.max_line_bytes]))
                continue
            block = bytes(pending) + data[:cut] if pending else data[:cut]
            pending = bytearray(data[cut:])
            yield block

    def __iter__(self) -> Iterator[str]:
        first = True
        for block in self._blocks():
            if self.max_line_bytes is not None and len(block) > self.max_line_bytes:
                self._check_lengths(block)
            self.position += len(block)
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise decode_error(self.source, self.lineno, block, exc) from None
            if first:
                first = False
                if text.startswith("\ufeff"):
                    text = text[1:]
                    self.bom = True
            for line in io.StringIO(text, newline=self._newline):
                self.lineno += 1
                yield line


    def _check_lengths(self, block: bytes) -> None:
        """Raise :class:`LineTooLong` for the first line of ``block`` over the cap."""
        start = 0
        number = self.lineno
        while start < len(block):
            end = block.find(b"\n", start)
            end = len(block) if end < 0 else end + 1
            number += 1
            if end - start > (self.max_line_bytes or 0):
                raise LineTooLong(number, block[start : start + (self.max_line_bytes or 0)])
            start = end


class LineTooLong(CoscoreError):
    """A line longer than a reader's cap: its number and its first bytes."""

    def __init__(self, lineno: int, head: bytes) -> None:
        super().__init__(lineno)
        self.lineno = lineno
        self.head = head


def decode_error(source: str, lines_before: int, block: bytes, exc: UnicodeDecodeError) -> InputError:
    """An :class:`InputError` for invalid UTF-8 in ``block``, which starts after
    ``lines_before`` lines of the file."""
    line_start = block.rfind(b"\n", 0, exc.start) + 1
    lineno = lines_before + block.count(b"\n", 0, exc.start) + 1
    column = len(block[line_start : exc.start].decode("utf-8", "replace")) + 1
    bad = block[exc.start : exc.end].hex(" ")
    return InputError(
        source, f"invalid UTF-8 at character {column} (byte {bad}); if the file is not UTF-8, give its "
        "encoding with --encoding NAME (e.g. gb18030) or --encoding auto", line=lineno
    )


class TextFileReader:
    """What the line-based readers share: the source's name and size, the decoded
    lines of the file (or standard input), the chunk size, and closing."""

    unit = "line"
    #: where lines end (:class:`DecodedLines`' ``newline``)
    newline = "\n"

    def __init__(
        self, path: str | os.PathLike[str], chunk_size: int, source: str | None = None, *,
        encoding: str | None = None, announce: Announce | None = None, max_line_bytes: int | None = None,
    ) -> None:
        self.source = source or display_name(path)
        self.total_bytes = size_of(path)
        self._chunk_size = chunk_size
        self._encoding = encoding
        raw = open_binary(path)
        self._stream: Any = decoded(raw, encoding, self.source, announce)
        if transcoded(self._stream):
            self.total_bytes = None  # positions count UTF-8 bytes, not the file's
        self._lines = DecodedLines(self._stream, self.source, max_line_bytes, self.newline)

    def close(self) -> None:
        """Close the file (not standard input)."""
        if self.source != "<stdin>":
            self._stream.close()
