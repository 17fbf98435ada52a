"""Text files in encodings other than UTF-8, read as UTF-8 bytes a block at a time.

``encoding`` is any codec Python knows (``gb18030`` also reads GBK and GB2312 files),
or ``auto``: a byte order mark names UTF-8, UTF-16 or UTF-32, and otherwise
charset-normalizer guesses from the file's first 256 KiB. A file read as UTF-8 is read as
it is (the fast path); any other is decoded and encoded to UTF-8 in 1 MiB blocks by
:class:`Transcoded`, so memory stays flat and the readers see UTF-8 as always. A byte that
does not decode raises :class:`InputError` naming the line and the character.

A file whose lines end with a carriage return alone (CR, as old Mac files do) is read as
Python's universal newlines read it: each CR is a line end (:class:`CrLines`); such a file
that also holds an LF is refused, naming the line.
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


#: Codecs Python calls text encodings that read no file's text: what each one is instead.
_NOT_FOR_FILES = {
    "idna": "it encodes domain names",
    "punycode": "it encodes domain names",
    "undefined": "it decodes nothing",
    "unicode-escape": "it reads backslash escapes of Python source",
    "raw-unicode-escape": "it reads backslash escapes of Python source",
}
#: What to give instead of a codec that is unknown or not a text encoding.
_GIVE = "give the file's text encoding: utf-8, gb18030 (also reads GBK and GB2312), utf-16, big5, ... or auto"


def codec_name(encoding: str, source: str | None = None) -> str:
    """The canonical name of codec ``encoding`` (``GBK`` -> ``gbk``). :class:`InputError`
    (naming ``source``, the file, when given) if it is unknown or not an encoding of text
    (``base64``, ``rot13``, ``zlib``: bytes to bytes or str to str; ``idna``: domain names)."""
    where = source if source is not None else encoding
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(where, f"unknown encoding {encoding!r} (--encoding); give a codec Python knows (utf-8, "
                         "gb18030, utf-16, big5, shift_jis, cp1252, ...) or auto") from None
    except (TypeError, ValueError):   # a name holding a NUL
        raise InputError(where, f"unknown encoding {encoding!r} (--encoding); {_GIVE}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise InputError(where, f"--encoding {encoding!r} is not a text encoding (the {info.name} codec does not "
                         f"turn a file's bytes into text); {_GIVE}")
    if info.name in _NOT_FOR_FILES:
        raise InputError(where, f"--encoding {encoding!r} is not an encoding of files ({_NOT_FOR_FILES[info.name]}); "
                         f"{_GIVE}")
    return info.name


def choose(head: bytes, encoding: str | None, source: str, announce: Announce | None) -> tuple[str, int]:
    """The codec a file starting with ``head`` is read with, and the bytes of its byte
    order mark to skip (0 when the codec skips it itself)."""
    if encoding is None:
        return "utf-8", 0
    if encoding.lower() != "auto":
        name = codec_name(encoding, source)
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

    #: its bytes are not the file's (nor as many)
    transcoded = True

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
        return self._read(size, whole=True)

    def read1(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes of UTF-8, from at most one read of the stream (a pipe is not
        waited on for more than it holds)."""
        return self._read(size, whole=False)

    def _read(self, size: int, whole: bool) -> bytes:
        while (size < 0 or len(self._out) < size) and not self._ended and (whole or not self._out):
            data = self._head or _read1(self._stream, BLOCK)
            self._head = b""
            try:
                text = self._decoder.decode(data, final=not data)
            except UnicodeDecodeError as exc:
                raise self._error(exc) from None
            except (UnicodeError, ValueError) as exc:   # a codec that fails otherwise
                raise InputError(self._source, f"cannot be read as {self._codec} ({' '.join(str(exc).split())}); "
                                 f"{_GIVE}", line=self._lines + 1) from None
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
        ends = _line_ends(text)
        if ends:
            self._lines += ends
            self._column = len(text) - max(text.rfind("\n"), text.rfind("\r")) - 1
        else:
            self._column += len(text)

    def _error(self, exc: UnicodeDecodeError) -> InputError:
        try:
            before = bytes(exc.object[: exc.start]).decode(self._codec, "replace")
        except (UnicodeError, ValueError):   # a codec without the 'replace' handler
            before = ""
        ends = _line_ends(before)
        column = (len(before) - max(before.rfind("\n"), before.rfind("\r")) - 1 if ends
                  else self._column + len(before)) + 1
        bad = bytes(exc.object[exc.start : exc.end][:8]).hex(" ")
        how = f" ({self._how})" if self._how else ""
        return InputError(self._source, f"not {self._codec}{how} at character {column} (bytes {bad}); give the "
                          "file's encoding with --encoding NAME (e.g. gb18030, utf-16)", line=self._lines + ends + 1)

    def unread(self, head: bytes) -> None:
        """Put ``head``, just read, back in front."""
        self._out[:0] = head

    def close(self) -> None:
        """Close the stream underneath."""
        self._stream.close()


def _line_ends(text: str) -> int:
    """The line ends of ``text``: LF, CR and CRLF (one each)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def decoded(stream: BinaryIO, encoding: str | None, source: str, announce: Announce | None = None) -> Any:
    """``stream`` as UTF-8: itself (its head read and put back) when the codec is UTF-8
    (its byte order mark, if any, is left to the readers), else :class:`Transcoded`; either
    as :class:`CrLines` when its first line ends with a CR alone."""
    if encoding is None:
        return by_line_ends(_Prefixed(stream, b""), source)
    head = stream.read(SAMPLE if encoding.lower() == "auto" else 4)
    codec, skip = choose(head, encoding, source, announce)
    if codec == "utf-8":
        return by_line_ends(_Prefixed(stream, head), source)
    how = "guessed" if encoding.lower() == "auto" else ""
    return by_line_ends(Transcoded(stream, codec, source, head[skip:], how), source)


#: Bytes of UTF-8 looked at for the first line end.
LINE_END_SAMPLE = 64 << 10


def by_line_ends(stream: Any, source: str) -> Any:
    """``stream`` (a :class:`_Prefixed` or :class:`Transcoded`), or :class:`CrLines` over it
    when its first :data:`LINE_END_SAMPLE` bytes hold a CR and no LF: its lines end with a
    CR alone. (A file holding both is read as ever: a CR inside a line is refused by the
    CSV reader, and kept in a quoted value.)"""
    head = b""
    while len(head) < LINE_END_SAMPLE and not _first_line_end(head):
        data = _read1(stream, LINE_END_SAMPLE - len(head))   # what is there: a pipe is not waited on for more
        if not data:
            break
        head += data
    stream.unread(head)
    if b"\r" in head and b"\n" not in head:
        return CrLines(stream, source)
    return stream


def _read1(stream: Any, size: int) -> bytes:
    """At most ``size`` bytes of ``stream`` from one read (``read1`` where it has one)."""
    read1 = getattr(stream, "read1", None)
    return read1(size) if read1 is not None else stream.read(size)


def _first_line_end(head: bytes) -> bool:
    """Whether ``head`` shows how its first line ends: an LF, or a CR followed by a byte."""
    cr = head.find(b"\r")
    return b"\n" in head or 0 <= cr < len(head) - 1


def transcoded(stream: Any) -> bool:
    """Whether ``stream`` (what :func:`decoded` gave) holds other bytes than its file, and
    not as many (the file's size says nothing of it)."""
    return bool(getattr(stream, "transcoded", False))


def rewritten(stream: Any) -> bool:
    """Whether ``stream`` (what :func:`decoded` gave) holds other bytes than its file: the
    file cannot be read in its place."""
    return transcoded(stream) or isinstance(stream, CrLines)


class CrLines:
    """``stream``, whose lines end with a carriage return alone (old Mac files), with each
    CR read as LF, as Python's universal newlines read it (a CR inside a quoted value too:
    it is a line break). Such a file holding an LF mixes its line ends: no reading of it is
    safe, and it is an :class:`InputError` naming the line. As many bytes as the file's."""

    def __init__(self, stream: Any, source: str) -> None:
        self._stream = stream
        self._source = source
        self._lines = 0   # CRs read so far
        self._after_cr = False   # the last byte read was a CR
        self.transcoded = transcoded(stream)

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        lf = data.find(b"\n")
        if lf >= 0:
            ends = data.count(b"\r", 0, lf)
            cr_before = data[lf - 1] == 13 if lf else self._after_cr
            raise InputError(self._source, "the file ends its lines with a carriage return alone (CR, as old Mac "
                             "files do), but this line ends with LF: its line ends are mixed; save it again with "
                             "one kind of line end (LF, or CRLF as Excel writes it)",
                             line=self._lines + ends + (0 if cr_before else 1))
        if data:
            self._lines += data.count(b"\r")
            self._after_cr = data[-1] == 13
        return data.replace(b"\r", b"\n")

    def close(self) -> None:
        self._stream.close()


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

    def read1(self, size: int = -1) -> bytes:
        """What the head holds, else one read of the stream (not waiting on a pipe for more)."""
        if self._head:
            return self.read(size)
        return _read1(self._stream, size)

    def unread(self, head: bytes) -> None:
        """Put ``head``, just read, back in front."""
        self._head = head + self._head

    def close(self) -> None:
        self._stream.close()
