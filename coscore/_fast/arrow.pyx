"""Blank columns held as Arrow strings, read in C: pick, check and deduplicate a row
range on its UTF-8 bytes, and hand the kernels the *distinct* texts as a
:class:`~coscore._fast.texts.Texts` (no Python ``str`` for any of them).

An Arrow ``string`` / ``large_string`` array is three buffers: a validity bitmap (absent
when nothing is null), offsets (int32 or int64) and the UTF-8 data; a ``string_view``
array holds 16 bytes a value instead (its length, then the text itself when it is at most
12 bytes, else where it lies in the data buffers); a dictionary array holds a code a row,
the number of its value among the dictionary's. :class:`BlankColumns`
holds one or more such columns (each as its chunks), reads the buffers in place without
the GIL (no column is decoded or cast first), and hands the engine what its kernels read: the distinct texts of a range of
rows, in first-occurrence order, and each row's position among them. A null cell is the
empty blank ``""``. The arrays are kept alive by the object (and by the ``Texts`` it
returns); they must not change.

The rows' bytes are deduplicated by :mod:`coscore._fast.byte_dedup` (a dictionary's rows
first on their codes), so two rows share a text exactly when their UTF-8 bytes are
equal, which is exactly when their ``str`` are. The texts are decoded by
:mod:`coscore._fast.texts` (src/utf8.c), as Python's strict decoder reads UTF-8 (invalid
bytes raise that decoder's ``UnicodeDecodeError``).
"""
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import numpy as np

from coscore._fast.byte_dedup cimport distinct_codes, first_rows
from coscore._fast.texts cimport str_from_utf8, texts_from_utf8


ctypedef struct _seg:          # one chunk of one column
    const uint8_t *valid       # validity bitmap of the values, NULL when no value is null
    const int32_t *off32       # offsets (one of the three: string, large_string, string_view)
    const int64_t *off64
    const uint8_t *views       # string_view: 16 bytes a value (length, then inline bytes or
    const uint8_t **bufs       # prefix, buffer number and offset into bufs)
    const uint8_t *data
    int64_t offset             # the values' offset into their buffers (a slice)
    const int64_t *codes       # a dictionary: each row's value number (NULL: row i is value i)
    const uint8_t *code_valid  # the codes' validity bitmap, NULL when no code is null
    int64_t code_offset        # the codes' offset into code_valid
    int64_t length             # the chunk's rows
    int64_t first              # the chunk's first row in the column


ctypedef struct _column:
    _seg *segs
    Py_ssize_t n_segs


cdef const uint8_t *_EMPTY = <const uint8_t *>b""


cdef inline void _text_at(const _seg *s, int64_t i, const uint8_t **p, int64_t *n) noexcept nogil:
    """The bytes of value ``i`` of a ``string`` / ``large_string`` chunk ``s``; a null is empty."""
    cdef int64_t j = s.offset + i, a, b
    if s.valid != NULL and not (s.valid[j >> 3] >> (j & 7)) & 1:
        p[0] = _EMPTY
        n[0] = 0
        return
    if s.off32 != NULL:
        a = s.off32[j]
        b = s.off32[j + 1]
    else:
        a = s.off64[j]
        b = s.off64[j + 1]
    p[0] = s.data + a if s.data != NULL else _EMPTY
    n[0] = b - a


cdef inline void _value(const _seg *s, int64_t i, const uint8_t **p, int64_t *n) noexcept nogil:
    """The bytes of value ``i`` of ``s`` (of a dictionary: its entry ``i``); a null is empty."""
    cdef int64_t j
    cdef int32_t size, number, start
    if s.views == NULL:
        _text_at(s, i, p, n)
        return
    j = s.offset + i
    if s.valid != NULL and not (s.valid[j >> 3] >> (j & 7)) & 1:
        p[0] = _EMPTY
        n[0] = 0
        return
    memcpy(&size, s.views + 16 * j, 4)
    if size <= 12:
        p[0] = s.views + 16 * j + 4
    else:
        memcpy(&number, s.views + 16 * j + 8, 4)
        memcpy(&start, s.views + 16 * j + 12, 4)
        p[0] = s.bufs[number] + start
    n[0] = size


cdef inline int64_t _code(const _seg *s, int64_t i) noexcept nogil:
    """The value number of row ``i`` (within the chunk) of a dictionary ``s``; -1 for a null row."""
    cdef int64_t j = s.code_offset + i
    if s.code_valid != NULL and not (s.code_valid[j >> 3] >> (j & 7)) & 1:
        return -1
    return s.codes[i]


cdef inline void _cell(const _seg *s, int64_t i, const uint8_t **p, int64_t *n) noexcept nogil:
    """The bytes of row ``i`` (within the chunk) of ``s``; a null is empty."""
    cdef int64_t code
    if s.codes != NULL:
        code = _code(s, i)
        if code < 0:
            p[0] = _EMPTY
            n[0] = 0
            return
        i = code
    _value(s, i, p, n)


cdef inline Py_ssize_t _seek(const _column *c, int64_t row) noexcept nogil:
    """The chunk holding ``row`` (the last chunk for the row past the end)."""
    cdef Py_ssize_t lo = 0, hi = c.n_segs - 1, mid
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if c.segs[mid].first <= row:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef void _pick(const _column *c, int64_t start, int64_t m, const uint8_t **ptrs, int64_t *lens) noexcept nogil:
    """The bytes of rows start .. start + m - 1 of column ``c``."""
    cdef Py_ssize_t k = _seek(c, start)
    cdef int64_t row = start, i = 0, local
    cdef const _seg *s
    while i < m:
        s = &c.segs[k]
        local = row - s.first
        if s.codes == NULL and s.views == NULL:   # plain text: the tight loop
            while local < s.length and i < m:
                _text_at(s, local, &ptrs[i], &lens[i])
                local += 1
                i += 1
        else:
            while local < s.length and i < m:
                _cell(s, local, &ptrs[i], &lens[i])
                local += 1
                i += 1
        row = s.first + s.length
        k += 1


cdef class BlankColumns:
    """Equally long blank columns, each an Arrow ``string``, ``large_string`` or
    ``string_view`` array or chunked array, or a dictionary of such values (a chunked
    array's chunks may be cut anywhere). Rows are answers: one column gives each answer
    as its text, several as a tuple of their texts."""

    cdef _column *_cols
    cdef Py_ssize_t _k
    cdef readonly Py_ssize_t n_rows
    cdef list _keep

    def __cinit__(self):
        self._cols = NULL
        self._k = 0

    def __init__(self, list columns):
        cdef Py_ssize_t c, j
        cdef _seg *s
        cdef object buffers
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"the blank columns differ in length: {[len(column) for column in columns]}")
        self.n_rows = lengths.pop() if lengths else 0
        self._keep = []
        self._cols = <_column *>malloc((len(columns) + 1) * sizeof(_column))
        if self._cols == NULL:
            raise MemoryError()
        for c in range(len(columns)):
            self._cols[c].segs = NULL
            self._cols[c].n_segs = 0
        self._k = len(columns)
        for c, column in enumerate(columns):
            chunks = [chunk for chunk in getattr(column, "chunks", [column]) if len(chunk)]
            self._keep.append(chunks)
            self._cols[c].segs = <_seg *>calloc(len(chunks) + 1, sizeof(_seg))
            if self._cols[c].segs == NULL:
                raise MemoryError()
            self._cols[c].n_segs = len(chunks)
            first = 0
            for j, chunk in enumerate(chunks):
                s = &self._cols[c].segs[j]
                s.length = len(chunk)
                s.first = first
                first += len(chunk)
                values = chunk
                if _layout(chunk.type) == 3:   # a dictionary: each row's code, then its value
                    codes = chunk.indices
                    buffers = codes.buffers()
                    if buffers[0] is not None and codes.null_count:
                        s.code_valid = <const uint8_t *><size_t>buffers[0].address
                        s.code_offset = codes.offset
                    _check_codes(codes, len(chunk.dictionary))
                    numbers = np.ascontiguousarray(codes.fill_null(0).to_numpy(), dtype=np.int64)
                    self._keep.append(numbers)
                    s.codes = <const int64_t *><size_t>numbers.ctypes.data
                    values = chunk.dictionary
                self._values(s, values)

    cdef int _values(self, _seg *s, values) except -1:
        """Point ``s`` at the buffers of the string values ``values``."""
        cdef Py_ssize_t b
        layout = _layout(values.type)
        buffers = values.buffers()
        s.valid = <const uint8_t *><size_t>buffers[0].address if buffers[0] is not None and values.null_count else NULL
        s.offset = values.offset
        if layout == 2:   # string_view: the views, then the data buffers they point into
            _check_views(values, buffers)
            s.views = <const uint8_t *><size_t>buffers[1].address if buffers[1] is not None else NULL
            s.bufs = <const uint8_t **>calloc(len(buffers) - 1, sizeof(uint8_t *))
            if s.bufs == NULL:
                raise MemoryError()
            for b in range(2, len(buffers)):
                s.bufs[b - 2] = <const uint8_t *><size_t>buffers[b].address if buffers[b] is not None else _EMPTY
            if s.views == NULL:   # no value at all
                s.views = <const uint8_t *>_EMPTY
            return 0
        if layout == 1:
            s.off64 = <const int64_t *><size_t>buffers[1].address
        elif layout == 0:
            s.off32 = <const int32_t *><size_t>buffers[1].address
        else:
            raise TypeError(f"a dictionary's values must be Arrow strings, not {values.type}")
        s.data = <const uint8_t *><size_t>buffers[2].address if buffers[2] is not None and buffers[2].size else NULL
        return 0

    def __dealloc__(self):
        cdef Py_ssize_t c, j
        if self._cols != NULL:
            for c in range(self._k):
                if self._cols[c].segs != NULL:
                    for j in range(self._cols[c].n_segs):
                        free(self._cols[c].segs[j].bufs)
                free(self._cols[c].segs)
            free(self._cols)

    @property
    def n_columns(self):
        return self._k

    cdef int _range(self, Py_ssize_t start, Py_ssize_t stop) except -1:
        if not 0 <= start <= stop <= self.n_rows:
            raise IndexError(f"rows {start}:{stop} are not within the {self.n_rows} rows")
        return 0

    cdef uint8_t *_pack(self, int64_t start, int64_t m, const uint8_t **ptrs, int64_t *lens,
                        bint prefixed) except NULL:
        """Copy the blanks of rows start .. start + m - 1 into one new buffer (returned;
        the caller frees it), row after row: each row's blanks joined, or with
        ``prefixed`` each blank as its 8-byte length then its bytes. ``ptrs[i]`` and
        ``lens[i]`` are set to row i's bytes there."""
        cdef int64_t i, total = 0, extra = 8 if prefixed else 0
        cdef Py_ssize_t c
        cdef uint8_t *out = NULL
        cdef uint8_t *at
        cdef const uint8_t **part = <const uint8_t **>malloc((m + 1) * sizeof(uint8_t *))
        cdef int64_t *plens = <int64_t *>malloc((m + 1) * sizeof(int64_t))
        try:
            if part == NULL or plens == NULL:
                raise MemoryError()
            with nogil:
                for i in range(m):
                    lens[i] = extra * self._k
                for c in range(self._k):
                    _pick(&self._cols[c], start, m, part, plens)
                    for i in range(m):
                        lens[i] += plens[i]
                for i in range(m):
                    total += lens[i]
            out = <uint8_t *>malloc(total + 1)
            if out == NULL:
                raise MemoryError()
            with nogil:
                at = out
                for i in range(m):
                    ptrs[i] = at
                    at += lens[i]
                    lens[i] = 0
                for c in range(self._k):
                    _pick(&self._cols[c], start, m, part, plens)
                    for i in range(m):
                        at = <uint8_t *>ptrs[i] + lens[i]
                        if prefixed:
                            memcpy(at, &plens[i], 8)
                        memcpy(at + extra, part[i], <size_t>plens[i])
                        lens[i] += extra + plens[i]
            return out
        finally:
            free(part)
            free(plens)

    cdef int _rows(self, Py_ssize_t index, int64_t start, int64_t m, const uint8_t **ptrs, int64_t *lens,
                   uint8_t **joined) except -1:
        """``ptrs[i]``, ``lens[i]``: the bytes of blank ``index`` of row ``start + i`` for
        ``i < m``, or with ``index`` -1 of the blanks joined, copied row by row into one
        new buffer (``joined[0]``: the caller frees it)."""
        cdef int64_t i
        if index >= 0:
            with nogil:
                _pick(&self._cols[index], start, m, ptrs, lens)
        elif self._k == 0:
            for i in range(m):
                ptrs[i] = _EMPTY
                lens[i] = 0
        else:
            joined[0] = self._pack(start, m, ptrs, lens, False)
        return 0

    def texts(self, key, Py_ssize_t start, Py_ssize_t stop):
        """The one text of each row of ``start:stop`` that a rule reads, deduplicated:
        blank ``key`` (an int, negative from the end) or, for ``"*"``, the blanks
        joined. Returns ``(distinct, inverse, missing)``: the distinct texts (a
        :class:`~coscore._fast.texts.Texts`) in first-occurrence order, each row's
        position among them (an intp array), and a bool mask of the rows without blank
        ``key`` (their text is ``""``), or ``None`` when every row has it."""
        self._range(start, stop)
        cdef int64_t m = stop - start, zero = 0
        cdef Py_ssize_t index, k = self._k
        cdef const uint8_t **ptrs = NULL
        cdef int64_t *lens = NULL
        cdef uint8_t *joined = NULL
        cdef void *owned
        cdef int64_t[::1] firsts
        cdef Py_ssize_t seg
        inverse = np.zeros(m, dtype=np.intp)
        if m == 0:
            return texts_from_utf8(NULL, NULL, NULL, 0, None, NULL), inverse, None
        if isinstance(key, str):
            if key != "*":
                raise ValueError(f"a text key is an int or '*', not {key!r}")
            index = 0 if k == 1 else -1
        else:
            index = key
            if index < 0:
                index += k
            if not 0 <= index < k:   # no row has that blank
                return texts_from_utf8(&_EMPTY, &zero, NULL, 1, None, NULL), inverse, np.ones(m, dtype=bool)
        if index >= 0:
            seg = _seek(&self._cols[index], start)
            if self._cols[index].segs[seg].codes != NULL \
                    and start + m <= self._cols[index].segs[seg].first + self._cols[index].segs[seg].length:
                return self._coded_texts(&self._cols[index].segs[seg], start - self._cols[index].segs[seg].first, m,
                                         inverse)
        try:
            ptrs = <const uint8_t **>malloc(m * sizeof(uint8_t *))
            lens = <int64_t *>malloc(m * sizeof(int64_t))
            if ptrs == NULL or lens == NULL:
                raise MemoryError()
            self._rows(index, start, m, ptrs, lens, &joined)
            firsts = first_rows(ptrs, lens, m, inverse)
            owned, joined = joined, NULL   # the texts own the joined bytes from here on
            return texts_from_utf8(ptrs, lens, &firsts[0], firsts.shape[0], self, owned), inverse, None
        finally:
            free(ptrs)
            free(lens)
            free(joined)

    cdef tuple _coded_texts(self, const _seg *s, int64_t local, int64_t m, object inverse):
        """:meth:`texts` of ``m`` rows of one dictionary chunk ``s`` from its row ``local``:
        the rows deduplicated on their codes first, then each distinct code's bytes (so a
        value is read once however many rows hold it)."""
        cdef int64_t count, d, code, i, total = 0
        cdef uint8_t *packed = NULL
        cdef uint8_t *at
        cdef void *owned
        cdef int64_t *pre = NULL
        cdef int64_t *codes = NULL
        cdef const uint8_t **ptrs = NULL
        cdef int64_t *lens = NULL
        cdef int64_t[::1] firsts
        cdef Py_ssize_t[::1] rows = inverse
        cdef Py_ssize_t[::1] among
        try:
            pre = <int64_t *>malloc(m * sizeof(int64_t))
            codes = <int64_t *>malloc(m * sizeof(int64_t))
            ptrs = <const uint8_t **>malloc(m * sizeof(uint8_t *))
            lens = <int64_t *>malloc(m * sizeof(int64_t))
            if pre == NULL or codes == NULL or ptrs == NULL or lens == NULL:
                raise MemoryError()
            with nogil:
                for i in range(m):
                    pre[i] = _code(s, local + i)
                count = distinct_codes(pre, m, codes)   # pre[i]: row i's position among codes
                if count >= 0:
                    for d in range(count):
                        code = codes[d]
                        if code < 0:
                            ptrs[d] = _EMPTY
                            lens[d] = 0
                        else:
                            _value(s, code, &ptrs[d], &lens[d])
                        total += lens[d]
            if count < 0:
                raise MemoryError()
            # the values gathered in row order first: hashing and decoding then read memory in order
            packed = <uint8_t *>malloc(total + 1)
            if packed == NULL:
                raise MemoryError()
            with nogil:
                at = packed
                for d in range(count):
                    memcpy(at, ptrs[d], <size_t>lens[d])
                    ptrs[d] = at
                    at += lens[d]
            distinct = np.zeros(count, dtype=np.intp)
            firsts = first_rows(ptrs, lens, count, distinct)   # codes of equal values: one text
            among = distinct
            with nogil:
                for i in range(m):
                    rows[i] = among[pre[i]]
            owned, packed = packed, NULL   # the texts own the gathered bytes from here on
            return texts_from_utf8(ptrs, lens, &firsts[0], firsts.shape[0], self, owned), inverse, None
        finally:
            free(packed)
            free(pre)
            free(codes)
            free(ptrs)
            free(lens)

    def answers(self, Py_ssize_t start, Py_ssize_t stop):
        """The distinct answers of rows ``start:stop`` in first-occurrence order (a
        ``str`` each for one column, else a tuple of ``str``) and each row's position
        among them (an intp array)."""
        self._range(start, stop)
        cdef int64_t m = stop - start, n
        cdef Py_ssize_t c, k = self._k, d, nd
        cdef const uint8_t **ptrs = NULL
        cdef int64_t *lens = NULL
        cdef uint8_t *packed = NULL
        cdef const uint8_t *p
        cdef int64_t[::1] firsts
        cdef list out
        cdef tuple answer
        inverse = np.zeros(m, dtype=np.intp)
        if m == 0:
            return [], inverse
        try:
            ptrs = <const uint8_t **>malloc(m * sizeof(uint8_t *))
            lens = <int64_t *>malloc(m * sizeof(int64_t))
            if ptrs == NULL or lens == NULL:
                raise MemoryError()
            if k == 1:   # each answer is its one blank's text
                self._rows(0, start, m, ptrs, lens, NULL)
            else:   # each row packed as (length, bytes) per blank: equal packs, equal answers
                packed = self._pack(start, m, ptrs, lens, True)
            firsts = first_rows(ptrs, lens, m, inverse)
            nd = firsts.shape[0]
            out = PyList_New(nd)
            for d in range(nd):
                p = ptrs[firsts[d]]
                if k == 1:
                    item = str_from_utf8(p, lens[firsts[d]])
                else:
                    item = answer = PyTuple_New(k)
                    for c in range(k):
                        memcpy(&n, p, 8)
                        blank = str_from_utf8(p + 8, n)
                        Py_INCREF(blank)
                        PyTuple_SET_ITEM(answer, c, blank)
                        p += 8 + n
                Py_INCREF(item)
                PyList_SET_ITEM(out, d, item)
            return out, inverse
        finally:
            free(ptrs)
            free(lens)
            free(packed)

    def answer(self, Py_ssize_t row):
        """The answer of row ``row``: its text for one column, else a tuple of texts."""
        self._range(row, row + 1)
        cdef const uint8_t *p
        cdef int64_t n
        cdef Py_ssize_t c, j
        texts = []
        for c in range(self._k):
            j = _seek(&self._cols[c], row)
            _cell(&self._cols[c].segs[j], row - self._cols[c].segs[j].first, &p, &n)
            texts.append(str_from_utf8(p, n))
        return texts[0] if self._k == 1 else tuple(texts)


cdef int _layout(kind) except -1:
    """How a blank column's values are held: 0 ``string``, 1 ``large_string``, 2
    ``string_view``, 3 a dictionary of one of these; else ``TypeError``."""
    import pyarrow as pa
    if pa.types.is_string(kind):
        return 0
    if pa.types.is_large_string(kind):
        return 1
    if _is_view(pa, kind):
        return 2
    if pa.types.is_dictionary(kind) and (pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type)
                                         or _is_view(pa, kind.value_type)):
        return 3
    raise TypeError(f"a blank column must be Arrow string, large_string or string_view (or a dictionary of "
                    f"them), not {kind}")


cdef int _check_codes(codes, Py_ssize_t n_values) except -1:
    """Refuse a dictionary whose codes point past its values (they are read unchecked)."""
    import pyarrow.compute as pc
    low, high = pc.min_max(codes).values()
    if low.is_valid and (low.as_py() < 0 or high.as_py() >= n_values):
        raise ValueError(f"a dictionary column's codes must be among its {n_values} values, "
                         f"not {low.as_py()}..{high.as_py()}")
    return 0


cdef int _check_views(values, buffers) except -1:
    """Refuse a ``string_view`` array whose views point past its data buffers (they are
    read unchecked later): one pass over the views, without the GIL."""
    cdef Py_ssize_t n = len(values), first = values.offset, i, n_bufs = len(buffers) - 2, b
    cdef const uint8_t *views
    cdef const uint8_t *valid = NULL
    cdef int64_t *ends = NULL
    cdef int32_t size, number, start
    cdef bint bad = False
    if not n:
        return 0
    if buffers[1] is None or buffers[1].size < 16 * (first + n):
        raise ValueError("a string_view column's views point past its data buffers")
    views = <const uint8_t *><size_t>buffers[1].address
    if buffers[0] is not None and values.null_count:
        valid = <const uint8_t *><size_t>buffers[0].address
    ends = <int64_t *>malloc((n_bufs + 1) * sizeof(int64_t))
    if ends == NULL:
        raise MemoryError()
    try:
        for b in range(n_bufs):
            ends[b] = buffers[b + 2].size if buffers[b + 2] is not None else 0
        with nogil:
            for i in range(first, first + n):
                if valid != NULL and not (valid[i >> 3] >> (i & 7)) & 1:
                    continue   # a null's view is not read
                memcpy(&size, views + 16 * i, 4)
                if size < 0:
                    bad = True
                    break
                if size > 12:   # held in a data buffer, not inline
                    memcpy(&number, views + 16 * i + 8, 4)
                    memcpy(&start, views + 16 * i + 12, 4)
                    if number < 0 or number >= n_bufs or start < 0 or <int64_t>start + size > ends[number]:
                        bad = True
                        break
    finally:
        free(ends)
    if bad:
        raise ValueError("a string_view column's views point past its data buffers")
    return 0


cdef bint _is_view(pa, kind):
    check = getattr(pa.types, "is_string_view", None)   # pyarrow >= 16
    return bool(check is not None and check(kind))
