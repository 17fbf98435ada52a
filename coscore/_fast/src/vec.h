/*
 * 32-byte vectors of the GCC/Clang vector extensions (CS_HAVE_VEC): the
 * compiler lowers them to AVX2 or SSE2 pairs (or scalar code) as the target
 * allows. Without CS_HAVE_VEC (MSVC, -DCOSCORE_NO_VEC) the kernels take their
 * scalar paths.
 */
#ifndef COSCORE_SRC_VEC_H
#define COSCORE_SRC_VEC_H

#include <stdint.h>

#include "compiler.h"

#define CS_VBYTES 32

#ifdef CS_HAVE_VEC
typedef uint8_t  cs_v8  __attribute__((vector_size(CS_VBYTES)));
typedef uint16_t cs_v16 __attribute__((vector_size(CS_VBYTES)));
typedef uint32_t cs_v32 __attribute__((vector_size(CS_VBYTES)));
typedef uint64_t cs_v64 __attribute__((vector_size(CS_VBYTES)));
typedef int16_t  cs_vs16 __attribute__((vector_size(CS_VBYTES)));  /* signed: SSE2 min */
#endif

#endif /* COSCORE_SRC_VEC_H */
