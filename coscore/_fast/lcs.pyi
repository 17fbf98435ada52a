"""OP kernel: best LCS(k, s) / len(k) over a fixed list of keys (compiled; twin: lcs_py)."""
from collections.abc import Iterable

from ._scorer import KeyScorer

def _set_dense_limit(nbytes: int) -> int: ...

class LcsScorer(KeyScorer):
    """LcsScorer(keys): best(s) = max over keys of LCS(k, s) / len(k)."""

    @property
    def alphabet_size(self) -> int: ...
    def __init__(self, keys: Iterable[str]) -> None: ...
    def lengths(self, s: str) -> list[int]: ...
