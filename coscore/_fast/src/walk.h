/*
 * SM: the ordered walk over a group's options, on code points and without
 * the GIL. For each group, t = s; its options in order: '!x' with x in t
 * stops the group; '~x' with x in t sets t = t.replace(x, '') and goes on;
 * then an option found in t (the whole option text, prefix included) counts
 * the group and stops it. Exactly Python's `in` and str.replace(x, ''): the
 * searches are Knuth-Morris-Pratt (linear in the text whatever the option),
 * the removal left to right, non-overlapping.
 *
 * substring.pyx walks with it only the groups its scan (Shift-And or
 * Aho-Corasick over the leading plain options) did not already count.
 */
#ifndef COSCORE_SRC_WALK_H
#define COSCORE_SRC_WALK_H

#include <stdint.h>

#include "text.h"

enum { CS_OP_PLAIN = 0, CS_OP_NOT = 1, CS_OP_TILDE = 2 };

typedef struct {
    Py_ssize_t n_groups;
    Py_ssize_t *op_off;      /* n_groups + 1: group g walks ops op_off[g] .. op_off[g + 1] - 1 */
    unsigned char *kind;     /* per op: CS_OP_* */
    Py_ssize_t *cp_off;      /* n_ops + 1: op k's whole text is cps[cp_off[k] .. cp_off[k + 1]) */
    uint32_t *cps;           /* the options' code points */
    Py_ssize_t *fail;        /* KMP tables: of the whole text at 2 * cp_off[k], of x after */
} cs_walk;

/* Allocate a walk of n_groups groups, n_ops options and n_cps code points in
 * all (zeroed; the caller fills op_off, kind, cp_off and cps, then calls
 * cs_walk_prepare). Returns 0, or -1 when out of memory (W is then empty). */
int cs_walk_init(cs_walk *W, Py_ssize_t n_groups, Py_ssize_t n_ops, Py_ssize_t n_cps);
/* the KMP tables, once op_off, kind, cp_off and cps are filled */
void cs_walk_prepare(cs_walk *W);
void cs_walk_free(cs_walk *W);
/* Does group g hit the text t[0 .. n - 1] (code points)? work: n scratch slots. */
int cs_walk_group(const cs_walk *W, Py_ssize_t g, const uint32_t *t, Py_ssize_t n, uint32_t *work);
/* the code points of a text, as 32-bit values (out: t->n slots) */
void cs_text_ucs4(const cs_text *t, uint32_t *out);

#endif /* COSCORE_SRC_WALK_H */
