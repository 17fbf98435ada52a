/*
 * CS: multiset Jaccard of an answer's character tokens against a fixed list
 * of keys. The caller (jaccard.pyx) maps code points to token ids: 0 = a token
 * in no key, 1 = whitespace (dropped), 2.. = key tokens; per-key counts are
 * also transposed into 16-bit vector lanes (one vector min/add per distinct
 * answer token) when the table is small.
 */
#ifndef COSCORE_SRC_MULTISET_H
#define COSCORE_SRC_MULTISET_H

#include <stdint.h>

#include "cpmap.h"
#include "text.h"

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

void cs_jac_free(cs_jac *J);
/* Build the dense table when it is small and every key has < 32768 tokens;
 * returns 0, or -1 when out of memory. */
int cs_jac_finish(cs_jac *J);
/* Per-call scratch: [n_kvec accumulator vectors][ns: n_ids counts][touched ids].
 * It must be zeroed once (64-byte aligned); every call leaves it zeroed again. */
Py_ssize_t cs_jac_scratch_bytes(const cs_jac *J);
/* the best ratio over the keys */
double cs_jac_best(const cs_jac *J, const cs_text *t, unsigned char *scratch);
/* (sum_min, sum_max) of every key, from the sparse pairs */
void cs_jac_counts(const cs_jac *J, const cs_text *t, unsigned char *scratch,
                   Py_ssize_t *smin, Py_ssize_t *smax);

#endif /* COSCORE_SRC_MULTISET_H */
