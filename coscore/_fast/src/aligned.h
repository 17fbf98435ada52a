/* 64-byte aligned, zeroed heap blocks (portable: no aligned_alloc needed). */
#ifndef COSCORE_SRC_ALIGNED_H
#define COSCORE_SRC_ALIGNED_H

#include <stddef.h>

/* size zeroed bytes at a 64-byte boundary, or NULL; free with cs_aligned_free */
void *cs_aligned_calloc(size_t size);
void cs_aligned_free(void *p);

#endif /* COSCORE_SRC_ALIGNED_H */
