# Deduplication of byte strings and of dictionary codes in C (see byte_dedup.pyx):
# cimported by the Arrow reader (arrow.pyx), which picks the rows' bytes and hands them here.
from libc.stdint cimport int64_t, uint8_t


cdef object first_rows(const uint8_t **ptrs, const int64_t *lens, int64_t m, object inverse)

cdef int64_t distinct_codes(int64_t *codes, int64_t m, int64_t *distinct) noexcept nogil
