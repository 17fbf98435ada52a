# Kernel units (see _units.h): the kernels make them, batch.distinct_texts runs them.
cdef extern from "_units.h":
    ctypedef struct cs_unit:
        Py_ssize_t scratch_bytes
        Py_ssize_t k
    ctypedef struct cs_unit_box:
        cs_unit u
        Py_ssize_t *arrays
    object cs_unit_capsule(cs_unit_box *b, object owner)
    void cs_unit_call(const cs_unit *u, int kind, const void *data, Py_ssize_t n,
                      unsigned char *scratch, double *out, Py_ssize_t stride) nogil
    const char *CS_UNIT_CAPSULE
