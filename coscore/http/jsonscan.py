"""A JSON body's size in values and depth, counted as its bytes arrive, stopped at a budget.

Python's :func:`json.loads` builds the whole document before anything can look at it:
60 MB of ``{}`` becomes 20 million dictionaries (1.6 GB). :class:`JsonScan` counts, over
the raw bytes and chunk by chunk, what parsing them would build: the number of values
(at most one more than the commas and opening brackets outside strings) and the deepest
nesting (opening minus closing brackets), and stops at the first byte over
:class:`JsonBudget`. Strings are followed exactly as JSON reads them (a ``"`` ends one
unless an odd run of backslashes comes before it), so brackets and commas inside them are
not counted; up to the first byte that is not JSON, the count is that of the values
:func:`json.loads` would build, and past it, :func:`json.loads` fails there anyway.

Counting is vectorised (numpy, about 2 ms a megabyte) and needs a few bytes of memory a
byte of the chunk; :func:`coscore.http.bodies.read_body` feeds it every body as it
arrives, so a bomb is refused after its first few megabytes, before the rest is read.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .responses import ApiError

__all__ = ["JsonBudget", "JsonScan", "check_json", "DEFAULT_JSON_VALUES", "DEFAULT_JSON_DEPTH", "SCAN_CHUNK"]

#: The most values (objects, arrays, strings, numbers, ``true``/``false``/``null``) a body may hold.
DEFAULT_JSON_VALUES = 1_000_000
#: The deepest nesting of objects and arrays a body may have.
DEFAULT_JSON_DEPTH = 64
#: Bytes counted at a time (more are split; fewer are kept until this many have arrived).
SCAN_CHUNK = 256 * 1024

_QUOTE, _BACKSLASH = 0x22, 0x5C
#: Each byte's part in the depth: +1 opens (``[{``), -1 closes (``]}``), 2 a comma (odd: a bracket).
_KIND = np.zeros(256, dtype=np.int8)
_KIND[[ord("["), ord("{")]] = 1
_KIND[[ord("]"), ord("}")]] = -1
_KIND[ord(",")] = 2


@dataclass(frozen=True)
class JsonBudget:
    """What one JSON body may hold: ``max_values`` values, nested ``max_depth`` deep (its
    bytes are bounded by the body's own cap, ``--max-body``)."""

    max_values: int = DEFAULT_JSON_VALUES
    max_depth: int = DEFAULT_JSON_DEPTH

    def __post_init__(self) -> None:
        if self.max_values < 1 or self.max_depth < 1:
            raise ValueError("a JSON budget needs max_values >= 1 and max_depth >= 1")


class JsonScan:
    """Counts the values and the depth of a JSON text fed to it in pieces (:meth:`feed`);
    raises :class:`~coscore.http.responses.ApiError` 413 ``"json_values"`` or 422
    ``"json_depth"`` as soon as the bytes fed are over ``budget``."""

    def __init__(self, budget: JsonBudget):
        self.budget = budget
        self.values = 1  # the document itself
        self.depth = 0
        self.deepest = 0
        self._in_string = False
        self._carry = b""  # a backslash ending the bytes counted so far
        self._pending: list[bytes] = []
        self._pending_size = 0

    def feed(self, data: bytes) -> None:
        """Count ``data``, the next bytes of the text (kept until :data:`SCAN_CHUNK` have arrived)."""
        if not data:
            return
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= SCAN_CHUNK:
            self._flush()

    def finish(self) -> None:
        """Count what is still kept: the text has all arrived."""
        self._flush()

    def _flush(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        for start in range(0, len(data), SCAN_CHUNK):
            self._count(data[start:start + SCAN_CHUNK])

    def _count(self, chunk: bytes) -> None:
        if self._carry:  # a backslash left over, which escapes what follows it
            chunk, self._carry = self._carry + chunk, b""
        if b"\\" in chunk:
            # an escaped backslash escapes nothing, and an escaped quote neither opens nor
            # closes a string: drop both; a backslash ending the chunk waits for the next
            chunk = chunk.replace(b"\\\\", b"").replace(b'\\"', b"")
            if chunk.endswith(b"\\"):
                chunk, self._carry = chunk[:-1], b"\\"
        if b'"' in chunk:
            pieces = chunk.split(b'"')
            outside = b"".join(pieces[1 if self._in_string else 0::2])
            if len(pieces) % 2 == 0:
                self._in_string = not self._in_string
        elif self._in_string:
            return
        else:
            outside = chunk
        opened = outside.count(b"[") + outside.count(b"{")
        self.values += outside.count(b",") + opened
        if opened or outside.count(b"]") or outside.count(b"}"):
            kinds = _KIND[np.frombuffer(outside, dtype=np.uint8)]
            levels = np.cumsum(kinds[np.flatnonzero(kinds & 1)], dtype=np.int64) + self.depth  # [{ +1, ]} -1
            self.deepest = max(self.deepest, int(levels.max()))
            self.depth = int(levels[-1])
        self._check()

    def _check(self) -> None:
        budget = self.budget
        if self.values > budget.max_values:
            raise ApiError.budget("json_values", f"the request body holds more than {budget.max_values:,} JSON "
                                  "values (objects, arrays, strings, numbers); send fewer, or raise the server's "
                                  "--max-json-values", budget.max_values)
        if self.deepest > budget.max_depth:
            raise ApiError.budget("json_depth", f"the request body nests objects and arrays more than "
                                  f"{budget.max_depth} deep; flatten it, or raise the server's --max-json-depth",
                                  budget.max_depth)


def check_json(data: bytes, budget: JsonBudget) -> None:
    """Raise :class:`~coscore.http.responses.ApiError` when the JSON text ``data`` holds
    more than ``budget`` allows (see :class:`JsonScan`); nothing else is checked."""
    scan = JsonScan(budget)
    for start in range(0, len(data), SCAN_CHUNK):
        scan._count(data[start:start + SCAN_CHUNK])
