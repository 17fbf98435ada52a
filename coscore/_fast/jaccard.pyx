"""CS kernel: best character multiset Jaccard over a fixed list of keys.

Tokens: every code point c becomes c.lower() taken on its own (so 'Σ' -> 'σ',
never the final 'ς'); code points with c.isspace() are dropped; 'İ' (U+0130,
whose lowercase is two code points) is a token of its own that matches only
another 'İ'. The lowercase table is generated from the running Python's own
str.lower() / str.isspace() the first time a scorer is built.

sim(k, s) = sum_c min(nk(c), ns(c)) / sum_c max(nk(c), ns(c)), 0.0 when both
texts have no tokens. The scorer gives every key token an id (2..); an answer's
code points map to those ids (with all the code points that lowercase to the
same token), 1 (whitespace) or 0 (a token in no key: it only adds to the
answer's total).
"""
cimport cython
from libc.stdint cimport uint32_t
from libc.stdlib cimport malloc, free

import threading

from coscore._fast._scorer cimport KeyScorer, _scratch_for
from coscore._fast._texts cimport (
    CS_UNICODE_READY, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, _alphabet_map,
    cs_cpmap, cs_prefetch_ahead, cs_text,
)

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_UCS4 *PyUnicode_4BYTE_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void *data, Py_ssize_t index)


cdef extern from "src/multiset.h" nogil:
    ctypedef struct cs_jac:
        cs_cpmap map
        uint32_t n_ids
        Py_ssize_t n_keys
        Py_ssize_t *key_off
        uint32_t *pair_id
        Py_ssize_t *pair_cnt
        Py_ssize_t *key_total
        Py_ssize_t n_kvec
        unsigned char *kmat
    void cs_jac_free(cs_jac *J)
    int cs_jac_finish(cs_jac *J)
    Py_ssize_t cs_jac_scratch_bytes(const cs_jac *J)
    double cs_jac_best(const cs_jac *J, const cs_text *t, unsigned char *scratch)
    void cs_jac_counts(const cs_jac *J, const cs_text *t, unsigned char *scratch,
                       Py_ssize_t *smin, Py_ssize_t *smax)

cdef uint32_t _MAX_CP = 0x110000


# ----------------------------------------------------------------------------
# token tables (built once, lazily)
# ----------------------------------------------------------------------------
_tables = None
_tables_lock = threading.Lock()


def _spaces():
    """Code points c with chr(c).isspace() (str.isspace of a one-character str
    is Py_UNICODE_ISSPACE of that character)."""
    cdef uint32_t c
    return tuple([c for c in range(_MAX_CP) if Py_UNICODE_ISSPACE(<Py_UCS4>c)])


def _lower_table():
    """{code point: token} for every code point whose token is not itself.

    The token is ord(chr(c).lower()), or 0x110000 + i for the i-th distinct
    lowercase of several code points. Computed with one str.lower() call over
    every code point, each followed by a NUL: NUL is neither cased nor
    case-ignorable, so each character is lowercased exactly as on its own
    (no final-sigma context). None when that reading fails (never seen): the caller
    then takes the tables of coscore._fast._common, built one character at a time.
    """
    cdef Py_ssize_t n_cp = _MAX_CP - 1, i, pos, start, n
    cdef Py_UCS4 *d
    cdef uint32_t c, tok
    cdef int kind
    cdef void *data
    cdef dict table = {}
    cdef dict multi = {}
    if chr(0).lower() != chr(0):
        return None
    text = PyUnicode_New(2 * n_cp, 0x10FFFF)
    d = PyUnicode_4BYTE_DATA(text)
    for i in range(n_cp):
        d[2 * i] = <Py_UCS4>(i + 1)
        d[2 * i + 1] = 0
    low = text.lower()
    CS_UNICODE_READY(low)
    kind = <int>PyUnicode_KIND(low)
    data = PyUnicode_DATA(low)
    n = PyUnicode_GET_LENGTH(low)
    pos = 0
    for c in range(1, _MAX_CP):
        start = pos
        while pos < n and PyUnicode_READ(kind, data, pos) != 0:
            pos += 1
        if pos >= n:
            return None   # a lowercase containing NUL: never, but be exact
        if pos - start == 1:
            tok = PyUnicode_READ(kind, data, start)
            if tok != c:
                table[c] = tok
        else:
            table[c] = _MAX_CP + multi.setdefault(low[start:pos], len(multi))
        pos += 1
    if pos != n:
        return None
    return table


def token_tables():
    """(lower, spaces, inverse): lower maps each code point whose token differs
    from the code point to its token; spaces is the frozenset of whitespace code
    points; inverse maps a token to the code points (other than itself) whose
    token it is."""
    global _tables
    if _tables is None:
        with _tables_lock:
            if _tables is None:
                lower = _lower_table()
                if lower is None:
                    from coscore._fast._common import token_tables as slow_tables
                    _tables = slow_tables()
                else:
                    inverse = {}
                    for c, t in lower.items():
                        inverse.setdefault(t, []).append(c)
                    _tables = (lower, frozenset(_spaces()), inverse)
    return _tables


def token(ch):
    """The CS token (an int) of a one-character str, or None for whitespace."""
    lower, spaces, _ = token_tables()
    c = ord(ch)
    if c in spaces:
        return None
    return lower.get(c, c)


# ----------------------------------------------------------------------------
@cython.final
cdef class JaccardScorer(KeyScorer):
    """JaccardScorer(keys): best(s) = max over keys of the character multiset
    Jaccard similarity (0.0 without keys)."""
    cdef cs_jac J

    def __cinit__(self, keys):
        cdef tuple ks = self.keys
        cdef Py_ssize_t nk = len(ks), i, j, npairs = 0
        cdef dict alpha = {}        # token -> id (2..)
        cdef list per_key = []      # [{id: count}]
        cdef dict cnt
        cdef Py_UCS4 ch
        cdef object k
        lower, spaces, inverse = token_tables()
        for k in ks:
            cnt = {}
            for ch in <str>k:
                c = <uint32_t>ch
                if c in spaces:
                    continue
                tok = lower.get(c, c)
                tid = alpha.get(tok)
                if tid is None:
                    tid = len(alpha) + 2
                    alpha[tok] = tid
                cnt[tid] = cnt.get(tid, 0) + 1
            per_key.append(cnt)
            npairs += len(cnt)
        # the code points of the answer that map to each id
        cpmap = {}
        for tok, tid in alpha.items():
            if tok < _MAX_CP and lower.get(tok, tok) == tok:
                cpmap[tok] = tid
            for c in inverse.get(tok, ()):
                cpmap[c] = tid
        for c in spaces:   # last: whitespace is dropped whatever its lowercase
            cpmap[c] = 1
        self.J.n_ids = <uint32_t>(len(alpha) + 2)
        self.J.n_keys = nk
        self.J.key_off = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
        self.J.key_total = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
        self.J.pair_id = <uint32_t *>malloc((npairs + 1) * sizeof(uint32_t))
        self.J.pair_cnt = <Py_ssize_t *>malloc((npairs + 1) * sizeof(Py_ssize_t))
        if (self.J.key_off == NULL or self.J.key_total == NULL
                or self.J.pair_id == NULL or self.J.pair_cnt == NULL):
            raise MemoryError()
        j = 0
        for i in range(nk):
            self.J.key_off[i] = j
            self.J.key_total[i] = 0
            for tid, n in (<dict>per_key[i]).items():
                self.J.pair_id[j] = <uint32_t>tid
                self.J.pair_cnt[j] = n
                self.J.key_total[i] += n
                j += 1
        self.J.key_off[nk] = j
        free(_alphabet_map(&self.J.map, cpmap))
        if cs_jac_finish(&self.J) != 0:
            raise MemoryError()
        self.scratch_bytes = cs_jac_scratch_bytes(&self.J)

    def __dealloc__(self):
        cs_jac_free(&self.J)   # also after a failed build: the struct starts zeroed

    cdef double _best(self, const cs_text *t, unsigned char *scratch) noexcept nogil:
        return cs_jac_best(&self.J, t, scratch)

    cdef void _best_many(self, const cs_text *texts, Py_ssize_t n, double *out,
                         unsigned char *scratch) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            cs_prefetch_ahead(texts, i, n)
            out[i] = cs_jac_best(&self.J, &texts[i], scratch)

    def counts(self, s):
        """[(sum_min, sum_max)] per key, in key order."""
        cdef cs_text t
        cdef Py_ssize_t nk = self.J.n_keys, i
        cdef unsigned char *mem = NULL
        cdef Py_ssize_t *a = NULL
        cdef Py_ssize_t *b = NULL
        cdef unsigned char *sc
        try:
            sc = _scratch_for(self, s, &t, NULL, &mem)
            a = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
            b = <Py_ssize_t *>malloc((nk + 1) * sizeof(Py_ssize_t))
            if a == NULL or b == NULL:
                raise MemoryError()
            with nogil:
                cs_jac_counts(&self.J, &t, sc, a, b)
            return [(a[i], b[i]) for i in range(nk)]
        finally:
            free(mem)
            free(a)
            free(b)
