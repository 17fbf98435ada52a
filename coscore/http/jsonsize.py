"""The size of text in a JSON answer, counted before the answer is built.

A JSON string escapes ``"`` and ``\\`` in two bytes, ``\\n``, ``\\t``, ``\\r``, ``\\b``, ``\\f``
in two, and every other control character in six (``\\u0001``): a text of control
characters is six times its size in an answer. :func:`json_size` counts those bytes (as
coscore's answers write them: UTF-8, non-ASCII characters as they are), so an answer can
be held to a budget by what it *will* take; :func:`json_pieces` writes the string a slice
at a time, so a long text is never escaped whole in memory; :func:`fit_text` cuts a text
to a budget of bytes.
"""
from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring

__all__ = ["SLICE", "fit_text", "json_pieces", "json_size"]

#: Characters escaped at once (at most six times as many bytes are held at once).
SLICE = 2**20


def json_escaped(text: str) -> bytes:
    """``text`` as the body of a JSON string (no quotes), UTF-8: ``\\n``, ``\\"`` … in two
    bytes, other control characters and lone surrogates as ``\\uXXXX``."""
    return encode_basestring(text)[1:-1].encode("utf-8", "backslashreplace")


def json_pieces(text: str, slice_chars: int | None = None) -> Iterator[bytes]:
    """``text``'s JSON string body (no quotes) as UTF-8 pieces of at most ``slice_chars``
    (default :data:`SLICE`) characters escaped: ``\\n``, ``\\"`` … in two bytes, other
    control characters and lone surrogates as ``\\uXXXX``."""
    step = slice_chars or SLICE
    for start in range(0, len(text), step):
        yield json_escaped(text[start:start + step])


def json_size(value: object) -> int:
    """The bytes ``value`` takes as a JSON string, quotes included (a value that is not a
    string counts 0)."""
    if not isinstance(value, str):
        return 0
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return len(value) + 2
    return 2 + sum(len(piece) for piece in json_pieces(value))


def fit_text(text: str, budget: int) -> str:
    """The longest start of ``text`` whose :func:`json_size` is at most ``budget`` bytes
    (all of it when it fits; ``""`` when not even that does)."""
    if json_size(text) <= budget:
        return text
    lo, hi = 0, min(len(text), max(0, budget))  # a character takes one byte at least
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if json_size(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]
