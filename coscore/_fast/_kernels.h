/*
 * coscore matching kernels: plain C over the code points of Python str objects.
 *
 * Included by lcs.pyx (OP), jaccard.pyx (CS) and substring.pyx (SM). Every
 * function here runs without the GIL: it only reads the (immutable) character
 * buffer of a str and the scorer tables built once in __init__. Per-call state
 * lives on the stack or in memory allocated by the call, so one scorer can be
 * used from several threads at once.
 *
 * Contents:
 *   cs_cpmap  code point -> small id (two-level table for the BMP, sorted
 *             array for astral code points)
 *   cs_lcs    bit-parallel LCS (Hyyro): keys of <= 64 code points packed into
 *             8/16/32/64-bit lanes of 32-byte vectors (GCC/Clang vector
 *             extensions), longer keys as carry-propagating multi-word vectors
 *   cs_jac    multiset Jaccard over alphabet ids (per-key counts transposed
 *             into 16-bit lanes: one vector min/add per distinct answer token)
 *   cs_sa     bit-parallel Shift-And over all plain SM options at once (total
 *             length <= 128), with an SSE2 prefilter that skips blocks of text
 *             holding no option character (small alphabets)
 *   cs_ac     Aho-Corasick automaton over alphabet ids (plain SM options that
 *             do not fit Shift-And)
 *   cs_texts_plain / cs_prefetch_ahead  reading a batch of str objects
 *             without the GIL (exact, ready str only; the caller keeps them alive)
 */
#ifndef COSCORE_FAST_KERNELS_H
#define COSCORE_FAST_KERNELS_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define CS_INLINE static inline __attribute__((always_inline))
#  define CS_NOINLINE static __attribute__((noinline))
#  define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#  define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  ifndef COSCORE_NO_VEC   /* -DCOSCORE_NO_VEC: the portable scalar paths only */
#    define CS_HAVE_VEC 1
#  endif
#  define CS_UNUSED __attribute__((unused))
#  if defined(__GNUC__) && !defined(__clang__)
     /* 32-byte vectors only live inside always-inline helpers: no ABI concern */
#    pragma GCC diagnostic ignored "-Wpsabi"
#  endif
#elif defined(_MSC_VER)
#  define CS_INLINE static __forceinline
#  define CS_NOINLINE static __declspec(noinline)
#  define CS_LIKELY(x) (x)
#  define CS_UNLIKELY(x) (x)
#else
#  define CS_INLINE static inline
#  define CS_NOINLINE static
#  define CS_LIKELY(x) (x)
#  define CS_UNLIKELY(x) (x)
#endif
#ifndef CS_UNUSED
#  define CS_UNUSED
#endif

/* PyUnicode_READY is a deprecated no-op since Python 3.12 */
#if PY_VERSION_HEX >= 0x030C0000
#  define CS_UNICODE_READY(o) 0
#else
#  define CS_UNICODE_READY(o) PyUnicode_READY(o)
#endif

/* Runtime dispatch to an AVX2 clone of the hot LCS loop (glibc ifunc). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) \
    && defined(__GLIBC__) && !defined(COSCORE_NO_CLONES)
#  define CS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#  define CS_CLONES
#endif

#define CS_CHUNK 256            /* ids translated per round */

/* ------------------------------------------------------------------------ */
/* aligned allocation (64 bytes), portable                                   */
/* ------------------------------------------------------------------------ */
CS_UNUSED static void *cs_aligned_calloc(size_t size)
{
    unsigned char *raw = (unsigned char *)calloc(1, size + 64 + sizeof(void *));
    unsigned char *p;
    if (!raw) return NULL;
    p = (unsigned char *)(((uintptr_t)(raw + sizeof(void *)) + 63) & ~(uintptr_t)63);
    ((void **)p)[-1] = raw;
    return p;
}

CS_UNUSED static void cs_aligned_free(void *p)
{
    if (p) free(((void **)p)[-1]);
}

/* ------------------------------------------------------------------------ */
/* reading a str                                                             */
/* ------------------------------------------------------------------------ */
typedef struct {
    int kind;               /* 1, 2 or 4 */
    const void *data;
    Py_ssize_t n;
} cs_text;

/* ------------------------------------------------------------------------ */
/* code point -> id                                                          */
/* ------------------------------------------------------------------------ */
typedef struct {
    uint16_t page_of[256];   /* BMP high byte -> page number (0: all-zero page) */
    uint32_t *pages;         /* npages * 256 ids */
    const uint32_t *page0;   /* ids of U+0000..U+00FF */
    Py_ssize_t npages;
    Py_ssize_t n_astral;
    uint32_t *astral_cp;     /* sorted ascending */
    uint32_t *astral_id;
} cs_cpmap;

CS_UNUSED static uint32_t cs_astral_lookup(const cs_cpmap *m, uint32_t c)
{
    Py_ssize_t lo = 0, hi = m->n_astral;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        if (m->astral_cp[mid] < c) lo = mid + 1; else hi = mid;
    }
    return (lo < m->n_astral && m->astral_cp[lo] == c) ? m->astral_id[lo] : 0;
}

CS_INLINE uint32_t cs_lookup_bmp(const cs_cpmap *m, uint32_t c)
{
    return m->pages[((uint32_t)m->page_of[c >> 8] << 8) | (c & 0xFFu)];
}

CS_INLINE uint32_t cs_lookup(const cs_cpmap *m, uint32_t c)
{
    if (CS_LIKELY(c < 0x10000u)) return cs_lookup_bmp(m, c);
    return m->n_astral ? cs_astral_lookup(m, c) : 0;
}

CS_UNUSED static void cs_cpmap_free(cs_cpmap *m)
{
    free(m->pages); free(m->astral_cp); free(m->astral_id);
    m->pages = NULL; m->astral_cp = NULL; m->astral_id = NULL;
    m->page0 = NULL; m->npages = 0; m->n_astral = 0;
}

typedef struct { uint32_t cp, id; } cs_pair;

CS_UNUSED static int cs_pair_cmp(const void *a, const void *b)
{
    uint32_t x = ((const cs_pair *)a)->cp, y = ((const cs_pair *)b)->cp;
    return (x > y) - (x < y);
}

/* Build from n (code point, id) pairs, ids != 0, code points distinct and
 * < 0x110000. Returns 0, or -1 when out of memory. */
CS_UNUSED static int cs_cpmap_build(cs_cpmap *m, const uint32_t *cps, const uint32_t *ids, Py_ssize_t n)
{
    Py_ssize_t i, na = 0, np = 1;
    cs_pair *tmp = NULL;
    memset(m, 0, sizeof(*m));
    for (i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (c >= 0x10000u) { na++; continue; }
        if (m->page_of[c >> 8] == 0) m->page_of[c >> 8] = (uint16_t)np++;
    }
    m->npages = np;
    m->pages = (uint32_t *)calloc((size_t)np * 256, sizeof(uint32_t));
    if (!m->pages) goto fail;
    for (i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (c < 0x10000u) m->pages[((uint32_t)m->page_of[c >> 8] << 8) | (c & 0xFFu)] = ids[i];
    }
    m->page0 = m->pages + ((size_t)m->page_of[0] << 8);
    if (na) {
        Py_ssize_t j = 0;
        tmp = (cs_pair *)malloc((size_t)na * sizeof(cs_pair));
        m->astral_cp = (uint32_t *)malloc((size_t)na * sizeof(uint32_t));
        m->astral_id = (uint32_t *)malloc((size_t)na * sizeof(uint32_t));
        if (!tmp || !m->astral_cp || !m->astral_id) goto fail;
        for (i = 0; i < n; i++)
            if (cps[i] >= 0x10000u) { tmp[j].cp = cps[i]; tmp[j].id = ids[i]; j++; }
        qsort(tmp, (size_t)na, sizeof(cs_pair), cs_pair_cmp);
        for (i = 0; i < na; i++) { m->astral_cp[i] = tmp[i].cp; m->astral_id[i] = tmp[i].id; }
        m->n_astral = na;
        free(tmp);
    }
    return 0;
fail:
    free(tmp);
    cs_cpmap_free(m);
    return -1;
}

/* Translate text[*pos ...] into ids, dropping id 0, until out holds CS_CHUNK
 * ids or the text ends. out needs CS_CHUNK + 1 slots. Returns the count. */
CS_INLINE Py_ssize_t cs_fill_kind(const cs_cpmap *m, int kind, const void *data, Py_ssize_t n,
                                  Py_ssize_t *pos, uint32_t *out)
{
    Py_ssize_t i = *pos, k = 0;
    if (kind == 1) {
        const uint8_t *p = (const uint8_t *)data;
        const uint32_t *t0 = m->page0;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = t0[p[i]]; out[k] = id; k += (id != 0); }
    } else if (kind == 2) {
        const uint16_t *p = (const uint16_t *)data;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = cs_lookup_bmp(m, p[i]); out[k] = id; k += (id != 0); }
    } else {
        const uint32_t *p = (const uint32_t *)data;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = cs_lookup(m, p[i]); out[k] = id; k += (id != 0); }
    }
    *pos = i;
    return k;
}

CS_UNUSED static Py_ssize_t cs_fill(const cs_cpmap *m, const cs_text *t, Py_ssize_t *pos, uint32_t *out)
{
    switch (t->kind) {
    case 1: return cs_fill_kind(m, 1, t->data, t->n, pos, out);
    case 2: return cs_fill_kind(m, 2, t->data, t->n, pos, out);
    default: return cs_fill_kind(m, 4, t->data, t->n, pos, out);
    }
}

/* ======================================================================== */
/* OP: bit-parallel LCS                                                     */
/* ======================================================================== */
/*
 * For a key k of m code points and a character with match mask M (bit i set
 * iff k[i] is that character), Hyyro's update is
 *     U = S & M;  S = (S + U) | (S - U)
 * with S starting as all ones; LCS(k, s) = number of zero bits of S among the
 * low m bits. Carries only move upwards, so a key of m <= w code points can
 * live in a w-bit lane whose addition wraps (the bits above m are garbage that
 * never reaches the low m bits). Lane classes: w = 8, 16, 32, 64, each packed
 * into 32-byte vectors. S - U never borrows (U is a subset of S).
 */
#define CS_VBYTES 32
#define CS_NCLASS 4
static const int cs_lane_bits[CS_NCLASS] = {8, 16, 32, 64};

#ifdef CS_HAVE_VEC
typedef uint8_t  cs_v8  __attribute__((vector_size(CS_VBYTES)));
typedef uint16_t cs_v16 __attribute__((vector_size(CS_VBYTES)));
typedef uint32_t cs_v32 __attribute__((vector_size(CS_VBYTES)));
typedef uint64_t cs_v64 __attribute__((vector_size(CS_VBYTES)));
typedef int16_t  cs_vs16 __attribute__((vector_size(CS_VBYTES)));  /* signed: SSE2 min */
#endif

typedef struct {
    Py_ssize_t n_vec;        /* 32-byte vectors in this class */
    unsigned char *pm;       /* (n_ids + 1) * n_vec vectors; row 0 is zero */
    Py_ssize_t *lane_key;    /* n_vec * lanes: key index, -1 for an unused lane */
    uint16_t *lane_base;     /* n_vec * lanes: key length * 65 (row of cs_rank_tab), 0 unused */
    unsigned char *lenmask;  /* n_vec vectors: the low (key length) bits of each lane */
    unsigned char *rmul;     /* 8/16-bit classes: 16-bit lanes of 4096 / key length (floor);
                              * the 8-bit class has 2 per vector (even, odd byte lanes) */
} cs_lane_class;

/*
 * Ranks of the fractions a/b (0 <= a <= b <= 64) in increasing order of value,
 * so that the best LCS/len of the lanes is an integer max:
 * cs_rank_tab[b * 65 + a] = rank of a/b (row b = 0 is all 0), and
 * cs_rank_num/den[rank] a fraction of that value.
 */
#define CS_RMAX 64
#define CS_RMAXF 2048
static uint16_t cs_rank_tab[(CS_RMAX + 1) * (CS_RMAX + 1)];
static uint32_t cs_rank_num[CS_RMAXF], cs_rank_den[CS_RMAXF];
static int cs_rank_ready = 0;

/*
 * Keys of <= 16 code points: a/b (a <= b <= 16) scaled to a * floor(4096 / b).
 * The scaling error is < a <= 16 while distinct fractions are >= 4096/240 > 17
 * apart, so the scaled values order the fractions exactly (equal fractions may
 * scale differently, but to entries of the same value): the best lane is one
 * vector max, and cs_sc_num/den[max] gives its fraction back.
 */
#define CS_SCALE 4096
static uint8_t cs_sc_num[CS_SCALE + 1], cs_sc_den[CS_SCALE + 1];
/* the same fractions as doubles, divided once here (IEEE division is correctly
 * rounded, so a table entry is bit for bit the quotient computed later) */
static double cs_sc_val[CS_SCALE + 1], cs_rank_val[CS_RMAXF];
static int cs_sc_ok = 0;

CS_UNUSED static int cs_frac_cmp(const void *x, const void *y)
{
    const uint32_t *p = (const uint32_t *)x, *q = (const uint32_t *)y;
    uint64_t l = (uint64_t)p[0] * q[1], r = (uint64_t)q[0] * p[1];
    return (l > r) - (l < r);
}

CS_UNUSED static void cs_rank_init(void)
{
    uint32_t fr[CS_RMAXF][2];
    uint32_t a, b, n = 0, i, r;
    if (cs_rank_ready) return;
    for (b = 1; b <= CS_RMAX; b++)
        for (a = 0; a <= b; a++) {
            uint32_t x = a, y = b;
            while (y) { uint32_t t = x % y; x = y; y = t; }   /* x = gcd(a, b) */
            if (x == 1 || (a == 0 && b == 1)) { fr[n][0] = a; fr[n][1] = b; n++; }
        }
    qsort(fr, n, sizeof(fr[0]), cs_frac_cmp);
    for (i = 0; i < n; i++) {
        cs_rank_num[i] = fr[i][0]; cs_rank_den[i] = fr[i][1];
        cs_rank_val[i] = (double)fr[i][0] / (double)fr[i][1];
    }
    memset(cs_rank_tab, 0, sizeof(cs_rank_tab));
    for (b = 1; b <= CS_RMAX; b++)
        for (a = 0; a <= b; a++) {
            /* binary search a/b among the sorted reduced fractions */
            uint32_t lo = 0, hi = n, key[2];
            key[0] = a; key[1] = b;
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (cs_frac_cmp(fr[mid], key) < 0) lo = mid + 1; else hi = mid;
            }
            r = lo;
            cs_rank_tab[b * (CS_RMAX + 1) + a] = (uint16_t)r;
        }
    cs_sc_ok = 1;
    memset(cs_sc_den, 0, sizeof(cs_sc_den));
    cs_sc_num[0] = 0; cs_sc_den[0] = 1;
    for (b = 1; b <= 16; b++)
        for (a = 1; a <= b; a++) {
            uint32_t m = a * (CS_SCALE / b);
            if (m > CS_SCALE) continue;   /* never (a <= b) */
            if (cs_sc_den[m] && (uint64_t)cs_sc_num[m] * b != (uint64_t)a * cs_sc_den[m])
                cs_sc_ok = 0;   /* cannot happen (see above); then use the ranks */
            cs_sc_num[m] = (uint8_t)a; cs_sc_den[m] = (uint8_t)b;
        }
    for (a = 0; a <= CS_SCALE; a++)
        cs_sc_val[a] = cs_sc_den[a] ? (double)cs_sc_num[a] / (double)cs_sc_den[a] : 0.0;
    cs_rank_ready = 1;
}

typedef struct {
    cs_cpmap map;            /* code point -> id in 1..n_ids; 0 = in no key */
    uint32_t n_ids;
    Py_ssize_t n_keys;
    Py_ssize_t *key_len;     /* code points per key */
    cs_lane_class cls[CS_NCLASS];
    Py_ssize_t vec_bytes;    /* total state bytes of all lane classes */
    /* keys longer than 64 code points (or all keys without vector support) */
    Py_ssize_t n_long;
    Py_ssize_t *long_key;    /* key index */
    Py_ssize_t *long_nw;     /* 64-bit words */
    Py_ssize_t *long_pm;     /* offset of the key's row 0 in pm_long (row = nw words) */
    Py_ssize_t *long_st;     /* offset of the key's state in the word state */
    uint64_t *pm_long;
    Py_ssize_t long_words;   /* total state words */
    /* a long key whose dense rows would be too big ((n_ids + 1) * nw words):
     * per 64-code-point block, its sorted (id, mask) pairs */
    Py_ssize_t *long_blk;    /* -1 (dense) or the key's first block in sp_off */
    Py_ssize_t *sp_off;      /* block b's pairs: sp_off[b] .. sp_off[b + 1] */
    uint32_t *sp_id;
    uint64_t *sp_mask;
} cs_lcs;

/* dense rows of one long key above this many bytes use the sparse blocks */
static Py_ssize_t cs_dense_limit = (Py_ssize_t)8 << 20;

CS_UNUSED static void cs_lcs_free(cs_lcs *L)
{
    int c;
    cs_cpmap_free(&L->map);
    free(L->key_len); L->key_len = NULL;
    for (c = 0; c < CS_NCLASS; c++) {
        cs_aligned_free(L->cls[c].pm); L->cls[c].pm = NULL;
        free(L->cls[c].lane_key); L->cls[c].lane_key = NULL;
        free(L->cls[c].lane_base); L->cls[c].lane_base = NULL;
        cs_aligned_free(L->cls[c].lenmask); L->cls[c].lenmask = NULL;
        cs_aligned_free(L->cls[c].rmul); L->cls[c].rmul = NULL;
        L->cls[c].n_vec = 0;
    }
    free(L->long_key); free(L->long_nw); free(L->long_pm); free(L->long_st); free(L->long_blk);
    L->long_key = L->long_nw = L->long_pm = L->long_st = L->long_blk = NULL;
    free(L->sp_off); free(L->sp_id); free(L->sp_mask);
    L->sp_off = NULL; L->sp_id = NULL; L->sp_mask = NULL;
    free(L->pm_long); L->pm_long = NULL;
    L->n_long = 0; L->long_words = 0; L->n_keys = 0;
}

CS_UNUSED static int cs_lcs_class_of(Py_ssize_t len)
{
#ifdef CS_HAVE_VEC
    if (len <= 8) return 0;
    if (len <= 16) return 1;
    if (len <= 32) return 2;
    if (len <= 64) return 3;
#endif
    (void)len;
    return -1;
}

/*
 * Build the tables. key_off[n_keys + 1] delimits each key's ids (1..n_ids) in
 * key_ids. The map must already be built (it is moved into L on success and
 * on failure freed). Returns 0 or -1 (out of memory).
 */
CS_UNUSED static int cs_lcs_build(cs_lcs *L, cs_cpmap *map, uint32_t n_ids, Py_ssize_t n_keys,
                        const Py_ssize_t *key_off, const uint32_t *key_ids)
{
    Py_ssize_t k, i, cnt[CS_NCLASS] = {0, 0, 0, 0};
    int *cls_of = NULL;
    int c;
    cs_rank_init();
    memset(L, 0, sizeof(*L));
    L->map = *map;
    memset(map, 0, sizeof(*map));
    L->n_ids = n_ids;
    L->n_keys = n_keys;
    L->key_len = (Py_ssize_t *)malloc((size_t)(n_keys + 1) * sizeof(Py_ssize_t));
    cls_of = (int *)malloc((size_t)(n_keys + 1) * sizeof(int));
    if (!L->key_len || !cls_of) goto fail;
    for (k = 0; k < n_keys; k++) {
        Py_ssize_t len = key_off[k + 1] - key_off[k];
        L->key_len[k] = len;
        cls_of[k] = len == 0 ? -2 : cs_lcs_class_of(len);
        if (cls_of[k] >= 0) cnt[cls_of[k]]++;
        else if (cls_of[k] == -1) L->n_long++;
    }
    /* Move a class's partial last vector into the next wider class when that
     * costs no extra vector there (fewer vectors to update per character). */
    for (c = 0; c + 1 < CS_NCLASS; c++) {
        Py_ssize_t lanes = CS_VBYTES * 8 / cs_lane_bits[c];
        Py_ssize_t lanes2 = lanes / 2, r = cnt[c] % lanes;
        if (r == 0) continue;
        if ((cnt[c + 1] + r + lanes2 - 1) / lanes2 == (cnt[c + 1] + lanes2 - 1) / lanes2) {
            /* move the r longest keys of class c (any r keys will do) */
            Py_ssize_t moved = 0;
            for (k = n_keys - 1; k >= 0 && moved < r; k--)
                if (cls_of[k] == c) { cls_of[k] = c + 1; moved++; }
            cnt[c] -= r; cnt[c + 1] += r;
        }
    }
    for (c = 0; c < CS_NCLASS; c++) {
        cs_lane_class *C = &L->cls[c];
        int bits = cs_lane_bits[c];
        Py_ssize_t lanes = CS_VBYTES * 8 / bits, slot = 0;
        if (!cnt[c]) continue;
        C->n_vec = (cnt[c] + lanes - 1) / lanes;
        C->pm = (unsigned char *)cs_aligned_calloc((size_t)(n_ids + 1) * C->n_vec * CS_VBYTES);
        C->lane_key = (Py_ssize_t *)malloc((size_t)(C->n_vec * lanes) * sizeof(Py_ssize_t));
        C->lane_base = (uint16_t *)calloc((size_t)(C->n_vec * lanes), sizeof(uint16_t));
        C->lenmask = (unsigned char *)cs_aligned_calloc((size_t)C->n_vec * CS_VBYTES);
        C->rmul = (unsigned char *)cs_aligned_calloc((size_t)C->n_vec * 2 * CS_VBYTES);
        if (!C->pm || !C->lane_key || !C->lane_base || !C->lenmask || !C->rmul) goto fail;
        for (i = 0; i < C->n_vec * lanes; i++) C->lane_key[i] = -1;
        for (k = 0; k < n_keys; k++) {
            Py_ssize_t g, lane;
            if (cls_of[k] != c) continue;
            g = slot / lanes; lane = slot % lanes; slot++;
            C->lane_key[slot - 1] = k;
            C->lane_base[slot - 1] = (uint16_t)(L->key_len[k] * (CS_RMAX + 1));
            {
                unsigned char *mv = C->lenmask + (size_t)g * CS_VBYTES;
                uint64_t mask = L->key_len[k] >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << L->key_len[k]) - 1);
                switch (bits) {
                case 8:  ((uint8_t *)mv)[lane]  = (uint8_t)mask; break;
                case 16: ((uint16_t *)mv)[lane] = (uint16_t)mask; break;
                case 32: ((uint32_t *)mv)[lane] = (uint32_t)mask; break;
                default: ((uint64_t *)mv)[lane] = mask; break;
                }
                if (bits == 16) {
                    ((uint16_t *)(C->rmul + (size_t)g * CS_VBYTES))[lane] = (uint16_t)(CS_SCALE / L->key_len[k]);
                } else if (bits == 8) {
                    /* byte lane 2i / 2i+1 is the low / high byte of 16-bit lane i */
                    int hi = (int)(lane & 1);
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                    hi = !hi;
#endif
                    ((uint16_t *)(C->rmul + (size_t)(2 * g + hi) * CS_VBYTES))[lane / 2]
                        = (uint16_t)(CS_SCALE / L->key_len[k]);
                }
            }
            for (i = key_off[k]; i < key_off[k + 1]; i++) {
                uint32_t id = key_ids[i];
                unsigned char *vec = C->pm + ((size_t)id * C->n_vec + g) * CS_VBYTES;
                Py_ssize_t bit = i - key_off[k];
                switch (bits) {
                case 8:  ((uint8_t *)vec)[lane]  |= (uint8_t)(1u << bit); break;
                case 16: ((uint16_t *)vec)[lane] |= (uint16_t)(1u << bit); break;
                case 32: ((uint32_t *)vec)[lane] |= (uint32_t)1u << bit; break;
                default: ((uint64_t *)vec)[lane] |= (uint64_t)1u << bit; break;
                }
            }
        }
        L->vec_bytes += C->n_vec * CS_VBYTES;
    }
    if (L->n_long) {
        Py_ssize_t j = 0, pm_words = 0, n_blk = 0, n_pairs = 0, b;
        L->long_key = (Py_ssize_t *)malloc((size_t)L->n_long * sizeof(Py_ssize_t));
        L->long_nw = (Py_ssize_t *)malloc((size_t)L->n_long * sizeof(Py_ssize_t));
        L->long_pm = (Py_ssize_t *)malloc((size_t)L->n_long * sizeof(Py_ssize_t));
        L->long_st = (Py_ssize_t *)malloc((size_t)L->n_long * sizeof(Py_ssize_t));
        L->long_blk = (Py_ssize_t *)malloc((size_t)L->n_long * sizeof(Py_ssize_t));
        if (!L->long_key || !L->long_nw || !L->long_pm || !L->long_st || !L->long_blk) goto fail;
        for (k = 0; k < n_keys; k++) {
            Py_ssize_t nw;
            if (cls_of[k] != -1) continue;
            nw = (L->key_len[k] + 63) / 64;
            L->long_key[j] = k; L->long_nw[j] = nw;
            L->long_st[j] = L->long_words;
            L->long_words += nw;
            if ((double)(n_ids + 1) * nw * 8 <= (double)cs_dense_limit) {
                L->long_pm[j] = pm_words; L->long_blk[j] = -1;
                pm_words += (Py_ssize_t)(n_ids + 1) * nw;
            } else {
                L->long_pm[j] = -1; L->long_blk[j] = n_blk;
                n_blk += nw;
                n_pairs += L->key_len[k];
            }
            j++;
        }
        L->pm_long = (uint64_t *)calloc((size_t)pm_words + 1, sizeof(uint64_t));
        L->sp_off = (Py_ssize_t *)malloc((size_t)(n_blk + 1) * sizeof(Py_ssize_t));
        L->sp_id = (uint32_t *)malloc((size_t)(n_pairs + 1) * sizeof(uint32_t));
        L->sp_mask = (uint64_t *)malloc((size_t)(n_pairs + 1) * sizeof(uint64_t));
        if (!L->pm_long || !L->sp_off || !L->sp_id || !L->sp_mask) goto fail;
        n_pairs = 0;
        for (j = 0; j < L->n_long; j++) {
            k = L->long_key[j];
            if (L->long_blk[j] < 0) {
                for (i = key_off[k]; i < key_off[k + 1]; i++) {
                    Py_ssize_t bit = i - key_off[k];
                    L->pm_long[L->long_pm[j] + (Py_ssize_t)key_ids[i] * L->long_nw[j] + bit / 64]
                        |= (uint64_t)1u << (bit % 64);
                }
                continue;
            }
            for (b = 0; b < L->long_nw[j]; b++) {
                /* the block's code points, sorted by id (insertion sort, <= 64),
                 * equal ids merged */
                Py_ssize_t lo = key_off[k] + b * 64, hi = lo + 64, start = n_pairs, q;
                if (hi > key_off[k + 1]) hi = key_off[k + 1];
                L->sp_off[L->long_blk[j] + b] = start;
                for (i = lo; i < hi; i++) {
                    uint32_t id = key_ids[i];
                    uint64_t bit = (uint64_t)1u << (i - lo);
                    for (q = start; q < n_pairs && L->sp_id[q] < id; q++) ;
                    if (q < n_pairs && L->sp_id[q] == id) { L->sp_mask[q] |= bit; continue; }
                    memmove(L->sp_id + q + 1, L->sp_id + q, (size_t)(n_pairs - q) * sizeof(uint32_t));
                    memmove(L->sp_mask + q + 1, L->sp_mask + q, (size_t)(n_pairs - q) * sizeof(uint64_t));
                    L->sp_id[q] = id; L->sp_mask[q] = bit;
                    n_pairs++;
                }
            }
        }
        L->sp_off[n_blk] = n_pairs;
    }
    free(cls_of);
    return 0;
fail:
    free(cls_of);
    cs_lcs_free(L);
    return -1;
}

CS_UNUSED static Py_ssize_t cs_lcs_state_bytes(const cs_lcs *L)
{
    return L->vec_bytes + L->long_words * (Py_ssize_t)sizeof(uint64_t) + 64;
}

#ifdef CS_HAVE_VEC
/* Run NB (compile-time 1..4) vectors of one class over ids, state in registers. */
#define CS_DEFINE_BLOCK(VT)                                                         \
CS_INLINE void cs_block_##VT(const VT *pm, Py_ssize_t n_vec, Py_ssize_t g, int NB,  \
                             const uint32_t *ids, Py_ssize_t m, VT *S)              \
{                                                                                   \
    VT s0, s1, s2, s3;                                                              \
    Py_ssize_t i;                                                                   \
    s0 = S[g];                                                                      \
    if (NB > 1) s1 = S[g + 1];                                                      \
    if (NB > 2) s2 = S[g + 2];                                                      \
    if (NB > 3) s3 = S[g + 3];                                                      \
    for (i = 0; i < m; i++) {                                                       \
        const VT *row = pm + (size_t)ids[i] * n_vec + g;                            \
        VT u;                                                                       \
        u = s0 & row[0]; s0 = (s0 + u) | (s0 - u);                                 \
        if (NB > 1) { u = s1 & row[1]; s1 = (s1 + u) | (s1 - u); }                  \
        if (NB > 2) { u = s2 & row[2]; s2 = (s2 + u) | (s2 - u); }                  \
        if (NB > 3) { u = s3 & row[3]; s3 = (s3 + u) | (s3 - u); }                  \
    }                                                                               \
    S[g] = s0;                                                                      \
    if (NB > 1) S[g + 1] = s1;                                                      \
    if (NB > 2) S[g + 2] = s2;                                                      \
    if (NB > 3) S[g + 3] = s3;                                                      \
}                                                                                   \
CS_INLINE void cs_class_##VT(const cs_lane_class *C, const uint32_t *ids,           \
                             Py_ssize_t m, VT *S)                                   \
{                                                                                   \
    const VT *pm = (const VT *)C->pm;                                               \
    Py_ssize_t g = 0, nv = C->n_vec;                                                \
    for (; g + 4 <= nv; g += 4) cs_block_##VT(pm, nv, g, 4, ids, m, S);             \
    switch (nv - g) {                                                               \
    case 3: cs_block_##VT(pm, nv, g, 3, ids, m, S); break;                          \
    case 2: cs_block_##VT(pm, nv, g, 2, ids, m, S); break;                          \
    case 1: cs_block_##VT(pm, nv, g, 1, ids, m, S); break;                          \
    default: break;                                                                 \
    }                                                                               \
}
CS_DEFINE_BLOCK(cs_v8)
CS_DEFINE_BLOCK(cs_v16)
CS_DEFINE_BLOCK(cs_v32)
CS_DEFINE_BLOCK(cs_v64)
#endif

CS_INLINE uint64_t cs_sparse_mask(const cs_lcs *L, Py_ssize_t blk, uint32_t id)
{
    Py_ssize_t lo = L->sp_off[blk], hi = L->sp_off[blk + 1];
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        if (L->sp_id[mid] < id) lo = mid + 1; else hi = mid;
    }
    return (lo < L->sp_off[blk + 1] && L->sp_id[lo] == id) ? L->sp_mask[lo] : 0;
}

/* Keys longer than 64 code points: multi-word addition with carry. */
CS_INLINE void cs_long_run(const cs_lcs *L, const uint32_t *ids, Py_ssize_t m, uint64_t *SW)
{
    Py_ssize_t j, i, w;
    for (j = 0; j < L->n_long; j++) {
        Py_ssize_t nw = L->long_nw[j], blk = L->long_blk[j];
        const uint64_t *pm = L->pm_long + (blk < 0 ? L->long_pm[j] : 0);
        uint64_t *S = SW + L->long_st[j];
        if (blk >= 0) {
            for (i = 0; i < m; i++) {
                uint64_t carry = 0;
                for (w = 0; w < nw; w++) {
                    uint64_t s = S[w], u = s & cs_sparse_mask(L, blk + w, ids[i]);
                    uint64_t x = s + carry, c1 = x < carry;
                    uint64_t y = x + u, c2 = y < u;
                    S[w] = y | (s - u);
                    carry = c1 | c2;
                }
            }
        } else if (nw == 1) {
            uint64_t s = S[0];
            for (i = 0; i < m; i++) { uint64_t u = s & pm[ids[i]]; s = (s + u) | (s - u); }
            S[0] = s;
        } else {
            for (i = 0; i < m; i++) {
                const uint64_t *row = pm + (size_t)ids[i] * nw;
                uint64_t carry = 0;
                for (w = 0; w < nw; w++) {
                    uint64_t s = S[w], u = s & row[w];
                    uint64_t x = s + carry, c1 = x < carry;
                    uint64_t y = x + u, c2 = y < u;
                    S[w] = y | (s - u);
                    carry = c1 | c2;
                }
            }
        }
    }
}

/* Process one chunk of ids through every key. state: vector classes (in class
 * order, 32-byte aligned) then the long-key words. */
CS_CLONES CS_NOINLINE void cs_lcs_chunk(const cs_lcs *L, const uint32_t *ids, Py_ssize_t m,
                                        unsigned char *state)
{
#ifdef CS_HAVE_VEC
    unsigned char *p = state;
    if (L->cls[0].n_vec) { cs_class_cs_v8(&L->cls[0], ids, m, (cs_v8 *)p);   p += L->cls[0].n_vec * CS_VBYTES; }
    if (L->cls[1].n_vec) { cs_class_cs_v16(&L->cls[1], ids, m, (cs_v16 *)p); p += L->cls[1].n_vec * CS_VBYTES; }
    if (L->cls[2].n_vec) { cs_class_cs_v32(&L->cls[2], ids, m, (cs_v32 *)p); p += L->cls[2].n_vec * CS_VBYTES; }
    if (L->cls[3].n_vec) { cs_class_cs_v64(&L->cls[3], ids, m, (cs_v64 *)p); p += L->cls[3].n_vec * CS_VBYTES; }
#endif
    if (L->n_long) cs_long_run(L, ids, m, (uint64_t *)(state + L->vec_bytes));
}

/* Run the text through all keys; state must hold cs_lcs_state_bytes, 64-aligned. */
CS_UNUSED static void cs_lcs_run(const cs_lcs *L, const cs_text *t, unsigned char *state)
{
    uint32_t ids[CS_CHUNK + 1];
    Py_ssize_t pos = 0;
    memset(state, 0xFF, (size_t)(L->vec_bytes + L->long_words * (Py_ssize_t)sizeof(uint64_t)));
    while (pos < t->n) {
        Py_ssize_t m = cs_fill(&L->map, t, &pos, ids);
        if (m) cs_lcs_chunk(L, ids, m, state);
    }
}

CS_UNUSED static inline int cs_popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#else
    int c = 0; while (x) { x &= x - 1; c++; } return c;
#endif
}

/* LCS length of every key (out[n_keys]) from a finished state. */
CS_UNUSED static void cs_lcs_lengths(const cs_lcs *L, const unsigned char *state, Py_ssize_t *out)
{
    Py_ssize_t k, j, w;
    int c;
    const unsigned char *p = state;
    for (k = 0; k < L->n_keys; k++) out[k] = 0;
    for (c = 0; c < CS_NCLASS; c++) {
        const cs_lane_class *C = &L->cls[c];
        int bytes = cs_lane_bits[c] / 8;
        Py_ssize_t lanes = CS_VBYTES / bytes, i;
        for (i = 0; i < C->n_vec * lanes; i++) {
            uint64_t v = 0, mask;
            k = C->lane_key[i];
            if (k < 0) continue;
            if (bytes == 1) v = ((const uint8_t *)p)[i];
            else if (bytes == 2) v = ((const uint16_t *)p)[i];
            else if (bytes == 4) v = ((const uint32_t *)p)[i];
            else v = ((const uint64_t *)p)[i];
            mask = L->key_len[k] >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << L->key_len[k]) - 1);
            out[k] = cs_popcount64(~v & mask);
        }
        p += C->n_vec * CS_VBYTES;
    }
    {
        const uint64_t *SW = (const uint64_t *)(state + L->vec_bytes);
        for (j = 0; j < L->n_long; j++) {
            Py_ssize_t len = L->key_len[L->long_key[j]], nw = L->long_nw[j], tot = 0;
            const uint64_t *S = SW + L->long_st[j];
            for (w = 0; w < nw; w++) {
                Py_ssize_t bits = len - w * 64;
                uint64_t mask = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
                tot += cs_popcount64(~S[w] & mask);
            }
            out[L->long_key[j]] = tot;
        }
    }
}

#ifdef CS_HAVE_VEC
/* Per-lane popcount of ~S & lenmask (vectorised), then the max rank of the
 * lanes' LCS/len. Unused lanes have an all-zero mask and rank row 0. */
#define CS_DEFINE_RANK(VT, ET, BITS)                                                 \
CS_INLINE unsigned cs_rank_##VT(const cs_lane_class *C, const VT *S, unsigned best)  \
{                                                                                    \
    enum { LANES = CS_VBYTES / sizeof(ET) };                                         \
    Py_ssize_t g;                                                                    \
    const VT *lm = (const VT *)C->lenmask;                                           \
    for (g = 0; g < C->n_vec; g++) {                                                 \
        union { VT v; ET e[LANES]; } u;                                              \
        const uint16_t *base = C->lane_base + g * LANES;                             \
        int l;                                                                       \
        VT x = ~S[g] & lm[g];                                                        \
        x = x - ((x >> 1) & (ET)0x5555555555555555ULL);                              \
        x = (x & (ET)0x3333333333333333ULL) + ((x >> 2) & (ET)0x3333333333333333ULL);\
        x = (x + (x >> 4)) & (ET)0x0F0F0F0F0F0F0F0FULL;                              \
        if (BITS > 8) x = (x + (x >> (BITS > 8 ? 8 : 0))) & (ET)0x00FF00FF00FF00FFULL;  \
        if (BITS > 16) x = (x + (x >> (BITS > 16 ? 16 : 0))) & (ET)0x0000FFFF0000FFFFULL; \
        if (BITS > 32) x = (x + (x >> (BITS > 32 ? 32 : 0))) & (ET)0x00000000FFFFFFFFULL; \
        u.v = x;                                                                     \
        for (l = 0; l < LANES; l++) {                                                \
            unsigned r = cs_rank_tab[base[l] + (unsigned)u.e[l]];                    \
            best = r > best ? r : best;                                              \
        }                                                                            \
    }                                                                                \
    return best;                                                                     \
}
CS_DEFINE_RANK(cs_v8, uint8_t, 8)
CS_DEFINE_RANK(cs_v16, uint16_t, 16)
CS_DEFINE_RANK(cs_v32, uint32_t, 32)
CS_DEFINE_RANK(cs_v64, uint64_t, 64)
#endif

#ifdef CS_HAVE_VEC
CS_INLINE cs_vs16 cs_vmax16(cs_vs16 a, cs_vs16 b)
{
    cs_vs16 m = a > b;
    return (a & m) | (b & ~m);
}

#if defined(__clang__)
#  define CS_SHUF16(v, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#else
#  define CS_SHUF16(v, ...) __builtin_shuffle(v, (cs_vs16){__VA_ARGS__})
#endif
CS_INLINE unsigned cs_hmax16(cs_vs16 v)
{
    v = cs_vmax16(v, CS_SHUF16(v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    v = cs_vmax16(v, CS_SHUF16(v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11));
    v = cs_vmax16(v, CS_SHUF16(v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
    v = cs_vmax16(v, CS_SHUF16(v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
    return (unsigned)(uint16_t)v[0];
}

/* max over the lanes of the 16-bit class of LCS * floor(4096 / len) */
CS_INLINE cs_vs16 cs_scaled16(const cs_lane_class *C, const cs_v16 *S, cs_vs16 mx)
{
    const cs_v16 *lm = (const cs_v16 *)C->lenmask, *R = (const cs_v16 *)C->rmul;
    Py_ssize_t g;
    for (g = 0; g < C->n_vec; g++) {
        cs_v16 x = ~S[g] & lm[g];
        x = x - ((x >> 1) & (uint16_t)0x5555);
        x = (x & (uint16_t)0x3333) + ((x >> 2) & (uint16_t)0x3333);
        x = (x + (x >> 4)) & (uint16_t)0x0F0F;
        x = (x + (x >> 8)) & (uint16_t)0x00FF;
        mx = cs_vmax16(mx, (cs_vs16)(x * R[g]));
    }
    return mx;
}

/* the same for the 8-bit class, widened to 16-bit lanes */
CS_INLINE cs_vs16 cs_scaled8(const cs_lane_class *C, const cs_v8 *S, cs_vs16 mx)
{
    const cs_v8 *lm = (const cs_v8 *)C->lenmask;
    const cs_v16 *R = (const cs_v16 *)C->rmul;
    Py_ssize_t g;
    for (g = 0; g < C->n_vec; g++) {
        cs_v8 x = ~S[g] & lm[g];
        cs_v16 w;
        x = x - ((x >> 1) & (uint8_t)0x55);
        x = (x & (uint8_t)0x33) + ((x >> 2) & (uint8_t)0x33);
        x = (x + (x >> 4)) & (uint8_t)0x0F;
        w = (cs_v16)x;
        mx = cs_vmax16(mx, (cs_vs16)((w & (uint16_t)0xFF) * R[2 * g]));
        mx = cs_vmax16(mx, (cs_vs16)((w >> 8) * R[2 * g + 1]));
    }
    return mx;
}
#endif

/* max over keys of LCS/len (0.0 for no keys / empty keys) */
CS_CLONES CS_UNUSED static double cs_lcs_best(const cs_lcs *L, const unsigned char *state)
{
    uint64_t bn, bd;
    unsigned rank = 0;
    double val;        /* bn / bd, from a table while no long key wins */
    Py_ssize_t j, w;
#ifdef CS_HAVE_VEC
    const unsigned char *p = state;
    uint64_t sn = 0, sd = 1;
    unsigned m_sc = 0;
    if (cs_sc_ok && (L->cls[0].n_vec || L->cls[1].n_vec)) {
        cs_vs16 mx = {0};
        unsigned m;
        if (L->cls[0].n_vec) mx = cs_scaled8(&L->cls[0], (const cs_v8 *)p, mx);
        p += L->cls[0].n_vec * CS_VBYTES;
        if (L->cls[1].n_vec) mx = cs_scaled16(&L->cls[1], (const cs_v16 *)p, mx);
        p += L->cls[1].n_vec * CS_VBYTES;
        m = cs_hmax16(mx);
        sn = cs_sc_num[m]; sd = cs_sc_den[m]; m_sc = m;
    } else {
        if (L->cls[0].n_vec) { rank = cs_rank_cs_v8(&L->cls[0], (const cs_v8 *)p, rank);    p += L->cls[0].n_vec * CS_VBYTES; }
        if (L->cls[1].n_vec) { rank = cs_rank_cs_v16(&L->cls[1], (const cs_v16 *)p, rank);  p += L->cls[1].n_vec * CS_VBYTES; }
    }
    if (L->cls[2].n_vec) { rank = cs_rank_cs_v32(&L->cls[2], (const cs_v32 *)p, rank);  p += L->cls[2].n_vec * CS_VBYTES; }
    if (L->cls[3].n_vec) { rank = cs_rank_cs_v64(&L->cls[3], (const cs_v64 *)p, rank);  p += L->cls[3].n_vec * CS_VBYTES; }
#endif
    bn = cs_rank_num[rank];
    bd = cs_rank_den[rank];
    val = cs_rank_val[rank];
#ifdef CS_HAVE_VEC
    if (sn * bd > bn * sd) { bn = sn; bd = sd; val = cs_sc_val[m_sc]; }
#endif
    if (L->n_long) {
        const uint64_t *SW = (const uint64_t *)(state + L->vec_bytes);
        for (j = 0; j < L->n_long; j++) {
            Py_ssize_t len = L->key_len[L->long_key[j]], nw = L->long_nw[j];
            uint64_t tot = 0;
            const uint64_t *S = SW + L->long_st[j];
            for (w = 0; w < nw; w++) {
                Py_ssize_t bits = len - w * 64;
                uint64_t mask = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
                tot += (uint64_t)cs_popcount64(~S[w] & mask);
            }
            /* key lengths < 2**32 here, so the products cannot overflow */
            if (tot * bd > bn * (uint64_t)len) { bn = tot; bd = (uint64_t)len; val = -1.0; }
        }
    }
    return val >= 0.0 ? val : (double)bn / (double)bd;
}

/* ======================================================================== */
/* CS: multiset Jaccard over character tokens                               */
/* ======================================================================== */
/* ids: 0 = token in no key, 1 = whitespace (dropped), 2.. = key tokens */
typedef struct {
    cs_cpmap map;
    uint32_t n_ids;          /* size of the count array (ids 0..n_ids-1) */
    Py_ssize_t n_keys;
    Py_ssize_t *key_off;     /* n_keys + 1, into pair_id / pair_cnt */
    uint32_t *pair_id;
    Py_ssize_t *pair_cnt;
    Py_ssize_t *key_total;   /* tokens per key */
    /* dense, transposed: 16-bit lane l of vector kmat[id * n_kvec + v] is the
     * count of token id in key 16 v + l (n_kvec = 0 when there is no dense
     * table: the sparse pairs are used). Counts are < 32768 (signed lanes). */
    Py_ssize_t n_kvec;
    unsigned char *kmat;
} cs_jac;

#define CS_KLANES 16

CS_UNUSED static void cs_jac_free(cs_jac *J)
{
    cs_cpmap_free(&J->map);
    free(J->key_off); free(J->pair_id); free(J->pair_cnt); free(J->key_total);
    cs_aligned_free(J->kmat);
    J->key_off = NULL; J->pair_id = NULL; J->pair_cnt = NULL; J->key_total = NULL;
    J->kmat = NULL; J->n_kvec = 0;
    J->n_keys = 0;
}

/* Build the dense table when it is small and every key has < 65536 tokens. */
CS_UNUSED static int cs_jac_finish(cs_jac *J)
{
#ifdef CS_HAVE_VEC
    Py_ssize_t k, i, nv = (J->n_keys + CS_KLANES - 1) / CS_KLANES;
    J->n_kvec = 0;
    if (nv == 0 || (double)J->n_ids * nv * CS_VBYTES > (double)(16 << 20)) return 0;
    for (k = 0; k < J->n_keys; k++)
        if (J->key_total[k] > 32767) return 0;
    J->kmat = (unsigned char *)cs_aligned_calloc((size_t)J->n_ids * nv * CS_VBYTES);
    if (!J->kmat) return -1;
    for (k = 0; k < J->n_keys; k++)
        for (i = J->key_off[k]; i < J->key_off[k + 1]; i++) {
            int16_t *row = (int16_t *)(J->kmat + (size_t)J->pair_id[i] * nv * CS_VBYTES);
            row[k] = (int16_t)J->pair_cnt[i];   /* lane k % 16 of vector k / 16 */
        }
    J->n_kvec = nv;
#else
    (void)J;
#endif
    return 0;
}

/* Per-call scratch: [n_kvec accumulator vectors][ns: n_ids counts][touched ids].
 * It must be zeroed once; every call leaves the counts at zero again. */
CS_UNUSED static Py_ssize_t cs_jac_scratch_bytes(const cs_jac *J)
{
    return J->n_kvec * CS_VBYTES + (Py_ssize_t)J->n_ids * (Py_ssize_t)(sizeof(Py_ssize_t) + sizeof(uint32_t));
}

/* Count the tokens of t into ns, listing each id once in touched (*nt of
 * them). Returns the number of tokens (non-whitespace code points). */
CS_UNUSED static Py_ssize_t cs_jac_count(const cs_jac *J, const cs_text *t, Py_ssize_t *ns,
                                         uint32_t *touched, Py_ssize_t *nt)
{
    Py_ssize_t i, n = t->n, k = 0;
    const cs_cpmap *m = &J->map;
    if (t->kind == 1) {
        const uint8_t *p = (const uint8_t *)t->data;
        const uint32_t *t0 = m->page0;
        for (i = 0; i < n; i++) { uint32_t id = t0[p[i]]; touched[k] = id; k += (ns[id]++ == 0); }
    } else if (t->kind == 2) {
        const uint16_t *p = (const uint16_t *)t->data;
        for (i = 0; i < n; i++) { uint32_t id = cs_lookup_bmp(m, p[i]); touched[k] = id; k += (ns[id]++ == 0); }
    } else {
        const uint32_t *p = (const uint32_t *)t->data;
        for (i = 0; i < n; i++) { uint32_t id = cs_lookup(m, p[i]); touched[k] = id; k += (ns[id]++ == 0); }
    }
    *nt = k;
    return n - ns[1];
}

CS_INLINE void cs_jac_key(const cs_jac *J, Py_ssize_t k, const Py_ssize_t *ns, Py_ssize_t total,
                          Py_ssize_t *smin, Py_ssize_t *smax)
{
    Py_ssize_t i, a = 0;
    for (i = J->key_off[k]; i < J->key_off[k + 1]; i++) {
        Py_ssize_t x = J->pair_cnt[i], y = ns[J->pair_id[i]];
        a += x < y ? x : y;
    }
    *smin = a;
    *smax = total + J->key_total[k] - a;
}

/* keep the larger of a/b and *bn/ *bd, exactly (0 <= a <= b) */
CS_INLINE void cs_frac_max(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *bn, Py_ssize_t *bd)
{
    if (b <= 0 || a <= 0) return;
    if (CS_LIKELY((b | *bd) < ((Py_ssize_t)1 << 31))) {
        if ((int64_t)a * *bd > (int64_t)*bn * b) { *bn = a; *bd = b; }
    } else if ((double)a / (double)b > (double)*bn / (double)*bd) {
        /* correctly rounded division is monotonic: equal quotients, equal result */
        *bn = a; *bd = b;
    }
}

#ifdef CS_HAVE_VEC
/* sum_min of every key at once: for each distinct id of the answer, add
 * min(count in key, count in answer) to each key's 16-bit lane */
CS_CLONES CS_NOINLINE void cs_jac_dense(const cs_jac *J, const Py_ssize_t *ns, const uint32_t *touched,
                                        Py_ssize_t nt, cs_vs16 *acc)
{
    Py_ssize_t j, v, nv = J->n_kvec;
    const cs_vs16 *km = (const cs_vs16 *)J->kmat;
    const cs_vs16 zero = {0};
    if (nv == 2) {   /* up to 32 keys: accumulators in registers */
        cs_vs16 a0 = zero, a1 = zero;
        for (j = 0; j < nt; j++) {
            uint32_t id = touched[j];
            Py_ssize_t c = ns[id];
            const cs_vs16 *row = km + (size_t)id * 2;
            cs_vs16 cv = zero + (int16_t)(c > 32767 ? 32767 : c);
            cs_vs16 r0 = row[0], r1 = row[1], m0 = r0 < cv, m1 = r1 < cv;
            a0 += (r0 & m0) | (cv & ~m0);
            a1 += (r1 & m1) | (cv & ~m1);
        }
        acc[0] = a0; acc[1] = a1;
        return;
    }
    for (v = 0; v < nv; v++) acc[v] = zero;
    for (j = 0; j < nt; j++) {
        uint32_t id = touched[j];
        Py_ssize_t c = ns[id];
        const cs_vs16 *row = km + (size_t)id * nv;
        cs_vs16 cv = zero + (int16_t)(c > 32767 ? 32767 : c);
        for (v = 0; v < nv; v++) {
            cs_vs16 r = row[v], m = r < cv;
            acc[v] += (r & m) | (cv & ~m);
        }
    }
}
#endif

/* best ratio; the scratch counts are zero on entry and on return */
CS_UNUSED static double cs_jac_best(const cs_jac *J, const cs_text *t, unsigned char *scratch)
{
    Py_ssize_t k, nt, j;
    Py_ssize_t *ns = (Py_ssize_t *)(scratch + J->n_kvec * CS_VBYTES);
    uint32_t *touched = (uint32_t *)(ns + J->n_ids);
    Py_ssize_t total = cs_jac_count(J, t, ns, touched, &nt);
    Py_ssize_t bn = 0, bd = 1;
#ifdef CS_HAVE_VEC
    if (J->n_kvec) {
        cs_vs16 *acc = (cs_vs16 *)scratch;
        const uint16_t *lane = (const uint16_t *)scratch;
        cs_jac_dense(J, ns, touched, nt, acc);
        for (k = 0; k < J->n_keys; k++) {
            Py_ssize_t a = lane[k];
            cs_frac_max(a, total + J->key_total[k] - a, &bn, &bd);
        }
    } else
#endif
    {
        for (k = 0; k < J->n_keys; k++) {
            Py_ssize_t a, b;
            cs_jac_key(J, k, ns, total, &a, &b);
            cs_frac_max(a, b, &bn, &bd);
        }
    }
    for (j = 0; j < nt; j++) ns[touched[j]] = 0;
    return (double)bn / (double)bd;
}

/* (sum_min, sum_max) of every key, from the sparse pairs */
CS_UNUSED static void cs_jac_counts(const cs_jac *J, const cs_text *t, unsigned char *scratch,
                                    Py_ssize_t *smin, Py_ssize_t *smax)
{
    Py_ssize_t k, nt, j;
    Py_ssize_t *ns = (Py_ssize_t *)(scratch + J->n_kvec * CS_VBYTES);
    uint32_t *touched = (uint32_t *)(ns + J->n_ids);
    Py_ssize_t total = cs_jac_count(J, t, ns, touched, &nt);
    for (k = 0; k < J->n_keys; k++) cs_jac_key(J, k, ns, total, smin + k, smax + k);
    for (j = 0; j < nt; j++) ns[touched[j]] = 0;
}

/* ======================================================================== */
/* SM: Aho-Corasick over alphabet ids                                       */
/* ======================================================================== */
typedef struct {
    cs_cpmap map;            /* code point -> id 1..width-1; 0 = in no pattern */
    Py_ssize_t width;        /* ids per state row */
    Py_ssize_t n_states;
    int32_t *delta;          /* n_states * width; value = next * 2 + (next has output) */
    Py_ssize_t *out_off;     /* n_states + 1 */
    int32_t *out_slot;       /* slots (groups) reported at each state */
    Py_ssize_t n_slots;
} cs_ac;

CS_UNUSED static void cs_ac_free(cs_ac *A)
{
    cs_cpmap_free(&A->map);
    free(A->delta); free(A->out_off); free(A->out_slot);
    A->delta = NULL; A->out_off = NULL; A->out_slot = NULL;
    A->n_states = 0; A->n_slots = 0;
}

/* Mark hit[slot] = 1 for every slot with an option found in t; stop once all
 * n_slots are hit. hit must be zeroed. Returns the number of slots hit. */
CS_UNUSED static Py_ssize_t cs_ac_scan(const cs_ac *A, const cs_text *t, unsigned char *hit)
{
    Py_ssize_t i, n = t->n, found = 0, w = A->width;
    const int32_t *delta = A->delta;
    int32_t code = 0;
    if (A->n_slots == 0) return 0;
#define CS_AC_STEP(ID)                                                          \
    code = delta[(size_t)(code >> 1) * w + (ID)];                               \
    if (code & 1) {                                                             \
        Py_ssize_t s = code >> 1, j;                                            \
        for (j = A->out_off[s]; j < A->out_off[s + 1]; j++) {                   \
            int32_t slot = A->out_slot[j];                                      \
            if (!hit[slot]) { hit[slot] = 1; if (++found == A->n_slots) return found; } \
        }                                                                       \
    }
    if (t->kind == 1) {
        const uint8_t *p = (const uint8_t *)t->data;
        const uint32_t *t0 = A->map.page0;
        for (i = 0; i < n; i++) { CS_AC_STEP(t0[p[i]]) }
    } else if (t->kind == 2) {
        const uint16_t *p = (const uint16_t *)t->data;
        for (i = 0; i < n; i++) { CS_AC_STEP(cs_lookup_bmp(&A->map, p[i])) }
    } else {
        const uint32_t *p = (const uint32_t *)t->data;
        for (i = 0; i < n; i++) { CS_AC_STEP(cs_lookup(&A->map, p[i])) }
    }
#undef CS_AC_STEP
    return found;
}

/* ======================================================================== */
/* SM: bit-parallel Shift-And over all plain options at once                */
/* ======================================================================== */
/*
 * The options (distinct texts, total length <= 128 code points) are laid end
 * to end in one bit string of 1 or 2 words: option o covers the bits
 * off_o .. off_o + len_o - 1. B[id] has the bits of the positions holding
 * that id; per answer character, D = ((D << 1) | start) & B[id] and every bit
 * of D marks an option prefix ending there, so option o occurs iff its last
 * bit is ever set. (A bit shifted in from the previous option's end lands on a
 * start bit, which is set anyway.) A character in no option has id 0 and
 * B[0] = 0, so it clears D.
 */
#define CS_SA_VMAX 32   /* prefilter: at most this many alphabet code points */
#define CS_SA_VMAX_FAST 8    /* ... and above this many the scalar scan is as fast */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(COSCORE_NO_VEC)
#  include <emmintrin.h>
#  define CS_SA_SSE2 1
#  define CS_SA_SET1_8(c) _mm_set1_epi8((char)(c))
#  define CS_SA_SET1_16(c) _mm_set1_epi16((short)(c))
#endif

typedef struct {
    cs_cpmap map;            /* code point -> id 1..n_ids; 0 = in no option */
    int words;               /* state words: 1 or 2 */
    uint64_t *B;             /* (n_ids + 1) * words */
    uint64_t start[2];       /* first bit of each option */
    uint64_t fin[2];         /* last bit of each option */
    Py_ssize_t n_slots;
    uint64_t *slot_fin;      /* n_slots * 2: the last bits of the slot's options */
    uint64_t *mpages;        /* words == 1: B[id] of every BMP code point, laid out as the
                              * map's pages (one load per character), or NULL */
    /* SSE2 prefilter: the alphabet's code points that fit the text's kind
     * (n_alpha1: < 0x100, first in alpha; n_alpha2: < 0x10000), or -1 when
     * there are too many to compare each block of text against */
    int n_alpha1, n_alpha2;
    uint16_t alpha[CS_SA_VMAX];
    uint8_t alpha1[CS_SA_VMAX];
    void *sparse1, *sparse2;  /* cs_sa_sparse_fn for kind 1 / kind 2 text, or NULL */
    Py_ssize_t sparse2_min;   /* the shortest kind 2 text sparse2 takes (its block) */
    /* nibble classes for cs_sa_nibbles2: a BMP character c can be in an option only
     * if nib[0][lo & 15] & nib[1][lo >> 4] & nib[2][hi & 15] & nib[3][hi >> 4] != 0,
     * lo and hi being its bytes (each table twice: one per 128-bit lane) */
    uint8_t nib[4][32];
} cs_sa;

CS_UNUSED static void cs_sa_free(cs_sa *A)
{
    cs_cpmap_free(&A->map);
    free(A->B); free(A->slot_fin); free(A->mpages);
    A->B = NULL; A->slot_fin = NULL; A->mpages = NULL; A->n_slots = 0;
}

/* Build mpages (after map and B) when the state is one word and the pages
 * take at most 256 KB; returns 0, or -1 when out of memory. */
CS_UNUSED static int cs_sa_direct(cs_sa *A)
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
CS_UNUSED static void NAME(const cs_sa *A, const CT *p, Py_ssize_t n, uint64_t *d, uint64_t *f) \
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
            Py_ssize_t c = base + (Py_ssize_t)(__builtin_ctz(bits) / STEP);            \
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
CS_UNUSED static cs_sa_sparse_fn cs_sa_pick(int kind, int na)
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

#if defined(CS_SA_SSE2) && defined(__GNUC__) && !defined(COSCORE_NO_CLONES)
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
 * only, exactly as in CS_SA_SPARSE. Needs AVX2 (checked once, at build).
 */
__attribute__((target("avx2")))
CS_UNUSED static void cs_sa_nibbles2(const cs_sa *A, const uint16_t *p, Py_ssize_t n, uint64_t *d, uint64_t *f)
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
            Py_ssize_t c = base + (Py_ssize_t)(__builtin_ctz(bits) >> 1);
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
CS_UNUSED static void cs_sa_nibbles(cs_sa *A, const uint32_t *cps, Py_ssize_t n)
{
#ifdef CS_SA_NIBBLES
    uint32_t bmp[CS_SA_NIBBLES_MAX];
    Py_ssize_t k, nb = 0;
    int lane;
    if (A->sparse2 && A->n_alpha2 <= CS_SA_NIBBLES_MIN) return;
    if (!__builtin_cpu_supports("avx2")) return;
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
CS_UNUSED static void cs_sa_prefilter(cs_sa *A)
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
#ifdef CS_SA_SSE2
#endif

/* Mark hit[slot] = 1 (hit may be NULL) for every slot with an option found
 * in t; returns the number of slots hit. */
CS_UNUSED static Py_ssize_t cs_sa_scan(const cs_sa *A, const cs_text *t, unsigned char *hit)
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
        if (t->kind == 1) {
            const uint8_t *p = (const uint8_t *)t->data;
            const uint32_t *t0 = m->page0;
            CS_SA_LOOP1(t0[p[i]])
        } else if (t->kind == 2) {
            const uint16_t *p = (const uint16_t *)t->data;
            CS_SA_LOOP1(cs_lookup_bmp(m, p[i]))
        } else {
            const uint32_t *p = (const uint32_t *)t->data;
            CS_SA_LOOP1(cs_lookup(m, p[i]))
        }
    } else {
        if (t->kind == 1) {
            const uint8_t *p = (const uint8_t *)t->data;
            const uint32_t *t0 = m->page0;
            CS_SA_LOOP2(t0[p[i]])
        } else if (t->kind == 2) {
            const uint16_t *p = (const uint16_t *)t->data;
            CS_SA_LOOP2(cs_lookup_bmp(m, p[i]))
        } else {
            const uint32_t *p = (const uint32_t *)t->data;
            CS_SA_LOOP2(cs_lookup(m, p[i]))
        }
    }
    return cs_sa_slots(A, f0 & A->fin[0], f1 & A->fin[1], hit);
}
#undef CS_SA_LOOP1
#undef CS_SA_LOOP1M
#undef CS_SA_LOOP2

/* ------------------------------------------------------------------------ */
/* reading many str objects without the GIL                                  */
/* ------------------------------------------------------------------------ */
#if PY_VERSION_HEX >= 0x030C0000
#  define CS_IS_READY(o) 1
#else
#  define CS_IS_READY(o) PyUnicode_IS_READY(o)
#endif

/* Fill out[i] from items[i] while it is an exact, ready str; returns the
 * first index where it is not (n when all are). Reads only: no GIL needed
 * while the caller keeps the items alive. */
#if defined(__GNUC__) || defined(__clang__)
#  define CS_PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#  define CS_PREFETCH(p) ((void)0)
#endif
#define CS_AHEAD 16  /* strings prefetched ahead in the batch loops */

CS_UNUSED static Py_ssize_t cs_texts_plain(PyObject *const *items, Py_ssize_t n, cs_text *out)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        PyObject *o = items[i];
        if (i + CS_AHEAD < n) CS_PREFETCH(items[i + CS_AHEAD]);
        if (Py_TYPE(o) != &PyUnicode_Type || !CS_IS_READY(o)) return i;
        out[i].kind = (int)PyUnicode_KIND(o);
        out[i].data = PyUnicode_DATA(o);
        out[i].n = PyUnicode_GET_LENGTH(o);
    }
    return n;
}

/* Prefetch the first code points of texts[i + CS_AHEAD] (the batch loops
 * read each string's buffer once per atom; the strings lie all over the heap). */
CS_INLINE void cs_prefetch_ahead(const cs_text *texts, Py_ssize_t i, Py_ssize_t n)
{
    if (i + CS_AHEAD < n) {
        const char *p = (const char *)texts[i + CS_AHEAD].data;
        CS_PREFETCH(p);
        CS_PREFETCH(p + 64);
    }
}

#endif /* COSCORE_FAST_KERNELS_H */
