/*
 * Code point -> small id: a two-level table for the BMP (256 pages of 256
 * ids, all-zero pages shared) and a sorted array for astral code points.
 * Every kernel maps an answer's code points through one of these first; id 0
 * means "in no key/option".
 */
#ifndef COSCORE_SRC_CPMAP_H
#define COSCORE_SRC_CPMAP_H

#include <stdint.h>

#include "text.h"

typedef struct {
    uint16_t page_of[256];   /* BMP high byte -> page number (0: all-zero page) */
    uint32_t *pages;         /* npages * 256 ids */
    const uint32_t *page0;   /* ids of U+0000..U+00FF */
    Py_ssize_t npages;
    Py_ssize_t n_astral;
    uint32_t *astral_cp;     /* sorted ascending */
    uint32_t *astral_id;
} cs_cpmap;

/* Build from n (code point, id) pairs, ids != 0, code points distinct and
 * < 0x110000. Returns 0, or -1 when out of memory (m is then empty). */
int cs_cpmap_build(cs_cpmap *m, const uint32_t *cps, const uint32_t *ids, Py_ssize_t n);
void cs_cpmap_free(cs_cpmap *m);
/* the id of an astral code point (binary search) */
uint32_t cs_astral_lookup(const cs_cpmap *m, uint32_t c);

CS_INLINE uint32_t cs_lookup_bmp(const cs_cpmap *m, uint32_t c)
{
    return m->pages[((uint32_t)m->page_of[c >> 8] << 8) | (c & 0xFFu)];
}

CS_INLINE uint32_t cs_lookup(const cs_cpmap *m, uint32_t c)
{
    if (CS_LIKELY(c < 0x10000u)) return cs_lookup_bmp(m, c);
    return m->n_astral ? cs_astral_lookup(m, c) : 0;
}

#define CS_CHUNK 256            /* ids translated per round */

/* Translate text[*pos ...] into ids, dropping id 0, until out holds CS_CHUNK
 * ids or the text ends. out needs CS_CHUNK + 1 slots. Returns the count. */
CS_INLINE Py_ssize_t cs_fill_kind(const cs_cpmap *m, int kind, const void *data, Py_ssize_t n,
                                  Py_ssize_t *pos, uint32_t *out)
{
    Py_ssize_t i = *pos, k = 0;
    if (kind == 1) {
        const uint8_t *p = (const uint8_t *)data;
        const uint32_t *t0 = m->page0;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = t0[p[i]]; out[k] = id; k += (id != 0); }
    } else if (kind == 2) {
        const uint16_t *p = (const uint16_t *)data;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = cs_lookup_bmp(m, p[i]); out[k] = id; k += (id != 0); }
    } else {
        const uint32_t *p = (const uint32_t *)data;
        for (; i < n && k < CS_CHUNK; i++) { uint32_t id = cs_lookup(m, p[i]); out[k] = id; k += (id != 0); }
    }
    *pos = i;
    return k;
}

CS_INLINE Py_ssize_t cs_fill(const cs_cpmap *m, const cs_text *t, Py_ssize_t *pos, uint32_t *out)
{
    switch (t->kind) {
    case 1: return cs_fill_kind(m, 1, t->data, t->n, pos, out);
    case 2: return cs_fill_kind(m, 2, t->data, t->n, pos, out);
    default: return cs_fill_kind(m, 4, t->data, t->n, pos, out);
    }
}

#endif /* COSCORE_SRC_CPMAP_H */
