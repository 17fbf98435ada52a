"""SM kernel: count the groups of an SM desc that hit a string.

For each group, t = s; its options in order: an empty option never matches;
'!x' with x in t stops the group; '~x' with x in t sets t = t.replace(x, '')
and goes on to the next check for the same option; an option found in t
(the whole option text, prefix included) counts the group and stops it.

Until a group's first '!'/'~' option, t is s itself, so the group counts iff
one of those leading options occurs in s. All such leading options of all
groups are found in one pass over the answer with an Aho-Corasick automaton
over the options' alphabet (no GIL). Only a group none of whose leading options
occurs walks the rest of its options, with CPython's own `in` / str.replace.
"""
from libc.stdint cimport uint32_t, int32_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy

import numpy as np

cdef extern from "Python.h":
    unsigned int PyUnicode_KIND(object)
    void *PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    object PyUnicode_FromObject(object)

cdef extern from "_kernels.h":
    int CS_UNICODE_READY(object) except -1

cdef extern from "_kernels.h" nogil:
    ctypedef struct cs_text:
        int kind
        const void *data
        Py_ssize_t n
    ctypedef struct cs_cpmap:
        pass
    ctypedef struct cs_ac:
        cs_cpmap map
        Py_ssize_t width
        Py_ssize_t n_states
        int32_t *delta
        Py_ssize_t *out_off
        int32_t *out_slot
        Py_ssize_t n_slots
    int cs_cpmap_build(cs_cpmap *m, const uint32_t *cps, const uint32_t *ids, Py_ssize_t n)
    void cs_ac_free(cs_ac *A)
    Py_ssize_t cs_ac_scan(const cs_ac *A, const cs_text *t, unsigned char *hit)

cdef enum:
    _NOGIL_MIN = 4096          # count() releases the GIL for answers at least this long
    _STACK_SLOTS = 1024        # hit marks kept on the stack up to this many slots
    _BATCH = 1024              # answers per nogil round in count_many()
    _OP_PLAIN = 0
    _OP_NOT = 1
    _OP_TILDE = 2

# dense automaton tables above this many entries fall back to str `in`
_MAX_TABLE = 1 << 22


cdef inline int _text(object s, cs_text *t) except -1:
    if not isinstance(s, str):
        raise TypeError(f"expected str, got {type(s).__name__}")
    CS_UNICODE_READY(s)
    t.kind = <int>PyUnicode_KIND(s)
    t.data = PyUnicode_DATA(s)
    t.n = PyUnicode_GET_LENGTH(s)
    return 0


cdef tuple _as_tuple(object strings):
    if isinstance(strings, str):
        raise TypeError("expected a sequence of str, got a str")
    return tuple(strings)


cdef bint _walk(list ops, str s) except -1:
    """The ordered walk over compiled options (kind, needle, option)."""
    cdef str t = s
    cdef str needle, full
    cdef int kind
    for op in ops:
        kind = (<tuple>op)[0]
        needle = (<tuple>op)[1]
        full = (<tuple>op)[2]
        if kind == _OP_NOT:
            if needle in t:
                return False
        elif kind == _OP_TILDE:
            if needle in t:
                t = t.replace(needle, "")
        if full in t:
            return True
    return False


cdef class SubstringScanner:
    """SubstringScanner(groups): count(s) = number of groups that hit s.

    groups: desc.split(",") then each .split("|"), options verbatim with their
    '!'/'~' prefixes.
    """
    cdef cs_ac A
    cdef bint ready
    cdef readonly bint use_ac    # False only when the automaton would be too big
    cdef readonly tuple groups
    cdef Py_ssize_t n_groups
    cdef Py_ssize_t n_slots
    cdef list group_slot     # per group: slot of its leading plain options, or -1
    cdef list group_tail     # per group: compiled ops from its first '!'/'~' option, or None
    cdef list slot_options   # per slot: its leading plain options (for the no-automaton path)
    cdef bint has_tails

    def __cinit__(self, groups):
        cdef list gs = []
        cdef list options, lead, ops
        cdef Py_ssize_t gi, first
        self.ready = False
        self.use_ac = False
        memset(&self.A, 0, sizeof(cs_ac))
        for g in groups:
            if isinstance(g, str):
                raise TypeError("each group must be a list of str options, got a str")
            options = list(g)
            for o in options:
                if not isinstance(o, str):
                    raise TypeError(f"options must be str, got {type(o).__name__}")
            gs.append(tuple(options))
        self.groups = tuple(gs)
        self.n_groups = len(gs)
        self.group_slot = []
        self.group_tail = []
        self.slot_options = []
        self.has_tails = False
        for options in map(list, gs):
            first = len(options)
            for gi in range(len(options)):
                o = <str>options[gi]
                if o and (o[0] == "!" or o[0] == "~"):
                    first = gi
                    break
            lead = [o for o in options[:first] if o]
            if lead:
                self.group_slot.append(len(self.slot_options))
                self.slot_options.append(lead)
            else:
                self.group_slot.append(-1)
            ops = []
            for o in options[first:]:
                if not o:
                    continue
                if o[0] == "!":
                    ops.append((_OP_NOT, o[1:], o))
                elif o[0] == "~":
                    ops.append((_OP_TILDE, o[1:], o))
                else:
                    ops.append((_OP_PLAIN, o, o))
            if ops:
                self.group_tail.append(ops)
                self.has_tails = True
            else:
                self.group_tail.append(None)
        self.n_slots = len(self.slot_options)
        self._build_automaton()
        self.ready = True

    cdef _build_automaton(self):
        cdef dict patterns = {}     # option text -> set of slots
        cdef dict alpha = {}        # code point -> id (1..)
        cdef list goto = [{}]       # state -> {id: state}
        cdef list outs = [set()]
        cdef Py_ssize_t n_states, width, s, i, nmap
        cdef Py_UCS4 ch
        cdef uint32_t *cps = NULL
        cdef uint32_t *ids = NULL
        if self.n_slots == 0:
            return
        for slot, lead in enumerate(self.slot_options):
            for o in lead:
                patterns.setdefault(o, set()).add(slot)
        for o, slots in patterns.items():
            s = 0
            for ch in <str>o:
                a = alpha.get(ch)
                if a is None:
                    a = len(alpha) + 1
                    alpha[ch] = a
                nxt = (<dict>goto[s]).get(a)
                if nxt is None:
                    nxt = len(goto)
                    (<dict>goto[s])[a] = nxt
                    goto.append({})
                    outs.append(set())
                s = nxt
            (<set>outs[s]).update(slots)
        n_states = len(goto)
        width = len(alpha) + 1
        if n_states * width > _MAX_TABLE:
            return  # too big for a dense table: count() uses `in` per option
        delta = np.zeros((n_states, width), dtype=np.int32)   # next state (no flag yet)
        fail = [0] * n_states
        queue = list((<dict>goto[0]).items())
        for a, nxt in queue:
            delta[0, a] = nxt
            fail[nxt] = 0
        head = 0
        # breadth-first: a state's row is its fail state's row plus its own edges
        bfs = [nxt for a, nxt in queue]
        while head < len(bfs):
            s = bfs[head]
            head += 1
            (<set>outs[s]).update(<set>outs[fail[s]])
            for a, nxt in (<dict>goto[s]).items():
                fail[nxt] = int(delta[fail[s], a])
                bfs.append(nxt)
            delta[s] = delta[fail[s]]
            for a, nxt in (<dict>goto[s]).items():
                delta[s, a] = nxt
        has_out = np.array([1 if outs[i] else 0 for i in range(n_states)], dtype=np.int32)
        coded = np.ascontiguousarray(delta * 2 + has_out[delta], dtype=np.int32)
        out_off = np.zeros(n_states + 1, dtype=np.intp)
        flat = []
        for i in range(n_states):
            flat.extend(sorted(outs[i]))
            out_off[i + 1] = len(flat)
        flat_arr = np.array(flat + [0], dtype=np.int32)
        cdef int32_t[:, ::1] cv = coded
        cdef Py_ssize_t[::1] ov = out_off
        cdef int32_t[::1] fv = flat_arr
        try:
            self.A.width = width
            self.A.n_states = n_states
            self.A.n_slots = self.n_slots
            self.A.delta = <int32_t *>malloc(n_states * width * sizeof(int32_t))
            self.A.out_off = <Py_ssize_t *>malloc((n_states + 1) * sizeof(Py_ssize_t))
            self.A.out_slot = <int32_t *>malloc(flat_arr.size * sizeof(int32_t))
            if self.A.delta == NULL or self.A.out_off == NULL or self.A.out_slot == NULL:
                raise MemoryError()
            memcpy(self.A.delta, &cv[0, 0], n_states * width * sizeof(int32_t))
            memcpy(self.A.out_off, &ov[0], (n_states + 1) * sizeof(Py_ssize_t))
            memcpy(self.A.out_slot, &fv[0], flat_arr.size * sizeof(int32_t))
            nmap = len(alpha)
            cps = <uint32_t *>malloc((nmap + 1) * sizeof(uint32_t))
            ids = <uint32_t *>malloc((nmap + 1) * sizeof(uint32_t))
            if cps == NULL or ids == NULL:
                raise MemoryError()
            i = 0
            for c, a in alpha.items():
                cps[i] = <uint32_t>ord(c)
                ids[i] = <uint32_t>a
                i += 1
            if cs_cpmap_build(&self.A.map, cps, ids, nmap) != 0:
                raise MemoryError()
            self.use_ac = True
        finally:
            free(cps)
            free(ids)
            if not self.use_ac:
                cs_ac_free(&self.A)

    def __dealloc__(self):
        if self.use_ac:
            cs_ac_free(&self.A)
            self.use_ac = False

    def __reduce__(self):
        return (SubstringScanner, ([list(g) for g in self.groups],))

    def __repr__(self):
        return f"SubstringScanner({[list(g) for g in self.groups]!r})"

    cdef int _slots_slow(self, str s, unsigned char *hit) except -1:
        """Leading options by `in` (only when the automaton would be too big)."""
        cdef Py_ssize_t slot
        for slot in range(self.n_slots):
            for o in <list>self.slot_options[slot]:
                if <str>o in s:
                    hit[slot] = 1
                    break
        return 0

    cdef Py_ssize_t _finish(self, object s, const unsigned char *hit) except -1:
        """Count the groups from the slot hits, walking the tails that need it."""
        cdef Py_ssize_t gi, count = 0, slot
        cdef str text = None
        for gi in range(self.n_groups):
            slot = <Py_ssize_t>self.group_slot[gi]
            if slot >= 0 and hit[slot]:
                count += 1
                continue
            tail = self.group_tail[gi]
            if tail is not None:
                if text is None:
                    text = PyUnicode_FromObject(s)   # an exact str (subclasses copied)
                if _walk(<list>tail, text):
                    count += 1
        return count

    def count(self, s):
        """Number of groups that hit s."""
        cdef cs_text t
        cdef unsigned char stackbuf[_STACK_SLOTS]
        cdef unsigned char *hit = stackbuf
        cdef Py_ssize_t found, r
        _text(s, &t)
        if self.n_slots > _STACK_SLOTS:
            hit = <unsigned char *>calloc(self.n_slots, 1)
            if hit == NULL:
                raise MemoryError()
        else:
            memset(stackbuf, 0, self.n_slots)
        try:
            if self.use_ac:
                if t.n >= _NOGIL_MIN:
                    with nogil:
                        found = cs_ac_scan(&self.A, &t, hit)
                else:
                    found = cs_ac_scan(&self.A, &t, hit)
                if not self.has_tails:
                    return found
            elif self.n_slots:
                self._slots_slow(PyUnicode_FromObject(s), hit)
            return self._finish(s, hit)
        finally:
            if hit != stackbuf:
                free(hit)

    def count_many(self, strings):
        """count() of every string, as an int64 numpy array."""
        cdef tuple seq = _as_tuple(strings)
        cdef Py_ssize_t n = len(seq), i, b0, b1, ns = self.n_slots
        cdef cs_text *texts = NULL
        cdef unsigned char *hits = NULL
        out = np.zeros(n, dtype=np.int64)
        cdef long long[::1] ov = out
        if n == 0:
            return out
        try:
            texts = <cs_text *>malloc(n * sizeof(cs_text))
            hits = <unsigned char *>malloc(_BATCH * ns + 1)
            if texts == NULL or hits == NULL:
                raise MemoryError()
            for i in range(n):
                _text(seq[i], &texts[i])
            if not self.use_ac:
                for i in range(n):
                    memset(hits, 0, ns)
                    if ns:
                        self._slots_slow(PyUnicode_FromObject(seq[i]), hits)
                    ov[i] = self._finish(seq[i], hits)
                return out
            b0 = 0
            while b0 < n:
                b1 = min(n, b0 + _BATCH)
                memset(hits, 0, (b1 - b0) * ns)
                with nogil:
                    for i in range(b0, b1):
                        ov[i] = cs_ac_scan(&self.A, &texts[i], hits + (i - b0) * ns)
                if self.has_tails:
                    for i in range(b0, b1):
                        ov[i] = self._finish(seq[i], hits + (i - b0) * ns)
                b0 = b1
        finally:
            free(texts)
            free(hits)
        return out
