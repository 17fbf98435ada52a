"""Batch plumbing in C: checking answers, taking blank columns, deduplicating strings.

These loops run once per answer of a batch, so they are written against the C API
instead of as Python loops; they hold no rule logic. Checking, picking blanks and
deduplicating run without the GIL (see src/answers.h and src/dedup.h: they read the
answers' objects and str buffers directly and write to no object), so that threads
scoring different chunks overlap; only hashing (Python's own str hash, cached in each
str) and building the Python results (one new reference per item of a new list) hold
it. The caller must not mutate the lists passed in while a call runs.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF, Py_XINCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from coscore._fast.texts cimport Texts

import os

import numpy as np

cdef extern from "Python.h":
    void _list_set "PyList_SET_ITEM"(object lst, Py_ssize_t i, PyObject *item)   # steals item
    Py_hash_t PyObject_Hash(object) except -1
    int PyUnicode_READY(object) except -1
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    PyObject **PySequence_Fast_ITEMS(object)

cdef extern from "src/answers.h" nogil:
    Py_ssize_t csb_check(PyObject **answers, Py_ssize_t n, unsigned char *odd,
                         Py_ssize_t *most, Py_ssize_t *fewest)
    Py_ssize_t csb_answers_plain(PyObject **answers, Py_ssize_t n)
    Py_ssize_t csb_strs_plain(PyObject **items, Py_ssize_t n)
    Py_ssize_t csb_all_str(PyObject **items, Py_ssize_t n)
    Py_ssize_t csb_pick_blanks(PyObject **answers, Py_ssize_t n, Py_ssize_t index, bint joined,
                               PyObject *empty, PyObject **out, unsigned char *miss)
    Py_ssize_t csb_check_pick(PyObject **answers, Py_ssize_t n, Py_ssize_t index, bint joined,
                              PyObject *empty, PyObject **out, unsigned char *miss, unsigned char *odd,
                              Py_ssize_t *n_odd, Py_ssize_t *n_late, Py_ssize_t *longest)

cdef extern from "src/answers.h":   # with the GIL: takes references, hashes
    Py_ssize_t csb_fill_list(object lst, PyObject **picked, Py_ssize_t m) except -1
    int csb_hash_strs(PyObject **items, Py_ssize_t n, uint64_t *hashes) except -1
    int csb_hash_answers(PyObject **answers, Py_ssize_t n, uint64_t *hashes) except -1

cdef extern from "src/dedup.h" nogil:
    ctypedef struct csb_table:
        uint64_t *table
    int csb_table_init(csb_table *T, Py_ssize_t n)
    ctypedef Py_ssize_t (*csb_dedup_fn)(csb_table *T, PyObject **items, const uint64_t *hashes,
                                        Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *idx) noexcept nogil
    Py_ssize_t csb_dedup_strs(csb_table *T, PyObject **items, const uint64_t *hashes, Py_ssize_t n,
                              Py_ssize_t *first, Py_ssize_t *idx)
    Py_ssize_t csb_dedup_answers(csb_table *T, PyObject **items, const uint64_t *hashes, Py_ssize_t n,
                                 Py_ssize_t *first, Py_ssize_t *idx)

cdef extern from "src/heap.h" nogil:
    int csb_tune_malloc()

def tune_malloc():
    """Keep glibc from returning the chunk-sized blocks scoring allocates and frees to the
    OS after every chunk (mmap threshold 32 MB, trim threshold 256 MB; see src/heap.h).
    Process-wide, so done once, by the first batch scored (:func:`coscore.engine`), not at
    import; skipped when the environment sets ``COSCORE_MALLOC_TUNING=0`` or glibc's own
    ``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_``. Returns True when set."""
    global malloc_tuned
    if malloc_tuned is None:
        wanted = (os.environ.get("COSCORE_MALLOC_TUNING", "1") != "0"
                  and "MALLOC_MMAP_THRESHOLD_" not in os.environ
                  and "MALLOC_TRIM_THRESHOLD_" not in os.environ)
        malloc_tuned = bool(csb_tune_malloc()) if wanted else False
    return malloc_tuned


#: ``None`` until the first batch; then whether the malloc parameters were set.
malloc_tuned = None


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


cdef inline PyObject **_items(list items):
    return PySequence_Fast_ITEMS(items)


def check_answers(list answers):
    """``(odd, most, fewest)``: the positions of answers that are not a ``str`` or a
    list/tuple of ``str``, and the largest and smallest blank counts of the others."""
    cdef Py_ssize_t n = PyList_GET_SIZE(answers), i, n_odd, most = 0, fewest = -1
    cdef PyObject **items = _items(answers)
    cdef unsigned char *odd = <unsigned char *>malloc(n + 1)
    if odd == NULL:
        raise MemoryError()
    try:
        with nogil:
            n_odd = csb_check(items, n, odd, &most, &fewest)
        found = [i for i in range(n) if odd[i]] if n_odd else []
    finally:
        free(odd)
    return found, most, max(fewest, 0)


cdef list _column(list answers, PyObject **picked, Py_ssize_t m):
    """A list of picked[i] (new references); NULL: the blanks of answers[i] joined."""
    cdef list out = PyList_New(m)
    cdef Py_ssize_t i
    cdef object item
    if csb_fill_list(out, picked, m):
        for i in range(m):
            if picked[i] == NULL:
                item = "".join(<object>PyList_GET_ITEM(answers, i))
                Py_INCREF(item)
                PyList_SET_ITEM(out, i, item)
    return out


def blank_column(list answers, Py_ssize_t n):
    """Blank ``n`` (negative: from the end) of each well-formed answer, as a list, and a
    bool mask of the answers without it (``None`` when none lacks it; they get ``""``).

    When every answer is a ``str`` and ``n`` is ``0`` or ``-1``, the list returned is
    ``answers`` itself (read it, do not mutate it)."""
    cdef Py_ssize_t m = PyList_GET_SIZE(answers), k, lacking
    cdef PyObject **items = _items(answers)
    cdef PyObject **picked
    cdef PyObject *empty = <PyObject *>""
    if n == 0 or n == -1:
        with nogil:
            k = csb_all_str(items, m)
        if k == m:
            return answers, None
    missing = np.empty(m, dtype=bool)
    cdef unsigned char[::1] miss = missing.view(np.uint8)
    picked = <PyObject **>malloc((m + 1) * sizeof(PyObject *))
    if picked == NULL:
        raise MemoryError()
    try:
        with nogil:
            lacking = csb_pick_blanks(items, m, n, False, empty, picked, &miss[0] if m else NULL)
        return _column(answers, picked, m), (missing if lacking else None)
    finally:
        free(picked)


cdef enum:
    _BLOCK = 2048   # answers picked and hashed per block in distinct_texts (their str headers fit in cache)


def distinct_texts(list answers, key, Py_ssize_t start=0, stop=None):
    """The one text of each answer a rule reads, deduplicated: blank ``key`` (an int,
    negative from the end) or, for ``"*"``, the blanks joined — checking the answers on
    the way. Returns ``(distinct, inverse, missing, odd, longest)``:

    - ``distinct``: the distinct texts in first-occurrence order (``answers`` itself
      when every answer is a distinct ``str`` and ``key`` is ``0`` or ``-1``);
    - ``inverse``: each answer's position among them (an intp array);
    - ``missing``: a bool mask of the well-formed answers without blank ``key`` (their
      text is ``""``), or ``None`` when there are none;
    - ``odd``: the positions of answers that are not a ``str`` or a list/tuple of
      ``str`` (their text is ``""`` too);
    - ``longest``: the length of the longest text (0 when there are none), found on
      the way.

    With ``start`` / ``stop``, only ``answers[start:stop]`` are read (positions are
    relative to ``start``), without copying the slice. Picking, checking and probing
    run without the GIL (picking a block of answers at a time, each block then hashed
    while its texts are in cache), and the column of all texts is never built; only hashing,
    joining blanks (``"*"`` over answers with several) and the distinct list hold it."""
    cdef Py_ssize_t size = PyList_GET_SIZE(answers), lacking = 0, n_odd = 0, index = 0, i, k, n_distinct = 0, m
    cdef Py_ssize_t end = size if stop is None else stop, longest = 0
    cdef Py_ssize_t b0 = 0, b1, n_odd_block = 0, longest_block = 0, j
    cdef unsigned char *owned = NULL   # per block: holds a reference to each of its picked texts
    if not 0 <= start <= end <= size:
        raise IndexError(f"answers[{start}:{stop}] is not within the {size} answers")
    m = end - start
    cdef bint joined = isinstance(key, str)
    cdef PyObject **items = _items(answers) + start
    cdef PyObject **picked = NULL
    cdef PyObject *empty = <PyObject *>""
    cdef unsigned char *odd = NULL
    cdef Py_ssize_t *first = NULL
    cdef uint64_t *hashes = NULL
    cdef list joins = None
    cdef object item
    if not joined:
        index = key
    missing = np.empty(m, dtype=bool)
    inverse = np.empty(m, dtype=np.intp)
    if m == 0:
        return [], inverse, None, [], 0
    cdef unsigned char[::1] miss = missing.view(np.uint8)
    cdef Py_ssize_t[::1] idx = inverse
    try:
        odd = <unsigned char *>malloc(m + 1)
        picked = <PyObject **>malloc((m + 1) * sizeof(PyObject *))
        first = <Py_ssize_t *>malloc((m + 1) * sizeof(Py_ssize_t))
        hashes = <uint64_t *>malloc((m + 1) * sizeof(uint64_t))
        owned = <unsigned char *>calloc(m // _BLOCK + 1, 1)
        if picked == NULL or odd == NULL or first == NULL or hashes == NULL or owned == NULL:
            raise MemoryError()
        while b0 < m:   # a block at a time, so that its str headers are still in cache when hashed
            b1 = min(m, b0 + _BLOCK)
            with nogil:   # pick and check in one pass
                lacking += csb_check_pick(items + b0, b1 - b0, index, joined, empty, picked + b0, &miss[b0], odd + b0,
                                          &n_odd_block, &k, &longest_block)
            n_odd += n_odd_block
            longest = max(longest, longest_block)
            if k:   # blanks to join ("*"), or (before 3.12) a str not yet ready
                if joins is None:
                    joins = []
                for i in range(b0, b1):
                    if odd[i] == 2:
                        odd[i] = 0
                        if picked[i] == NULL:
                            item = "".join(<object>items[i])
                            joins.append(item)
                            picked[i] = <PyObject *>item
                        PyUnicode_READY(<object>picked[i])
                        longest = max(longest, PyUnicode_GET_LENGTH(<object>picked[i]))
            csb_hash_strs(picked + b0, b1 - b0, hashes + b0)
            for i in range(b0, b1):   # texts that are not the answers themselves: take them now, in cache
                if picked[i] != items[i]:
                    owned[b0 // _BLOCK] = 1
                    for i in range(b0, b1):
                        Py_XINCREF(picked[i])
                    break
            b0 = b1
        n_distinct = _table(picked, hashes, m, csb_dedup_strs, first, &idx[0])
        if m == size and n_distinct == m and n_odd == 0 and lacking == 0 and joins is None and not joined \
                and index in (0, -1) and csb_all_str(items, m) == m:
            distinct = answers   # every answer a distinct str: the answers are their texts
        else:
            distinct = PyList_New(n_distinct)
            for j in range(n_distinct):
                i = first[j]
                if owned[i // _BLOCK]:   # the reference taken above moves into the list
                    _list_set(distinct, j, picked[i])
                    picked[i] = NULL
                else:
                    Py_XINCREF(picked[i])
                    _list_set(distinct, j, picked[i])
        found = [i for i in range(m) if odd[i]] if n_odd else []
        return distinct, inverse, (missing if lacking else None), found, longest
    finally:
        if owned != NULL:
            for b0 in range(0, m, _BLOCK):   # the references taken and not moved into the list
                if owned[b0 // _BLOCK]:
                    for i in range(b0, min(m, b0 + _BLOCK)):
                        Py_XDECREF(picked[i])
        free(owned)
        free(picked)
        free(odd)
        free(first)
        free(hashes)


def joined_column(list answers):
    """All blanks of each well-formed answer joined with no separator.

    When every answer is a ``str``, the list returned is ``answers`` itself (read it,
    do not mutate it)."""
    cdef Py_ssize_t m = PyList_GET_SIZE(answers), k
    cdef PyObject **items = _items(answers)
    cdef PyObject **picked
    cdef PyObject *empty = <PyObject *>""
    with nogil:
        k = csb_all_str(items, m)
    if k == m:
        return answers
    picked = <PyObject **>malloc((m + 1) * sizeof(PyObject *))
    if picked == NULL:
        raise MemoryError()
    try:
        with nogil:
            csb_pick_blanks(items, m, 0, True, empty, picked, NULL)
        return _column(answers, picked, m)
    finally:
        free(picked)


cdef list _pick(list source, PyObject **items, const Py_ssize_t *first, Py_ssize_t m):
    """The items at first[0 .. m - 1]: ``source`` itself when that is all of them."""
    if m == PyList_GET_SIZE(source):
        return source
    cdef list out = PyList_New(m)
    cdef Py_ssize_t j
    cdef object o
    for j in range(m):
        o = <object>items[first[j]]
        Py_INCREF(o)
        PyList_SET_ITEM(out, j, o)
    return out


cdef Py_ssize_t _table(PyObject **items, const uint64_t *hashes, Py_ssize_t n, csb_dedup_fn run,
                       Py_ssize_t *first, Py_ssize_t *idx) except -1:
    """Run one of the table dedups over ``items`` (GIL released): ``idx`` and ``first``
    (see src/dedup.h); returns the number of distinct items."""
    cdef csb_table T
    cdef Py_ssize_t m = 0
    cdef int failed
    T.table = NULL
    with nogil:   # the table is zeroed here too
        failed = csb_table_init(&T, n)
        if failed == 0:
            m = run(&T, items, hashes, n, first, idx)
        free(T.table)
    if failed:
        raise MemoryError()
    return m


cdef tuple _dedup(list source, PyObject **items, Py_ssize_t n, bint answers, index):
    """Hash ``items`` (str objects, or well-formed ``answers``) and deduplicate them into
    ``index``; return ``(distinct, index)``."""
    cdef Py_ssize_t[::1] idx = index
    cdef Py_ssize_t *first = NULL
    cdef uint64_t *hashes = NULL
    cdef Py_ssize_t m
    if n == 0:
        return [], index
    try:
        first = <Py_ssize_t *>malloc(n * sizeof(Py_ssize_t))
        hashes = <uint64_t *>malloc(n * sizeof(uint64_t))
        if first == NULL or hashes == NULL:
            raise MemoryError()
        if answers:
            csb_hash_answers(items, n, hashes)
            m = _table(items, hashes, n, csb_dedup_answers, first, &idx[0])
        else:
            csb_hash_strs(items, n, hashes)
            m = _table(items, hashes, n, csb_dedup_strs, first, &idx[0])
        return _pick(source, items, first, m), index
    finally:
        free(first)
        free(hashes)


def longest(strings) -> int:
    """The length of the longest of ``strings`` (0 when there are none). The exact ``str``
    items of a list or tuple are read without a Python call each, a ``Texts`` in C,
    anything else by ``len``."""
    cdef Py_ssize_t top = 0, i, n, k
    cdef PyObject *o
    if isinstance(strings, Texts):
        return (<Texts>strings).longest()
    if type(strings) is not list and type(strings) is not tuple:
        return max(map(len, strings), default=0)
    n = len(strings)
    cdef PyObject **items = PySequence_Fast_ITEMS(strings)
    for i in range(n):
        o = items[i]
        k = PyUnicode_GET_LENGTH(<object>o) if type(<object>o) is str else len(<object>o)
        if k > top:
            top = k
    return top


def plain_strings(values):
    """How many of the first items of ``values`` (a list, or a 1-D contiguous ndarray of
    objects) are exact ``str``: ``len(values)`` when all are. Read without the GIL."""
    cdef Py_ssize_t n, done
    cdef PyObject **items
    cdef object array
    if isinstance(values, list):
        items = _items(values)
        n = PyList_GET_SIZE(values)
    else:
        array = values
        if not isinstance(array, np.ndarray) or array.dtype != object or array.ndim != 1 \
                or not array.flags.c_contiguous:
            raise TypeError("plain_strings reads a list or a 1-D contiguous object ndarray")
        n = array.shape[0]
        items = <PyObject **><size_t>array.ctypes.data
    with nogil:
        done = csb_strs_plain(items, n)
    return done


def dedup_strings(list strings):
    """``(distinct, index)``: the distinct strings in first-occurrence order and, for
    each input, its position among them (an intp array). When all are distinct,
    ``distinct`` is ``strings`` itself (read it, do not mutate it).

    An open-addressing table over the strings' hashes, probed without the GIL; the
    result list is built afterwards (one reference per distinct string).
    """
    cdef Py_ssize_t n = PyList_GET_SIZE(strings), bad
    cdef PyObject **items = _items(strings)
    index = np.empty(n, dtype=np.intp)
    with nogil:
        bad = csb_strs_plain(items, n)
    while bad < n:      # not an exact str, or (before 3.12) a legacy str not yet ready
        item = <object>items[bad]
        if type(item) is not str:
            raise TypeError(f"expected str, got {type(item).__name__}")
        PyUnicode_READY(item)
        bad += 1
        bad += csb_strs_plain(items + bad, n - bad)
    return _dedup(strings, items, n, False, index)


cdef inline size_t _answer_hash(object answer) except? 0:
    """A hash of an answer from its blanks' hashes (a str is one blank): the slow path."""
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
        if _item(a, j) != _item(b, j):
            return False
    return True


cdef tuple _dedup_answers_slow(list answers):
    """dedup_answers() with the GIL, through the blanks' own __hash__ / __eq__ (for
    blanks that are str subclasses, or str objects not ready before Python 3.12)."""
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
            if type(answer) is not str and type(answer) is not list and type(answer) is not tuple:
                raise TypeError(f"expected a str, list or tuple, got {type(answer).__name__}")
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


def dedup_answers(list answers):
    """``(distinct, inverse)`` for well-formed answers (a ``str`` or a list/tuple of
    ``str``, as :func:`check_answers` vouches): the distinct answers in first-occurrence
    order (``"a"``, ``["a"]`` and ``("a",)`` are the same answer) and, for each input,
    its index among them. When all are distinct, ``distinct`` is ``answers`` itself."""
    cdef Py_ssize_t n = PyList_GET_SIZE(answers), bad
    cdef PyObject **items = _items(answers)
    inverse = np.empty(n, dtype=np.intp)
    with nogil:
        bad = csb_answers_plain(items, n)
    if bad < n:
        return _dedup_answers_slow(answers)
    return _dedup(answers, items, n, True, inverse)
