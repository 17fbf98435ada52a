"""SM kernel: count the groups of an SM desc that hit a string.

For each group, t = s; its options in order: an empty option never matches;
'!x' with x in t stops the group; '~x' with x in t sets t = t.replace(x, '')
and goes on to the next check for the same option; an option found in t
(the whole option text, prefix included) counts the group and stops it.

Until a group's first '!'/'~' option, t is s itself, so the group counts iff
one of those leading options occurs in s. All such leading options of all
groups are found in one pass over the answer (no GIL): a bit-parallel Shift-And
over all of them at once when their distinct texts total at most 128 code
points (the demo rules' options total 2 to 30), else an Aho-Corasick automaton
over the options' alphabet (src/shift_and.h, src/aho_corasick.h). Only a group
none of whose leading options occurs walks the rest of its options, on the code
points and without the GIL too (src/walk.h); when the automaton would be too big,
every group walks all its options.
"""
from libc.stdint cimport int32_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy

import numpy as np

from cpython.object cimport PyObject

from coscore._fast._common import checked_groups

from coscore._fast._texts cimport (
    PySequence_Fast_ITEMS, _alphabet_map, _as_seq, _size, _text, _texts,
    cs_cpmap, cs_prefetch_ahead, cs_text,
)


cdef extern from "src/aho_corasick.h" nogil:
    ctypedef struct cs_ac:
        cs_cpmap map
        Py_ssize_t width
        Py_ssize_t n_states
        int32_t *delta
        Py_ssize_t *out_off
        int32_t *out_slot
        Py_ssize_t n_slots
    void cs_ac_free(cs_ac *A)
    Py_ssize_t cs_ac_scan(const cs_ac *A, const cs_text *t, unsigned char *hit)

cdef extern from "src/walk.h" nogil:
    ctypedef struct cs_walk:
        Py_ssize_t *op_off
        unsigned char *kind
        Py_ssize_t *cp_off
        uint32_t *cps
    int cs_walk_init(cs_walk *W, Py_ssize_t n_groups, Py_ssize_t n_ops, Py_ssize_t n_cps)
    void cs_walk_prepare(cs_walk *W)
    void cs_walk_free(cs_walk *W)
    int cs_walk_group(const cs_walk *W, Py_ssize_t g, const uint32_t *t, Py_ssize_t n, uint32_t *work)
    void cs_text_ucs4(const cs_text *t, uint32_t *out)

cdef extern from "src/shift_and.h" nogil:
    ctypedef struct cs_sa:
        cs_cpmap map
        int words
        uint64_t *B
        uint64_t start[2]
        uint64_t fin[2]
        Py_ssize_t n_slots
        uint64_t *slot_fin
        int n_alpha1
        int n_alpha2
        uint16_t alpha[32]
    void cs_sa_free(cs_sa *A)
    Py_ssize_t cs_sa_scan(const cs_sa *A, const cs_text *t, unsigned char *hit)
    void cs_sa_prefilter(cs_sa *A)
    void cs_sa_nibbles(cs_sa *A, const uint32_t *cps, Py_ssize_t n)
    int cs_sa_direct(cs_sa *A)

cdef enum:
    _NOGIL_MIN = 4096          # count() releases the GIL for answers at least this long
    _STACK_SLOTS = 1024        # hit marks kept on the stack up to this many slots
    _OP_PLAIN = 0              # walk ops (src/walk.h)
    _OP_NOT = 1
    _OP_TILDE = 2

    _KERNEL_IN = 0             # leading options found with str `in` (automaton too big)
    _KERNEL_AC = 1             # Aho-Corasick automaton
    _KERNEL_SA = 2             # Shift-And

# dense automaton tables above this many entries fall back to str `in`
_MAX_TABLE = 1 << 22

# distinct leading options totalling at most this many code points use Shift-And
cdef Py_ssize_t _sa_bits = 128


_BIT = tuple(1 << b for b in range(64))   # Python ints: bit 63 does not fit a C long


cdef bint _nibbles = True


def _set_nibbles(bint on):
    """Testing hook: whether scanners built afterwards may use the AVX2 nibble-class
    prefilter for UCS-2 text. Returns the previous setting."""
    global _nibbles
    cdef bint old = _nibbles
    _nibbles = on
    return old


def _set_shift_and_bits(Py_ssize_t bits):
    """Testing hook: the largest total option length scanned with Shift-And (0: never,
    at most 128); scanners built afterwards use it. Returns the previous value."""
    global _sa_bits
    cdef Py_ssize_t old = _sa_bits
    _sa_bits = max(0, min(128, bits))
    return old


cdef class SubstringScanner:
    """SubstringScanner(groups): count(s) = number of groups that hit s.

    groups: desc.split(",") then each .split("|"), options verbatim with their
    '!'/'~' prefixes.
    """
    cdef cs_ac A
    cdef cs_sa SA
    cdef bint ready
    cdef readonly bint use_ac    # False only when the leading options are found with `in`
    cdef readonly int kernel     # 0: `in`, 1: Aho-Corasick, 2: Shift-And
    cdef readonly tuple groups
    cdef Py_ssize_t n_groups
    cdef Py_ssize_t n_slots
    cdef list group_slot     # per group: slot of its leading plain options, or -1
    cdef list group_ops      # per group: the options it walks (from its first '!'/'~' one)
    cdef list slot_options   # per slot: its leading plain options
    cdef Py_ssize_t *slot_of # group_slot as a C array
    cdef cs_walk W           # group_ops compiled (src/walk.h)
    cdef bint has_tails      # a group walks options

    def __cinit__(self, groups):
        cdef list gs = []
        cdef list options, lead, ops
        cdef Py_ssize_t gi, first
        self.ready = False
        self.use_ac = False
        self.kernel = _KERNEL_IN
        memset(&self.A, 0, sizeof(cs_ac))
        memset(&self.SA, 0, sizeof(cs_sa))
        gs = list(checked_groups(groups))
        self.groups = tuple(gs)
        self.n_groups = len(gs)
        self.group_slot = []
        self.group_ops = []
        self.slot_options = []
        self.has_tails = False
        self.slot_of = NULL
        memset(&self.W, 0, sizeof(cs_walk))
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
            self.group_ops.append([o for o in options[first:] if o])
        self.n_slots = len(self.slot_options)
        if self.n_slots:
            if self._build_shift_and():
                self.kernel = _KERNEL_SA
            else:
                self._build_automaton()
                if self.use_ac:
                    self.kernel = _KERNEL_AC
        self.use_ac = self.kernel != _KERNEL_IN
        if self.kernel == _KERNEL_IN:   # no scan: every group walks all its options
            self.group_ops = [[o for o in g if o] for g in gs]
            self.group_slot = [-1] * self.n_groups
            self.n_slots = 0
        self._build_walk()
        self.ready = True

    cdef _build_walk(self):
        """Compile group_ops (src/walk.h) and group_slot into C arrays."""
        cdef Py_ssize_t g, k = 0, c = 0, n_ops = 0, n_cps = 0
        cdef Py_UCS4 ch
        for ops in self.group_ops:
            n_ops += len(<list>ops)
            n_cps += sum([len(<str>o) for o in <list>ops])
        self.has_tails = n_ops > 0
        self.slot_of = <Py_ssize_t *>malloc((self.n_groups + 1) * sizeof(Py_ssize_t))
        if self.slot_of == NULL or cs_walk_init(&self.W, self.n_groups, n_ops, n_cps) != 0:
            raise MemoryError()
        for g in range(self.n_groups):
            self.slot_of[g] = <Py_ssize_t>self.group_slot[g]
            self.W.op_off[g] = k
            for o in <list>self.group_ops[g]:
                self.W.kind[k] = _OP_NOT if o[0] == "!" else (_OP_TILDE if o[0] == "~" else _OP_PLAIN)
                self.W.cp_off[k] = c
                for ch in <str>o:
                    self.W.cps[c] = ch
                    c += 1
                k += 1
        self.W.op_off[self.n_groups] = k
        self.W.cp_off[k] = c
        cs_walk_prepare(&self.W)

    cdef bint _build_shift_and(self) except -1:
        """Lay the distinct leading options end to end in <= 128 bits (see src/shift_and.h)."""
        cdef dict patterns = {}     # option text -> set of slots
        cdef dict alpha = {}        # code point -> id (1..)
        cdef Py_ssize_t total = 0, off, k, bit, i, nid, nmap
        cdef uint32_t *cps = NULL
        cdef bint ok = False
        for slot, lead in enumerate(self.slot_options):
            for o in lead:
                patterns.setdefault(o, set()).add(slot)
        for o in patterns:
            total += len(<str>o)
        if total > _sa_bits:
            return False
        for o in patterns:
            for ch in <str>o:
                if ch not in alpha:
                    alpha[ch] = len(alpha) + 1
        nid = len(alpha)
        masks = [[0, 0] for _ in range(nid + 1)]
        start = [0, 0]
        fin = [0, 0]
        slot_fin = [[0, 0] for _ in range(self.n_slots)]
        off = 0
        for o, slots in patterns.items():
            for k, ch in enumerate(<str>o):
                bit = off + k
                masks[alpha[ch]][bit >> 6] |= _BIT[bit & 63]
            start[off >> 6] |= _BIT[off & 63]
            bit = off + len(<str>o) - 1
            fin[bit >> 6] |= _BIT[bit & 63]
            for slot in slots:
                slot_fin[slot][bit >> 6] |= _BIT[bit & 63]
            off += len(<str>o)
        try:
            self.SA.words = 1 if total <= 64 else 2
            self.SA.n_slots = self.n_slots
            self.SA.B = <uint64_t *>calloc((nid + 1) * self.SA.words, sizeof(uint64_t))
            self.SA.slot_fin = <uint64_t *>calloc(self.n_slots * 2, sizeof(uint64_t))
            if self.SA.B == NULL or self.SA.slot_fin == NULL:
                raise MemoryError()
            for i in range(nid + 1):
                self.SA.B[i * self.SA.words] = <uint64_t>masks[i][0]
                if self.SA.words == 2:
                    self.SA.B[i * 2 + 1] = <uint64_t>masks[i][1]
            for i in range(2):
                self.SA.start[i] = <uint64_t>start[i]
                self.SA.fin[i] = <uint64_t>fin[i]
            for i in range(self.n_slots):
                self.SA.slot_fin[2 * i] = <uint64_t>slot_fin[i][0]
                self.SA.slot_fin[2 * i + 1] = <uint64_t>slot_fin[i][1]
            # the prefilter's alphabet: code points < 0x100 first, then the rest of the BMP
            narrow = sorted(ord(c) for c in alpha if ord(c) < 0x100)
            wide = sorted(ord(c) for c in alpha if 0x100 <= ord(c) < 0x10000)
            both = (narrow + wide)[:32]
            for i in range(len(both)):
                self.SA.alpha[i] = <uint16_t>both[i]
            self.SA.n_alpha1 = len(narrow) if len(narrow) <= 32 else -1
            self.SA.n_alpha2 = len(both) if len(narrow) + len(wide) <= 32 else -1
            cs_sa_prefilter(&self.SA)
            nmap = len(alpha)
            cps = _alphabet_map(&self.SA.map, alpha)
            if _nibbles:
                cs_sa_nibbles(&self.SA, cps, nmap)
            if cs_sa_direct(&self.SA) != 0:
                raise MemoryError()
            ok = True
        finally:
            free(cps)
            if not ok:
                cs_sa_free(&self.SA)
        return True

    cdef _build_automaton(self):
        cdef dict patterns = {}     # option text -> set of slots
        cdef dict alpha = {}        # code point -> id (1..)
        cdef list goto = [{}]       # state -> {id: state}
        cdef list outs = [set()]
        cdef Py_ssize_t n_states, width, s, i
        cdef Py_UCS4 ch
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
            free(_alphabet_map(&self.A.map, alpha))
            self.use_ac = True
        finally:
            if not self.use_ac:
                cs_ac_free(&self.A)

    def __dealloc__(self):
        cs_walk_free(&self.W)
        free(self.slot_of)
        self.slot_of = NULL
        if self.kernel == _KERNEL_AC:
            cs_ac_free(&self.A)
        elif self.kernel == _KERNEL_SA:
            cs_sa_free(&self.SA)
        self.kernel = _KERNEL_IN
        self.use_ac = False

    def __reduce__(self):
        return (SubstringScanner, ([list(g) for g in self.groups],))

    def __repr__(self):
        return f"SubstringScanner({[list(g) for g in self.groups]!r})"

    cdef inline Py_ssize_t _scan(self, const cs_text *t, unsigned char *hit) noexcept nogil:
        if self.kernel == _KERNEL_SA:
            return cs_sa_scan(&self.SA, t, hit)
        if self.kernel == _KERNEL_AC:
            return cs_ac_scan(&self.A, t, hit)
        return 0

    cdef Py_ssize_t _count(self, const cs_text *t, unsigned char *hit, uint32_t *buf,
                           const Py_ssize_t *part_of, long long *counts, Py_ssize_t stride) noexcept nogil:
        """The groups that hit t: the scan's slots (hit, zeroed), then the walk of the groups
        it did not count (buf: 2 * t.n code points). With ``part_of``, group g also adds 1
        to ``counts[part_of[g] * stride]``."""
        cdef Py_ssize_t g, slot, count = 0
        cdef bint converted = False, h
        self._scan(t, hit)
        for g in range(self.n_groups):
            slot = self.slot_of[g]
            h = slot >= 0 and hit[slot]
            if not h and self.W.op_off[g] < self.W.op_off[g + 1]:
                if not converted:
                    cs_text_ucs4(t, buf)
                    converted = True
                h = cs_walk_group(&self.W, g, buf, t.n, buf + t.n)
            if h:
                count += 1
                if part_of != NULL:
                    counts[part_of[g] * stride] += 1
        return count

    def count(self, s):
        """Number of groups that hit s."""
        cdef cs_text t
        cdef unsigned char stackbuf[_STACK_SLOTS]
        cdef unsigned char *hit = stackbuf
        cdef uint32_t *buf = NULL
        cdef Py_ssize_t found
        _text(s, &t)
        try:
            if self.n_slots > _STACK_SLOTS:
                hit = <unsigned char *>malloc(self.n_slots)
            if self.has_tails:
                buf = <uint32_t *>malloc((2 * t.n + 1) * sizeof(uint32_t))
            if hit == NULL or (self.has_tails and buf == NULL):
                raise MemoryError()
            memset(hit, 0, self.n_slots)
            if t.n >= _NOGIL_MIN:
                with nogil:
                    found = self._count(&t, hit, buf, NULL, NULL, 0)
            else:
                found = self._count(&t, hit, buf, NULL, NULL, 0)
            return found
        finally:
            if hit != stackbuf:
                free(hit)
            free(buf)

    def count_many(self, strings):
        """count() of every string, as an int64 numpy array."""
        cdef object seq = _as_seq(strings)
        cdef Py_ssize_t n = _size(seq), i
        cdef cs_text *texts = NULL
        cdef unsigned char *hit = NULL
        if self.has_tails:
            return self.count_many_parts(seq, (self.n_groups,))[0]
        out = np.zeros(n, dtype=np.int64)
        cdef long long[::1] ov = out
        if n == 0 or self.kernel == _KERNEL_IN:
            return out
        texts = _texts(seq)
        try:   # the whole batch in one nogil pass: the scans count
            if self.kernel == _KERNEL_SA:
                with nogil:
                    for i in range(n):
                        cs_prefetch_ahead(texts, i, n)
                        ov[i] = cs_sa_scan(&self.SA, &texts[i], NULL)
                return out
            hit = <unsigned char *>malloc(self.n_slots + 1)   # the automaton marks the slots
            if hit == NULL:
                raise MemoryError()
            with nogil:
                for i in range(n):
                    cs_prefetch_ahead(texts, i, n)
                    memset(hit, 0, self.n_slots)
                    ov[i] = cs_ac_scan(&self.A, &texts[i], hit)
            return out
        finally:
            free(texts)
            free(hit)

    def count_many_parts(self, strings, parts):
        """count_many() split by consecutive runs of groups, in one scan per string:
        ``parts`` are the numbers of groups of the runs, in order (they add up to all
        the groups). Returns an int64 array of shape ``(len(parts), len(strings))``."""
        cdef object seq = _as_seq(strings)
        cdef Py_ssize_t n = _size(seq), i, longest = 0, k = len(parts), g, slot
        cdef cs_text *texts = NULL
        cdef unsigned char *hit = NULL
        cdef uint32_t *buf = NULL
        cdef Py_ssize_t *slot_part = NULL
        if sum(parts) != self.n_groups or any(p < 0 for p in parts):
            raise ValueError(f"parts must add up to the {self.n_groups} groups, got {list(parts)}")
        part_of = np.repeat(np.arange(k, dtype=np.intp), np.asarray(parts, dtype=np.intp))
        out = np.zeros((k, n), dtype=np.int64)
        if n == 0 or self.n_groups == 0:
            return out
        cdef Py_ssize_t[::1] pv = part_of
        cdef long long[:, ::1] ov = out
        texts = _texts(seq)
        try:
            if self.has_tails:   # the walk's buffer: the longest text, twice
                for i in range(n):
                    longest = max(longest, texts[i].n)
                buf = <uint32_t *>malloc((2 * longest + 1) * sizeof(uint32_t))
            hit = <unsigned char *>calloc(self.n_slots + 1, 1)
            slot_part = <Py_ssize_t *>malloc((self.n_slots + 1) * sizeof(Py_ssize_t))
            if hit == NULL or slot_part == NULL or (self.has_tails and buf == NULL):
                raise MemoryError()
            if self.has_tails:
                with nogil:
                    for i in range(n):
                        cs_prefetch_ahead(texts, i, n)
                        memset(hit, 0, self.n_slots)
                        self._count(&texts[i], hit, buf, &pv[0], &ov[0, i], n)
            else:   # the scan alone counts: each slot is one group's, its mark cleared as it is read
                for g in range(self.n_groups):
                    slot = self.slot_of[g]
                    if slot >= 0:
                        slot_part[slot] = pv[g]
                with nogil:
                    for i in range(n):
                        cs_prefetch_ahead(texts, i, n)
                        self._scan(&texts[i], hit)
                        for slot in range(self.n_slots):
                            if hit[slot]:
                                hit[slot] = 0
                                ov[slot_part[slot], i] += 1
        finally:
            free(texts)
            free(hit)
            free(buf)
            free(slot_part)
        return out
