"""Deduplication in C, without the GIL, of what the Arrow reader (:mod:`coscore._fast.arrow`)
picks from a range of rows: byte strings (:func:`first_rows`), and a dictionary column's
codes (:func:`distinct_codes`). Both keep first-occurrence order and give each row its
position among the distinct items.

Byte strings are hashed (a per-process random seed) into an open-addressing table, and
the bytes of equal hashes compared, so two rows share a position exactly when their bytes
are equal (for UTF-8 text: exactly when their ``str`` are). Nothing here is called from
Python: the functions are cimported (byte_dedup.pxd).
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp, memcpy, memset

import os

import numpy as np

cdef extern from "src/text.h" nogil:
    void CS_PREFETCH(const void *p)


cdef uint64_t _seed = <uint64_t>int.from_bytes(os.urandom(8), "little")


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= <uint64_t>0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= <uint64_t>0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t _word(const uint8_t *p, int64_t n) noexcept nogil:
    """The n <= 8 bytes at p as one word (overlapping reads: every byte counts)."""
    cdef uint64_t a = 0, b = 0
    cdef uint32_t c = 0, d = 0
    if n >= 8:
        memcpy(&a, p, 8)
        return a
    if n >= 4:
        memcpy(&c, p, 4)
        memcpy(&d, p + n - 4, 4)
        return <uint64_t>c | (<uint64_t>d << 32)
    if n > 0:
        return <uint64_t>p[0] | (<uint64_t>p[n >> 1] << 8) | (<uint64_t>p[n - 1] << 16)
    return 0


cdef inline uint64_t _hash(const uint8_t *p, int64_t n, uint64_t seed) noexcept nogil:
    """A 64-bit hash of n bytes (with their count): eight at a time, multiplied and
    rotated, the last eight (or fewer) read where they end, mixed at the end."""
    cdef uint64_t h = seed ^ (<uint64_t>n * <uint64_t>0x9E3779B97F4A7C15ULL), w
    cdef int64_t i = 0
    while i + 8 < n:
        memcpy(&w, p + i, 8)
        h = (h ^ w) * <uint64_t>0x87c37b91114253d5ULL
        h = (h << 31) | (h >> 33)
        i += 8
    w = _word(p + n - 8, 8) if n >= 8 else _word(p, n)
    h = (h ^ w) * <uint64_t>0x4cf5ad432745937fULL
    return _mix(h ^ seed)


cdef inline int64_t _table_size(int64_t m) noexcept nogil:
    """The slots of a table for m items: a power of two, at least 16 and 2 m."""
    cdef int64_t size = 16
    while size < 2 * m:
        size <<= 1
    return size


cdef int64_t distinct_codes(int64_t *codes, int64_t m, int64_t *distinct) noexcept nogil:
    """The m codes (each >= -1; -1: a null row) deduplicated in first-occurrence order: the
    distinct ones are written to ``distinct`` (room for m), and each ``codes[i]`` is
    replaced by its position there. Returns their count, or -1 when memory ran out (then
    ``codes`` is unchanged)."""
    cdef int64_t size = _table_size(m), mask = size - 1, i, code, count = 0, slot
    cdef uint64_t word
    cdef uint64_t *table = <uint64_t *>calloc(size, sizeof(uint64_t))   # code + 2, 0: empty
    cdef int64_t *positions = <int64_t *>malloc(size * sizeof(int64_t))   # of each slot's code
    if table == NULL or positions == NULL:
        free(table)
        free(positions)
        return -1
    for i in range(m):
        code = codes[i]
        word = <uint64_t>(code + 2)
        slot = <int64_t>(_mix(word) & <uint64_t>mask)
        while True:
            if table[slot] == 0:
                table[slot] = word
                positions[slot] = count
                distinct[count] = code
                codes[i] = count
                count += 1
                break
            if table[slot] == word:
                codes[i] = positions[slot]
                break
            slot = (slot + 1) & mask
    free(table)
    free(positions)
    return count


cdef Py_ssize_t _dedup(const uint8_t **ptrs, const int64_t *lens, int64_t m, uint64_t *table, int64_t mask,
                       int64_t *first, Py_ssize_t *inverse, uint64_t *hashes) noexcept nogil:
    """Rows with equal bytes share a position; ``first[j]``: the first row of text j.
    ``table`` (mask + 1 zeroed words) holds hash bits | (position + 1); ``hashes``: room
    for m words. The hashes are made first, then looked up with the slot 16 rows ahead
    fetched."""
    cdef int64_t i, slot, j
    cdef uint64_t h, word, tag, high = ~(<uint64_t>mask) if mask >= 0 else 0
    cdef Py_ssize_t count = 0
    for i in range(m):
        hashes[i] = _hash(ptrs[i], lens[i], _seed)
    # positions fit in the table's low bits (the table has more slots than rows)
    for i in range(m):
        if i + 16 < m:
            CS_PREFETCH(&table[hashes[i + 16] & <uint64_t>mask])
        h = hashes[i]
        tag = h & high
        slot = <int64_t>(h & <uint64_t>mask)
        while True:
            word = table[slot]
            if word == 0:
                table[slot] = tag | <uint64_t>(count + 1)
                first[count] = i
                inverse[i] = count
                count += 1
                break
            if (word & high) == tag:
                j = <int64_t>(word & <uint64_t>mask) - 1
                if lens[first[j]] == lens[i] and memcmp(ptrs[first[j]], ptrs[i], <size_t>lens[i]) == 0:
                    inverse[i] = j
                    break
            slot = (slot + 1) & mask
    return count


cdef object first_rows(const uint8_t **ptrs, const int64_t *lens, int64_t m, object inverse):
    """Deduplicate the m byte strings ``ptrs[i][:lens[i]]`` (GIL released): ``inverse`` (an
    intp array of m) gets each one's position among the distinct ones, in first-occurrence
    order; returns the first row of each distinct one (an int64 array)."""
    cdef int64_t size = _table_size(m)
    cdef uint64_t *table = <uint64_t *>malloc(size * sizeof(uint64_t))
    cdef int64_t *first = <int64_t *>malloc((m + 1) * sizeof(int64_t))
    cdef uint64_t *hashes = <uint64_t *>malloc((m + 1) * sizeof(uint64_t))
    cdef Py_ssize_t[::1] idx = inverse
    cdef Py_ssize_t count
    try:
        if table == NULL or first == NULL or hashes == NULL:
            raise MemoryError()
        with nogil:
            memset(table, 0, size * sizeof(uint64_t))
            count = _dedup(ptrs, lens, m, table, size - 1, first, &idx[0], hashes)
        firsts = np.empty(count, dtype=np.int64)
        if count:
            memcpy(<void *><size_t>firsts.ctypes.data, first, count * sizeof(int64_t))
        return firsts
    finally:
        free(table)
        free(first)
        free(hashes)
