"""How many keys a block of JSON Lines may hold before Arrow's reader is given it.

Arrow's JSON reader fills a key it meets late with nulls for every row before it, so a
block of ``n`` rows and ``k`` distinct keys costs ``n × k``: 10,000 rows each with a key of
its own (300 KB) took 8.6 s and 1.2 GB. :func:`few_keys` counts the distinct keys of a
block with numpy, before it is parsed: the quotes not escaped by a backslash, every
colon outside a string (an even number of such quotes before it on its line) ends a key,
which is the string before it. A block with more than :data:`MAX_FAST_KEYS` keys (or a
key longer than :data:`KEY_BYTES`, or a line whose quotes do not pair) is read line by
line, where the columns are bounded by :data:`~.column_limit.MAX_COLUMNS`.
"""
from __future__ import annotations

import numpy as np

#: The most distinct keys a block given to Arrow may hold.
MAX_FAST_KEYS = 256
#: The longest key (in bytes, as written) counted here; a block with a longer one goes line by line.
KEY_BYTES = 64
#: Keys looked at together.
_SLICE = 1 << 16
#: Random odd 64-bit multipliers mixing a key's words into one hash (drawn per process).
_MIX = np.random.default_rng().integers(0, 1 << 63, KEY_BYTES // 8, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def few_keys(data: bytes, raw: np.ndarray, starts: np.ndarray) -> bool:
    """Whether the block ``data`` (``raw``: its bytes as an array), whose lines start at
    ``starts``, holds at most :data:`MAX_FAST_KEYS` distinct keys (as written; keys are
    told apart by a hash with random multipliers, which no file can aim at)."""
    quotes = np.flatnonzero(raw == 34)
    if b"\\" in data:
        quotes = quotes[~_escaped(raw, quotes)]
    if (np.searchsorted(quotes, starts) % 2).any():
        return False   # a line whose quotes do not pair (not JSON Arrow would read)
    colons = np.flatnonzero(raw == 58)
    before = np.searchsorted(quotes, colons)
    ends = before[before % 2 == 0] - 1   # a colon outside a string ends a key: the quotes before it
    if not len(ends):
        return True
    if ends[0] < 1:
        return False
    opens, sizes = quotes[ends - 1] + 1, quotes[ends] - quotes[ends - 1] - 1
    if sizes.max() > KEY_BYTES:
        return False
    width = max(8, -(-int(sizes.max()) // 8) * 8)   # the bytes of the longest key, in whole words
    padded = np.concatenate([raw, np.zeros(width, dtype=np.uint8)])
    offsets = np.arange(width)
    seen = np.zeros(0, dtype=np.uint64)
    for start in range(0, len(opens), _SLICE):
        keys = padded[opens[start : start + _SLICE, None] + offsets]
        keys[offsets >= sizes[start : start + _SLICE, None]] = 0
        hashes = (keys.view(np.uint64) * _MIX[: width // 8]).sum(axis=1)
        hashes += sizes[start : start + _SLICE].astype(np.uint64)
        seen = np.unique(np.concatenate([seen, hashes]))
        if len(seen) > MAX_FAST_KEYS:
            return False
    return True


def _escaped(raw: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """Which of the quotes at ``quotes`` are escaped: after an odd run of backslashes."""
    escaped = np.zeros(len(quotes), dtype=bool)
    run = np.zeros(len(quotes), dtype=np.int64)
    going = quotes > 0
    back = 1
    while going.any():
        at = np.flatnonzero(going)
        slash = raw[quotes[at] - back] == 92
        run[at[slash]] += 1
        going[at[~slash]] = False
        going &= quotes - back - 1 >= 0
        back += 1
    escaped[:] = run % 2 == 1
    return escaped
