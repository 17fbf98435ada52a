"""Whether a block of JSON Lines holds few distinct keys, counted in one pass in C without
the GIL (twin: ``json_keys_py``, the same answer with numpy).

The bytes are walked once: a quote not escaped (after an odd run of backslashes, inside a
string or not) opens or closes a string; a colon outside a string ends a key, which is the
last string closed before it. A block is
*few-keyed* when every line starts outside a string (its quotes pair), a key precedes
every such colon, no key is longer than ``max_key`` bytes, and at most ``limit`` distinct
keys appear. Keys are told apart by a 64-bit hash with a per-process random seed and
multiplier (keys are short: at most ``max_key`` bytes), which no file can aim at.
"""
from libc.stdint cimport uint8_t, uint64_t

import os

#: The hash's seed and odd multiplier, drawn per process.
cdef uint64_t _SEED = int.from_bytes(os.urandom(8), "little")
cdef uint64_t _MULTIPLIER = int.from_bytes(os.urandom(8), "little") | 1

#: Slots of the table of distinct keys' hashes (a power of two, at least 4 × ``limit``).
DEF _MAX_SLOTS = 1 << 12


cdef inline uint64_t _hash(const uint8_t *key, Py_ssize_t size) noexcept nogil:
    cdef uint64_t h = _SEED ^ <uint64_t>size
    cdef Py_ssize_t i
    for i in range(size):
        h = (h + key[i] + 1) * _MULTIPLIER
        h ^= h >> 29
    return h | 1   # never 0: 0 marks an empty slot


cdef int _few(const uint8_t *data, Py_ssize_t n, Py_ssize_t limit, Py_ssize_t max_key,
              uint64_t *slots, Py_ssize_t mask) noexcept nogil:
    cdef Py_ssize_t i = 0, key_start = -1, key_end = -1, string_start = 0, distinct = 0, slot, run
    cdef bint inside = False
    cdef uint8_t c
    cdef uint64_t h
    while i < n:
        c = data[i]
        if c == 92:            # a run of backslashes: an odd one escapes a quote after it
            run = i
            while i < n and data[i] == 92:
                i += 1
            if i < n and data[i] == 34 and (i - run) % 2 == 1:
                i += 1
            continue
        if inside:
            if c == 34:
                inside = False
                key_start, key_end = string_start, i
            elif c == 10:
                return 0       # a line starts inside a string: its quotes do not pair
        elif c == 34:
            inside = True
            string_start = i + 1
        elif c == 58:
            if key_start < 0 or key_end - key_start > max_key:
                return 0
            h = _hash(data + key_start, key_end - key_start)
            slot = <Py_ssize_t>(h & <uint64_t>mask)
            while slots[slot] != 0 and slots[slot] != h:
                slot = (slot + 1) & mask
            if slots[slot] == 0:
                slots[slot] = h
                distinct += 1
                if distinct > limit:
                    return 0
        i += 1
    return 1


def few_keys(const uint8_t[::1] data, Py_ssize_t limit, Py_ssize_t max_key) -> bool:
    """Whether the block ``data`` is few-keyed (see the module): at most ``limit`` distinct
    keys, none longer than ``max_key`` bytes, every line's quotes paired."""
    if limit < 0 or 4 * limit > _MAX_SLOTS:
        raise ValueError(f"limit must be from 0 to {_MAX_SLOTS // 4}, not {limit}")
    cdef uint64_t slots[_MAX_SLOTS]
    cdef Py_ssize_t k, n = data.shape[0]
    cdef int found
    for k in range(_MAX_SLOTS):
        slots[k] = 0
    if n == 0:
        return True
    with nogil:
        found = _few(&data[0], n, limit, max_key, slots, _MAX_SLOTS - 1)
    return found == 1
