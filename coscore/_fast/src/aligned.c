/* 64-byte aligned allocation (see aligned.h). */
#include <stdint.h>
#include <stdlib.h>

#include "aligned.h"

void *cs_aligned_calloc(size_t size)
{
    unsigned char *raw, *p;
    if (size > SIZE_MAX - 64 - sizeof(void *)) return NULL;
    raw = (unsigned char *)calloc(1, size + 64 + sizeof(void *));
    if (!raw) return NULL;
    p = (unsigned char *)(((uintptr_t)(raw + sizeof(void *)) + 63) & ~(uintptr_t)63);
    ((void **)p)[-1] = raw;
    return p;
}

void cs_aligned_free(void *p)
{
    if (p) free(((void **)p)[-1]);
}
