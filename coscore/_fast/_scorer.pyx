"""The compiled OP and CS scorers' common base (see _scorer.pxd; twin: _scorer_py)."""
from libc.stdlib cimport free

import numpy as np

from coscore._fast._texts cimport (
    _STACK, _as_seq, _scratch, _size, _texts, cs_prefetch_ahead, cs_text,
)

cdef enum:
    _NOGIL_MIN = 4096   # best() releases the GIL for answers at least this long


cdef class KeyScorer:
    """KeyScorer(keys): best(s) = max over keys of the key's value for s (0.0 without
    keys); subclasses run a kernel (:meth:`_best`)."""

    def __cinit__(self, keys, *args, **kwargs):
        cdef list ks = list(keys)
        for k in ks:
            if not isinstance(k, str):
                raise TypeError(f"keys must be str, got {type(k).__name__}")
        self.keys = tuple(ks)

    cdef double _best(self, const cs_text *t, unsigned char *scratch) noexcept nogil:
        return 0.0

    cdef void _best_many(self, const cs_text *texts, Py_ssize_t n, double *out,
                         unsigned char *scratch) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            cs_prefetch_ahead(texts, i, n)
            out[i] = self._best(&texts[i], scratch)

    def __reduce__(self):
        return (type(self), (list(self.keys),))

    def __repr__(self):
        return f"{type(self).__name__}({list(self.keys)!r})"

    def __len__(self):
        return len(self.keys)

    def best(self, s):
        """max over keys of the key's value for s (0.0 without keys)."""
        cdef cs_text t
        cdef unsigned char buf[_STACK]
        cdef unsigned char *mem = NULL
        cdef double r
        cdef unsigned char *sc = _scratch_for(self, s, &t, buf, &mem)
        if t.n >= _NOGIL_MIN:
            with nogil:
                r = self._best(&t, sc)
        else:
            r = self._best(&t, sc)
        free(mem)
        return r

    def best_many(self, strings):
        """best() of every string, as a float64 numpy array."""
        cdef object seq = _as_seq(strings)
        cdef Py_ssize_t n = _size(seq)
        cdef cs_text *texts = NULL
        cdef unsigned char *mem = NULL
        cdef unsigned char *sc
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] ov = out
        if n == 0:
            return out
        texts = _texts(seq)
        try:
            sc = _scratch(self.scratch_bytes, NULL, &mem)
            with nogil:
                self._best_many(texts, n, &ov[0], sc)
        finally:
            free(texts)
            free(mem)
        return out
