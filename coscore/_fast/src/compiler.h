/*
 * Portable compiler macros of the coscore kernels (GCC, Clang, MSVC, others).
 *
 * GNU C (builtins, attributes, vector extensions) is used only where __GNUC__ is
 * defined: GCC, and Clang with its GNU driver. MSVC and clang-cl (which defines
 * _MSC_VER, not __GNUC__) get MSVC's keywords and intrinsics and the scalar
 * paths; tests/test_msvc_syntax.py compiles the sources so with clang.
 *
 *   CS_INLINE / CS_NOINLINE   forced inlining / none (static)
 *   CS_LIKELY / CS_UNLIKELY   branch hints
 *   CS_HAVE_VEC               GNU C vector extensions (32-byte vectors) are
 *                             available; -DCOSCORE_NO_VEC keeps the scalar paths only
 *   CS_CLONES                 an AVX2 clone of a hot function, chosen at load time
 *                             (glibc ifunc, GCC; empty elsewhere)
 *   CS_CLONES_STATIC          the same for a static function kept out of line
 *                             (CS_NOINLINE where there are no clones)
 *   CS_PREFETCH(p)            a read prefetch hint (no-op where unknown)
 *   cs_ctz32(x)               index of the lowest set bit of x != 0
 *   cs_popcount64(x)          set bits of x
 *
 * Header only: no definitions with external linkage.
 */
#ifndef COSCORE_SRC_COMPILER_H
#define COSCORE_SRC_COMPILER_H

#include <stdint.h>

/* inlining: MSVC's keywords for MSVC and clang-cl (both define _MSC_VER) */
#if defined(_MSC_VER)
#  include <intrin.h>
#  define CS_INLINE static __forceinline
#  define CS_NOINLINE static __declspec(noinline)
#elif defined(__GNUC__)
#  define CS_INLINE static inline __attribute__((always_inline))
#  define CS_NOINLINE static __attribute__((noinline))
#else
#  define CS_INLINE static inline
#  define CS_NOINLINE static
#endif

/* GCC's builtins and vector extensions: GCC, and Clang with its GNU driver */
#if defined(__GNUC__)
#  define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#  define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define CS_PREFETCH(p) __builtin_prefetch((const void *)(p))
#  ifndef COSCORE_NO_VEC
#    define CS_HAVE_VEC 1
#  endif
   /* 32-byte vectors only live inside always-inline helpers: no ABI concern */
#  if defined(__clang__)
#    if __has_warning("-Wpsabi")
#      pragma clang diagnostic ignored "-Wpsabi"
#    endif
#  else
#    pragma GCC diagnostic ignored "-Wpsabi"
#  endif
#else
#  define CS_LIKELY(x) (x)
#  define CS_UNLIKELY(x) (x)
#  if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#    include <xmmintrin.h>
#    define CS_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#  endif
#endif
#ifndef CS_PREFETCH
#  define CS_PREFETCH(p) ((void)(p))
#endif

/* An AVX2 clone of a hot loop, dispatched once by the loader (glibc ifunc): GCC only.
 * (Clang 14 has target_clones but refuses the AVX2 clones' calls of the always-inline
 * helpers that take 32-byte vectors by value, so a Clang build runs the default code.) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__linux__) && defined(__GLIBC__) && !defined(COSCORE_NO_CLONES)
#  define CS_CLONES __attribute__((target_clones("avx2", "default")))
   /* a clone is never inlined (and Clang refuses noinline beside target_clones) */
#  define CS_CLONES_STATIC static CS_CLONES
#else
#  define CS_CLONES
#  define CS_CLONES_STATIC CS_NOINLINE
#endif

CS_INLINE unsigned cs_ctz32(uint32_t x)
{
#if defined(_MSC_VER)
    unsigned long i;
    _BitScanForward(&i, (unsigned long)x);
    return (unsigned)i;
#elif defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
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
