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
#  define CS_UTF8_BLOCKS 1
/* Sixteen bytes at a time, with AVX2 CPUs (cs_utf8_blocks; the code is
 * SSE4.1, in 128-bit halves, which the oldest AVX2 CPUs run at full width): every byte of a block
 * is read as if it began a sequence of 1, 2 or 3 bytes (U+0000..U+FFFF) and
 * its code point made in a 16-bit lane from it and the next two bytes; the
 * block checks out when the continuation bytes are exactly those the leads
 * call for, no lead is a byte that begins anything else, and no code point is
 * an overlong form or a surrogate. The lanes of the leads are then squeezed
 * to the front, eight at a time, by a byte shuffle from cs_squeeze. */
static uint8_t cs_squeeze[256][16];   /* mask of 8 lanes -> the shuffle that packs them */
static uint8_t cs_lanes[256];         /* lanes in the mask */
static int cs_blocks_ready;           /* the tables are made and the CPU runs AVX2 */

void cs_utf8_init(void)
{
    int m, lane, at;
    if (cs_blocks_ready)
        return;
    for (m = 0; m < 256; m++) {
        memset(cs_squeeze[m], 0x80, 16);
        for (lane = 0, at = 0; lane < 8; lane++)
            if ((m >> lane) & 1) {
                cs_squeeze[m][at++] = (uint8_t)(2 * lane);
                cs_squeeze[m][at++] = (uint8_t)(2 * lane + 1);
            }
        cs_lanes[m] = (uint8_t)(at / 2);
    }
    cs_blocks_ready = cs_cpu_has_avx2();
}

/* The code points of eight 16-bit lanes, each read as the start of a sequence
 * (X0: its byte, X1, X2: the next two); *bad gets the lanes of a 2-byte lead
 * below U+0080 or a 3-byte lead below U+0800 or on a surrogate */
CS_TARGET_AVX2
static inline __m128i cs_utf8_lanes(__m128i X0, __m128i X1, __m128i X2, __m128i *bad)
{
    const __m128i low6 = _mm_set1_epi16(0x3F), low5 = _mm_set1_epi16(0x1F), low4 = _mm_set1_epi16(0x0F),
                  w_c0 = _mm_set1_epi16(0xC0), w_e0 = _mm_set1_epi16(0xE0), w_f0 = _mm_set1_epi16(0xF0),
                  top5 = _mm_set1_epi16((short)0xF800), surrogate = _mm_set1_epi16((short)0xD800),
                  top9 = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
    __m128i is2 = _mm_cmpeq_epi16(_mm_and_si128(X0, w_e0), w_c0), is3 = _mm_cmpeq_epi16(_mm_and_si128(X0, w_f0), w_e0);
    __m128i mid = _mm_and_si128(X1, low6), cp, t;
    cp = _mm_blendv_epi8(X0, _mm_or_si128(_mm_slli_epi16(_mm_and_si128(X0, low5), 6), mid), is2);
    cp = _mm_blendv_epi8(cp, _mm_or_si128(_mm_or_si128(_mm_slli_epi16(_mm_and_si128(X0, low4), 12), _mm_slli_epi16(mid, 6)),
                                          _mm_and_si128(X2, low6)), is3);
    t = _mm_and_si128(cp, top5);
    *bad = _mm_or_si128(_mm_and_si128(is3, _mm_or_si128(_mm_cmpeq_epi16(t, zero), _mm_cmpeq_epi16(t, surrogate))),
                        _mm_and_si128(is2, _mm_cmpeq_epi16(_mm_and_si128(cp, top9), zero)));
    return cp;
}

/* One block: the bytes of x at the positions in `valid` (x1, x2: x moved down
 * by one and two bytes); `ext`: which of the two bytes after x are
 * continuation bytes (a full block, `full`: a sequence may end there). Writes
 * the code points at o + *k (16 lanes may be written) and returns the bytes
 * read, or 0 when the block does not check out. */
CS_TARGET_AVX2
static inline int cs_utf8_block(__m128i x, __m128i x1, __m128i x2, unsigned ext, unsigned valid, int full,
                                uint16_t *o, int64_t *k)
{
    const __m128i c0 = _mm_set1_epi8((char)0xC0), e0 = _mm_set1_epi8((char)0xE0), f0 = _mm_set1_epi8((char)0xF0);
    /* 80..BF are the signed bytes below (signed char)0xC0 */
    unsigned cont = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(x, c0));
    unsigned ascii = ~(unsigned)_mm_movemask_epi8(x) & 0xFFFFu;
    unsigned lead2 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(x, e0), c0));
    unsigned lead3 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(x, f0), e0));
    unsigned wanted = (((lead2 | lead3) & valid) << 1) | ((lead3 & valid) << 2);
    unsigned upto, leads, lo, hi;
    int read;
    __m128i cp0, cp1, bad0, bad1;
    if (full) {
        read = 16 + (int)((wanted >> 16) & 1) + (int)((wanted >> 17) & 1);
        upto = (1u << read) - 1;
    } else {
        if (wanted >> 16)   /* a sequence cut by the text's end */
            return 0;
        read = (int)cs_lanes[valid & 0xFF] + (int)cs_lanes[valid >> 8];
        upto = valid;
    }
    if (((ascii | lead2 | lead3 | cont) & valid) != valid || (((cont | (ext << 16)) ^ wanted) & upto))
        return 0;
    leads = ~cont & valid;
    if (leads == 0xFFFFu && ascii == 0xFFFFu) {   /* sixteen ASCII bytes */
        _mm_storeu_si128((__m128i *)(o + *k), _mm_cvtepu8_epi16(x));
        _mm_storeu_si128((__m128i *)(o + *k + 8), _mm_cvtepu8_epi16(_mm_unpackhi_epi64(x, x)));
        *k += 16;
        return 16;
    }
    cp0 = cs_utf8_lanes(_mm_cvtepu8_epi16(x), _mm_cvtepu8_epi16(x1), _mm_cvtepu8_epi16(x2), &bad0);
    cp1 = cs_utf8_lanes(_mm_cvtepu8_epi16(_mm_unpackhi_epi64(x, x)), _mm_cvtepu8_epi16(_mm_unpackhi_epi64(x1, x1)),
                        _mm_cvtepu8_epi16(_mm_unpackhi_epi64(x2, x2)), &bad1);
    if ((unsigned)_mm_movemask_epi8(_mm_packs_epi16(bad0, bad1)) & leads)
        return 0;
    lo = leads & 0xFF;
    hi = leads >> 8;
    _mm_storeu_si128((__m128i *)(o + *k), _mm_shuffle_epi8(cp0, _mm_loadu_si128((const __m128i *)cs_squeeze[lo])));
    *k += cs_lanes[lo];
    _mm_storeu_si128((__m128i *)(o + *k), _mm_shuffle_epi8(cp1, _mm_loadu_si128((const __m128i *)cs_squeeze[hi])));
    *k += cs_lanes[hi];
    return read;
}

/* Decode p[0:n] block by block into o while o has room for 16 more code
 * points (`room` in all); stop at the first block that does not check out.
 * Returns the bytes read (whole sequences) and sets *k to the code points. */
CS_TARGET_AVX2
static int64_t cs_utf8_blocks(const uint8_t *p, int64_t n, uint16_t *o, int64_t room, int64_t *k)
{
    int64_t i = 0;
    int read;
    *k = 0;
    while (n - i >= 18 && room - *k >= 16) {
        const uint8_t *q = p + i;
        unsigned ext = (unsigned)((signed char)q[16] < (signed char)0xC0)
                       | ((unsigned)((signed char)q[17] < (signed char)0xC0) << 1);
        read = cs_utf8_block(_mm_loadu_si128((const __m128i *)q), _mm_loadu_si128((const __m128i *)(q + 1)),
                             _mm_loadu_si128((const __m128i *)(q + 2)), ext, 0xFFFFu, 1, o, k);
        if (!read)
            return i;
        i += read;
    }
    if (i < n && n >= 16 && n - i <= 16 && room - *k >= 16) {   /* the last bytes, in the text's last 16 */
        __m128i x = _mm_loadu_si128((const __m128i *)(p + n - 16));
        const __m128i down1 = _mm_setr_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1),
                      down2 = _mm_setr_epi8(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1, -1);
        read = cs_utf8_block(x, _mm_shuffle_epi8(x, down1), _mm_shuffle_epi8(x, down2), 0,
                             (0xFFFFu << (16 - (n - i))) & 0xFFFFu, 0, o, k);
        i += read;
    }
    return i;
}
#else
void cs_utf8_init(void) {}
#endif

int cs_utf8_scan(const uint8_t *p, int64_t n)
{
#ifdef CS_UTF8_BLOCKS
    if (cs_blocks_ready) {
        __m128i top = _mm_setzero_si128();
        int64_t i;
        if (n >= 16) {
            for (i = 0; i + 16 <= n; i += 16)
                top = _mm_max_epu8(top, _mm_loadu_si128((const __m128i *)(p + i)));
            top = _mm_max_epu8(top, _mm_loadu_si128((const __m128i *)(p + n - 16)));
        } else if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, p, 8);
            memcpy(&b, p + n - 8, 8);
            top = _mm_set_epi64x((long long)a, (long long)b);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, p, 4);
            memcpy(&b, p + n - 4, 4);
            top = _mm_set_epi32(0, 0, (int)a, (int)b);
        } else {
            for (i = 0; i < n; i++)
                top = _mm_max_epu8(top, _mm_set1_epi8((char)p[i]));
        }
        if (!_mm_movemask_epi8(top))
            return CS_UTF8_ASCII;
        /* a byte C4..EF and none F0..FF: valid, it is kind 2 */
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(top, _mm_set1_epi8((char)0xF0)), top)))
            return CS_UTF8_OTHER;
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(top, _mm_set1_epi8((char)0xC4)), top)))
            return CS_UTF8_BMP;
        return CS_UTF8_OTHER;
    }
#endif
    {
        int64_t i;
        for (i = 0; i < n; i++)
            if (p[i] >= 0x80)
                return CS_UTF8_OTHER;
        return CS_UTF8_ASCII;
    }
}

/* Decode into T out[] (T: uint8_t, uint16_t or uint32_t); every check of a
 * code point is or'ed into `bad`, tested once at the end. A step writes one
 * code point and moves past at least one byte that is not a continuation
 * byte, so out never gets more than cs_utf8_measure counted. */
#define CS_DECODE(T, START, FIRST)                                                \
    do {                                                                          \
        T *o = (T *)out + (FIRST);                                                \
        int64_t i = (START);                                                      \
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
        if (bad)                                                                  \
            return -1;                                                            \
        decoded = (int64_t)(o - (T *)out);                                        \
    } while (0)

int cs_utf8_decode(const uint8_t *p, int64_t n, int64_t count, int kind, void *out)
{
    int64_t start = 0, first = 0, decoded;
#ifdef CS_UTF8_BLOCKS
    if (kind == 2 && cs_blocks_ready)
        start = cs_utf8_blocks(p, n, (uint16_t *)out, count, &first);
#endif
    if (kind == 1)
        CS_DECODE(uint8_t, 0, 0);
    else if (kind == 2)
        CS_DECODE(uint16_t, start, first);
    else
        CS_DECODE(uint32_t, 0, 0);
    (void)decoded;
    return 0;
}

int cs_utf8_decode_bmp(const uint8_t *p, int64_t n, uint16_t *out, int64_t *count)
{
    int64_t start = 0, first = 0, decoded = 0;
#ifdef CS_UTF8_BLOCKS
    if (cs_blocks_ready)
        start = cs_utf8_blocks(p, n, out, n + 16, &first);
#endif
    CS_DECODE(uint16_t, start, first);
    *count = decoded;
    return 0;
}
