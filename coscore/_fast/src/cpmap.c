/* Code point -> id maps (see cpmap.h). */
#include <stdlib.h>
#include <string.h>

#include "cpmap.h"

uint32_t cs_astral_lookup(const cs_cpmap *m, uint32_t c)
{
    Py_ssize_t lo = 0, hi = m->n_astral;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        if (m->astral_cp[mid] < c) lo = mid + 1; else hi = mid;
    }
    return (lo < m->n_astral && m->astral_cp[lo] == c) ? m->astral_id[lo] : 0;
}

void cs_cpmap_free(cs_cpmap *m)
{
    free(m->pages); free(m->astral_cp); free(m->astral_id);
    m->pages = NULL; m->astral_cp = NULL; m->astral_id = NULL;
    m->page0 = NULL; m->npages = 0; m->n_astral = 0;
}

typedef struct { uint32_t cp, id; } cs_pair;

static int cs_pair_cmp(const void *a, const void *b)
{
    uint32_t x = ((const cs_pair *)a)->cp, y = ((const cs_pair *)b)->cp;
    return (x > y) - (x < y);
}

int cs_cpmap_build(cs_cpmap *m, const uint32_t *cps, const uint32_t *ids, Py_ssize_t n)
{
    Py_ssize_t i, na = 0, np = 1;
    cs_pair *tmp = NULL;
    int rc = -1;
    memset(m, 0, sizeof(*m));
    for (i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (c >= 0x10000u) { na++; continue; }
        if (m->page_of[c >> 8] == 0) m->page_of[c >> 8] = (uint16_t)np++;
    }
    m->npages = np;
    m->pages = (uint32_t *)calloc((size_t)np * 256, sizeof(uint32_t));
    if (!m->pages) goto done;
    for (i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (c < 0x10000u) m->pages[((uint32_t)m->page_of[c >> 8] << 8) | (c & 0xFFu)] = ids[i];
    }
    m->page0 = m->pages + ((size_t)m->page_of[0] << 8);
    if (na) {
        Py_ssize_t j = 0;
        tmp = (cs_pair *)malloc((size_t)na * sizeof(cs_pair));
        m->astral_cp = (uint32_t *)malloc((size_t)na * sizeof(uint32_t));
        m->astral_id = (uint32_t *)malloc((size_t)na * sizeof(uint32_t));
        if (!tmp || !m->astral_cp || !m->astral_id) goto done;
        for (i = 0; i < n; i++)
            if (cps[i] >= 0x10000u) { tmp[j].cp = cps[i]; tmp[j].id = ids[i]; j++; }
        qsort(tmp, (size_t)na, sizeof(cs_pair), cs_pair_cmp);
        for (i = 0; i < na; i++) { m->astral_cp[i] = tmp[i].cp; m->astral_id[i] = tmp[i].id; }
        m->n_astral = na;
    }
    rc = 0;
done:
    free(tmp);
    if (rc != 0) cs_cpmap_free(m);
    return rc;
}
