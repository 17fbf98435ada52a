"""Plain-Python definitions of the OP, CS and SM similarity functions.

These are the contract (docs/semantics.md, "Atoms") written the obvious way: the per-pair
arithmetic -- an LCS length, a text's token counts, one SM group's ordered walk -- is the
kernels' pure-Python twins' (coscore/_fast/*_py.py, one source of truth), and how an atom
combines it over keys and groups is written out here. The compiled kernels in coscore._fast
must agree with them exactly.
"""
from __future__ import annotations

from collections.abc import Sequence

from coscore._fast.jaccard_py import multiset_counts
from coscore._fast.jaccard_py import tokens as cs_tokens
from coscore._fast.lcs_py import lcs_length
from coscore._fast.substring_py import group_hits as sm_group_hits

__all__ = [
    "cs_best", "cs_counts", "cs_similarity", "cs_tokens", "lcs_length", "op_best", "op_similarity",
    "sm_count", "sm_group_hits", "sm_groups",
]


# --- OP ---------------------------------------------------------------------
def op_similarity(key: str, s: str) -> float:
    """LCS(key, s) / len(key); 0.0 for an empty key."""
    if not key:
        return 0.0
    return lcs_length(key, s) / len(key)


def op_best(keys: Sequence[str], s: str) -> float:
    return max([0.0] + [op_similarity(k, s) for k in keys])


# --- CS ---------------------------------------------------------------------
def cs_counts(key: str, s: str) -> tuple[int, int]:
    """(sum_c min(nk(c), ns(c)), sum_c max(nk(c), ns(c))) of the tokens: each character
    lowercased on its own, whitespace (str.split()'s) dropped."""
    return multiset_counts(cs_tokens(key), cs_tokens(s))


def cs_similarity(key: str, s: str) -> float:
    smin, smax = cs_counts(key, s)
    return smin / smax if smax else 0.0


def cs_best(keys: Sequence[str], s: str) -> float:
    return max([0.0] + [cs_similarity(k, s) for k in keys])


# --- SM ---------------------------------------------------------------------
def sm_count(groups: Sequence[Sequence[str]], s: str) -> int:
    """The number of groups whose ordered walk (over a fresh copy of s) hits."""
    return sum(1 for g in groups if sm_group_hits(g, s))


def sm_groups(desc: str) -> list[list[str]]:
    """desc.split(',') then each group .split('|'), options kept verbatim."""
    return [g.split("|") for g in desc.split(",")]


