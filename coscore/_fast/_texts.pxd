# Shared by the kernel modules: reading their inputs -- Python str objects, and batches of
# them or a Texts (texts.pyx) -- as cs_text (src/text.h), and building code point maps
# (src/cpmap.h).
from libc.stdint cimport uint32_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from cpython.object cimport PyObject, PyTypeObject

from coscore._fast.texts cimport (   # src/text.h, and a batch of its texts
    CS_IS_READY, CS_PREFETCH, CS_UNICODE_READY, Texts, cs_prefetch_ahead, cs_text,
)

cdef extern from "Python.h":
    object PySequence_Fast(object, const char *)
    PyObject **PySequence_Fast_ITEMS(object)
    Py_ssize_t PySequence_Fast_GET_SIZE(object)
    unsigned int PyUnicode_KIND(object)
    void *PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)

cdef extern from "Python.h" nogil:
    PyTypeObject PyUnicode_Type
    PyTypeObject *_type "Py_TYPE"(PyObject *)
    unsigned int _kind "PyUnicode_KIND"(PyObject *)
    void *_data "PyUnicode_DATA"(PyObject *)
    Py_ssize_t _length "PyUnicode_GET_LENGTH"(PyObject *)


cdef extern from "src/cpmap.h" nogil:
    ctypedef struct cs_cpmap:
        pass
    int cs_cpmap_build(cs_cpmap *m, const uint32_t *cps, const uint32_t *ids, Py_ssize_t n)
    void cs_cpmap_free(cs_cpmap *m)


cdef inline int _text(object s, cs_text *t) except -1:
    if not isinstance(s, str):
        raise TypeError(f"expected str, got {type(s).__name__}")
    CS_UNICODE_READY(s)
    t.kind = <int>PyUnicode_KIND(s)
    t.data = PyUnicode_DATA(s)
    t.n = PyUnicode_GET_LENGTH(s)
    return 0


cdef inline unsigned char *_align64(unsigned char *p) noexcept nogil:
    return <unsigned char *>((<uintptr_t>p + 63) & ~(<uintptr_t>63))


cdef enum:
    _STACK = 8192 + 64   # per-call scratch kept on the stack up to this many bytes


cdef inline unsigned char *_scratch(Py_ssize_t need, unsigned char *stack, unsigned char **mem) except NULL:
    """Zeroed, 64-byte aligned scratch of ``need`` bytes: in ``stack`` (``_STACK`` bytes, or
    NULL) when it fits, else on the heap (``*mem``: the caller frees it)."""
    cdef unsigned char *p
    if stack != NULL and need <= _STACK - 64:
        p = _align64(stack)
        memset(p, 0, need)
        return p
    mem[0] = <unsigned char *>calloc(need + 64, 1)
    if mem[0] == NULL:
        raise MemoryError()
    return _align64(mem[0])


cdef inline object _as_seq(object strings):
    """A list or tuple of the strings (the object itself when it is one), or a Texts as is."""
    if isinstance(strings, Texts):
        return strings
    if isinstance(strings, str):
        raise TypeError("expected a sequence of str, got a str")
    return PySequence_Fast(strings, "expected a sequence of str")


cdef inline Py_ssize_t _size(object seq):
    """The number of texts of what :func:`_as_seq` returned."""
    if isinstance(seq, Texts):
        return (<Texts>seq).n
    return PySequence_Fast_GET_SIZE(seq)


cdef inline Py_ssize_t _texts_plain(PyObject **items, Py_ssize_t n, cs_text *out) noexcept nogil:
    """Fill out[i] from items[i] while it is an exact, ready str; returns the first index
    where it is not (n when all are). Reads only: no GIL needed while the caller keeps
    the items alive."""
    cdef Py_ssize_t i
    cdef PyObject *o
    for i in range(n):
        o = items[i]
        if i + 16 < n:
            CS_PREFETCH(items[i + 16])
        if _type(o) != &PyUnicode_Type or not CS_IS_READY(o):
            return i
        out[i].kind = <int>_kind(o)
        out[i].data = _data(o)
        out[i].n = _length(o)
    return n


cdef inline cs_text *_texts(object seq) except NULL:
    """The cs_text of every item of a list or tuple, or of a Texts (malloc'ed; the caller
    keeps ``seq`` alive while it reads them): exact str objects are read without the
    GIL, anything else (a str subclass, a str not yet ready, a non-str that raises
    TypeError) with it."""
    cdef Py_ssize_t n = _size(seq), k
    cdef cs_text *texts = <cs_text *>malloc((n + 1) * sizeof(cs_text))
    if texts == NULL:
        raise MemoryError()
    if isinstance(seq, Texts):
        memcpy(texts, (<Texts>seq).items, n * sizeof(cs_text))
        return texts
    cdef PyObject **items = PySequence_Fast_ITEMS(seq)
    try:
        with nogil:
            k = _texts_plain(items, n, texts)
        while k < n:
            _text(<object>items[k], &texts[k])
            k += 1
            k += _texts_plain(items + k, n - k, texts + k)
    except BaseException:
        free(texts)
        raise
    return texts


cdef inline uint32_t *_alphabet_map(cs_cpmap *m, dict alpha) except NULL:
    """Build ``m`` from ``alpha`` (a character, or its code point, -> id). Returns the
    alphabet's code points, in ``alpha``'s order (malloc'ed; the caller frees them)."""
    cdef Py_ssize_t n = len(alpha), i = 0
    cdef uint32_t *cps = <uint32_t *>malloc((n + 1) * sizeof(uint32_t))
    cdef uint32_t *ids = <uint32_t *>malloc((n + 1) * sizeof(uint32_t))
    try:
        if cps == NULL or ids == NULL:
            raise MemoryError()
        for c, a in alpha.items():
            cps[i] = <uint32_t>(ord(c) if isinstance(c, str) else c)
            ids[i] = <uint32_t>a
            i += 1
        if cs_cpmap_build(m, cps, ids, n) != 0:
            raise MemoryError()
    except BaseException:
        free(cps)
        raise
    finally:
        free(ids)
    return cps
