"""OP kernel: best LCS(k, s) / len(k) over a fixed list of keys.

Bit-parallel LCS (Hyyro) over a per-scorer alphabet: the distinct code points
of the keys get ids 1..n when the scorer is built; any other code point of an
answer can never match and is dropped before the bit loop. Keys of at most 64
code points are packed into 8/16/32/64-bit lanes of 32-byte vectors; longer
keys use carry-propagating multi-word bit vectors. See src/bitlcs.h.
"""
cimport cython
from libc.stdint cimport uint32_t
from libc.stdlib cimport malloc, free

from coscore._fast._scorer cimport KeyScorer, _scratch_for
from coscore._fast._texts cimport _alphabet_map, cs_cpmap, cs_prefetch_ahead, cs_text

cdef extern from "src/bitlcs.h" nogil:
    ctypedef struct cs_lcs:
        Py_ssize_t n_keys
    int cs_lcs_build(cs_lcs *L, cs_cpmap *map, uint32_t n_ids, Py_ssize_t n_keys,
                     const Py_ssize_t *key_off, const uint32_t *key_ids)
    void cs_lcs_free(cs_lcs *L)
    Py_ssize_t cs_lcs_state_bytes(const cs_lcs *L)
    void cs_lcs_run(const cs_lcs *L, const cs_text *t, unsigned char *state)
    void cs_lcs_lengths(const cs_lcs *L, const unsigned char *state, Py_ssize_t *out)
    double cs_lcs_best(const cs_lcs *L, const unsigned char *state)
    Py_ssize_t cs_dense_limit

def _set_dense_limit(Py_ssize_t nbytes):
    """Testing hook: the size above which a long key's rows are stored sparsely
    (per 64-code-point block). Returns the previous limit."""
    global cs_dense_limit
    cdef Py_ssize_t old = cs_dense_limit
    cs_dense_limit = nbytes
    return old


@cython.final
cdef class LcsScorer(KeyScorer):
    """LcsScorer(keys): best(s) = max over keys of LCS(k, s) / len(k).

    An empty key has similarity 0.0; with no keys best() is 0.0.
    """
    cdef cs_lcs L
    cdef readonly Py_ssize_t alphabet_size

    def __cinit__(self, keys):
        cdef tuple ks = self.keys
        cdef Py_ssize_t nk = len(ks), total = 0, i, pos = 0
        cdef Py_ssize_t *key_off = NULL
        cdef uint32_t *key_ids = NULL
        cdef cs_cpmap cmap
        cdef dict alpha = {}
        cdef Py_UCS4 ch
        cdef object k, idv
        cdef uint32_t nid
        for k in ks:
            total += len(<str>k)
        try:
            key_off = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
            key_ids = <uint32_t *>malloc((total + 1) * sizeof(uint32_t))
            if key_off == NULL or key_ids == NULL:
                raise MemoryError()
            for i in range(nk):
                key_off[i] = pos
                for ch in <str>ks[i]:
                    idv = alpha.get(ch)
                    if idv is None:
                        nid = <uint32_t>(len(alpha) + 1)
                        alpha[ch] = nid
                    else:
                        nid = idv
                    key_ids[pos] = nid
                    pos += 1
            key_off[nk] = pos
            self.alphabet_size = len(alpha)
            free(_alphabet_map(&cmap, alpha))
            if cs_lcs_build(&self.L, &cmap, <uint32_t>len(alpha), nk, key_off, key_ids) != 0:
                raise MemoryError()
            self.scratch_bytes = cs_lcs_state_bytes(&self.L)
        finally:
            free(key_off)
            free(key_ids)

    def __dealloc__(self):
        cs_lcs_free(&self.L)

    cdef double _best(self, const cs_text *t, unsigned char *state) noexcept nogil:
        cs_lcs_run(&self.L, t, state)
        return cs_lcs_best(&self.L, state)

    cdef void _best_many(self, const cs_text *texts, Py_ssize_t n, double *out,
                         unsigned char *state) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            cs_prefetch_ahead(texts, i, n)
            cs_lcs_run(&self.L, &texts[i], state)
            out[i] = cs_lcs_best(&self.L, state)

    def lengths(self, s):
        """LCS(k, s) for every key, in key order."""
        cdef cs_text t
        cdef Py_ssize_t i, nk = self.L.n_keys
        cdef unsigned char *mem = NULL
        cdef Py_ssize_t *out = NULL
        cdef unsigned char *st
        try:
            st = _scratch_for(self, s, &t, NULL, &mem)
            out = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
            if out == NULL:
                raise MemoryError()
            with nogil:
                cs_lcs_run(&self.L, &t, st)
                cs_lcs_lengths(&self.L, st, out)
            return [out[i] for i in range(nk)]
        finally:
            free(mem)
            free(out)
