"""Batch plumbing in C: checking answers, taking blank columns, deduplicating strings.

These loops run once per answer of a batch, so they are written against the C API
instead of as Python loops; they hold no rule logic.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from "Python.h":
    Py_hash_t PyObject_Hash(object) except -1

import numpy as np

cdef inline Py_ssize_t _size(object answer):
    """The number of blanks of a well-formed answer (a str is one blank)."""
    if type(answer) is str:
        return 1
    if type(answer) is list:
        return PyList_GET_SIZE(answer)
    return PyTuple_GET_SIZE(answer)


cdef inline object _item(object answer, Py_ssize_t j):
    if type(answer) is str:
        return answer
    if type(answer) is list:
        return <object>PyList_GET_ITEM(answer, j)
    return <object>PyTuple_GET_ITEM(answer, j)


def check_answers(list answers):
    """``(odd, most, fewest)``: the positions of answers that are not a ``str`` or a
    list/tuple of ``str``, and the largest and smallest blank counts of the others."""
    cdef Py_ssize_t n = PyList_GET_SIZE(answers), i, j, size
    cdef Py_ssize_t most = 0, fewest = -1
    cdef list odd = []
    cdef object answer, kind
    cdef bint ok
    for i in range(n):
        answer = <object>PyList_GET_ITEM(answers, i)
        kind = type(answer)
        if kind is str:
            size = 1
        elif kind is list or kind is tuple:
            size = _size(answer)
            ok = True
            for j in range(size):
                if type(_item(answer, j)) is not str:
                    ok = False
                    break
            if not ok:
                odd.append(i)
                continue
        else:
            odd.append(i)
            continue
        if size > most:
            most = size
        if fewest < 0 or size < fewest:
            fewest = size
    return odd, most, max(fewest, 0)


def blank_column(list answers, Py_ssize_t n):
    """Blank ``n`` (negative: from the end) of each well-formed answer, as a list, and a
    bool mask of the answers without it (``None`` when none lacks it; they get ``""``)."""
    cdef Py_ssize_t m = PyList_GET_SIZE(answers), i, size, j
    cdef list out = [None] * m
    cdef object answer
    missing = np.zeros(m, dtype=bool)
    cdef unsigned char[::1] miss = missing.view(np.uint8)
    cdef bint any_missing = False
    for i in range(m):
        answer = <object>PyList_GET_ITEM(answers, i)
        size = _size(answer)
        j = n if n >= 0 else size + n
        if 0 <= j < size:
            out[i] = _item(answer, j)
        else:
            out[i] = ""
            miss[i] = 1
            any_missing = True
    return out, (missing if any_missing else None)


def joined_column(list answers):
    """All blanks of each well-formed answer joined with no separator."""
    cdef Py_ssize_t m = PyList_GET_SIZE(answers), i
    cdef list out = [None] * m
    cdef object answer
    for i in range(m):
        answer = <object>PyList_GET_ITEM(answers, i)
        if type(answer) is str:
            out[i] = answer
        elif _size(answer) == 1:
            out[i] = _item(answer, 0)
        else:
            out[i] = "".join(answer)
    return out


def dedup_strings(list strings):
    """``(distinct, index)``: the distinct strings in first-occurrence order and, for
    each input, its position among them (an intp array).

    An open-addressing table over the strings' own (cached) hashes: one probe sequence
    per string and no Python objects allocated for the positions.
    """
    cdef Py_ssize_t n = PyList_GET_SIZE(strings), i, j, m = 0, size = 16, mask, slot
    cdef Py_hash_t h
    cdef list distinct = []
    cdef str s
    cdef object item
    while size < 2 * n:
        size <<= 1
    mask = size - 1
    cdef Py_ssize_t *table = <Py_ssize_t *>malloc(size * sizeof(Py_ssize_t))
    cdef Py_hash_t *hashes = <Py_hash_t *>malloc((n + 1) * sizeof(Py_hash_t))
    if table is NULL or hashes is NULL:
        free(table)
        free(hashes)
        raise MemoryError()
    memset(table, 0xFF, size * sizeof(Py_ssize_t))  # every slot -1
    index = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] idx = index
    try:
        for i in range(n):
            item = <object>PyList_GET_ITEM(strings, i)
            if type(item) is not str:
                raise TypeError(f"expected str, got {type(item).__name__}")
            s = <str>item
            h = PyObject_Hash(s)
            slot = <Py_ssize_t>(<size_t>h & <size_t>mask)
            while True:
                j = table[slot]
                if j < 0:
                    table[slot] = m
                    hashes[m] = h
                    distinct.append(s)
                    idx[i] = m
                    m += 1
                    break
                if hashes[j] == h and <str>PyList_GET_ITEM(distinct, j) == s:
                    idx[i] = j
                    break
                slot = (slot + 1) & mask
    finally:
        free(table)
        free(hashes)
    return distinct, index


cdef inline size_t _answer_hash(object answer) except? 0:
    """A hash of a well-formed answer from its blanks' cached hashes (a str is one blank)."""
    cdef Py_ssize_t size = _size(answer), j
    cdef size_t h = <size_t>0x345678 + <size_t>size
    for j in range(size):
        h = (h ^ <size_t>PyObject_Hash(_item(answer, j))) * <size_t>1000003
    return h if h != 0 else 1


cdef inline bint _same_answer(object a, object b) except -1:
    cdef Py_ssize_t size = _size(a), j
    if a is b:
        return True
    if _size(b) != size:
        return False
    for j in range(size):
        if <str>_item(a, j) != <str>_item(b, j):
            return False
    return True


def dedup_answers(list answers):
    """``(distinct, inverse)`` for well-formed answers (a ``str`` or a list/tuple of
    ``str``, as :func:`check_answers` vouches): the distinct answers in first-occurrence
    order (``"a"``, ``["a"]`` and ``("a",)`` are the same answer) and, for each input,
    its index among them."""
    cdef Py_ssize_t n = PyList_GET_SIZE(answers), i, j, m = 0, size = 16, mask, slot
    cdef size_t h
    cdef list distinct = []
    cdef object answer
    while size < 2 * n:
        size <<= 1
    mask = size - 1
    cdef Py_ssize_t *table = <Py_ssize_t *>malloc(size * sizeof(Py_ssize_t))
    cdef size_t *hashes = <size_t *>malloc((n + 1) * sizeof(size_t))
    if table is NULL or hashes is NULL:
        free(table)
        free(hashes)
        raise MemoryError()
    memset(table, 0xFF, size * sizeof(Py_ssize_t))
    inverse = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] inv = inverse
    try:
        for i in range(n):
            answer = <object>PyList_GET_ITEM(answers, i)
            h = _answer_hash(answer)
            slot = <Py_ssize_t>(h & <size_t>mask)
            while True:
                j = table[slot]
                if j < 0:
                    table[slot] = m
                    hashes[m] = h
                    distinct.append(answer)
                    inv[i] = m
                    m += 1
                    break
                if hashes[j] == h and _same_answer(<object>PyList_GET_ITEM(distinct, j), answer):
                    inv[i] = j
                    break
                slot = (slot + 1) & mask
    finally:
        free(table)
        free(hashes)
    return distinct, inverse
