/* Deduplication without the GIL (see dedup.h). */
#include <stdlib.h>

#include "dedup.h"

/* fixed odd words until csb_hash_seed, which the batch module calls at import */
uint64_t csb_secret[2] = {0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL};

void csb_hash_seed(uint64_t a, uint64_t b)
{
    csb_secret[0] = a | 1;
    csb_secret[1] = b | 1;
}

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

Py_ssize_t csb_hash_strs(PyObject *const *items, Py_ssize_t n, uint64_t *hashes, Py_ssize_t *longest)
{
    Py_ssize_t i, top = *longest;
    for (i = 0; i < n; i++) {
        PyObject *s = items[i];
        if (i + CS_AHEAD < n) CS_PREFETCH(items[i + CS_AHEAD]);
        if (!CSB_PLAIN_STR(s)) break;
        if (PyUnicode_GET_LENGTH(s) > top) top = PyUnicode_GET_LENGTH(s);
        hashes[i] = csb_str_hash(s);
    }
    *longest = top;
    return i;
}

CS_INLINE uint64_t csb_slot(const csb_table *T, uint64_t h)
{
    return (h >> 17) & T->mask;
}

/* The position of item i (hash h) among the distinct items so far, adding it
 * when it is new; same(items[first[j]], items[i]) compares two items. */
CS_INLINE Py_ssize_t csb_find(csb_table *T, uint64_t h, PyObject *const *items, Py_ssize_t i,
                              Py_ssize_t *first, Py_ssize_t *m, int (*same)(PyObject *, PyObject *))
{
    const uint64_t low = ((uint64_t)1 << T->shift) - 1, tag = h & ~low;
    uint64_t *tab = T->table, slot = csb_slot(T, h);
    for (;;) {
        uint64_t e = tab[slot];
        if (e == 0) {
            tab[slot] = tag | (uint64_t)(*m + 1);
            first[*m] = i;
            return (*m)++;
        }
        if ((e & ~low) == tag) {
            Py_ssize_t j = (Py_ssize_t)(e & low) - 1;
            if (same(items[first[j]], items[i])) return j;
        }
        slot = (slot + 1) & T->mask;
    }
}

/* how far ahead the lookups prefetch their table slot */
#define CSB_SLOT_AHEAD 8

Py_ssize_t csb_dedup_strs(csb_table *T, PyObject *const *items, const uint64_t *hashes, Py_ssize_t n,
                          Py_ssize_t *first, Py_ssize_t *idx)
{
    Py_ssize_t i, m = 0;
    for (i = 0; i < n; i++) {
        if (i + CSB_SLOT_AHEAD < n) CS_PREFETCH(&T->table[csb_slot(T, hashes[i + CSB_SLOT_AHEAD])]);
        idx[i] = csb_find(T, hashes[i], items, i, first, &m, csb_str_eq);
    }
    return m;
}

/* -- answers ------------------------------------------------------------------- */
CS_INLINE int csb_same_answer(PyObject *a, PyObject *b)
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

/* an answer's hash: its one blank's, else the blanks' hashes chained */
CS_INLINE uint64_t csb_answer_hash(PyObject *a)
{
    PyObject *one;
    PyObject *const *items;
    Py_ssize_t size = csb_blanks(a, &items, &one), j;
    uint64_t h = (uint64_t)size * 0x9E3779B97F4A7C15ULL;
    if (size == 1)      /* "a", ["a"], ("a",) alike */
        return csb_str_hash(items[0]);
    for (j = 0; j < size; j++) {
        int kind = (int)PyUnicode_KIND(items[j]);
        h = csb_hash_bytes(PyUnicode_DATA(items[j]), (size_t)PyUnicode_GET_LENGTH(items[j]) * (size_t)kind,
                           (uint64_t)kind ^ h);
    }
    return h;
}

Py_ssize_t csb_dedup_answers(csb_table *T, PyObject *const *answers, Py_ssize_t n,
                             Py_ssize_t *first, Py_ssize_t *idx)
{
    Py_ssize_t i, m = 0;
    for (i = 0; i < n; i++) {
        csb_prefetch_answers(answers, i, n);
        idx[i] = csb_find(T, csb_answer_hash(answers[i]), answers, i, first, &m, csb_same_answer);
    }
    return m;
}
