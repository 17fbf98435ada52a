"""What both kernel implementations share, in pure Python (neither a compiled module nor a twin).

The compiled modules and their pure-Python twins (``*_py.py``) never import each other;
what they both need lives here, and so do the plain statements of two atoms' semantics
that :mod:`coscore.explain` shows (re-exported by the dispatcher, :mod:`coscore._fast`):

- :func:`checked_groups` -- the check of an SM scanner's groups (both scanners);
- :func:`group_hits` -- SM: the ordered walk of one group's options over a text;
- :func:`tokens` -- CS: the token counts of a text;
- :func:`token_tables` -- CS: the token tables built one code point at a time (the twin's
  tables, and the compiled module's when its one-call reading of them cannot be used);
- :class:`StrColumns` -- blank columns held as Python ``str``, read as the compiled
  ``BlankColumns`` reads Arrow ones (the twin's ``BlankColumns``, and the pipeline's
  columns of pandas strings).
"""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

#: one past the largest code point
MAX_CODE_POINT = 0x110000

_tables: tuple[dict[int, int], frozenset[int], dict[int, list[int]]] | None = None
_tables_lock = threading.Lock()


def checked_groups(groups: Iterable[Iterable[str]]) -> tuple[tuple[str, ...], ...]:
    """The groups of an SM scanner as tuples of str options: TypeError for a group that is
    a str or an option that is not one."""
    checked: list[tuple[str, ...]] = []
    for group in groups:
        if isinstance(group, str):
            raise TypeError("each group must be a list of str options, got a str")
        options = tuple(group)
        for option in options:
            if not isinstance(option, str):
                raise TypeError(f"options must be str, got {type(option).__name__}")
        checked.append(options)
    return tuple(checked)


def group_hits(options: Sequence[str], t: str) -> bool:
    """The ordered walk of one SM group's options over ``t`` (an exact str): an empty
    option never matches; ``!x`` with x in t stops the group; ``~x`` with x in t removes
    every x from t and the walk goes on with the same option; an option found in t (its
    whole text, prefix included) counts the group."""
    for option in options:
        if not option:
            continue
        if option[0] == "!" and option[1:] in t:
            return False
        if option[0] == "~" and option[1:] in t:
            t = t.replace(option[1:], "")
        if option in t:
            return True
    return False


def tokens(s: str) -> Counter[str]:
    """The CS token counts of a text: each code point lowercased on its own, whitespace
    dropped (a token is the lowercase text, so tokens compare as the kernels' ``token``
    does)."""
    return Counter(c.lower() for c in s if not c.isspace())


def _spaces() -> tuple[int, ...]:
    """Code points c with chr(c).isspace()."""
    return tuple(c for c in range(MAX_CODE_POINT) if chr(c).isspace())


def _lower_table() -> dict[int, int]:
    """{code point: token} for every code point whose token is not itself: the token is
    ord(chr(c).lower()), or 0x110000 + i for the i-th distinct lowercase of several
    code points."""
    table: dict[int, int] = {}
    multi: dict[str, int] = {}
    for c in range(MAX_CODE_POINT):
        low = chr(c).lower()
        if len(low) != 1:
            table[c] = MAX_CODE_POINT + multi.setdefault(low, len(multi))
        elif ord(low) != c:
            table[c] = ord(low)
    return table


def token_tables() -> tuple[dict[int, int], frozenset[int], dict[int, list[int]]]:
    """(lower, spaces, inverse): lower maps each code point whose CS token differs from the
    code point to its token; spaces is the frozenset of whitespace code points; inverse
    maps a token to the code points (other than itself) whose token it is. Built one code
    point at a time on the first call (a few seconds), then kept."""
    global _tables
    if _tables is None:
        with _tables_lock:
            if _tables is None:
                lower = _lower_table()
                inverse: dict[int, list[int]] = {}
                for c, t in lower.items():
                    inverse.setdefault(t, []).append(c)
                _tables = (lower, frozenset(_spaces()), inverse)
    return _tables


class StrColumns:
    """Equally long blank columns of Python ``str``, read as the compiled ``BlankColumns``
    reads Arrow ones (same results, distinct texts in the same order): one column gives
    each answer as its text, several as a tuple of their texts. A subclass says how a
    column's rows are taken (:meth:`_rows`) and deduplicated (``_dedup_texts`` for a list
    of ``str``, ``_dedup_answers`` for a list of tuples: ``(distinct, inverse)``)."""

    _dedup_texts: Callable[[list[Any]], tuple[list[Any], np.ndarray]]
    _dedup_answers: Callable[[list[Any]], tuple[list[Any], np.ndarray]]

    def __init__(self, columns: list[Any]) -> None:
        lengths = {len(column) for column in columns}
        if len(lengths) > 1:
            raise ValueError(f"the blank columns differ in length: {[len(c) for c in columns]}")
        self.n_rows: int = lengths.pop() if lengths else 0
        self._columns = columns

    def _rows(self, index: int, start: int, stop: int) -> list[str]:
        """Rows ``start:stop`` of column ``index`` as a list of ``str``."""
        raise NotImplementedError

    @property
    def n_columns(self) -> int:
        return len(self._columns)

    def _range(self, start: int, stop: int) -> None:
        if not 0 <= start <= stop <= self.n_rows:
            raise IndexError(f"rows {start}:{stop} are not within the {self.n_rows} rows")

    def texts(self, key: Any, start: int, stop: int) -> tuple[list[str], np.ndarray, np.ndarray | None]:
        """The one text of each row of ``start:stop`` that a rule reads, deduplicated:
        blank ``key`` (an int, negative from the end) or, for ``"*"``, the blanks
        joined. Returns ``(distinct, inverse, missing)``, ``missing`` the rows without
        blank ``key`` (``None``: none)."""
        self._range(start, stop)
        m, k = stop - start, len(self._columns)
        if m == 0:
            return [], np.zeros(0, dtype=np.intp), None
        if isinstance(key, str):
            if key != "*":
                raise ValueError(f"a text key is an int or '*', not {key!r}")
            rows = ["".join(blanks) for blanks in zip(*(self._rows(i, start, stop) for i in range(k)))] \
                if k else [""] * m
        else:
            index = key + k if key < 0 else key
            if not 0 <= index < k:
                return [""], np.zeros(m, dtype=np.intp), np.ones(m, dtype=bool)
            rows = self._rows(index, start, stop)
        distinct, inverse = self._dedup_texts(rows)
        return distinct, inverse, None

    def answers(self, start: int, stop: int) -> tuple[list[Any], np.ndarray]:
        """The distinct answers of rows ``start:stop`` in first-occurrence order and each
        row's position among them."""
        self._range(start, stop)
        if len(self._columns) == 1:
            return self._dedup_texts(self._rows(0, start, stop))
        if stop == start:
            return [], np.zeros(0, dtype=np.intp)
        return self._dedup_answers(list(zip(*(self._rows(i, start, stop) for i in range(len(self._columns))))))

    def answer(self, row: int) -> Any:
        """The answer of row ``row``: its text for one column, else a tuple of texts."""
        self._range(row, row + 1)
        texts = tuple(self._rows(i, row, row + 1)[0] for i in range(len(self._columns)))
        return texts[0] if len(texts) == 1 else texts
