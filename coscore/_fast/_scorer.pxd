# What the compiled OP and CS scorers share (their twin: _scorer_py.KeyScorer): a scorer
# over a fixed tuple of keys whose kernel gives the best value of one answer from zeroed
# scratch. The subclass builds its kernel's tables in __cinit__ (and sets
# ``scratch_bytes``), frees them in __dealloc__ (C attributes start zeroed, so a
# kernel's free must take a zeroed or half-built table) and runs the kernel in
# ``_best`` (and may in ``_best_many``); best(), best_many(), len(), repr() and pickling
# are the base's.
from coscore._fast._texts cimport _scratch, _text, cs_text


cdef class KeyScorer:
    cdef readonly tuple keys
    cdef Py_ssize_t scratch_bytes   # the bytes of zeroed scratch one answer needs
    # the best value over the keys for ``t``; ``scratch`` is 64-byte aligned, zeroed for the
    # first answer and then left as the previous answer left it
    cdef double _best(self, const cs_text *t, unsigned char *scratch) noexcept nogil
    # _best of texts[0 .. n - 1] into out, in order, on one scratch (a subclass may run its
    # kernel here directly, saving a virtual call per text)
    cdef void _best_many(self, const cs_text *texts, Py_ssize_t n, double *out,
                         unsigned char *scratch) noexcept nogil


cdef inline unsigned char *_scratch_for(KeyScorer scorer, object s, cs_text *t, unsigned char *stack,
                                        unsigned char **mem) except NULL:
    """Read ``s`` into ``t`` and return the scorer's scratch for it: in ``stack`` (``_STACK``
    bytes, or NULL) when it fits, else on the heap (``*mem``: the caller frees it)."""
    _text(s, t)
    return _scratch(scorer.scratch_bytes, stack, mem)
