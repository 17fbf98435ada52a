/*
 * Batch plumbing without the GIL: checking answers and deduplicating strings
 * and answers by reading the str objects' code-point buffers directly.
 *
 * Every function here but csb_fill_list only *reads* objects that the caller
 * keeps alive (a list it holds, and the objects that list holds) and touches
 * no reference count, so it can run with the GIL released (the one write is
 * a str's hash cache, see csb_str_hash). The caller must not mutate the lists
 * while a call runs (the engine's chunks are its own lists).
 *
 * A str's hash is Python's own (cached in the object, or computed the way
 * str.__hash__ does and cached there), so a batch whose strings were hashed
 * before reads only their headers.
 */
#ifndef COSCORE_FAST_BATCH_H
#define COSCORE_FAST_BATCH_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define CSB_INLINE static inline __attribute__((always_inline))
#  define CSB_LIKELY(x) __builtin_expect(!!(x), 1)
#  define CSB_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define CSB_INLINE static inline
#  define CSB_LIKELY(x) (x)
#  define CSB_UNLIKELY(x) (x)
#endif

#if PY_VERSION_HEX >= 0x030C0000
#  define CSB_IS_READY(o) 1
#else
#  define CSB_IS_READY(o) PyUnicode_IS_READY(o)
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define CSB_PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#  define CSB_PREFETCH(p) ((void)0)
#endif

/* an exact str whose code points can be read without the GIL */
#define CSB_PLAIN_STR(o) (Py_TYPE(o) == &PyUnicode_Type && CSB_IS_READY(o))

static uint64_t csb_seed = 0x2d358dccaa6c78a5ULL;

#if defined(__SIZEOF_INT128__)
CSB_INLINE uint64_t csb_mum(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}
#else
CSB_INLINE uint64_t csb_mum(uint64_t a, uint64_t b)
{
    uint64_t ha = a >> 32, hb = b >> 32, la = (uint32_t)a, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl, lo, hi;
    lo = t + (rm1 << 32); c += lo < t;
    hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
    return lo ^ hi;
}
#endif

#if PY_VERSION_HEX >= 0x030E0000
#  define CSB_HASH_BYTES(p, n) Py_HashBuffer((p), (n))
#else
#  define CSB_HASH_BYTES(p, n) _Py_HashBytes((p), (n))
#endif

/* Python's own hash of a str: the cached one, or computed as str.__hash__ does
 * (_Py_HashBytes over the code-point bytes, which needs no GIL) and cached.
 * Storing the field without the GIL is a benign race: every writer stores the
 * same value, in one aligned word. */
CSB_INLINE uint64_t csb_str_hash(PyObject *s)
{
    Py_hash_t h = ((PyASCIIObject *)s)->hash;
    if (CSB_UNLIKELY(h == -1)) {
        h = CSB_HASH_BYTES(PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s) * (Py_ssize_t)PyUnicode_KIND(s));
        ((PyASCIIObject *)s)->hash = h;
    }
    return (uint64_t)h;
}

CSB_INLINE int csb_str_eq(PyObject *a, PyObject *b)
{
    Py_ssize_t n;
    int kind;
    if (a == b) return 1;
    n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b)) return 0;
    kind = (int)PyUnicode_KIND(a);
    if (kind != (int)PyUnicode_KIND(b)) return 0;
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
}

/* Prefetch the first blank of answers[i + 4], and the headers of the
 * answers 8 and 16 ahead (the answers and their lists lie all over the heap;
 * the loops over a chunk read them once each). */
CSB_INLINE void csb_prefetch_answers(PyObject *const *answers, Py_ssize_t i, Py_ssize_t n)
{
    if (i + 16 < n) CSB_PREFETCH(answers[i + 16]);
    if (i + 8 < n) {
        PyObject *a = answers[i + 8];
        if (Py_TYPE(a) == &PyList_Type) CSB_PREFETCH(((PyListObject *)a)->ob_item);
    }
    if (i + 4 < n) {
        PyObject *a = answers[i + 4];
        PyTypeObject *t = Py_TYPE(a);
        if (t == &PyList_Type && Py_SIZE(a) > 0) CSB_PREFETCH(((PyListObject *)a)->ob_item[0]);
        else if (t == &PyTuple_Type && Py_SIZE(a) > 0) CSB_PREFETCH(((PyTupleObject *)a)->ob_item[0]);
    }
}

/* ------------------------------------------------------------------------ */
/* answers                                                                   */
/* ------------------------------------------------------------------------ */
/* the blanks of an answer: a str is its own one blank */
CSB_INLINE Py_ssize_t csb_blanks(PyObject *a, PyObject *const **items, PyObject **one)
{
    if (Py_TYPE(a) == &PyUnicode_Type) { *one = a; *items = one; return 1; }
    if (Py_TYPE(a) == &PyList_Type) { *items = ((PyListObject *)a)->ob_item; return PyList_GET_SIZE(a); }
    *items = ((PyTupleObject *)a)->ob_item;
    return PyTuple_GET_SIZE(a);
}

/* odd[i] = 1 for an answer that is not a str or a list/tuple of str (and 0
 * otherwise); the largest and smallest blank count of the others (fewest is
 * -1 when there are none). Returns the number of odd answers. */
/* The number of blanks of answer `a` when it is well formed (a str, or a
 * list/tuple of exact str), else -1. */
CSB_INLINE Py_ssize_t csb_well_formed(PyObject *a)
{
    PyTypeObject *t = Py_TYPE(a);
    Py_ssize_t size, j;
    if (t == &PyUnicode_Type)
        return 1;
    if (t == &PyList_Type || t == &PyTuple_Type) {
        PyObject *const *items = t == &PyList_Type ? ((PyListObject *)a)->ob_item
                                                    : ((PyTupleObject *)a)->ob_item;
        size = Py_SIZE(a);
        for (j = 0; j < size; j++)
            if (Py_TYPE(items[j]) != &PyUnicode_Type) return -1;
        return size;
    }
    return -1;
}

static Py_ssize_t csb_check(PyObject *const *answers, Py_ssize_t n, unsigned char *odd,
                            Py_ssize_t *most, Py_ssize_t *fewest)
{
    Py_ssize_t i, n_odd = 0, hi = 0, lo = -1;
    for (i = 0; i < n; i++) {
        Py_ssize_t size;
        csb_prefetch_answers(answers, i, n);
        size = csb_well_formed(answers[i]);
        odd[i] = (unsigned char)(size < 0);
        if (size < 0) { n_odd++; continue; }
        if (size > hi) hi = size;
        if (lo < 0 || size < lo) lo = size;
    }
    *most = hi;
    *fewest = lo;
    return n_odd;
}

/* Are all the blanks of all the (well-formed) answers readable without the
 * GIL? Returns the index of the first answer that is not, or n. */
static Py_ssize_t csb_answers_plain(PyObject *const *answers, Py_ssize_t n)
{
    Py_ssize_t i, j;
    for (i = 0; i < n; i++) {
        PyObject *a = answers[i], *one;
        PyObject *const *items;
        PyTypeObject *t = Py_TYPE(a);
        Py_ssize_t size;
        if (t != &PyUnicode_Type && t != &PyList_Type && t != &PyTuple_Type) return i;
        size = csb_blanks(a, &items, &one);
        for (j = 0; j < size; j++)
            if (!CSB_PLAIN_STR(items[j])) return i;
    }
    return n;
}

/* The first index of an item that is not an exact str, or n. */
static Py_ssize_t csb_all_str(PyObject *const *items, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        if (i + 16 < n) CSB_PREFETCH(items[i + 16]);
        if (Py_TYPE(items[i]) != &PyUnicode_Type) return i;
    }
    return n;
}

/* The first index of a str that is not readable without the GIL, or n. */
static Py_ssize_t csb_strs_plain(PyObject *const *items, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        if (i + 16 < n) CSB_PREFETCH(items[i + 16]);
        if (!items[i] || !CSB_PLAIN_STR(items[i])) return i;
    }
    return n;
}

CSB_INLINE uint64_t csb_answer_hash(PyObject *a)
{
    PyObject *one;
    PyObject *const *items;
    Py_ssize_t size = csb_blanks(a, &items, &one), j;
    uint64_t h = csb_seed ^ (uint64_t)size;
    if (size == 1) return csb_str_hash(items[0]);   /* "a", ["a"], ("a",) alike */
    for (j = 0; j < size; j++)
        h = csb_mum(h ^ 0x9E3779B97F4A7C15ULL, csb_str_hash(items[j]) ^ (uint64_t)j);
    return h;
}

CSB_INLINE int csb_answer_eq(PyObject *a, PyObject *b)
{
    PyObject *oa, *ob;
    PyObject *const *ia;
    PyObject *const *ib;
    Py_ssize_t na, nb, j;
    if (a == b) return 1;
    na = csb_blanks(a, &ia, &oa);
    nb = csb_blanks(b, &ib, &ob);
    if (na != nb) return 0;
    for (j = 0; j < na; j++)
        if (!csb_str_eq(ia[j], ib[j])) return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* blank columns: the borrowed items first (no GIL), then one reference each  */
/* ------------------------------------------------------------------------ */
/* out[i] = blank `index` of well-formed answers[i] (negative: from the end),
 * borrowed; `empty` (and miss[i] = 1) when the answer lacks it. With
 * `joined`, blank index is ignored: out[i] is the answer's one blank, `empty`
 * for no blank, or NULL when its blanks must be joined. Returns the number
 * of answers that lack the blank. */
/* Blank `index` of well-formed answer `a` into *out (see csb_pick_blanks);
 * returns 1 when the answer lacks it. */
CSB_INLINE int csb_pick_one(PyObject *a, Py_ssize_t index, int joined, PyObject *empty, PyObject **out)
{
    PyObject *one;
    PyObject *const *items;
    Py_ssize_t size = csb_blanks(a, &items, &one), j;
    if (joined) {
        *out = size == 1 ? items[0] : (size == 0 ? empty : NULL);
        return 0;
    }
    j = index >= 0 ? index : size + index;
    if (0 <= j && j < size) {
        *out = items[j];
        return 0;
    }
    *out = empty;
    return 1;
}

static Py_ssize_t csb_pick_blanks(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
                                  PyObject *empty, PyObject **out, unsigned char *miss)
{
    Py_ssize_t i, lacking = 0;
    for (i = 0; i < n; i++) {
        int lacks;
        csb_prefetch_answers(answers, i, n);
        lacks = csb_pick_one(answers[i], index, joined, empty, &out[i]);
        if (miss) miss[i] = (unsigned char)lacks;
        lacking += lacks;
    }
    return lacking;
}

/* csb_check and csb_pick_blanks in one pass over the answers: odd[i] = 1 (and
 * out[i] = `empty`) for an answer that is not well formed; returns the number
 * of well-formed answers that lack the blank, *n_odd the number of odd ones.
 * While each picked str's header is at hand, hashes[i] = its hash (see
 * csb_str_hash); where out[i] is NULL (blanks to join) or a str not readable
 * without the GIL, odd[i] = 2 instead, counted in *n_late, and hashes[i] is
 * left for the caller. */
static Py_ssize_t csb_check_pick(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
                                 PyObject *empty, PyObject **out, unsigned char *miss, unsigned char *odd,
                                 Py_ssize_t *n_odd, uint64_t *hashes, Py_ssize_t *n_late)
{
    Py_ssize_t i, lacking = 0, n_bad = 0, late = 0;
    for (i = 0; i < n; i++) {
        int lacks = 0;
        csb_prefetch_answers(answers, i, n);
        if (csb_well_formed(answers[i]) < 0) {
            odd[i] = 1;
            out[i] = empty;
            n_bad++;
        } else {
            odd[i] = 0;
            lacks = csb_pick_one(answers[i], index, joined, empty, &out[i]);
        }
        miss[i] = (unsigned char)lacks;
        lacking += lacks;
        if (out[i] && CSB_PLAIN_STR(out[i])) hashes[i] = csb_str_hash(out[i]);
        else { odd[i] = 2; late++; }
    }
    *n_odd = n_bad;
    *n_late = late;
    return lacking;
}

/* Fill a new list (PyList_New(m)) with new references to picked[i], leaving
 * the NULL entries NULL; returns their number. Needs the GIL. */
static Py_ssize_t csb_fill_list(PyObject *list, PyObject *const *picked, Py_ssize_t m)
{
    Py_ssize_t i, holes = 0;
    for (i = 0; i < m; i++) {
        PyObject *o = picked[i];
        if (i + 16 < m && picked[i + 16]) CSB_PREFETCH(picked[i + 16]);
        if (!o) { holes++; continue; }
        Py_INCREF(o);
        PyList_SET_ITEM(list, i, o);
    }
    return holes;
}

/* ------------------------------------------------------------------------ */
/* deduplication: open addressing over packed (hash bits | index + 1) words  */
/* ------------------------------------------------------------------------ */
typedef struct {
    uint64_t *table;
    uint64_t mask;          /* table size - 1 */
    int shift;              /* index + 1 lives in the low `shift` bits */
} csb_table;

static int csb_table_init(csb_table *T, Py_ssize_t n)
{
    uint64_t size = 16;
    int bits = 1;
    while (size < (uint64_t)n + ((uint64_t)n >> 1) + 1) size <<= 1;
    while (bits < 63 && ((uint64_t)1 << bits) <= (uint64_t)n + 1) bits++;
    T->table = (uint64_t *)calloc((size_t)size, sizeof(uint64_t));
    T->mask = size - 1;
    T->shift = bits;
    return T->table ? 0 : -1;
}

#define CSB_DEDUP_BODY(HASH, EQ, PREFETCH)                                         \
    uint64_t low = ((uint64_t)1 << T->shift) - 1, *tab = T->table;                 \
    Py_ssize_t i, m = 0;                                                           \
    for (i = 0; i < n; i++) {                                                      \
        PyObject *s = items[i];                                                    \
        PREFETCH;                                                                  \
        uint64_t h = HASH(s), tag = h & ~low, slot = (h >> 17) & T->mask;          \
        for (;;) {                                                                 \
            uint64_t e = tab[slot];                                                \
            if (e == 0) {                                                          \
                tab[slot] = tag | (uint64_t)(m + 1);                               \
                first[m] = i;                                                      \
                idx[i] = m++;                                                      \
                break;                                                             \
            }                                                                      \
            if ((e & ~low) == tag) {                                               \
                Py_ssize_t j = (Py_ssize_t)(e & low) - 1;                          \
                if (EQ(items[first[j]], s)) { idx[i] = j; break; }                 \
            }                                                                      \
            slot = (slot + 1) & T->mask;                                           \
        }                                                                          \
    }                                                                              \
    return m;

/* idx[i] = position of items[i] among the distinct strings; first[j] = the
 * input index of distinct string j. Returns the number of distinct strings. */
/* The signature of the two dedups below (items, n -> first, idx; returns m). */
typedef Py_ssize_t (*csb_dedup_fn)(csb_table *T, PyObject *const *items, Py_ssize_t n,
                                   Py_ssize_t *first, Py_ssize_t *idx);

static Py_ssize_t csb_dedup_strs(csb_table *T, PyObject *const *items, Py_ssize_t n,
                                 Py_ssize_t *first, Py_ssize_t *idx)
{
    CSB_DEDUP_BODY(csb_str_hash, csb_str_eq, if (i + 16 < n) CSB_PREFETCH(items[i + 16]))
}

/* csb_dedup_strs with the strings' hashes computed already (hashes[i]): the
 * strings themselves are read only when two hashes agree. */
static Py_ssize_t csb_dedup_hashed(csb_table *T, PyObject *const *items, const uint64_t *hashes, Py_ssize_t n,
                                   Py_ssize_t *first, Py_ssize_t *idx)
{
#define CSB_GIVEN_HASH(s) hashes[i]
    CSB_DEDUP_BODY(CSB_GIVEN_HASH, csb_str_eq, (void)0)
#undef CSB_GIVEN_HASH
}

static Py_ssize_t csb_dedup_answers(csb_table *T, PyObject *const *items, Py_ssize_t n,
                                    Py_ssize_t *first, Py_ssize_t *idx)
{
    CSB_DEDUP_BODY(csb_answer_hash, csb_answer_eq, csb_prefetch_answers(items, i, n))
}
#undef CSB_DEDUP_BODY

/* ------------------------------------------------------------------------ */
/* malloc tuning (glibc)                                                     */
/* ------------------------------------------------------------------------ */
/* A chunk allocates and frees dozens of arrays of 0.5-2 MB (numpy columns,
 * lists, kernel buffers). glibc serves such blocks with mmap/munmap or trims
 * the heap after each free, so every chunk pays page faults on fresh pages:
 * about a third of the time per answer on the small rules, and the faults of
 * two threads contend on the process's memory map. Keeping blocks below 32 MB
 * on the heap and not trimming below 256 MB free makes them reusable.
 * Returns 1 when the parameters were set. */
#if defined(__GLIBC__)
#  include <malloc.h>
static int csb_tune_malloc(void)
{
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
#else
static int csb_tune_malloc(void) { return 0; }
#endif

#endif /* COSCORE_FAST_BATCH_H */
