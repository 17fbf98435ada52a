/* Runtime CPU dispatch (see cpu.h). */
#include "cpu.h"

#if defined(CS_CAN_AVX2) && defined(_MSC_VER)     /* MSVC, clang-cl */
#  include <intrin.h>
#  include <immintrin.h>
static int cs_cpu_probe(void)
{
    int r[4];
    __cpuid(r, 0);
    if (r[0] < 7) return 0;
    __cpuid(r, 1);
    /* OSXSAVE and AVX, and the OS saves the XMM and YMM registers */
    if ((r[2] & (1 << 27)) == 0 || (r[2] & (1 << 28)) == 0) return 0;
    if ((_xgetbv(0) & 6) != 6) return 0;
    __cpuidex(r, 7, 0);
    return (r[1] & (1 << 5)) != 0;
}
#elif defined(CS_CAN_AVX2) && defined(__GNUC__)   /* GCC, Clang: libgcc or compiler-rt */
static int cs_cpu_probe(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
#else
static int cs_cpu_probe(void) { return 0; }
#endif

int cs_cpu_has_avx2(void)
{
    static int known = -1;   /* a benign race: every thread stores the same value */
    if (known < 0) known = cs_cpu_probe();
    return known;
}
