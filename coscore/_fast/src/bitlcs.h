/*
 * OP: bit-parallel LCS (Hyyro) of an answer against a fixed list of keys.
 *
 * Keys of <= 64 code points are packed into 8/16/32/64-bit lanes of 32-byte
 * vectors (vec.h), longer keys are carry-propagating multi-word vectors (or,
 * when their dense rows would be too big, sorted sparse blocks). The scorer
 * tables are built once; a run only reads them, with its state in memory the
 * caller provides, so one scorer serves several threads at once.
 */
#ifndef COSCORE_SRC_BITLCS_H
#define COSCORE_SRC_BITLCS_H

#include <stdint.h>

#include "cpmap.h"
#include "text.h"

#define CS_NCLASS 4   /* lane classes: 8, 16, 32 and 64 bits */

typedef struct {
    Py_ssize_t n_vec;        /* 32-byte vectors in this class */
    unsigned char *pm;       /* (n_ids + 1) * n_vec vectors; row 0 is zero */
    Py_ssize_t *lane_key;    /* n_vec * lanes: key index, -1 for an unused lane */
    uint16_t *lane_base;     /* n_vec * lanes: key length * 65 (row of cs_rank_tab), 0 unused */
    unsigned char *lenmask;  /* n_vec vectors: the low (key length) bits of each lane */
    unsigned char *rmul;     /* 8/16-bit classes: 16-bit lanes of 4096 / key length (floor);
                              * the 8-bit class has 2 per vector (even, odd byte lanes) */
} cs_lane_class;

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
extern Py_ssize_t cs_dense_limit;

/* Build the tables. key_off[n_keys + 1] delimits each key's ids (1..n_ids) in
 * key_ids. The map must already be built (it is moved into L on success and
 * on failure freed). Returns 0 or -1 (out of memory). */
int cs_lcs_build(cs_lcs *L, cs_cpmap *map, uint32_t n_ids, Py_ssize_t n_keys,
                 const Py_ssize_t *key_off, const uint32_t *key_ids);
void cs_lcs_free(cs_lcs *L);
/* the state a run needs (64-byte aligned) */
Py_ssize_t cs_lcs_state_bytes(const cs_lcs *L);
/* Run the text through all keys into state. */
void cs_lcs_run(const cs_lcs *L, const cs_text *t, unsigned char *state);
/* LCS length of every key (out[n_keys]) from a finished state. */
void cs_lcs_lengths(const cs_lcs *L, const unsigned char *state, Py_ssize_t *out);
/* max over keys of LCS/len (0.0 for no keys / empty keys) from a finished state */
double cs_lcs_best(const cs_lcs *L, const unsigned char *state);

#endif /* COSCORE_SRC_BITLCS_H */
