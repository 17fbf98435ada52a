/* CS: multiset Jaccard (see multiset.h). */
#include <stdlib.h>
#include <string.h>

#include "aligned.h"
#include "multiset.h"
#include "vec.h"

#define CS_KLANES 16

void cs_jac_free(cs_jac *J)
{
    cs_cpmap_free(&J->map);
    free(J->key_off); free(J->pair_id); free(J->pair_cnt); free(J->key_total);
    cs_aligned_free(J->kmat);
    J->key_off = NULL; J->pair_id = NULL; J->pair_cnt = NULL; J->key_total = NULL;
    J->kmat = NULL; J->n_kvec = 0;
    J->n_keys = 0;
}

/* Build the dense table when it is small and every key has < 65536 tokens. */
int cs_jac_finish(cs_jac *J)
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
Py_ssize_t cs_jac_scratch_bytes(const cs_jac *J)
{
    return J->n_kvec * CS_VBYTES + (Py_ssize_t)J->n_ids * (Py_ssize_t)(sizeof(Py_ssize_t) + sizeof(uint32_t));
}

/* Count the tokens of t into ns, listing each id once in touched (*nt of
 * them). Returns the number of tokens (non-whitespace code points). */
static Py_ssize_t cs_jac_count(const cs_jac *J, const cs_text *t, Py_ssize_t *ns,
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
CS_CLONES_STATIC void cs_jac_dense(const cs_jac *J, const Py_ssize_t *ns, const uint32_t *touched,
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
double cs_jac_best(const cs_jac *J, const cs_text *t, unsigned char *scratch)
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
void cs_jac_counts(const cs_jac *J, const cs_text *t, unsigned char *scratch,
                                    Py_ssize_t *smin, Py_ssize_t *smax)
{
    Py_ssize_t k, nt, j;
    Py_ssize_t *ns = (Py_ssize_t *)(scratch + J->n_kvec * CS_VBYTES);
    uint32_t *touched = (uint32_t *)(ns + J->n_ids);
    Py_ssize_t total = cs_jac_count(J, t, ns, touched, &nt);
    for (k = 0; k < J->n_keys; k++) cs_jac_key(J, k, ns, total, smin + k, smax + k);
    for (j = 0; j < nt; j++) ns[touched[j]] = 0;
}


