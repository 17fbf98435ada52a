"""What both kernel implementations share, in pure Python (neither a compiled module nor a twin).

The compiled modules and their pure-Python twins (``*_py.py``) never import each other;
what they both need lives here, and so do the plain statements of two atoms' semantics
that :mod:`coscore.explain` shows (re-exported by the dispatcher, :mod:`coscore._fast`):

- :func:`checked_groups` -- the check of an SM scanner's groups (both scanners);
- :func:`group_hits` -- SM: the ordered walk of one group's options over a text;
- :func:`tokens` -- CS: the token counts of a text;
- :func:`token_tables` -- CS: the token tables built one code point at a time (the twin's
  tables, and the compiled module's when its one-call reading of them cannot be used).
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import Iterable, Optional, Sequence

#: one past the largest code point
MAX_CODE_POINT = 0x110000

_tables: Optional[tuple[dict[int, int], frozenset[int], dict[int, list[int]]]] = None
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
