/*
 * Portable compiler macros of the coscore kernels (GCC, Clang, MSVC, others).
 *
 *   CS_INLINE / CS_NOINLINE   forced inlining / none (static)
 *   CS_LIKELY / CS_UNLIKELY   branch hints
 *   CS_HAVE_VEC               GCC/Clang vector extensions (32-byte vectors) are
 *                             available; -DCOSCORE_NO_VEC keeps the scalar paths only
 *   CS_CLONES                 an AVX2 clone of a hot function, chosen at load time
 *                             (glibc ifunc; empty elsewhere)
 *   CS_PREFETCH(p)            a read prefetch hint (no-op where unknown)
 *   cs_ctz32(x)               index of the lowest set bit of x != 0
 *   cs_popcount64(x)          set bits of x
 *
 * Header only: no definitions with external linkage.
 */
#ifndef COSCORE_SRC_COMPILER_H
#define COSCORE_SRC_COMPILER_H

#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#  define CS_INLINE static inline __attribute__((always_inline))
#  define CS_NOINLINE static __attribute__((noinline))
#  define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#  define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define CS_PREFETCH(p) __builtin_prefetch((const void *)(p))
#  ifndef COSCORE_NO_VEC
#    define CS_HAVE_VEC 1
#  endif
#  if defined(__GNUC__) && !defined(__clang__)
     /* 32-byte vectors only live inside always-inline helpers: no ABI concern */
#    pragma GCC diagnostic ignored "-Wpsabi"
#  endif
#elif defined(_MSC_VER)
#  include <intrin.h>
#  define CS_INLINE static __forceinline
#  define CS_NOINLINE static __declspec(noinline)
#  define CS_LIKELY(x) (x)
#  define CS_UNLIKELY(x) (x)
#  if defined(_M_X64) || defined(_M_IX86)
#    include <xmmintrin.h>
#    define CS_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#  endif
#else
#  define CS_INLINE static inline
#  define CS_NOINLINE static
#  define CS_LIKELY(x) (x)
#  define CS_UNLIKELY(x) (x)
#endif
#ifndef CS_PREFETCH
#  define CS_PREFETCH(p) ((void)(p))
#endif

/* An AVX2 clone of a hot loop, dispatched once by the loader (glibc ifunc). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) \
    && defined(__GLIBC__) && !defined(COSCORE_NO_CLONES)
#  define CS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#  define CS_CLONES
#endif

CS_INLINE unsigned cs_ctz32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(x);
#elif defined(_MSC_VER)
    unsigned long i;
    _BitScanForward(&i, (unsigned long)x);
    return (unsigned)i;
#else
    unsigned i = 0;
    while (!(x & 1u)) { x >>= 1; i++; }
    return i;
#endif
}

CS_INLINE int cs_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#endif /* COSCORE_SRC_COMPILER_H */
