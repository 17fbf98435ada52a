"""Text files in encodings other than UTF-8, read as UTF-8 bytes a block at a time.

``encoding`` is any codec Python knows (``gb18030`` also reads GBK and GB2312 files),
or ``auto``: a byte order mark names UTF-8, UTF-16 or UTF-32, and otherwise
charset-normalizer guesses from the file's first 256 KiB. A file read as UTF-8 is read as
it is (the fast path); any other is decoded and encoded to UTF-8 in 1 MiB blocks by
:class:`Transcoded`, so memory stays flat and the readers see UTF-8 as always. A byte that
does not decode raises :class:`InputError` naming the line and the character.
"""
from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from .errors import InputError

#: Bytes decoded at a time.
BLOCK = 1 << 20
#: Bytes charset-normalizer looks at.
SAMPLE = 256 << 10
#: Byte order marks, longest first (a UTF-32 LE mark starts like a UTF-16 LE one).
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: What a guess of an older Chinese encoding is read as (GB18030 holds all of them).
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "ascii": "utf-8"}

#: Called with (file, what was chosen and why), e.g. ``("a.csv", "gb18030 (guessed by charset-normalizer)")``.
Announce = Callable[[str, str], None]


def codec_name(encoding: str) -> str:
    """The canonical name of codec ``encoding`` (``GBK`` -> ``gbk``); :class:`InputError` if unknown."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(encoding, "unknown encoding; give a codec Python knows (utf-8, gb18030, utf-16, big5, "
                         "shift_jis, cp1252, ...) or auto") from None
    if not getattr(info, "_is_text_encoding", True):
        raise InputError(encoding, "not a text encoding")
    return info.name


def choose(head: bytes, encoding: str | None, source: str, announce: Announce | None) -> tuple[str, int]:
    """The codec a file starting with ``head`` is read with, and the bytes of its byte
    order mark to skip (0 when the codec skips it itself)."""
    if encoding is None:
        return "utf-8", 0
    if encoding.lower() != "auto":
        name = codec_name(encoding)
        if name in ("utf-16", "utf-32"):  # the mark says the byte order; none: this machine's, as Python does
            for mark, named in BOMS:
                if named.startswith(name) and head.startswith(mark):
                    return named, len(mark)
            return f"{name}-{'le' if sys.byteorder == 'little' else 'be'}", 0
        return name, 0
    for mark, named in BOMS:
        if head.startswith(mark):
            if announce is not None:
                announce(source, f"{named.replace('-le', '').replace('-be', '')} (byte order mark)")
            return named, len(mark)
    guess = _guess(head)
    if guess is None:
        raise InputError(source, "cannot tell the file's encoding; give it with --encoding NAME (e.g. gb18030)")
    if announce is not None:
        announce(source, f"{guess} (guessed by charset-normalizer)")
    return guess, 0


def _guess(head: bytes) -> str | None:
    if not head:
        return "utf-8"
    try:
        head.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3 and len(head) >= SAMPLE:  # a character cut by the sample's end
            return "utf-8"
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - a dependency
        raise InputError("auto", "--encoding auto needs charset-normalizer: pip install charset-normalizer") from None
    cut = head.rfind(b"\n")
    best = from_bytes(head[: cut + 1] if cut > 0 else head).best()
    if best is None:
        return None
    name = codecs.lookup(best.encoding).name
    return _WIDER.get(name, name)


class Transcoded:
    """A binary stream of UTF-8: ``stream`` (after ``head``, already read from it)
    decoded with ``codec``, ``BLOCK`` bytes at a time."""

    def __init__(self, stream: BinaryIO, codec: str, source: str, head: bytes = b"", how: str = "") -> None:
        self._stream = stream
        self._codec = codec
        self._decoder = codecs.getincrementaldecoder(codec)("strict")
        self._head = head
        self._out = bytearray()
        self._ended = False
        self._source = source
        self._how = how
        self._lines = 0  # line ends decoded so far
        self._column = 0  # characters decoded after the last line end

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes of UTF-8 (all that is left with ``-1``)."""
        while (size < 0 or len(self._out) < size) and not self._ended:
            data = self._head or self._stream.read(BLOCK)
            self._head = b""
            try:
                text = self._decoder.decode(data, final=not data)
            except UnicodeDecodeError as exc:
                raise self._error(exc) from None
            self._ended = not data
            self._track(text)
            try:
                self._out += text.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(self._source, f"decoding as {self._codec} gives a lone surrogate, which is not a "
                                 "character", line=self._lines + 1) from None
        if size < 0 or size >= len(self._out):
            out, self._out = bytes(self._out), bytearray()
            return out
        out = bytes(self._out[:size])
        del self._out[:size]
        return out

    def _track(self, text: str) -> None:
        ends = text.count("\n")
        if ends:
            self._lines += ends
            self._column = len(text) - text.rfind("\n") - 1
        else:
            self._column += len(text)

    def _error(self, exc: UnicodeDecodeError) -> InputError:
        before = bytes(exc.object[: exc.start]).decode(self._codec, "replace")
        ends = before.count("\n")
        column = (len(before) - before.rfind("\n") - 1 if ends else self._column + len(before)) + 1
        bad = bytes(exc.object[exc.start : exc.end][:8]).hex(" ")
        how = f" ({self._how})" if self._how else ""
        return InputError(self._source, f"not {self._codec}{how} at character {column} (bytes {bad}); give the "
                          "file's encoding with --encoding NAME (e.g. gb18030, utf-16)", line=self._lines + ends + 1)

    def close(self) -> None:
        """Close the stream underneath."""
        self._stream.close()


def decoded(stream: BinaryIO, encoding: str | None, source: str, announce: Announce | None = None) -> Any:
    """``stream`` as UTF-8: itself when the codec is UTF-8 (its byte order mark, if any,
    is left to the readers), else :class:`Transcoded`."""
    if encoding is None:
        return stream
    head = stream.read(SAMPLE if encoding.lower() == "auto" else 4)
    codec, skip = choose(head, encoding, source, announce)
    if codec == "utf-8":
        return _Prefixed(stream, head)
    how = "guessed" if encoding.lower() == "auto" else ""
    return Transcoded(stream, codec, source, head[skip:], how)


class _Prefixed:
    """``stream`` with ``head`` (already read from it) put back in front."""

    def __init__(self, stream: BinaryIO, head: bytes) -> None:
        self._stream = stream
        self._head = head

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                out, self._head = self._head + self._stream.read(), b""
                return out
            out, self._head = self._head[:size], self._head[size:]
            return out
        return self._stream.read(size)

    def close(self) -> None:
        self._stream.close()
