#include "utf8.h"

#include <string.h>

#include "compiler.h"
#include "cpu.h"

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#  include <emmintrin.h>
#  define CS_UTF8_SSE2 1
#endif

#ifdef CS_UTF8_SSE2
/* 16 zero bytes then 16 0xFF: the 16 from `k` keep the last k bytes of a block */
static const uint8_t cs_keep_last[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                         0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/* The r < 16 bytes of p, zero-padded to 16 (a short text: no load past p + r) */
CS_INLINE __m128i cs_load_short(const uint8_t *p, int64_t r)
{
    uint8_t b[16];
    int k;
    for (k = 0; k < 16; k++)
        b[k] = k < r ? p[k] : 0;
    return _mm_loadu_si128((const __m128i *)b);
}
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
    {   /* sixteen bytes at a time, without a branch on them: the same classes,
         * or'ed per byte lane; the continuation bytes counted per lane (at
         * most 255 blocks before each sum); the last bytes zero-padded */
        const __m128i cont_top = _mm_set1_epi8((char)0xC0), c4 = _mm_set1_epi8((char)0xC4),
                      f0 = _mm_set1_epi8((char)0xF0), zero = _mm_setzero_si128();
        __m128i any = zero, wide16 = zero, astral16 = zero, cont16 = zero, sums;
        int blocks = 0;
        while (i < n) {
            __m128i x;
            if (i + 16 <= n)
                x = _mm_loadu_si128((const __m128i *)(p + i));
            else if (n >= 16)   /* the text's last 16 bytes, those already read zeroed */
                x = _mm_and_si128(_mm_loadu_si128((const __m128i *)(p + n - 16)),
                                  _mm_loadu_si128((const __m128i *)(cs_keep_last + (n - i))));
            else
                x = cs_load_short(p, n);
            i += 16;
            any = _mm_or_si128(any, x);
            /* 80..BF are the signed bytes below (signed char)0xC0 */
            cont16 = _mm_sub_epi8(cont16, _mm_cmplt_epi8(x, cont_top));
            wide16 = _mm_or_si128(wide16, _mm_cmpeq_epi8(_mm_max_epu8(x, c4), x));
            astral16 = _mm_or_si128(astral16, _mm_cmpeq_epi8(_mm_max_epu8(x, f0), x));
            if (++blocks == 255 || i >= n) {
                sums = _mm_sad_epu8(cont16, zero);
                cont += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums));
                cont16 = zero;
                blocks = 0;
            }
        }
        i = n;
        high = (uint64_t)_mm_movemask_epi8(any);
        wide = (uint64_t)_mm_movemask_epi8(wide16);
        astral = (uint64_t)_mm_movemask_epi8(astral16);
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

#if defined(CS_UTF8_SSE2) && defined(CS_CAN_AVX2)
#  include <immintrin.h>
#  define CS_UTF8_RUN3 1
/* A run of 3-byte sequences (U+0800..U+FFFF: CJK, most of the BMP) decoded
 * five at a time: 16 bytes are read, the first 15 checked as five complete
 * sequences (lead E0..EF, two continuation bytes each), gathered into 16-bit
 * lanes with one byte shuffle each for the lead + first continuation bytes and
 * the last ones, and the code points put together with shifts. A step that
 * does not check out (another byte class, an overlong form or a surrogate)
 * ends the run: the caller's scalar loop then reads those bytes (and reports
 * what is invalid). p[-back:n] may be read; writes at most `room` code points.
 * Returns the code points decoded (3 bytes each). The byte shuffle is SSSE3, taken with AVX2 (cs_cpu_has_avx2). */
static const uint8_t cs_move_down[32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                         0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

CS_TARGET_AVX2
static int64_t cs_utf8_run3(const uint8_t *p, int64_t n, int64_t back, uint16_t *o, int64_t room)
{
    const __m128i pick_lead = _mm_setr_epi8(1, 0, 4, 3, 7, 6, 10, 9, 13, 12, -1, -1, -1, -1, -1, -1);
    const __m128i pick_last = _mm_setr_epi8(2, -1, 5, -1, 8, -1, 11, -1, 14, -1, -1, -1, -1, -1, -1, -1);
    const __m128i classes = _mm_setr_epi8((char)0xF0, (char)0xC0, (char)0xC0, (char)0xF0, (char)0xC0, (char)0xC0,
                                          (char)0xF0, (char)0xC0, (char)0xC0, (char)0xF0, (char)0xC0, (char)0xC0,
                                          (char)0xF0, (char)0xC0, (char)0xC0, 0);
    const __m128i expect = _mm_setr_epi8((char)0xE0, (char)0x80, (char)0x80, (char)0xE0, (char)0x80, (char)0x80,
                                         (char)0xE0, (char)0x80, (char)0x80, (char)0xE0, (char)0x80, (char)0x80,
                                         (char)0xE0, (char)0x80, (char)0x80, 0);
    const __m128i lead4 = _mm_set1_epi16(0x0F00), low6 = _mm_set1_epi16(0x3F), top5 = _mm_set1_epi16((short)0xF800),
                  surrogate = _mm_set1_epi16((short)0xD800), zero = _mm_setzero_si128();
    int64_t i = 0, k = 0;
    while (i < n && k < room) {
        __m128i x, a, b, cp, t;
        unsigned off, bad;
        int c;
        if (i + 16 <= n)
            x = _mm_loadu_si128((const __m128i *)(p + i));
        else if (n + back >= 16)   /* the text's last 16 bytes moved down, zero-padded */
            x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + n - 16)),
                                 _mm_loadu_si128((const __m128i *)(cs_move_down + (16 - (n - i)))));
        else   /* zero-padded: a zero byte ends the run */
            x = cs_load_short(p + i, n - i);
        /* the bytes out of place; c: the complete sequences before the first */
        off = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(x, classes), expect)) & 0x7FFFu;
        c = off ? (int)cs_ctz32(off) / 3 : 5;
        if (c == 0)
            break;
        a = _mm_shuffle_epi8(x, pick_lead);   /* lead << 8 | first continuation */
        b = _mm_shuffle_epi8(x, pick_last);
        cp = _mm_or_si128(_mm_or_si128(_mm_slli_epi16(_mm_and_si128(a, lead4), 4),
                                       _mm_slli_epi16(_mm_and_si128(a, low6), 6)),
                          _mm_and_si128(b, low6));
        t = _mm_and_si128(cp, top5);   /* below U+0800 (overlong), or U+D800..U+DFFF */
        bad = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi16(t, zero), _mm_cmpeq_epi16(t, surrogate)))
              & ((1u << (2 * c)) - 1);
        if (bad)
            c = (int)cs_ctz32(bad) / 2;
        if (c > room - k)
            c = (int)(room - k);
        if (room - k >= 8) {
            _mm_storeu_si128((__m128i *)(o + k), cp);
        } else {   /* the last code points of o: through a copy */
            uint16_t lanes[8];
            _mm_storeu_si128((__m128i *)lanes, cp);
            memcpy(o + k, lanes, (size_t)c * sizeof(uint16_t));
        }
        i += 3 * c;
        k += c;
        if (c < 5)
            break;
    }
    return k;
}
#else
static int64_t cs_utf8_run3(const uint8_t *p, int64_t n, int64_t back, uint16_t *o, int64_t room)
{
    (void)p; (void)n; (void)back; (void)o; (void)room;
    return 0;   /* never called: the scalar loop reads every sequence */
}
#endif

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
                if (sizeof(T) == 2 && run3) {   /* a run of them, if it is valid */ \
                    int64_t k3 = cs_utf8_run3(p + i, n - i, i, (uint16_t *)o, end - (uint16_t *)o); \
                    if (k3) {                                                     \
                        i += 3 * k3;                                              \
                        o += k3;                                                  \
                        continue;                                                 \
                    }                                                             \
                }                                                                 \
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

int cs_utf8_decode(const uint8_t *p, int64_t n, int64_t count, int kind, void *out)
{
#ifdef CS_UTF8_RUN3
    const int run3 = kind == 2 && cs_cpu_has_avx2();
#else
    const int run3 = 0;
#endif
    const uint16_t *end = (const uint16_t *)out + count;
    if (kind == 1)
        CS_DECODE(uint8_t);
    else if (kind == 2)
        CS_DECODE(uint16_t);
    else
        CS_DECODE(uint32_t);
}
