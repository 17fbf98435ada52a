"""CS kernel in pure Python: best character multiset Jaccard over a fixed list of keys.

The twin of the compiled :mod:`coscore._fast.jaccard` (same names, results bit for bit).
Tokens: every code point ``c`` that is not ``c.isspace()`` becomes ``c.lower()`` taken on
its own (so 'Σ' -> 'σ', never the final 'ς'; 'İ' lowercases to two code points and is a
token of its own). sim(k, s) = sum_c min(nk(c), ns(c)) / sum_c max(nk(c), ns(c)), 0.0 when
both texts have no tokens.
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import Iterable, Iterator, Optional

from ._scorer_py import KeyScorer
from ._texts_py import text

_MAX_CP = 0x110000

_tables: Optional[tuple[dict[int, int], frozenset[int], dict[int, list[int]]]] = None
_tables_lock = threading.Lock()


def _spaces() -> tuple[int, ...]:
    """Code points c with chr(c).isspace()."""
    return tuple(c for c in range(_MAX_CP) if chr(c).isspace())


def _lower_table_slow() -> dict[int, int]:
    """{code point: token} for every code point whose token is not itself: the token is
    ord(chr(c).lower()), or 0x110000 + i for the i-th distinct lowercase of several
    code points."""
    table: dict[int, int] = {}
    multi: dict[str, int] = {}
    for c in range(_MAX_CP):
        s = chr(c).lower()
        if len(s) != 1:
            table[c] = _MAX_CP + multi.setdefault(s, len(multi))
        elif ord(s) != c:
            table[c] = ord(s)
    return table


_lower_table = _lower_table_slow


def token_tables() -> tuple[dict[int, int], frozenset[int], dict[int, list[int]]]:
    """(lower, spaces, inverse): lower maps each code point whose token differs
    from the code point to its token; spaces is the frozenset of whitespace code
    points; inverse maps a token to the code points (other than itself) whose
    token it is. Built on the first call (a few seconds in pure Python)."""
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


def token(ch: str) -> Optional[int]:
    """The CS token (an int) of a one-character str, or None for whitespace."""
    if isinstance(ch, str) and len(ch) != 1:   # as the compiled module's conversion says it
        raise ValueError(f"only single character unicode strings can be converted to Py_UCS4, got length {len(ch)}")
    c = ord(ch)
    if chr(c).isspace():
        return None
    low = chr(c).lower()
    if len(low) == 1:
        return ord(low)
    return token_tables()[0][c]


def tokens(s: str) -> Counter[str]:
    """The token counts of a text: each code point lowercased on its own, whitespace
    dropped (a token is the lowercase text, so tokens compare as :func:`token` does)."""
    return Counter(c.lower() for c in s if not c.isspace())


def multiset_counts(key: Counter[str], answer: Counter[str]) -> tuple[int, int]:
    """(sum_c min(nk(c), ns(c)), sum_c max(nk(c), ns(c))) of two token counts."""
    smin = sum(min(n, answer[t]) for t, n in key.items() if t in answer)
    return smin, sum(key.values()) + sum(answer.values()) - smin


class JaccardScorer(KeyScorer):
    """JaccardScorer(keys): best(s) = max over keys of the character multiset
    Jaccard similarity (0.0 without keys)."""

    __slots__ = ("_key_tokens",)

    def __init__(self, keys: Iterable[str]):
        super().__init__(keys)
        self._key_tokens = [tokens(text(k)) for k in self._keys]

    def _fractions(self, s: str) -> Iterator[tuple[int, int]]:
        answer = tokens(s)
        return (multiset_counts(key, answer) for key in self._key_tokens)

    def counts(self, s: str) -> list[tuple[int, int]]:
        """[(sum_min, sum_max)] per key, in key order."""
        return list(self._fractions(text(s)))
