"""The four atom kinds — EM, SM, OP, CS — prepared once per rule, matching via the kernels.

Calling an atom on a string gives ``(hit, value)`` exactly as the original engine does:
EM/SM values are ints, OP/CS values are floats (int ``0`` when no key is similar at all,
since the original starts its maximum from ``0``). The ``*_many`` method scores a
whole column of distinct strings in one kernel call.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

try:
    from ._fast.jaccard import JaccardScorer
    from ._fast.lcs import LcsScorer
    from ._fast.substring import SubstringScanner
except ImportError as exc:  # running from a source tree whose kernels were never built
    raise ImportError(
        f"coscore's compiled kernels are missing ({exc}); install the package "
        "(pip install .) or build them in place (pip install -e . or python setup.py build_ext --inplace)"
    ) from exc
from .spec import AtomSpec

AtomResult = tuple[bool, "int | float"]

#: ``SubstringScanner.kernel`` when its options fit the bit-parallel (Shift-And) scan
#: (``0``: Python's ``in``, ``1``: Aho–Corasick).
KERNEL_SHIFT_AND = 2


class Atom:
    """An atom of a rule: ``atom(text) -> (hit, value)``.

    Attributes: ``id``, ``kind`` (``"EM" | "SM" | "OP" | "CS"``), ``desc``, ``keys``
    (EM, OP, CS), ``groups`` (SM: options verbatim, with their ``!``/``~`` prefixes),
    ``threshold`` (OP, CS).
    """

    kind = ""

    def __init__(self, spec: AtomSpec):
        self.id = spec.id
        self.desc = spec.desc
        self.keys: list[str] = list(spec.keys)
        self.groups: list[list[str]] = [list(group) for group in spec.groups]
        self.threshold: float = spec.threshold

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

    def __call__(self, text: object) -> AtomResult:
        if type(text) is not str:
            if self._needs_text:
                raise TypeError(f"atom {self.id} (SM) needs a string, not {type(text).__name__}")
            return (False, 0)
        count = self._scanner.count(text)
        return (count > 0, count)

    def evaluate_many(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        return _counted(self._scanner.count_many(texts))


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
        self._scanner = SubstringScanner([group for atom in atoms for group in atom.groups])

    @property
    def one_pass(self) -> bool:
        """Whether the joined options fit the bit-parallel scan (else scan atom by atom)."""
        return self._scanner.kernel == KERNEL_SHIFT_AND

    def evaluate_many(self, texts: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each atom's ``(hits, values)`` over ``texts``, as :meth:`Atom.evaluate_many` gives them."""
        counts = self._scanner.count_many_parts(texts, self._parts)
        return {atom_id: _counted(row) for atom_id, row in zip(self.ids, counts)}


class _Similarity(Atom):
    """OP and CS: the best similarity over the keys, counted when it reaches the threshold."""

    def __init__(self, spec: AtomSpec, scorer):
        super().__init__(spec)
        self._scorer = scorer

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
        super().__init__(spec, LcsScorer(list(spec.keys)))


class CharacterSimilarity(_Similarity):
    """CS: multiset Jaccard similarity of the characters (lowercased one by one, no spaces)."""

    kind = "CS"

    def __init__(self, spec: AtomSpec):
        super().__init__(spec, JaccardScorer(list(spec.keys)))


_KINDS: dict[str, type[Atom]] = {
    "EM": ExactMatch, "SM": SubstringMatch, "OP": Proximity, "CS": CharacterSimilarity,
}


def build(spec: AtomSpec) -> Atom:
    """The prepared atom for a validated spec."""
    return _KINDS[spec.kind](spec)
