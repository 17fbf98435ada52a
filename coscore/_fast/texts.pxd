# A text as the kernels read it (src/text.h), and a batch of them held that way (see
# texts.pyx): cimported by the modules that build one (arrow) or read one (_texts.pxd: the
# kernels' inputs, batch); and one str made from UTF-8 the same way (arrow).
from cpython.object cimport PyObject
from libc.stdint cimport int64_t, uint8_t

cdef extern from "src/text.h":
    int CS_UNICODE_READY(object) except -1

cdef extern from "src/text.h" nogil:
    ctypedef struct cs_text:
        int kind
        const void *data
        Py_ssize_t n
    bint CS_IS_READY(PyObject *o)
    void CS_PREFETCH(const void *p)
    void cs_prefetch_ahead(const cs_text *texts, Py_ssize_t i, Py_ssize_t n)


cdef class Texts:
    cdef cs_text *items          # n texts, each as a str of it would hold it
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t total_length   # the sum of the texts' lengths (code points)
    cdef unsigned char *arena    # the decoded texts (owned)
    cdef void *buffer            # a block some texts point into (owned), or NULL
    cdef object owner            # what keeps the rest of the memory they point into alive

    cdef str _str(self, Py_ssize_t i)
    cdef Py_ssize_t longest(self) noexcept


cdef Texts texts_from_utf8(const uint8_t **ptrs, const int64_t *lens, const int64_t *rows, Py_ssize_t n,
                           object owner, void *buffer)

# the str of the UTF-8 bytes p[:n], made at its final size and width (invalid UTF-8:
# Python's decoder raises its UnicodeDecodeError)
cdef object str_from_utf8(const uint8_t *p, int64_t n)
