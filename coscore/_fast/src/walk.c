/* SM: the ordered option walk (see walk.h). */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

int cs_walk_init(cs_walk *W, Py_ssize_t n_groups, Py_ssize_t n_ops, Py_ssize_t n_cps)
{
    memset(W, 0, sizeof(*W));
    W->n_groups = n_groups;
    W->op_off = (Py_ssize_t *)calloc((size_t)n_groups + 1, sizeof(Py_ssize_t));
    W->kind = (unsigned char *)calloc((size_t)n_ops + 1, 1);
    W->cp_off = (Py_ssize_t *)calloc((size_t)n_ops + 1, sizeof(Py_ssize_t));
    W->cps = (uint32_t *)calloc((size_t)n_cps + 1, sizeof(uint32_t));
    W->fail = (Py_ssize_t *)calloc(2 * (size_t)n_cps + 1, sizeof(Py_ssize_t));
    if (!W->op_off || !W->kind || !W->cp_off || !W->cps || !W->fail) {
        cs_walk_free(W);
        return -1;
    }
    return 0;
}

void cs_walk_free(cs_walk *W)
{
    free(W->op_off); free(W->kind); free(W->cp_off); free(W->cps); free(W->fail);
    memset(W, 0, sizeof(*W));
}

/* fail[i] = the length of the longest proper border of p[0 .. i] */
static void cs_kmp_table(const uint32_t *p, Py_ssize_t m, Py_ssize_t *fail)
{
    Py_ssize_t i, k = 0;
    if (m > 0) fail[0] = 0;
    for (i = 1; i < m; i++) {
        while (k > 0 && p[i] != p[k]) k = fail[k - 1];
        if (p[i] == p[k]) k++;
        fail[i] = k;
    }
}

void cs_walk_prepare(cs_walk *W)
{
    Py_ssize_t k, n_ops = W->op_off[W->n_groups];
    for (k = 0; k < n_ops; k++) {
        Py_ssize_t off = W->cp_off[k], m = W->cp_off[k + 1] - off, skip = W->kind[k] != CS_OP_PLAIN;
        cs_kmp_table(W->cps + off, m, W->fail + 2 * off);
        if (m > skip) cs_kmp_table(W->cps + off + skip, m - skip, W->fail + 2 * off + m);
    }
}

/* Is p[0 .. m - 1] in t[0 .. n - 1]? (the empty string always is) */
static int cs_kmp_in(const uint32_t *t, Py_ssize_t n, const uint32_t *p, Py_ssize_t m,
                     const Py_ssize_t *fail)
{
    Py_ssize_t i = 0, k = 0;
    uint32_t first;
    if (m == 0) return 1;
    if (m > n) return 0;
    first = p[0];
    while (i < n) {
        if (k == 0) {   /* skip to the next occurrence of the first code point */
            while (i < n && t[i] != first) i++;
            if (i == n) return 0;
        }
        while (k > 0 && t[i] != p[k]) k = fail[k - 1];
        if (t[i] == p[k]) k++;
        if (k == m) return 1;
        i++;
    }
    return 0;
}

/* t.replace(p, '') in place, as Python's: left to right, non-overlapping
 * (p not empty). Returns the new length. */
static Py_ssize_t cs_kmp_remove(uint32_t *t, Py_ssize_t n, const uint32_t *p, Py_ssize_t m,
                                const Py_ssize_t *fail)
{
    Py_ssize_t i, k = 0, w = 0;
    for (i = 0; i < n; i++) {
        uint32_t c = t[i];
        t[w++] = c;
        while (k > 0 && c != p[k]) k = fail[k - 1];
        if (c == p[k]) k++;
        if (k == m) { w -= m; k = 0; }   /* the match is the last m code points written */
    }
    return w;
}

int cs_walk_group(const cs_walk *W, Py_ssize_t g, const uint32_t *t, Py_ssize_t n, uint32_t *work)
{
    Py_ssize_t k;
    const uint32_t *cur = t;
    for (k = W->op_off[g]; k < W->op_off[g + 1]; k++) {
        Py_ssize_t off = W->cp_off[k], m = W->cp_off[k + 1] - off;
        const uint32_t *full = W->cps + off;
        const Py_ssize_t *ffail = W->fail + 2 * off;
        int kind = W->kind[k];
        if (kind != CS_OP_PLAIN) {
            const uint32_t *x = full + 1;
            const Py_ssize_t *xfail = ffail + m;
            if (cs_kmp_in(cur, n, x, m - 1, xfail)) {
                if (kind == CS_OP_NOT) return 0;
                if (m > 1) {   /* '~x': t = t.replace(x, '') (x empty: t unchanged) */
                    if (cur != work) { memcpy(work, cur, (size_t)n * sizeof(uint32_t)); cur = work; }
                    n = cs_kmp_remove(work, n, x, m - 1, xfail);
                }
            }
        }
        if (cs_kmp_in(cur, n, full, m, ffail)) return 1;
    }
    return 0;
}

void cs_text_ucs4(const cs_text *t, uint32_t *out)
{
    Py_ssize_t i, n = t->n;
    if (t->kind == 1) {
        const uint8_t *p = (const uint8_t *)t->data;
        for (i = 0; i < n; i++) out[i] = p[i];
    } else if (t->kind == 2) {
        const uint16_t *p = (const uint16_t *)t->data;
        for (i = 0; i < n; i++) out[i] = p[i];
    } else {
        memcpy(out, t->data, (size_t)n * sizeof(uint32_t));
    }
}
