/*
 * SM: an Aho-Corasick automaton over alphabet ids (the plain leading options
 * of an SM desc that do not fit Shift-And). substring.pyx builds the dense
 * transition table; a scan only reads it.
 */
#ifndef COSCORE_SRC_AHO_CORASICK_H
#define COSCORE_SRC_AHO_CORASICK_H

#include <stdint.h>

#include "cpmap.h"
#include "text.h"

typedef struct {
    cs_cpmap map;            /* code point -> id 1..width-1; 0 = in no pattern */
    Py_ssize_t width;        /* ids per state row */
    Py_ssize_t n_states;
    int32_t *delta;          /* n_states * width; value = next * 2 + (next has output) */
    Py_ssize_t *out_off;     /* n_states + 1 */
    int32_t *out_slot;       /* slots (groups) reported at each state */
    Py_ssize_t n_slots;
} cs_ac;

void cs_ac_free(cs_ac *A);
/* Mark hit[slot] = 1 for every slot with an option found in t; stop once all
 * n_slots are hit. hit must be zeroed. Returns the number of slots hit. */
Py_ssize_t cs_ac_scan(const cs_ac *A, const cs_text *t, unsigned char *hit);

#endif /* COSCORE_SRC_AHO_CORASICK_H */
