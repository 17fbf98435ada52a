/*
 * The code points of a Python str as the kernels read them: its kind (bytes
 * per code point: 1, 2 or 4), its buffer and its length. A kernel only reads
 * the (immutable) buffer, so it runs without the GIL while the caller keeps
 * the str alive.
 */
#ifndef COSCORE_SRC_TEXT_H
#define COSCORE_SRC_TEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "compiler.h"

typedef struct {
    int kind;               /* 1, 2 or 4 */
    const void *data;
    Py_ssize_t n;
} cs_text;

/* PyUnicode_READY is a deprecated no-op since Python 3.12 */
#if PY_VERSION_HEX >= 0x030C0000
#  define CS_UNICODE_READY(o) 0
#  define CS_IS_READY(o) 1
#else
#  define CS_UNICODE_READY(o) PyUnicode_READY(o)
#  define CS_IS_READY(o) PyUnicode_IS_READY(o)
#endif

#define CS_AHEAD 16  /* strings prefetched ahead in the batch loops */

/* Prefetch the first code points of texts[i + CS_AHEAD] (the batch loops
 * read each string's buffer once per atom; the strings lie all over the heap). */
CS_INLINE void cs_prefetch_ahead(const cs_text *texts, Py_ssize_t i, Py_ssize_t n)
{
    if (i + CS_AHEAD < n) {
        const char *p = (const char *)texts[i + CS_AHEAD].data;
        CS_PREFETCH(p);
        CS_PREFETCH(p + 64);
    }
}

#endif /* COSCORE_SRC_TEXT_H */
