/*
 * Deduplicating texts and answers without the GIL: each text is hashed from
 * its own code points (csb_hash_bytes: a 64-bit hash of its bytes, seeded
 * with a per-process secret) and looked up in an open-addressing table of
 * packed (hash bits | index + 1) words; two texts are compared (memcmp) only
 * when those hash bits agree.
 *
 * A str's kind (bytes per code point) is hashed with its bytes, so the bytes
 * "ab" in one-byte code points are not the two-byte code point U+6261. Equal
 * str objects hash alike, because CPython keeps every ready str in its
 * canonical, narrowest kind. Bytes of another encoding (UTF-8) hash the same
 * way. Nothing is written to any object, so the hashing and the lookups run
 * with the GIL released while the caller keeps the objects alive (same
 * reading rules as answers.h); Python's own str hash is never used.
 */
#ifndef COSCORE_SRC_DEDUP_H
#define COSCORE_SRC_DEDUP_H

#include <stdint.h>
#include <string.h>

#include "answers.h"

/* the secret of csb_hash_bytes (two odd words; see csb_hash_seed) */
extern uint64_t csb_secret[2];

/* Set the secret from random bytes, once per process, before any hashing: the
 * hash of untrusted text must not be predictable, or a batch could be made of
 * texts that all collide. */
void csb_hash_seed(uint64_t a, uint64_t b);

/* 64x64 -> 128-bit product, its low and high halves xored */
CS_INLINE uint64_t csb_mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ha = a >> 32, hb = b >> 32, la = (uint32_t)a, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl, lo, hi;
    lo = t + (rm1 << 32); c += lo < t;
    hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
    return lo ^ hi;
#endif
}

CS_INLINE uint64_t csb_load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

CS_INLINE uint64_t csb_load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A hash of the n bytes at data and a salt (a str's kind): equal bytes and
 * salt, equal hashes. Sixteen bytes per multiply: each block is folded into
 * the running state by one 128-bit product of (half ^ secret ^ state) and
 * (other half ^ secret); the last 1..16 bytes are read as two words, which may
 * overlap (unambiguous, since the length is hashed too). */
CS_INLINE uint64_t csb_hash_bytes(const void *data, size_t n, uint64_t salt)
{
    const unsigned char *p = (const unsigned char *)data;
    const uint64_t s0 = csb_secret[0], s1 = csb_secret[1];
    uint64_t h = salt ^ s1 ^ ((uint64_t)n << 32), a, b;
    while (n > 16) {
        h = csb_mum(csb_load64(p) ^ s0 ^ h, csb_load64(p + 8) ^ s1);
        p += 16;
        n -= 16;
    }
    if (n > 8) {
        a = csb_load64(p);
        b = csb_load64(p + n - 8);
    } else if (n >= 4) {
        a = csb_load32(p);
        b = csb_load32(p + n - 4);
    } else if (n > 0) {
        a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | (uint64_t)p[n - 1];
        b = 0;
    } else {
        a = b = 0;
    }
    return csb_mum(a ^ s0 ^ h, b ^ s1 ^ salt);
}

/* the hash of a plain str (CSB_PLAIN_STR) from its code points as stored */
CS_INLINE uint64_t csb_str_hash(PyObject *s)
{
    int kind = (int)PyUnicode_KIND(s);
    return csb_hash_bytes(PyUnicode_DATA(s), (size_t)PyUnicode_GET_LENGTH(s) * (size_t)kind, (uint64_t)kind);
}

typedef struct {
    uint64_t *table;
    uint64_t mask;          /* table size - 1 */
    int shift;              /* index + 1 lives in the low `shift` bits */
} csb_table;

/* a zeroed table for n items; returns 0, or -1 when out of memory */
int csb_table_init(csb_table *T, Py_ssize_t n);

/* hashes[i] = csb_str_hash(items[i]) while items[i] is a plain str, and
 * *longest = the largest length among them (left as it is when smaller).
 * Returns the index of the first item that is not a plain str, or n. */
Py_ssize_t csb_hash_strs(PyObject *const *items, Py_ssize_t n, uint64_t *hashes, Py_ssize_t *longest);

/* idx[i] = position of items[i] among the distinct items, in first-occurrence
 * order; first[j] = the index of the first occurrence of distinct item j.
 * hashes[i] is the item's hash. Returns the number of distinct items. */
/* plain str items (csb_str_hash) */
Py_ssize_t csb_dedup_strs(csb_table *T, PyObject *const *items, const uint64_t *hashes, Py_ssize_t n,
                          Py_ssize_t *first, Py_ssize_t *idx);
/* well-formed answers of plain str blanks (csb_answers_plain), hashed here:
 * two answers are equal when their blanks are, so "a", ["a"] and ("a",) are
 * one answer */
Py_ssize_t csb_dedup_answers(csb_table *T, PyObject *const *answers, Py_ssize_t n,
                             Py_ssize_t *first, Py_ssize_t *idx);

#endif /* COSCORE_SRC_DEDUP_H */
