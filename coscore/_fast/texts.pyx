"""A batch of texts held as the kernels read them, without a Python ``str`` for each.

A :class:`Texts` is ``n`` texts, each as its kind (1, 2 or 4 bytes per code point), its
code points and its length (``cs_text``, src/text.h) -- exactly as a ``str`` of the same
text holds them: the *canonical* kind, the narrowest that fits its widest code point, so
that a kernel reading it gives what it gives for the ``str``, bit for bit. The kernels
(``lcs``, ``jaccard``, ``substring``) take a ``Texts`` wherever they take a list of ``str``
(``_texts.pxd``), and :func:`coscore._fast.longest` reads the longest one's length.

It is made from UTF-8 by the Arrow reader (:mod:`coscore._fast.arrow`): an ASCII text is
read where it lies (zero copy, kind 1), any other is decoded in C, without the GIL, into
an arena the object owns. Invalid UTF-8 raises the ``UnicodeDecodeError`` Python's own
decoder raises for those bytes. The object keeps alive what its texts point into.

For Python it is a read-only sequence of ``str``: ``len(t)``, ``t[i]`` and iteration make
each ``str`` on demand, :meth:`Texts.tolist` all of them; :meth:`Texts.lengths` gives the
lengths as an array. (The pure-Python Arrow reader, ``arrow_py``, returns lists of ``str``
instead: there is no twin of this type.)
"""
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)
    object PyUnicode_New(Py_ssize_t size, uint32_t maxchar)
    void *PyUnicode_DATA(object)

cdef extern from "src/utf8.h" nogil:
    enum:
        CS_UTF8_ASCII
        CS_UTF8_BMP
    int64_t cs_utf8_measure(const uint8_t *p, int64_t n, int *kind, int *ascii)
    uint32_t cs_utf8_maxchar(int kind)
    int cs_utf8_decode(const uint8_t *p, int64_t n, int64_t count, int kind, void *out)
    void cs_utf8_init()
    int cs_utf8_scan(const uint8_t *p, int64_t n)
    int cs_utf8_decode_bmp(const uint8_t *p, int64_t n, uint16_t *out, int64_t *count)

cs_utf8_init()


cdef inline int64_t _padded(int64_t nbytes) noexcept nogil:
    """``nbytes`` rounded up to 8: each decoded text starts 8-byte aligned, as a str's data."""
    return (nbytes + 7) & ~(<int64_t>7)


cdef class Texts:
    """Texts made by the Arrow reader (see the module): a read-only sequence of ``str``."""

    def __cinit__(self):
        self.items = NULL
        self.n = 0
        self.total_length = 0
        self.arena = NULL
        self.buffer = NULL

    def __init__(self):
        raise TypeError("Texts are made by coscore's Arrow reader, not directly")

    def __dealloc__(self):
        free(self.items)
        free(self.arena)
        free(self.buffer)

    def __len__(self):
        return self.n

    cdef str _str(self, Py_ssize_t i):
        cdef const cs_text *t = &self.items[i]
        if t.n == 0:
            return ""
        return PyUnicode_FromKindAndData(t.kind, t.data, t.n)

    cdef Py_ssize_t longest(self) noexcept:
        """The length of the longest text (0 when there are none)."""
        cdef Py_ssize_t i, top = 0
        for i in range(self.n):
            if self.items[i].n > top:
                top = self.items[i].n
        return top

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self._str(i) for i in range(*index.indices(self.n))]
        i = index
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("Texts index out of range")
        return self._str(i)

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield self._str(i)

    def __reduce__(self):   # a copy elsewhere is the list of its texts
        return (list, (self.tolist(),))

    def __repr__(self):
        return f"<Texts: {self.n} texts, {self.total_length} code points>"

    def tolist(self):
        """Every text as a ``str``, in order."""
        cdef Py_ssize_t i
        cdef list out = PyList_New(self.n)
        for i in range(self.n):
            item = self._str(i)
            Py_INCREF(item)
            PyList_SET_ITEM(out, i, item)
        return out

    def lengths(self):
        """Each text's length in code points (an intp array)."""
        out = np.empty(self.n, dtype=np.intp)
        cdef Py_ssize_t[::1] view = out
        cdef Py_ssize_t i
        for i in range(self.n):
            view[i] = self.items[i].n
        return out


cdef int64_t _measure(const uint8_t **ptrs, const int64_t *lens, const int64_t *rows, Py_ssize_t n,
                      cs_text *items) noexcept nogil:
    """Fill each item's kind and length, and an ASCII text's data: where it lies (its
    bytes are its code points); return the arena bytes the others need. A text that
    can only be kind 2 (``CS_UTF8_BMP``) is not measured: its kind is left 0 and its
    room is its bytes' count of code points, plus 16 the block decoder may write."""
    cdef Py_ssize_t d
    cdef int64_t row, count, arena = 0
    cdef int kind, ascii, need
    for d in range(n):
        row = rows[d] if rows != NULL else d
        items[d].data = NULL
        need = cs_utf8_scan(ptrs[row], lens[row])
        if need == CS_UTF8_ASCII:   # read in place
            items[d].kind = 1
            items[d].n = lens[row]
            items[d].data = ptrs[row]
            continue
        if need == CS_UTF8_BMP:
            items[d].kind = 0
            items[d].n = lens[row]
            arena += _padded(2 * lens[row])
            continue
        count = cs_utf8_measure(ptrs[row], lens[row], &kind, &ascii)
        items[d].n = count
        if ascii:
            items[d].kind = 1
            items[d].data = ptrs[row]
        else:
            items[d].kind = kind
            arena += _padded(count * kind)
    return arena + 32


cdef Py_ssize_t _decode(const uint8_t **ptrs, const int64_t *lens, const int64_t *rows, Py_ssize_t n,
                        cs_text *items, unsigned char *arena, Py_ssize_t *total) noexcept nogil:
    """Decode the texts :func:`_measure` left without data into ``arena``, in order, and
    add up the lengths into ``total``. Returns the first text that is not valid UTF-8
    (the rest are left as they are), or -1. (A text decoded by blocks may write up to 16
    code points past its own: into the texts after it, decoded later, or the arena's
    last 32 bytes.)"""
    cdef Py_ssize_t d
    cdef int64_t row, count
    total[0] = 0
    for d in range(n):
        if items[d].data == NULL:
            row = rows[d] if rows != NULL else d
            if items[d].kind == 0:
                if cs_utf8_decode_bmp(ptrs[row], lens[row], <uint16_t *>arena, &count) != 0:
                    return d
                items[d].kind = 2
                items[d].n = count
            elif cs_utf8_decode(ptrs[row], lens[row], items[d].n, items[d].kind, arena) != 0:
                return d
            items[d].data = arena
            arena += _padded(items[d].n * items[d].kind)
        total[0] += items[d].n
    return -1


cdef Texts texts_from_utf8(const uint8_t **ptrs, const int64_t *lens, const int64_t *rows, Py_ssize_t n,
                           object owner, void *buffer):
    """The texts of the UTF-8 bytes ``ptrs[r][:lens[r]]`` for ``r`` in ``rows[:n]`` (``rows``
    NULL: ``0 .. n-1``). Takes ownership of ``buffer`` (malloc'ed, or NULL), which the
    bytes may point into, and keeps ``owner`` alive, which must keep alive the rest."""
    cdef Texts texts
    cdef Py_ssize_t bad, total
    cdef int64_t arena, row
    try:
        texts = Texts.__new__(Texts)
    except BaseException:
        free(buffer)
        raise
    texts.buffer = buffer
    texts.owner = owner
    texts.items = <cs_text *>malloc((n + 1) * sizeof(cs_text))
    if texts.items == NULL:
        raise MemoryError()
    with nogil:
        arena = _measure(ptrs, lens, rows, n, texts.items)
    texts.arena = <unsigned char *>malloc(arena + 8)
    if texts.arena == NULL:
        raise MemoryError()
    with nogil:
        bad = _decode(ptrs, lens, rows, n, texts.items, texts.arena, &total)
    if bad >= 0:   # Python's decoder raises its own error for these bytes
        row = rows[bad] if rows != NULL else bad
        PyUnicode_DecodeUTF8(<const char *>ptrs[row], lens[row], "strict")
        raise AssertionError("UTF-8 that Python's decoder accepts was refused")   # never: the checks are its
    texts.n = n
    texts.total_length = total
    return texts


cdef object str_from_utf8(const uint8_t *p, int64_t n):
    """The ``str`` of the UTF-8 bytes ``p[:n]``, made at its final size and width
    (invalid UTF-8: Python's decoder raises its UnicodeDecodeError)."""
    cdef int kind, ascii
    cdef int64_t count = cs_utf8_measure(p, n, &kind, &ascii)
    if n == 0:
        return ""
    if ascii:
        out = PyUnicode_New(n, 127)
        memcpy(PyUnicode_DATA(out), p, <size_t>n)
        return out
    out = PyUnicode_New(count, cs_utf8_maxchar(kind))
    if cs_utf8_decode(p, n, count, kind, PyUnicode_DATA(out)) != 0:
        return PyUnicode_DecodeUTF8(<const char *>p, n, "strict")
    return out
