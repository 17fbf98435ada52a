/*
 * Runtime CPU dispatch: what the running processor offers, asked once.
 *
 * The SIMD paths are compiled for x86-64 only (SSE2 is part of that ABI);
 * wider ones (AVX2) are taken only when cs_cpu_has_avx2() says the CPU and
 * the OS (saved YMM state) support them. Elsewhere the scalar paths run.
 */
#ifndef COSCORE_SRC_CPU_H
#define COSCORE_SRC_CPU_H

/* x86-64 with SSE2 intrinsics (every x86-64 CPU has SSE2), unless -DCOSCORE_NO_VEC */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(COSCORE_NO_VEC)
#  define CS_X86_64 1
#endif

/* AVX2 functions can be compiled here: with a target attribute (GNU C), with MSVC's
 * intrinsics (anywhere), or with clang-cl when the whole build is AVX2 (its
 * immintrin.h declares the AVX2 intrinsics only then, up to Clang 15 at least) */
#if defined(CS_X86_64) && !defined(COSCORE_NO_CLONES) \
    && (defined(__GNUC__) || (defined(_MSC_VER) && (!defined(__clang__) || defined(__AVX2__))))
#  define CS_CAN_AVX2 1
#  if defined(__GNUC__)
#    define CS_TARGET_AVX2 __attribute__((target("avx2")))
#  else
#    define CS_TARGET_AVX2            /* MSVC compiles AVX2 intrinsics anywhere */
#  endif
#endif

/* 1 when the CPU and OS run AVX2 code, else 0 (always 0 without CS_CAN_AVX2) */
int cs_cpu_has_avx2(void);

#endif /* COSCORE_SRC_CPU_H */
