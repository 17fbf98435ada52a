/*
 * Deduplicating strings and answers without the GIL: open addressing over
 * packed (hash bits | index + 1) words. The items' hashes are computed first,
 * with the GIL (csb_hash_strs, csb_hash_answers); the items themselves are
 * read only when two hashes agree. Same reading rules as answers.h.
 */
#ifndef COSCORE_SRC_DEDUP_H
#define COSCORE_SRC_DEDUP_H

#include <stdint.h>

#include "answers.h"

typedef struct {
    uint64_t *table;
    uint64_t mask;          /* table size - 1 */
    int shift;              /* index + 1 lives in the low `shift` bits */
} csb_table;

/* a zeroed table for n items; returns 0, or -1 when out of memory */
int csb_table_init(csb_table *T, Py_ssize_t n);

/* idx[i] = position of items[i] among the distinct items; first[j] = the
 * input index of distinct item j; hashes[i] the item's hash. Return the
 * number of distinct items. */
typedef Py_ssize_t (*csb_dedup_fn)(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                                   Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx);
/* plain str items (csb_hash_strs) */
Py_ssize_t csb_dedup_strs(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                          Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx);
/* well-formed answers of plain str blanks (csb_hash_answers; "a", ["a"] and
 * ("a",) alike) */
Py_ssize_t csb_dedup_answers(csb_table *T, PyObject *const *items, const uint64_t *hashes,
                             Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx);

#endif /* COSCORE_SRC_DEDUP_H */
