/* Checking answers and picking blanks without the GIL (see answers.h). */
#include "answers.h"

/* The number of blanks of answer `a` when it is well formed (a str, or a
 * list/tuple of exact str), else -1. */
CS_INLINE Py_ssize_t csb_well_formed(PyObject *a)
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

Py_ssize_t csb_check(PyObject *const *answers, Py_ssize_t n, unsigned char *odd,
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

Py_ssize_t csb_answers_plain(PyObject *const *answers, Py_ssize_t n)
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

Py_ssize_t csb_all_str(PyObject *const *items, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        if (i + 16 < n) CS_PREFETCH(items[i + 16]);
        if (Py_TYPE(items[i]) != &PyUnicode_Type) return i;
    }
    return n;
}

Py_ssize_t csb_strs_plain(PyObject *const *items, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        if (i + 16 < n) CS_PREFETCH(items[i + 16]);
        if (!items[i] || !CSB_PLAIN_STR(items[i])) return i;
    }
    return n;
}

/* Blank `index` of well-formed answer `a` into *out (see csb_pick_blanks);
 * returns 1 when the answer lacks it. */
CS_INLINE int csb_pick_one(PyObject *a, Py_ssize_t index, int joined, PyObject *empty, PyObject **out)
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

Py_ssize_t csb_pick_blanks(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
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

Py_ssize_t csb_check_pick(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
                          PyObject *empty, PyObject **out, unsigned char *miss, unsigned char *odd,
                          Py_ssize_t *n_odd, Py_ssize_t *n_late, Py_ssize_t *longest)
{
    Py_ssize_t i, lacking = 0, n_bad = 0, late = 0, top = 0;
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
        if (!out[i] || !CSB_PLAIN_STR(out[i])) { odd[i] = 2; late++; }
        else if (PyUnicode_GET_LENGTH(out[i]) > top) top = PyUnicode_GET_LENGTH(out[i]);
    }
    *longest = top;
    *n_odd = n_bad;
    *n_late = late;
    return lacking;
}

int csb_hash_strs(PyObject *const *items, Py_ssize_t n, uint64_t *hashes)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        Py_hash_t h;
        if (i + 16 < n) CS_PREFETCH(items[i + 16]);
        h = csb_hash(items[i]);
        if (h == -1) return -1;
        hashes[i] = (uint64_t)h;
    }
    return 0;
}

/* 64x64 -> 128-bit product, low and high halves xored (a portable fallback) */
CS_INLINE uint64_t csb_mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ha = a >> 32, hb = b >> 32, la = (uint32_t)a, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl, lo, hi;
    lo = t + (rm1 << 32); c += lo < t;
    hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
    return lo ^ hi;
#endif
}

int csb_hash_answers(PyObject *const *answers, Py_ssize_t n, uint64_t *hashes)
{
    Py_ssize_t i, j;
    for (i = 0; i < n; i++) {
        PyObject *one;
        PyObject *const *items;
        Py_ssize_t size;
        uint64_t h;
        csb_prefetch_answers(answers, i, n);
        size = csb_blanks(answers[i], &items, &one);
        h = 0x2d358dccaa6c78a5ULL ^ (uint64_t)size;
        for (j = 0; j < size; j++) {
            Py_hash_t b = csb_hash(items[j]);
            if (b == -1) return -1;
            if (size == 1) h = (uint64_t)b;    /* "a", ["a"], ("a",) alike */
            else h = csb_mum(h ^ 0x9E3779B97F4A7C15ULL, (uint64_t)b ^ (uint64_t)j);
        }
        hashes[i] = h;
    }
    return 0;
}

Py_ssize_t csb_fill_list(PyObject *list, PyObject *const *picked, Py_ssize_t m)
{
    Py_ssize_t i, holes = 0;
    for (i = 0; i < m; i++) {
        PyObject *o = picked[i];
        if (i + 16 < m && picked[i + 16]) CS_PREFETCH(picked[i + 16]);
        if (!o) { holes++; continue; }
        Py_INCREF(o);
        PyList_SET_ITEM(list, i, o);
    }
    return holes;
}
