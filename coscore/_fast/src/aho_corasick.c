/* SM: Aho-Corasick scan (see aho_corasick.h). */
#include <stdlib.h>

#include "aho_corasick.h"

void cs_ac_free(cs_ac *A)
{
    cs_cpmap_free(&A->map);
    free(A->delta); free(A->out_off); free(A->out_slot);
    A->delta = NULL; A->out_off = NULL; A->out_slot = NULL;
    A->n_states = 0; A->n_slots = 0;
}

/* Mark hit[slot] = 1 for every slot with an option found in t; stop once all
 * n_slots are hit. hit must be zeroed. Returns the number of slots hit. */
Py_ssize_t cs_ac_scan(const cs_ac *A, const cs_text *t, unsigned char *hit)
{
    Py_ssize_t i, n = t->n, found = 0, w = A->width;
    const int32_t *delta = A->delta;
    int32_t code = 0;
    if (A->n_slots == 0) return 0;
#define CS_AC_STEP(ID)                                                          \
    code = delta[(size_t)(code >> 1) * w + (ID)];                               \
    if (code & 1) {                                                             \
        Py_ssize_t s = code >> 1, j;                                            \
        for (j = A->out_off[s]; j < A->out_off[s + 1]; j++) {                   \
            int32_t slot = A->out_slot[j];                                      \
            if (!hit[slot]) { hit[slot] = 1; if (++found == A->n_slots) return found; } \
        }                                                                       \
    }
    if (t->kind == 1) {
        const uint8_t *p = (const uint8_t *)t->data;
        const uint32_t *t0 = A->map.page0;
        for (i = 0; i < n; i++) { CS_AC_STEP(t0[p[i]]) }
    } else if (t->kind == 2) {
        const uint16_t *p = (const uint16_t *)t->data;
        for (i = 0; i < n; i++) { CS_AC_STEP(cs_lookup_bmp(&A->map, p[i])) }
    } else {
        const uint32_t *p = (const uint32_t *)t->data;
        for (i = 0; i < n; i++) { CS_AC_STEP(cs_lookup(&A->map, p[i])) }
    }
#undef CS_AC_STEP
    return found;
}


