#include "utf8.h"

#include <string.h>

#include "compiler.h"

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#  include <emmintrin.h>
#  define CS_UTF8_SSE2 1
#endif

#define CS_HIGH 0x8080808080808080ULL   /* bit 7 of each byte */
#define CS_MID 0x3C3C3C3C3C3C3C3CULL    /* bits 2..5 of each byte */
#define CS_LOW7 0x7F7F7F7F7F7F7F7FULL

/* Bit 7 of each byte of w (eight bytes of text) for: a continuation byte
 * (10xxxxxx); a lead byte of a code point that needs kind 2 at least (C4..DF:
 * from U+0100, E0..EF), or kind 4 (F0..FF). */
typedef struct {
    uint64_t cont, wide, astral;
} cs_classes;

CS_INLINE cs_classes cs_classify(uint64_t w)
{
    cs_classes c;
    uint64_t top2 = w & (w << 1) & CS_HIGH;
    c.cont = w & ~(w << 1) & CS_HIGH;
    c.astral = top2 & (w << 2) & (w << 3);
    /* (w & 0x3C) + 0x7F sets bit 7 when any of bits 2..5 is set (no carry out) */
    c.wide = (top2 & (w << 2)) | (top2 & ((w & CS_MID) + CS_LOW7));
    return c;
}

int64_t cs_utf8_measure(const uint8_t *p, int64_t n, int *kind, int *ascii)
{
    int64_t i = 0, cont = 0;
    uint64_t high = 0, wide = 0, astral = 0, w;
    cs_classes c;
#ifdef CS_UTF8_SSE2
    {   /* sixteen bytes at a time: the same classes, one bit per byte */
        const __m128i cont_top = _mm_set1_epi8((char)0xC0), c4 = _mm_set1_epi8((char)0xC4),
                      f0 = _mm_set1_epi8((char)0xF0);
        int wide16 = 0, astral16 = 0;
        for (; i + 16 <= n; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
            if (CS_LIKELY(!_mm_movemask_epi8(x)))
                continue;
            high = 1;
            /* 80..BF are the signed bytes below (signed char)0xC0 */
            cont += cs_popcount64((uint64_t)_mm_movemask_epi8(_mm_cmplt_epi8(x, cont_top)));
            wide16 |= _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, c4), x));
            astral16 |= _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, f0), x));
        }
        wide = (uint64_t)wide16;
        astral = (uint64_t)astral16;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        if (CS_LIKELY(!(w & CS_HIGH)))
            continue;
        high = 1;
        c = cs_classify(w);
        cont += cs_popcount64(c.cont);
        wide |= c.wide;
        astral |= c.astral;
    }
    if (i < n) {   /* the tail, zero-padded: a zero byte is ASCII */
        int k;
        w = 0;
        for (k = 0; k < n - i; k++)
            w |= (uint64_t)p[i + k] << (8 * k);
        high |= w & CS_HIGH;
        c = cs_classify(w);
        cont += cs_popcount64(c.cont);
        wide |= c.wide;
        astral |= c.astral;
    }
    *kind = astral ? 4 : (wide ? 2 : 1);
    *ascii = !high;
    return n - cont;
}

/* Decode into T out[] (T: uint8_t, uint16_t or uint32_t); every check of a
 * code point is or'ed into `bad`, tested once at the end. A step writes one
 * code point and moves past at least one byte that is not a continuation
 * byte, so out never gets more than cs_utf8_measure counted. */
#define CS_DECODE(T)                                                              \
    do {                                                                          \
        T *o = (T *)out;                                                          \
        int64_t i = 0;                                                            \
        unsigned bad = 0;                                                         \
        while (i < n) {                                                           \
            uint32_t b = p[i], b1, b2, b3, cp;                                    \
            if (b < 0x80) {                                                       \
                *o++ = (T)b;                                                      \
                i++;                                                              \
            } else if (b >= 0xE0 && b < 0xF0) {                                   \
                if (CS_UNLIKELY(i + 3 > n))                                       \
                    return -1;                                                    \
                b1 = p[i + 1];                                                    \
                b2 = p[i + 2];                                                    \
                cp = ((b & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F);       \
                bad |= ((b1 & 0xC0) ^ 0x80) | ((b2 & 0xC0) ^ 0x80);               \
                bad |= (cp < 0x800) | ((cp & 0xF800) == 0xD800);                  \
                *o++ = (T)cp;                                                     \
                i += 3;                                                           \
            } else if (b >= 0xC0 && b < 0xE0) {                                   \
                if (CS_UNLIKELY(i + 2 > n))                                       \
                    return -1;                                                    \
                b1 = p[i + 1];                                                    \
                cp = ((b & 0x1F) << 6) | (b1 & 0x3F);                             \
                bad |= ((b1 & 0xC0) ^ 0x80) | (cp < 0x80);                        \
                *o++ = (T)cp;                                                     \
                i += 2;                                                           \
            } else if (b >= 0xF0 && b < 0xF8) {                                   \
                if (CS_UNLIKELY(i + 4 > n))                                       \
                    return -1;                                                    \
                b1 = p[i + 1];                                                    \
                b2 = p[i + 2];                                                    \
                b3 = p[i + 3];                                                    \
                cp = ((b & 0x07) << 18) | ((b1 & 0x3F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F); \
                bad |= ((b1 & 0xC0) ^ 0x80) | ((b2 & 0xC0) ^ 0x80) | ((b3 & 0xC0) ^ 0x80); \
                bad |= (cp < 0x10000) | (cp > 0x10FFFF);                          \
                *o++ = (T)cp;                                                     \
                i += 4;                                                           \
            } else {   /* a stray continuation byte, or F8..FF */                 \
                return -1;                                                        \
            }                                                                     \
        }                                                                         \
        return bad ? -1 : 0;                                                      \
    } while (0)

int cs_utf8_decode(const uint8_t *p, int64_t n, int kind, void *out)
{
    if (kind == 1)
        CS_DECODE(uint8_t);
    else if (kind == 2)
        CS_DECODE(uint16_t);
    else
        CS_DECODE(uint32_t);
}
