/* malloc tuning (see heap.h). */
#include <stdlib.h>

#include "heap.h"

#if defined(__GLIBC__)
#  include <malloc.h>
int csb_tune_malloc(void)
{
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
#else
int csb_tune_malloc(void) { return 0; }
#endif
