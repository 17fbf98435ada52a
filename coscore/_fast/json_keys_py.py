"""Whether a block of JSON Lines holds few distinct keys, with numpy (the twin of the
compiled ``json_keys``: the same answer; see its module for what is counted).

The quotes not escaped by a backslash are found at once; every colon outside a string
(an even number of such quotes before it) ends a key, which is the string before it; the
keys are hashed with random multipliers (drawn per process) and counted a slice at a time.
"""
from __future__ import annotations

import numpy as np

#: Keys looked at together.
_SLICE = 1 << 16
#: The longest key the multipliers cover, in bytes.
_WIDEST = 1024
#: Random odd 64-bit multipliers mixing a key's words into one hash (drawn per process).
_MIX = np.random.default_rng().integers(0, 1 << 63, _WIDEST // 8, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def few_keys(data: bytes, limit: int, max_key: int) -> bool:
    """Whether the block ``data`` holds at most ``limit`` distinct keys, none longer than
    ``max_key`` bytes (at most 1,024), every line's quotes paired."""
    if not 0 <= max_key <= _WIDEST:
        raise ValueError(f"max_key must be from 0 to {_WIDEST}, not {max_key}")
    data = bytes(data)
    raw = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(raw == 34)
    if b"\\" in data:
        quotes = quotes[~_escaped(raw, quotes)]
    starts = np.flatnonzero(raw == 10) + 1
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
    if sizes.max() > max_key:
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
        if len(seen) > limit:
            return False
    return True


def _escaped(raw: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """Which of the quotes at ``quotes`` are escaped: after an odd run of backslashes."""
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
    escaped: np.ndarray = run % 2 == 1
    return escaped
