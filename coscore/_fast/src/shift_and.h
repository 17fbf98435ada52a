/*
 * SM: bit-parallel Shift-And over all plain leading options of an SM desc at
 * once (distinct texts totalling <= 128 code points), with SIMD prefilters on
 * x86-64 that skip the characters in no option: an SSE2 compare against a
 * small alphabet, or (AVX2, chosen at run time) nibble classes for UCS-2 text.
 * substring.pyx fills the masks; a scan only reads them.
 */
#ifndef COSCORE_SRC_SHIFT_AND_H
#define COSCORE_SRC_SHIFT_AND_H

#include <stdint.h>

#include "cpmap.h"
#include "text.h"

#define CS_SA_VMAX 32   /* prefilter: at most this many alphabet code points */

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

void cs_sa_free(cs_sa *A);
/* Build mpages (after map and B) when the state is one word and the pages
 * take at most 256 KB; returns 0, or -1 when out of memory. */
int cs_sa_direct(cs_sa *A);
/* Fill the prefilter from alpha[0 .. n_alpha2 - 1] (n_alpha1 of them < 0x100
 * first); n_alpha1 / n_alpha2 = -1: too many for the prefilter. */
void cs_sa_prefilter(cs_sa *A);
/* Use the AVX2 nibble-class prefilter for kind 2 text when the CPU has AVX2
 * and the compare prefilter would test many characters (or none): cps[0 ..
 * n - 1] are the alphabet's code points (any order). After cs_sa_prefilter. */
void cs_sa_nibbles(cs_sa *A, const uint32_t *cps, Py_ssize_t n);
/* Mark hit[slot] = 1 (hit may be NULL) for every slot with an option found
 * in t; returns the number of slots hit. */
Py_ssize_t cs_sa_scan(const cs_sa *A, const cs_text *t, unsigned char *hit);

#endif /* COSCORE_SRC_SHIFT_AND_H */
