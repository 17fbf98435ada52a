"""Plain-Python definitions of the OP, CS and SM similarity functions.

These are the contract (docs: docs/semantics.md, "Atoms") written the
obvious way; the Cython kernels in coscore._fast must agree with them exactly.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence


# --- OP ---------------------------------------------------------------------
def lcs_length(a: str, b: str) -> int:
    """Longest common subsequence of two strings, over code points (DP)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def op_similarity(key: str, s: str) -> float:
    """LCS(key, s) / len(key); 0.0 for an empty key."""
    if not key:
        return 0.0
    return lcs_length(key, s) / len(key)


def op_best(keys: Sequence[str], s: str) -> float:
    return max([0.0] + [op_similarity(k, s) for k in keys])


# --- CS ---------------------------------------------------------------------
def cs_tokens(s: str) -> Counter:
    """Each character lowercased on its own; whitespace (str.split()'s) dropped."""
    return Counter(c.lower() for c in s if not c.isspace())


def cs_counts(key: str, s: str) -> tuple[int, int]:
    """(sum_c min(nk(c), ns(c)), sum_c max(nk(c), ns(c)))."""
    a, b = cs_tokens(key), cs_tokens(s)
    smin = sum(min(a[c], b[c]) for c in a.keys() & b.keys())
    smax = sum(max(a[c], b[c]) for c in a.keys() | b.keys())
    return smin, smax


def cs_similarity(key: str, s: str) -> float:
    smin, smax = cs_counts(key, s)
    return smin / smax if smax else 0.0


def cs_best(keys: Sequence[str], s: str) -> float:
    return max([0.0] + [cs_similarity(k, s) for k in keys])


# --- SM ---------------------------------------------------------------------
def sm_group_hits(options: Sequence[str], s: str) -> bool:
    """The ordered walk of one group's options over a fresh copy of s."""
    t = s
    for option in options:
        if option == "":
            continue  # an empty option never matches (contract deviation)
        if option.startswith("!") and option[1:] in t:
            return False
        if option.startswith("~") and option[1:] in t:
            t = t.replace(option[1:], "")
        if option in t:
            return True
    return False


def sm_count(groups: Sequence[Sequence[str]], s: str) -> int:
    return sum(1 for g in groups if sm_group_hits(g, s))


def sm_groups(desc: str) -> list[list[str]]:
    """desc.split(',') then each group .split('|'), options kept verbatim."""
    return [g.split("|") for g in desc.split(",")]
