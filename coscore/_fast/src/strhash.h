/*
 * A seeded 64-bit hash of a byte string (in the manner of wyhash: 16 bytes
 * per 64x64->128-bit multiply-and-fold). coscore hashes a str by its
 * code-point bytes: two exact str objects are equal iff they have the same
 * kind and the same bytes, so equal strings hash alike. It needs no GIL and
 * touches no object (Python's own str hash is cached inside the object).
 * The seed is drawn per process (batch.pyx), so colliding inputs cannot be
 * prepared in advance.
 */
#ifndef COSCORE_SRC_STRHASH_H
#define COSCORE_SRC_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compiler.h"

#if defined(_MSC_VER) && defined(_M_X64) && !defined(__clang__)
#  include <intrin.h>
#endif

/* 64x64 -> 128-bit product, low and high halves xored */
CS_INLINE uint64_t cs_mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#elif defined(_MSC_VER) && defined(_M_X64) && !defined(__clang__)
    uint64_t hi, lo = _umul128(a, b, &hi);
    return lo ^ hi;
#else
    uint64_t ha = a >> 32, hb = b >> 32, la = (uint32_t)a, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl, lo, hi;
    lo = t + (rm1 << 32); c += lo < t;
    hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
    return lo ^ hi;
#endif
}

#define CS_HASH_K1 0xa0761d6478bd642fULL
#define CS_HASH_K2 0xe7037ed1a0b428dbULL

CS_INLINE uint64_t cs_read64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

CS_INLINE uint64_t cs_read32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

CS_INLINE uint64_t cs_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t n = len;
    uint64_t a, b, h = seed ^ CS_HASH_K1;
    while (n > 16) {
        h = cs_mum(cs_read64(p) ^ CS_HASH_K1, cs_read64(p + 8) ^ h);
        p += 16;
        n -= 16;
    }
    if (n > 8) {            /* the first and the last 8 bytes (they overlap) */
        a = cs_read64(p);
        b = cs_read64(p + n - 8);
    } else if (n >= 4) {    /* the first and the last 4 bytes */
        a = (cs_read32(p) << 32) | cs_read32(p + n - 4);
        b = 0;
    } else if (n > 0) {
        a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
        b = 0;
    } else {
        a = b = 0;
    }
    return cs_mum(CS_HASH_K2 ^ (uint64_t)len, cs_mum(a ^ CS_HASH_K2, b ^ h));
}

#endif /* COSCORE_SRC_STRHASH_H */
