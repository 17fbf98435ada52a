/*
 * OP: bit-parallel LCS (see bitlcs.h).
 *
 * For a key k of m code points and a character with match mask M (bit i set
 * iff k[i] is that character), Hyyro's update is
 *     U = S & M;  S = (S + U) | (S - U)
 * with S starting as all ones; LCS(k, s) = number of zero bits of S among the
 * low m bits. Carries only move upwards, so a key of m <= w code points can
 * live in a w-bit lane whose addition wraps (the bits above m are garbage that
 * never reaches the low m bits). Lane classes: w = 8, 16, 32, 64, each packed
 * into 32-byte vectors. S - U never borrows (U is a subset of S).
 */

#include <stdlib.h>
#include <string.h>

#include "aligned.h"
#include "bitlcs.h"
#include "vec.h"

static const int cs_lane_bits[CS_NCLASS] = {8, 16, 32, 64};

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

static int cs_frac_cmp(const void *x, const void *y)
{
    const uint32_t *p = (const uint32_t *)x, *q = (const uint32_t *)y;
    uint64_t l = (uint64_t)p[0] * q[1], r = (uint64_t)q[0] * p[1];
    return (l > r) - (l < r);
}

static void cs_rank_init(void)
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

Py_ssize_t cs_dense_limit = (Py_ssize_t)8 << 20;

void cs_lcs_free(cs_lcs *L)
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

static int cs_lcs_class_of(Py_ssize_t len)
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
int cs_lcs_build(cs_lcs *L, cs_cpmap *map, uint32_t n_ids, Py_ssize_t n_keys,
                        const Py_ssize_t *key_off, const uint32_t *key_ids)
{
    Py_ssize_t k, i, cnt[CS_NCLASS] = {0, 0, 0, 0};
    int *cls_of = NULL;
    int c, rc = -1;
    cs_rank_init();
    memset(L, 0, sizeof(*L));
    L->map = *map;
    memset(map, 0, sizeof(*map));
    L->n_ids = n_ids;
    L->n_keys = n_keys;
    L->key_len = (Py_ssize_t *)malloc((size_t)(n_keys + 1) * sizeof(Py_ssize_t));
    cls_of = (int *)malloc((size_t)(n_keys + 1) * sizeof(int));
    if (!L->key_len || !cls_of) goto done;
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
        if (!C->pm || !C->lane_key || !C->lane_base || !C->lenmask || !C->rmul) goto done;
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
        if (!L->long_key || !L->long_nw || !L->long_pm || !L->long_st || !L->long_blk) goto done;
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
        if (!L->pm_long || !L->sp_off || !L->sp_id || !L->sp_mask) goto done;
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
    rc = 0;
done:
    free(cls_of);
    if (rc != 0) cs_lcs_free(L);
    return rc;
}

Py_ssize_t cs_lcs_state_bytes(const cs_lcs *L)
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
CS_CLONES_STATIC void cs_lcs_chunk(const cs_lcs *L, const uint32_t *ids, Py_ssize_t m,
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
void cs_lcs_run(const cs_lcs *L, const cs_text *t, unsigned char *state)
{
    uint32_t ids[CS_CHUNK + 1];
    Py_ssize_t pos = 0;
    memset(state, 0xFF, (size_t)(L->vec_bytes + L->long_words * (Py_ssize_t)sizeof(uint64_t)));
    while (pos < t->n) {
        Py_ssize_t m = cs_fill(&L->map, t, &pos, ids);
        if (m) cs_lcs_chunk(L, ids, m, state);
    }
}

/* LCS length of every key (out[n_keys]) from a finished state. */
void cs_lcs_lengths(const cs_lcs *L, const unsigned char *state, Py_ssize_t *out)
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
CS_CLONES double cs_lcs_best(const cs_lcs *L, const unsigned char *state)
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


