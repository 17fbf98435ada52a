"""The four atom kinds — EM, SM, OP, CS — prepared once per rule, matching via the kernels.

Calling an atom on a string gives ``(hit, value)`` exactly as the original engine does:
EM/SM values are ints, OP/CS values are floats (int ``0`` when no key is similar at all,
since the original starts its maximum from ``0``). The ``*_many`` method scores a
whole column of distinct strings in one kernel call.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._fast import JaccardScorer, LcsScorer, SubstringScanner
from .spec import AtomSpec

AtomResult = tuple[bool, "int | float"]

#: ``SubstringScanner.kernel`` when it finds the options with Python's ``in`` one by one,
#: and when they fit the bit-parallel (Shift-And) scan (``1``: Aho–Corasick).
KERNEL_IN, KERNEL_SHIFT_AND = 0, 2


class Atom:
    """An atom of a rule: ``atom(text) -> (hit, value)``.

    Attributes: ``id``, ``kind`` (``"EM" | "SM" | "OP" | "CS"``), ``desc``, ``keys``
    (EM, OP, CS), ``groups`` (SM: options verbatim, with their ``!``/``~`` prefixes),
    ``threshold`` (OP, CS), and ``work``: the estimated kernel work of one call per
    character of its text (a call on ``s`` costs ``(len(s) + 1) * work``; see
    :class:`coscore.limits.Limits`).
    """

    kind = ""

    def __init__(self, spec: AtomSpec):
        self.id = spec.id
        self.desc = spec.desc
        self.keys: list[str] = list(spec.keys)
        self.groups: list[list[str]] = [list(group) for group in spec.groups]
        self.threshold: float = spec.threshold
        self.work: int = 1

    def __call__(self, text: object) -> AtomResult:
        raise NotImplementedError

    def evaluate_many(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(hits, values)`` for many strings: a bool array and a float64 array."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.kind} {self.desc[:40]!r}>"


class ExactMatch(Atom):
    """EM: hit iff the text equals one of the comma-separated keys."""

    kind = "EM"

    def __init__(self, spec: AtomSpec):
        super().__init__(spec)
        self._keys = frozenset(self.keys)

    def __call__(self, text: object) -> AtomResult:
        return (True, 1) if type(text) is str and text in self._keys else (False, 0)

    def evaluate_many(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        keys = self._keys
        hits = np.fromiter((t in keys for t in texts), dtype=bool, count=len(texts))
        return hits, hits.astype(np.float64)


class SubstringMatch(Atom):
    """SM: the number of groups one of whose options occurs (with ``!`` and ``~``)."""

    kind = "SM"

    def __init__(self, spec: AtomSpec):
        super().__init__(spec)
        self._scanner = SubstringScanner(self.groups)
        self._needs_text = any(option for group in self.groups for option in group)
        self.work = _substring_work(self.groups, self._scanner.kernel != KERNEL_IN)

    def __call__(self, text: object) -> AtomResult:
        if type(text) is not str:
            if self._needs_text:
                raise TypeError(f"atom {self.id} (SM) needs a string, not {type(text).__name__}")
            return (False, 0)
        count = self._scanner.count(text)
        return (count > 0, count)

    def evaluate_many(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        return _counted(self._scanner.count_many(texts))


def _split_group(group: Sequence[str]) -> tuple[list[str], list[str]]:
    """A group's leading plain options (found by the scanner's kernel) and the options
    from its first ``!``/``~`` one on (walked one by one), empty options left out."""
    first = next((i for i, o in enumerate(group) if o[:1] in ("!", "~")), len(group))
    return [o for o in group[:first] if o], [o for o in group[first:] if o]


def _substring_work(groups: Sequence[Sequence[str]], one_pass: bool) -> int:
    """Per character of text: one pass for the leading options on a kernel (else one
    ``in`` per option), plus the walk of the ``!``/``~`` tails (a ``~`` option searches,
    removes and searches again)."""
    lead = tail = 0
    for group in groups:
        plain, rest = _split_group(group)
        lead += len(plain)
        tail += sum(3 if o[0] == "~" else (2 if o[0] == "!" else 1) for o in rest)
    return max(1, (1 if one_pass and lead else lead) + tail)


def _counted(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SM's ``(hits, values)`` from its group counts."""
    return counts > 0, counts.astype(np.float64)


class SubstringGroup:
    """Several SM atoms that read the same text, scanned together: one scanner over all
    their option groups finds every option of every atom in one pass per string (a
    rule's SM atoms usually all read the same blank)."""

    def __init__(self, atoms: Sequence[SubstringMatch]):
        self.ids = tuple(atom.id for atom in atoms)
        self._parts = [len(atom.groups) for atom in atoms]
        groups = [group for atom in atoms for group in atom.groups]
        leads = {o for group in groups for o in _split_group(group)[0]}
        # options too long for one scan are never joined (no automaton is built to find out)
        self._scanner = SubstringScanner(groups) if sum(map(len, leads)) <= _SHIFT_AND_BITS else None

    @property
    def one_pass(self) -> bool:
        """Whether the joined options fit the bit-parallel scan (else scan atom by atom)."""
        return self._scanner is not None and self._scanner.kernel == KERNEL_SHIFT_AND

    def evaluate_many(self, texts: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each atom's ``(hits, values)`` over ``texts``, as :meth:`Atom.evaluate_many` gives them."""
        assert self._scanner is not None  # a group is scanned only when it is one pass
        counts = self._scanner.count_many_parts(texts, self._parts)
        return {atom_id: _counted(row) for atom_id, row in zip(self.ids, counts)}


class _Similarity(Atom):
    """OP and CS: the best similarity over the keys, counted when it reaches the threshold."""

    def __init__(self, spec: AtomSpec, scorer, work: int):
        super().__init__(spec)
        self._scorer = scorer
        self.work = work

    def __call__(self, text: object) -> AtomResult:
        if type(text) is not str:
            raise TypeError(f"atom {self.id} ({self.kind}) needs a string, not {type(text).__name__}")
        best = self._scorer.best(text)
        value = best if best > 0.0 else 0  # the original's max() starts from int 0
        return (True, value) if value >= self.threshold else (False, 0)

    def evaluate_many(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        best = self._scorer.best_many(texts)
        hits = best >= self.threshold
        return hits, np.where(hits, best, 0.0)


class Proximity(_Similarity):
    """OP: longest common subsequence with a key, divided by the key's length."""

    kind = "OP"

    def __init__(self, spec: AtomSpec):
        super().__init__(spec, LcsScorer(list(spec.keys)), _lcs_vectors(spec.keys)[0])


class CharacterSimilarity(_Similarity):
    """CS: multiset Jaccard similarity of the characters (lowercased one by one, no spaces)."""

    kind = "CS"

    def __init__(self, spec: AtomSpec):
        super().__init__(spec, JaccardScorer(list(spec.keys)), 1 + -(-len(spec.keys) // _JACCARD_LANES))


_KINDS: dict[str, type[Atom]] = {
    "EM": ExactMatch, "SM": SubstringMatch, "OP": Proximity, "CS": CharacterSimilarity,
}


def build(spec: AtomSpec) -> Atom:
    """The prepared atom for a validated spec."""
    return _KINDS[spec.kind](spec)


# -- the memory of an atom's tables, estimated before they are built ----------------------
# (the layouts are the kernels', see coscore/_fast/_kernels.h)

_VECTOR = 32                  # bytes of one kernel vector
_LCS_LANES = ((8, 32), (16, 16), (32, 8), (64, 4))   # (longest key, keys per vector)
_LCS_DENSE = 8 << 20          # a long key's rows above this many bytes are stored sparsely
_JACCARD_LANES = 16           # keys per vector of the CS key matrix
_JACCARD_MATRIX = 16 << 20    # the CS key matrix is built only up to this many bytes
_SHIFT_AND_BITS = 128         # distinct leading SM options up to this many code points
_AUTOMATON = 1 << 22          # Aho–Corasick tables up to this many entries, else `in`
_PER_OBJECT = 100             # a small Python object, a dict or set entry (bytes, about)
_ATOM = 2048                  # the atom's own objects


def _code_point_map(chars: set) -> int:
    """A code point → id map: a 1 KiB page per 256-code-point block of the BMP used,
    8 bytes per astral code point."""
    text = "".join(chars)
    if text.isascii():
        return 512 + 1024 * 2
    high = text.encode("utf-16-be", "surrogatepass")[::2]   # each BMP character's block
    astral = sum(high.count(b) for b in range(0xD8, 0xDC))  # an astral one is a surrogate pair
    blocks = set(high).difference(range(0xD8, 0xE0))
    return 512 + 1024 * (len(blocks) + 1) + 8 * astral


def _lcs_vectors(keys: Sequence[str]) -> tuple[int, int]:
    """``(vectors, long_key_words)`` of an OP atom's bit-parallel tables: keys of at most
    64 code points packed into vector lanes by length, longer ones as 64-bit words."""
    counts = [0] * len(_LCS_LANES)
    long_words = 0
    for key in keys:
        n = len(key)
        if n == 0:
            continue
        for c, (longest, _) in enumerate(_LCS_LANES):
            if n <= longest:
                counts[c] += 1
                break
        else:
            long_words += -(-n // 64)
    vectors = sum(-(-count // lanes) for count, (_, lanes) in zip(counts, _LCS_LANES))
    return max(1, vectors + long_words), long_words


def table_bytes(spec: AtomSpec) -> tuple[int, int]:
    """An estimate (bytes, a little above the truth) of the memory of the atom of
    ``spec``, computed without building it: ``(kept, building)``, what the built atom
    holds — its kernels' tables, which grow with the alphabet, the number of
    256-code-point blocks its characters span and the number of keys, and the Python
    objects of its keys — and what building it needs on top of that for a moment."""
    texts = list(spec.keys) if spec.kind != "SM" else [o for g in spec.groups for o in g]
    length = sum(map(len, texts))
    chars = set("".join(texts))
    size = _ATOM + _PER_OBJECT * len(texts) + 4 * length
    alphabet = _PER_OBJECT * len(chars)   # a dict of the characters while the tables are built
    if spec.kind == "EM":
        return size, 0
    if spec.kind == "OP":
        vectors, long_words = _lcs_vectors(spec.keys)
        lanes = (len(chars) + 1) * (vectors - long_words) * _VECTOR if vectors > long_words else 0
        long = 0
        for key in spec.keys:
            if len(key) > 64:
                dense = (len(chars) + 1) * -(-len(key) // 64) * 8
                long += dense if dense <= _LCS_DENSE else 16 * len(key) + 64 * -(-len(key) // 64)
        return size + _code_point_map(chars) + lanes + long + 64 * len(spec.keys), alphabet + 4 * length
    if spec.kind == "CS":
        n_ids = len(chars) + 2
        matrix = n_ids * -(-len(spec.keys) // _JACCARD_LANES) * _VECTOR
        kept = size + _code_point_map(chars) + (matrix if matrix <= _JACCARD_MATRIX else 0) + 16 * length + 4096
        # each key's counts are a dict while the scorer is built: an entry per character, at most
        return kept, alphabet + _PER_OBJECT * len(spec.keys) + 80 * length
    # SM: Shift-And over the distinct leading options when they are short enough, else an
    # Aho–Corasick automaton when its table is small enough (built through Python dicts)
    leads = {o for g in spec.groups for o in _split_group(g)[0]}
    lead_chars = set("".join(leads))
    mapped = _code_point_map(lead_chars)
    size += 3 * _PER_OBJECT * len(spec.groups) + mapped
    total = sum(map(len, leads))
    if total <= _SHIFT_AND_BITS:
        pages = mapped // 1024
        tables = (len(lead_chars) + 1) * 16 + 16 * len(spec.groups) + (2048 * pages if total <= 64 else 0)
        return size + tables, alphabet
    states, width = total + 1, len(lead_chars) + 1
    trie = alphabet + 5 * _PER_OBJECT * states   # the trie's dicts and output sets
    if states * width > _AUTOMATON:
        return size, trie
    return size + 4 * states * width + 12 * states, trie + 3 * 4 * states * width   # and the arrays it is computed in
