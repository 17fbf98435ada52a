"""The context a chunk is evaluated in: its answers, their texts and the atoms' results.

A :class:`BatchContext` is what the column functions of :mod:`.columnar` read: ``T(n)``
as a column of strings (:meth:`BatchContext.blank`), and an atom's hits and values over
a string column (:meth:`BatchContext.atom`), each distinct string scanned once and the
SM atoms that read the same text in one pass. It keeps the answer budget of kernel work
(:class:`~coscore.limits.Limits` ``max_work``) as it runs the kernels. It never calls
the evaluator back: the evaluator hands it the strings an atom reads.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from .._fast import blank_column, dedup_strings, joined_column, longest
from ..limits import DEFAULT_LIMITS, Limits

#: A column: ``(kind, values, flag)``, kind ``"num"`` (a float64 array) or ``"str"`` (a
#: list of ``str``), ``flag`` the rows whose value the columnar path cannot vouch for.
Column = tuple[str, Any, "np.ndarray | None"]


class BlankTexts:
    """Distinct answers given by the texts of the blanks a rule reads (only through the
    kernels: :attr:`~coscore.engine.plan.ColumnarPlan.keys`), as the Arrow reader gives
    them: ``blanks`` maps each blank (its ``T`` argument) to ``(texts, index, flag)``, the
    blank's distinct texts (a ``Texts``), each answer's position among them, and the
    answers without that blank (``None``: none)."""

    __slots__ = ("blanks", "n")

    def __init__(self, n: int, blanks: dict[Any, tuple[Any, np.ndarray, np.ndarray | None]]) -> None:
        self.n = n
        self.blanks = blanks

    def __len__(self) -> int:
        return self.n


class BatchContext:
    """The answers of one chunk and its caches, which the column functions of a
    :class:`~coscore.engine.plan.ColumnarPlan` read.

    ``answers`` are well formed (a ``str``, or a list/tuple of ``str``); the engine puts
    ``()`` in place of any other, and flags it. With ``view`` set, the answers are
    distinct strings, each standing for blank ``view`` of an answer (``"*"``: its joined
    blanks; ``0``: the one blank of one-blank answers), so that text needs no
    deduplication; they may be a ``Texts`` when only the kernels read them
    (:attr:`~coscore.engine.plan.ColumnarPlan.kernel_texts`). ``answers`` may also be a
    :class:`BlankTexts`: each blank the rule reads is then its distinct texts and each
    answer's position among them.

    ``work`` is each answer's kernel work so far, an upper bound of what the reference
    evaluator would count: each atom call is counted once per call site
    (``call_sites``), whether it runs or not (``None`` while no answer can be over
    ``limits.max_work``, the usual case: then only a bound for the batch is kept). A
    string whose call alone would go over ``limits.max_work``, or whose answers are all
    over it already, is not scanned: its answers are flagged. ``longest``, with
    ``view`` set, is a bound of the answers' lengths (the dedup's), so that bound costs
    nothing to find for the rule's own text.
    """

    def __init__(self, answers: Any, atoms: Mapping[str, Any], manual: bool, view: int | str | None = None,
                 groups: Mapping[tuple[str, Hashable], Any] | None = None, limits: Limits = DEFAULT_LIMITS,
                 call_sites: Mapping[tuple[str, Hashable], int] | None = None, longest: int | None = None) -> None:
        self.answers = answers
        self.n = len(answers)
        self.atoms = atoms
        self.groups = groups or {}   # (atom id, text key) -> SubstringGroup: see substring_groups()
        self.manual = manual
        self.limits = limits
        self.call_sites = call_sites or {}
        self.joins_fit = False
        # per answer once some answer may be over the work budget; until then a bound for all
        self.work: np.ndarray | None = None
        self._work_bound = 0.0
        self._charges: list[tuple[Any, np.ndarray | None, Hashable, int]] = []
        self._longest = longest if view is not None else None
        self.cache: dict[Hashable, Any] = {}
        if isinstance(answers, BlankTexts):
            for name, (texts, index, flag) in answers.blanks.items():
                self.cache[("T", name)] = ("str", texts, flag)  # read only as the key of its distinct texts
                self.cache[("distinct", ("T", name))] = (texts, index)
        elif view is not None:
            names = (0, -1, "*") if type(view) is int and view == 0 else (view,)
            for name in names:
                self.cache[("T", name)] = ("str", answers, None)
                self.cache[("distinct", ("T", name))] = (answers, None)

    def blank(self, n: int | str) -> Column:
        """``T(n)`` as a column; answers without blank ``n`` are flagged."""
        key = ("T", n)
        column = self.cache.get(key)
        if column is None:
            if n == "*":
                column = ("str", joined_column(self.answers), None)
            else:
                assert isinstance(n, int)  # a blank is named by an int or '*' (column_kind)
                column = ("str", *blank_column(self.answers, n))
            self.cache[key] = column
        result: Column = column
        return result

    def distinct(self, text_key: Hashable, strings: Any) -> tuple[Any, np.ndarray | None]:
        """The distinct strings of a text column and each row's position among them
        (``None``: the strings are distinct already, row ``i`` is string ``i``)."""
        key = ("distinct", text_key)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = dedup_strings(strings)
        distinct: tuple[Any, np.ndarray | None] = found
        return distinct

    def found(self, atom_id: str, text_key: Hashable) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """What :meth:`atom` gave for this atom on this text already (it, or the SM atom
        scanned with it), else ``None``."""
        found: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = self.cache.get(("atom", atom_id, text_key))
        return found

    def atom(self, atom_id: str, text_key: Hashable, text: Column) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``(hits, values, flag)`` of an atom over the string column ``text``, which
        ``text_key`` names: each distinct string scanned once, with the other SM atoms of
        its group on the same text (their results kept for :meth:`found`)."""
        key = ("atom", atom_id, text_key)
        result = self.cache.get(key)
        if result is None:
            _, strings, flag = text
            distinct, index = self.distinct(text_key, strings)
            group = self.groups.get((atom_id, text_key))
            ids = group.ids if group is not None else (atom_id,)
            chars = self.cache.get(("chars", text_key))
            if chars is None:  # a bound of any one call's cost per unit of work: longest text + 1
                known = self._longest if strings is self.answers else None
                chars = self.cache[("chars", text_key)] = (longest(distinct) if known is None else known) + 1
            texts = distinct
            distinct, skipped = self._affordable(texts, index, text_key, chars, sum(self.atoms[i].work for i in ids))
            if skipped is not None:
                flag = _or_flag(flag, skipped if index is None else skipped[index])
            if group is not None:   # this atom and the other SM atoms on this text, in one scan
                found = group.evaluate_many(distinct)
            else:
                found = {atom_id: self.atoms[atom_id].evaluate_many(distinct)}
            for found_id, (hits, values) in found.items():
                per_char = self.atoms[found_id].work * self.call_sites.get((found_id, text_key), 1)
                self._charge(texts, index, text_key, chars, per_char)
                if index is not None:
                    hits, values = hits[index], values[index]
                self.cache[("atom", found_id, text_key)] = (hits.astype(np.float64), values, flag)
            result = self.cache[key]
        scanned: tuple[np.ndarray, np.ndarray, np.ndarray | None] = result
        return scanned

    def _sizes(self, text_key: Hashable, texts: Any) -> np.ndarray:
        """Each distinct text's length + 1: what one call on it costs per unit of work."""
        sizes = self.cache.get(("sizes", text_key))
        if sizes is None:
            if hasattr(texts, "lengths"):  # a compiled Texts: no str made for each text
                lengths = texts.lengths().astype(np.float64)
            else:
                lengths = np.fromiter(map(len, texts), np.float64, len(texts))
            sizes = self.cache[("sizes", text_key)] = lengths + 1.0
        found: np.ndarray = sizes
        return found

    def _affordable(self, texts: Any, index: np.ndarray | None, text_key: Hashable, chars: int,
                    per_char: int) -> tuple[Any, np.ndarray | None]:
        """``texts`` with ``""`` in place of each one not worth scanning (one call over the
        whole work budget, or only answers over it already), and which those are."""
        limit = self.limits.max_work
        if self.work is None and chars * per_char <= limit:
            return texts, None
        skip = self._sizes(text_key, texts) * per_char > limit
        if self.work is not None:
            over = self.work > limit
            if over.any():
                wanted = np.zeros(len(texts), dtype=bool)
                wanted[(index if index is not None else np.arange(self.n))[~over]] = True
                skip |= ~wanted
        if not skip.any():
            return texts, None
        return ["" if s else d for d, s in zip(texts, skip.tolist())], skip

    def _charge(self, texts: Any, index: np.ndarray | None, text_key: Hashable, chars: int, per_char: int) -> None:
        """Add a call's work on each distinct text (its length + 1, times ``per_char``) to
        its answers' work; while ``chars`` (a bound of each text's) keep every answer under
        the budget, only their sum is kept."""
        if self.work is None:
            self._charges.append((texts, index, text_key, per_char))
            self._work_bound += chars * per_char
            if self._work_bound <= self.limits.max_work:
                return
            charges, self._charges = self._charges, []
            self.work = np.zeros(self.n)
        else:
            charges = [(texts, index, text_key, per_char)]
        for texts, i, key, factor in charges:
            sizes = self._sizes(key, texts)
            self.work += (sizes if i is None else sizes[i]) * factor

    def over_work(self) -> np.ndarray | None:
        """The answers whose work went over ``limits.max_work`` (``None``: none can have)."""
        return None if self.work is None else self.work > self.limits.max_work


def _or_flag(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    return b if a is None else a | b
