/*
 * malloc tuning (glibc). A chunk allocates and frees dozens of arrays of
 * 0.5-2 MB (numpy columns, lists, kernel buffers). glibc serves such blocks
 * with mmap/munmap or trims the heap after each free, so every chunk pays page
 * faults on fresh pages: about a third of the time per answer on the small
 * rules, and the faults of two threads contend on the process's memory map.
 * Keeping blocks below 32 MB on the heap and not trimming below 256 MB free
 * makes them reusable.
 */
#ifndef COSCORE_SRC_HEAP_H
#define COSCORE_SRC_HEAP_H

/* Returns 1 when the parameters were set (glibc), else 0. */
int csb_tune_malloc(void);

#endif /* COSCORE_SRC_HEAP_H */
