/*
 * SM: Shift-And (see shift_and.h).
 *
 * The options (distinct texts, total length <= 128 code points) are laid end
 * to end in one bit string of 1 or 2 words: option o covers the bits
 * off_o .. off_o + len_o - 1. B[id] has the bits of the positions holding
 * that id; per answer character, D = ((D << 1) | start) & B[id] and every bit
 * of D marks an option prefix ending there, so option o occurs iff its last
 * bit is ever set. (A bit shifted in from the previous option's end lands on a
 * start bit, which is set anyway.) A character in no option has id 0 and
 * B[0] = 0, so it clears D.
 */

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "shift_and.h"

#define CS_SA_VMAX_FAST 8    /* ... and above this many the scalar scan is as fast */
#ifdef CS_X86_64
#  include <emmintrin.h>
#  define CS_SA_SSE2 1
#  define CS_SA_SET1_8(c) _mm_set1_epi8((char)(c))
#  define CS_SA_SET1_16(c) _mm_set1_epi16((short)(c))
#endif


void cs_sa_free(cs_sa *A)
{
    cs_cpmap_free(&A->map);
    free(A->B); free(A->slot_fin); free(A->mpages);
    A->B = NULL; A->slot_fin = NULL; A->mpages = NULL; A->n_slots = 0;
}

/* Build mpages (after map and B) when the state is one word and the pages
 * take at most 256 KB; returns 0, or -1 when out of memory. */
int cs_sa_direct(cs_sa *A)
{
    Py_ssize_t k, size = A->map.npages * 256;
    A->mpages = NULL;
    if (A->words != 1 || size * (Py_ssize_t)sizeof(uint64_t) > ((Py_ssize_t)256 << 10)) return 0;
    A->mpages = (uint64_t *)malloc((size_t)size * sizeof(uint64_t));
    if (!A->mpages) return -1;
    for (k = 0; k < size; k++) A->mpages[k] = A->B[A->map.pages[k]];
    return 0;
}

/* hit[slot] = 1 for every slot with an option in the found last bits (hit may
 * be NULL); returns the number of slots hit */
CS_INLINE Py_ssize_t cs_sa_slots(const cs_sa *A, uint64_t f0, uint64_t f1, unsigned char *hit)
{
    Py_ssize_t s, found = 0;
    const uint64_t *sf = A->slot_fin;
    for (s = 0; s < A->n_slots; s++) {
        int h = ((f0 & sf[2 * s]) | (f1 & sf[2 * s + 1])) != 0;
        found += h;
        if (hit && h) hit[s] = 1;
    }
    return found;
}

#define CS_SA_BLOCK 512   /* characters between checks for "every slot hit" */

#define CS_SA_LOOP1(LOOKUP)                                                       \
    for (i = 0; i < n; ) {                                                        \
        Py_ssize_t e = n - i > CS_SA_BLOCK ? i + CS_SA_BLOCK : n;                  \
        for (; i < e; i++) { d0 = ((d0 << 1) | s0) & B[LOOKUP]; f0 |= d0; }        \
        if (i < n && cs_sa_slots(A, f0 & A->fin[0], 0, NULL) == A->n_slots) break; \
    }
#define CS_SA_LOOP1M(MASK)                                                        \
    for (i = 0; i < n; ) {                                                        \
        Py_ssize_t e = n - i > CS_SA_BLOCK ? i + CS_SA_BLOCK : n;                  \
        for (; i < e; i++) { d0 = ((d0 << 1) | s0) & MASK(i); f0 |= d0; }         \
        if (i < n && cs_sa_slots(A, f0 & A->fin[0], 0, NULL) == A->n_slots) break; \
    }
#define CS_SA_LOOP2(LOOKUP)                                                       \
    for (i = 0; i < n; ) {                                                        \
        Py_ssize_t e = n - i > CS_SA_BLOCK ? i + CS_SA_BLOCK : n;                  \
        for (; i < e; i++) {                                                      \
            const uint64_t *b = B + 2 * (size_t)(LOOKUP);                         \
            d1 = ((d1 << 1) | (d0 >> 63) | s1) & b[1];                            \
            d0 = ((d0 << 1) | s0) & b[0];                                         \
            f0 |= d0; f1 |= d1;                                                   \
        }                                                                         \
        if (i < n && cs_sa_slots(A, f0 & A->fin[0], f1 & A->fin[1], NULL) == A->n_slots) break; \
    }

/* LOOP over the ids of t's code points (i: the position), one branch per kind */
#define CS_SA_BY_KIND(LOOP)                                                       \
    if (t->kind == 1) {                                                           \
        const uint8_t *p = (const uint8_t *)t->data;                              \
        const uint32_t *t0 = m->page0;                                            \
        LOOP(t0[p[i]])                                                            \
    } else if (t->kind == 2) {                                                    \
        const uint16_t *p = (const uint16_t *)t->data;                            \
        LOOP(cs_lookup_bmp(m, p[i]))                                              \
    } else {                                                                      \
        const uint32_t *p = (const uint32_t *)t->data;                            \
        LOOP(cs_lookup(m, p[i]))                                                  \
    }

#ifdef CS_SA_SSE2
/*
 * Most characters of an answer are in no option (3-8% are, on the demo
 * rules), and such a character clears D. So compare each block of 16 (kind 1)
 * or 8 (kind 2) characters with the alphabet at once, and run the update only
 * at the positions that match, clearing D across every gap. The last block
 * overlaps the one before (n >= LANES) and skips the lanes already done. *d
 * and *f carry the state: on entry as after the character before p[0], on
 * return as after p[n - 1].
 */
/* The update at position c (character ch) when the prefilter skipped to it: a
 * gap since *prev, the last position updated, means characters in no option
 * cleared the state (d0, d1; f0, f1 collect the prefixes found). */
CS_INLINE void cs_sa_at(const cs_sa *A, uint32_t ch, Py_ssize_t c, Py_ssize_t *prev,
                        uint64_t *d0, uint64_t *d1, uint64_t *f0, uint64_t *f1)
{
    uint32_t id = cs_lookup_bmp(&A->map, ch);
    if (c != *prev + 1) { *d0 = 0; *d1 = 0; }
    *prev = c;
    if (A->words == 1) {
        *d0 = ((*d0 << 1) | A->start[0]) & A->B[id];
        *f0 |= *d0;
    } else {
        const uint64_t *b = A->B + 2 * (size_t)id;
        *d1 = ((*d1 << 1) | (*d0 >> 63) | A->start[1]) & b[1];
        *d0 = ((*d0 << 1) | A->start[0]) & b[0];
        *f0 |= *d0; *f1 |= *d1;
    }
}

#define CS_SA_SPARSE(NAME, CT, LANES, SET1, CMPEQ, MASKBITS, STEP, K, ARR)             \
static void NAME(const cs_sa *A, const CT *p, Py_ssize_t n, uint64_t *d, uint64_t *f) \
{                                                                                      \
    const int na = K;  /* the alphabet, padded to K with repeats of its first entry */ \
    __m128i av[CS_SA_VMAX];                                                            \
    uint64_t d0 = d[0], d1 = d[1], f0 = f[0], f1 = f[1];                               \
    Py_ssize_t i, prev = -1;  /* the last position updated (-1: the one before p) */   \
    int j;                                                                             \
    for (j = 0; j < na; j++) av[j] = SET1(A->ARR[j]);                                  \
    for (i = 0; i < n; i += LANES) {                                                   \
        Py_ssize_t base = i < n - LANES ? i : n - LANES;  /* the last block overlaps */ \
        __m128i v = _mm_loadu_si128((const __m128i *)(p + base)), hitv = _mm_setzero_si128(); \
        unsigned bits;                                                                 \
        for (j = 0; j < na; j++) hitv = _mm_or_si128(hitv, CMPEQ(v, av[j]));           \
        bits = (unsigned)_mm_movemask_epi8(hitv) & (MASKBITS << ((i - base) * STEP));  \
        while (bits) {  /* only the positions whose character is in an option */       \
            Py_ssize_t c = base + (Py_ssize_t)(cs_ctz32(bits) / STEP);            \
            bits &= bits - 1;                                                          \
            cs_sa_at(A, p[c], c, &prev, &d0, &d1, &f0, &f1);                           \
        }                                                                              \
    }                                                                                  \
    if (prev != n - 1) { d0 = 0; d1 = 0; }                                             \
    d[0] = d0; d[1] = d1; f[0] = f0; f[1] = f1;                                        \
}
#define CS_SA_SPARSE_K(K)                                                                     \
    CS_SA_SPARSE(cs_sa_sparse1_##K, uint8_t, 16, CS_SA_SET1_8, _mm_cmpeq_epi8, 0xFFFFu, 1, K, alpha1) \
    CS_SA_SPARSE(cs_sa_sparse2_##K, uint16_t, 8, CS_SA_SET1_16, _mm_cmpeq_epi16, 0x5555u, 2, K, alpha)
CS_SA_SPARSE_K(2)
CS_SA_SPARSE_K(4)
CS_SA_SPARSE_K(8)
#undef CS_SA_SPARSE_K
#undef CS_SA_SPARSE

typedef void (*cs_sa_sparse_fn)(const cs_sa *, const void *, Py_ssize_t, uint64_t *, uint64_t *);

/* the sparse scan for a text kind (1 or 2), or NULL: none fits its alphabet */
static cs_sa_sparse_fn cs_sa_pick(int kind, int na)
{
#define CS_PICK(K) (kind == 1 ? (cs_sa_sparse_fn)cs_sa_sparse1_##K : (cs_sa_sparse_fn)cs_sa_sparse2_##K)
    if (na < 1) return NULL;
    if (na <= 2) return CS_PICK(2);
    if (na <= 4) return CS_PICK(4);
    if (na <= 8 && na <= CS_SA_VMAX_FAST) return CS_PICK(8);
    return NULL;
#undef CS_PICK
}
#endif

#if defined(CS_SA_SSE2) && defined(CS_CAN_AVX2)
#  include <immintrin.h>
#  define CS_SA_NIBBLES 1
/*
 * A prefilter for kind 2 text whatever the alphabet's size, in the manner of
 * Hyperscan's "shufti": the alphabet's BMP characters are spread over 8
 * classes (bits), and each byte of a character looks up the classes its low
 * and high nibbles allow (a 16-entry table per nibble, one vpshufb each). A
 * character of the alphabet always passes; others rarely do, and any that
 * pass are only candidates: their mask (0 for a character in no option)
 * decides. 16 characters per step; the update then runs at the candidates
 * only, exactly as in CS_SA_SPARSE. Needs AVX2 (asked once, at run time:
 * cs_cpu_has_avx2).
 */
CS_TARGET_AVX2
static void cs_sa_nibbles2(const cs_sa *A, const uint16_t *p, Py_ssize_t n, uint64_t *d, uint64_t *f)
{
    const __m256i t0 = _mm256_loadu_si256((const __m256i *)A->nib[0]);
    const __m256i t1 = _mm256_loadu_si256((const __m256i *)A->nib[1]);
    const __m256i t2 = _mm256_loadu_si256((const __m256i *)A->nib[2]);
    const __m256i t3 = _mm256_loadu_si256((const __m256i *)A->nib[3]);
    const __m256i low4 = _mm256_set1_epi8(0x0F), low8 = _mm256_set1_epi16(0x00FF), zero = _mm256_setzero_si256();
    uint64_t d0 = d[0], d1 = d[1], f0 = f[0], f1 = f[1];
    Py_ssize_t i, prev = -1;  /* the last position updated (-1: the one before p) */
    for (i = 0; i < n; i += 16) {
        Py_ssize_t base = i < n - 16 ? i : n - 16;  /* the last block overlaps */
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + base));
        __m256i lo = _mm256_and_si256(v, low8), hi = _mm256_srli_epi16(v, 8);
        __m256i cl = _mm256_and_si256(_mm256_shuffle_epi8(t0, _mm256_and_si256(lo, low4)),
                                      _mm256_shuffle_epi8(t1, _mm256_srli_epi16(lo, 4)));
        __m256i ch = _mm256_and_si256(_mm256_shuffle_epi8(t2, _mm256_and_si256(hi, low4)),
                                      _mm256_shuffle_epi8(t3, _mm256_srli_epi16(hi, 4)));
        __m256i none = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_and_si256(cl, ch), low8), zero);
        uint32_t bits = ~(uint32_t)_mm256_movemask_epi8(none) & 0x55555555u & (0xFFFFFFFFu << ((i - base) * 2));
        while (bits) {
            Py_ssize_t c = base + (Py_ssize_t)(cs_ctz32(bits) >> 1);
            bits &= bits - 1;
            cs_sa_at(A, p[c], c, &prev, &d0, &d1, &f0, &f1);
        }
    }
    if (prev != n - 1) { d0 = 0; d1 = 0; }
    d[0] = d0; d[1] = d1; f[0] = f0; f[1] = f1;
}
#endif

/* Use cs_sa_nibbles2 for kind 2 text when the CPU has AVX2 and the compare
 * prefilter would test more than CS_SA_NIBBLES_MIN characters (or none):
 * cps[0 .. n - 1] are the alphabet's code points (any order). */
#define CS_SA_NIBBLES_MIN 4
#define CS_SA_NIBBLES_MAX 128   /* option characters: <= 128 (the state's bits) */
void cs_sa_nibbles(cs_sa *A, const uint32_t *cps, Py_ssize_t n)
{
#ifdef CS_SA_NIBBLES
    uint32_t bmp[CS_SA_NIBBLES_MAX];
    Py_ssize_t k, nb = 0;
    int lane;
    if (A->sparse2 && A->n_alpha2 <= CS_SA_NIBBLES_MIN) return;
    if (!cs_cpu_has_avx2()) return;
    for (k = 0; k < n; k++)
        if (cps[k] < 0x10000u && nb < CS_SA_NIBBLES_MAX) bmp[nb++] = cps[k];
    if (nb == 0) return;  /* no BMP character: cs_sa_scan returns early for kind 2 */
    /* sorted, so that neighbours (often sharing their high byte) share a class */
    for (k = 1; k < nb; k++) {
        uint32_t c = bmp[k];
        Py_ssize_t j = k;
        while (j > 0 && bmp[j - 1] > c) { bmp[j] = bmp[j - 1]; j--; }
        bmp[j] = c;
    }
    memset(A->nib, 0, sizeof(A->nib));
    for (k = 0; k < nb; k++) {
        uint8_t bit = (uint8_t)(1u << (k * 8 / nb)), lo = (uint8_t)(bmp[k] & 0xFF), hi = (uint8_t)(bmp[k] >> 8);
        for (lane = 0; lane < 32; lane += 16) {
            A->nib[0][lane + (lo & 15)] |= bit;
            A->nib[1][lane + (lo >> 4)] |= bit;
            A->nib[2][lane + (hi & 15)] |= bit;
            A->nib[3][lane + (hi >> 4)] |= bit;
        }
    }
    A->sparse2 = (void *)cs_sa_nibbles2;
    A->sparse2_min = 16;
#else
    (void)A; (void)cps; (void)n;
#endif
}

/* Fill the prefilter from alpha[0 .. n_alpha2 - 1] (n_alpha1 of them < 0x100
 * first); n_alpha1 / n_alpha2 = -1: too many for the prefilter. */
void cs_sa_prefilter(cs_sa *A)
{
#ifdef CS_SA_SSE2
    int j, m = A->n_alpha2 > 0 ? A->n_alpha2 : 0;
    uint16_t first = A->alpha[0];
    A->sparse1 = A->n_alpha1 > 0 ? (void *)cs_sa_pick(1, A->n_alpha1) : NULL;
    A->sparse2 = A->n_alpha2 > 0 ? (void *)cs_sa_pick(2, A->n_alpha2) : NULL;
    A->sparse2_min = 8;
    for (j = 0; j < CS_SA_VMAX; j++)   /* kind 1: the code points < 0x100, padded */
        A->alpha1[j] = (uint8_t)(A->n_alpha1 > 0 ? A->alpha[j < A->n_alpha1 ? j : 0] : 0);
    for (j = m; j < CS_SA_VMAX; j++) A->alpha[j] = first;
#else
    A->sparse1 = A->sparse2 = NULL;
#endif
}

/* Mark hit[slot] = 1 (hit may be NULL) for every slot with an option found
 * in t; returns the number of slots hit. */
Py_ssize_t cs_sa_scan(const cs_sa *A, const cs_text *t, unsigned char *hit)
{
    Py_ssize_t i, n = t->n;
    const uint64_t *B = A->B;
    const cs_cpmap *m = &A->map;
    uint64_t d0 = 0, d1 = 0, f0 = 0, f1 = 0, s0 = A->start[0], s1 = A->start[1];
    if (A->n_slots == 0) return 0;
#ifdef CS_SA_SSE2
    if ((t->kind == 1 && A->n_alpha1 == 0) || (t->kind == 2 && A->n_alpha2 == 0))
        return 0;   /* no character of t can be in an option */
    if ((t->kind == 1 && A->sparse1 && n >= 16) || (t->kind == 2 && A->sparse2 && n >= A->sparse2_min)) {
        cs_sa_sparse_fn sparse = (cs_sa_sparse_fn)(t->kind == 1 ? A->sparse1 : A->sparse2);
        /* blocks of >= 1024 characters, then check whether every slot is hit */
        Py_ssize_t done = 0;
        uint64_t d[2] = {0, 0}, f[2] = {0, 0};
        while (done < n) {
            Py_ssize_t len = n - done < 2048 ? n - done : 1024;
            sparse(A, (const char *)t->data + done * t->kind, len, d, f);
            done += len;
            if (done < n && cs_sa_slots(A, f[0] & A->fin[0], f[1] & A->fin[1], NULL) == A->n_slots)
                break;
        }
        return cs_sa_slots(A, f[0] & A->fin[0], f[1] & A->fin[1], hit);
    }
#endif
    if (A->mpages) {   /* one word, masks by code point: one load per character */
        const uint64_t *mp = A->mpages;
        const uint16_t *po = m->page_of;
#define CS_SA_MASK(c) mp[((uint32_t)po[(c) >> 8] << 8) | ((c) & 0xFFu)]
#define CS_SA_M1(k) mp0[p[k]]
#define CS_SA_M2(k) CS_SA_MASK(p[k])
#define CS_SA_M4(k) (p[k] < 0x10000u ? CS_SA_MASK(p[k]) : B[cs_lookup(m, p[k])])
        if (t->kind == 1) {
            const uint8_t *p = (const uint8_t *)t->data;
            const uint64_t *mp0 = mp + ((size_t)po[0] << 8);
            CS_SA_LOOP1M(CS_SA_M1)
        } else if (t->kind == 2) {
            const uint16_t *p = (const uint16_t *)t->data;
            CS_SA_LOOP1M(CS_SA_M2)
        } else {
            const uint32_t *p = (const uint32_t *)t->data;
            CS_SA_LOOP1M(CS_SA_M4)
        }
#undef CS_SA_M1
#undef CS_SA_M2
#undef CS_SA_M4
#undef CS_SA_MASK
    } else if (A->words == 1) {
        CS_SA_BY_KIND(CS_SA_LOOP1)
    } else {
        CS_SA_BY_KIND(CS_SA_LOOP2)
    }
    return cs_sa_slots(A, f0 & A->fin[0], f1 & A->fin[1], hit);
}
#undef CS_SA_BY_KIND
#undef CS_SA_LOOP1
#undef CS_SA_LOOP1M
#undef CS_SA_LOOP2

