/*
 * Reading a batch of answers without the GIL: an answer is a str (one blank)
 * or a list/tuple of str. These functions only *read* objects the caller
 * keeps alive (a list it holds, and the objects that list holds) through the
 * public C-API macros, and touch no reference count, so they run with the GIL
 * released; the caller must not mutate the lists while a call runs (the
 * engine's chunks are its own lists). Only csb_fill_list and the hashing
 * (csb_hash_strs, csb_hash_answers: Python's own str hash, cached in the
 * objects) need the GIL.
 */
#ifndef COSCORE_SRC_ANSWERS_H
#define COSCORE_SRC_ANSWERS_H

#include <stdint.h>
#include <string.h>

#include "text.h"

/* an exact str whose code points can be read without the GIL */
#define CSB_PLAIN_STR(o) (Py_TYPE(o) == &PyUnicode_Type && CS_IS_READY(o))

/* The hash of `o` with the GIL held: an exact str's cached one when it has it
 * (read as str.__hash__ would return it, without a call), else PyObject_Hash
 * (which computes and caches it); -1 on error. */
CS_INLINE Py_hash_t csb_hash(PyObject *o)
{
    if (Py_TYPE(o) == &PyUnicode_Type) {
#if PY_VERSION_HEX >= 0x030F00A1   /* the cached hash has a public accessor */
        Py_hash_t h = PyUnstable_Unicode_GET_CACHED_HASH(o);
#else
        Py_hash_t h = ((PyASCIIObject *)o)->hash;
#endif
        if (h != -1) return h;
    }
    return PyObject_Hash(o);
}

CS_INLINE int csb_str_eq(PyObject *a, PyObject *b)
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
CS_INLINE void csb_prefetch_answers(PyObject *const *answers, Py_ssize_t i, Py_ssize_t n)
{
    if (i + 16 < n) CS_PREFETCH(answers[i + 16]);
    if (i + 8 < n) {
        PyObject *a = answers[i + 8];
        if (Py_TYPE(a) == &PyList_Type) CS_PREFETCH(((PyListObject *)a)->ob_item);
    }
    if (i + 4 < n) {
        PyObject *a = answers[i + 4];
        PyTypeObject *t = Py_TYPE(a);
        if (t == &PyList_Type && Py_SIZE(a) > 0) CS_PREFETCH(PyList_GET_ITEM(a, 0));
        else if (t == &PyTuple_Type && Py_SIZE(a) > 0) CS_PREFETCH(PyTuple_GET_ITEM(a, 0));
    }
}

/* the blanks of a str, list or tuple answer: a str is its own one blank */
CS_INLINE Py_ssize_t csb_blanks(PyObject *a, PyObject *const **items, PyObject **one)
{
    if (Py_TYPE(a) == &PyUnicode_Type) { *one = a; *items = one; return 1; }
    if (Py_TYPE(a) == &PyList_Type) { *items = ((PyListObject *)a)->ob_item; return PyList_GET_SIZE(a); }
    *items = ((PyTupleObject *)a)->ob_item;
    return PyTuple_GET_SIZE(a);
}

/* odd[i] = 1 for an answer that is not a str or a list/tuple of str (and 0
 * otherwise); the largest and smallest blank count of the others (fewest is
 * -1 when there are none). Returns the number of odd answers. */
Py_ssize_t csb_check(PyObject *const *answers, Py_ssize_t n, unsigned char *odd,
                     Py_ssize_t *most, Py_ssize_t *fewest);
/* Are all the blanks of all the (well-formed) answers readable without the
 * GIL? Returns the index of the first answer that is not, or n. */
Py_ssize_t csb_answers_plain(PyObject *const *answers, Py_ssize_t n);
/* The first index of an item that is not an exact str, or n. */
Py_ssize_t csb_all_str(PyObject *const *items, Py_ssize_t n);
/* The first index of a str that is not readable without the GIL, or n. */
Py_ssize_t csb_strs_plain(PyObject *const *items, Py_ssize_t n);
/* out[i] = blank `index` of well-formed answers[i] (negative: from the end),
 * borrowed; `empty` (and miss[i] = 1) when the answer lacks it. With
 * `joined`, blank index is ignored: out[i] is the answer's one blank, `empty`
 * for no blank, or NULL when its blanks must be joined. Returns the number
 * of answers that lack the blank. */
Py_ssize_t csb_pick_blanks(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
                           PyObject *empty, PyObject **out, unsigned char *miss);
/* csb_check and csb_pick_blanks in one pass over the answers: odd[i] = 1 (and
 * out[i] = `empty`) for an answer that is not well formed; returns the number
 * of well-formed answers that lack the blank, *n_odd the number of odd ones,
 * and *longest the largest length of the blanks picked. Where out[i] is NULL
 * (blanks to join) or a str not readable without the GIL, odd[i] = 2 instead
 * (its length not counted), counted in *n_late, for the caller to finish. */
Py_ssize_t csb_check_pick(PyObject *const *answers, Py_ssize_t n, Py_ssize_t index, int joined,
                          PyObject *empty, PyObject **out, unsigned char *miss, unsigned char *odd,
                          Py_ssize_t *n_odd, Py_ssize_t *n_late, Py_ssize_t *longest);
/* hashes[i] = hash(items[i]) of n str objects (Python's own hash: computed
 * once and cached in each str, so a batch hashed before costs a header read
 * each); returns 0, or -1 with an exception set. Needs the GIL. */
int csb_hash_strs(PyObject *const *items, Py_ssize_t n, uint64_t *hashes);
/* hashes[i] = a hash of well-formed answers[i] from its blanks' hashes, the
 * same for "a", ["a"] and ("a",); returns 0, or -1 with an exception set.
 * Needs the GIL. */
int csb_hash_answers(PyObject *const *answers, Py_ssize_t n, uint64_t *hashes);
/* Fill a new list (PyList_New(m)) with new references to picked[i], leaving
 * the NULL entries NULL; returns their number. Needs the GIL. */
Py_ssize_t csb_fill_list(PyObject *list, PyObject *const *picked, Py_ssize_t m);

#endif /* COSCORE_SRC_ANSWERS_H */
