/* Deduplication without the GIL (see dedup.h). */
#include <stdlib.h>

#include "dedup.h"

int csb_table_init(csb_table *T, Py_ssize_t n)
{
    uint64_t size = 16;
    int bits = 1;
    while (size < (uint64_t)n + ((uint64_t)n >> 1) + 1) size <<= 1;
    while (bits < 63 && ((uint64_t)1 << bits) <= (uint64_t)n + 1) bits++;
    T->table = (uint64_t *)calloc((size_t)size, sizeof(uint64_t));
    T->mask = size - 1;
    T->shift = bits;
    return T->table ? 0 : -1;
}

CS_INLINE int csb_answer_eq(PyObject *a, PyObject *b)
{
    PyObject *oa, *ob;
    PyObject *const *ia;
    PyObject *const *ib;
    Py_ssize_t na, nb, j;
    if (a == b) return 1;
    na = csb_blanks(a, &ia, &oa);
    nb = csb_blanks(b, &ib, &ob);
    if (na != nb) return 0;
    for (j = 0; j < na; j++)
        if (!csb_str_eq(ia[j], ib[j])) return 0;
    return 1;
}

/* the probe loop of every dedup; eq compares two items, answers says whether
 * they are answers (both constants once inlined) */
CS_INLINE Py_ssize_t csb_dedup(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                               Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx,
                               int (*eq)(PyObject *, PyObject *), int answers)
{
    uint64_t low = ((uint64_t)1 << T->shift) - 1, *tab = T->table;
    Py_ssize_t i, m = 0;
    for (i = 0; i < n; i++) {
        uint64_t h = hashes[i], tag = h & ~low, slot = (h >> 17) & T->mask;
        if (answers) csb_prefetch_answers(items, i, n);
        else if (i + 16 < n) CS_PREFETCH(items[i + 16]);
        for (;;) {
            uint64_t e = tab[slot];
            if (e == 0) {
                tab[slot] = tag | (uint64_t)(m + 1);
                first[m] = i;
                idx[i] = m++;
                break;
            }
            if ((e & ~low) == tag) {
                Py_ssize_t j = (Py_ssize_t)(e & low) - 1;
                if (eq(items[first[j]], items[i])) { idx[i] = j; break; }
            }
            slot = (slot + 1) & T->mask;
        }
    }
    return m;
}

Py_ssize_t csb_dedup_strs(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                          Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx)
{
    return csb_dedup(T, items, hashes, n, first, idx, csb_str_eq, 0);
}

Py_ssize_t csb_dedup_answers(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                             Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx)
{
    return csb_dedup(T, items, hashes, n, first, idx, csb_answer_eq, 1);
}
