"""The figures per subgroup (``--by COL``: school, class, …), with RSMTool's usual flags.

Each group (the rows whose column holds one value; an empty cell is a group of its own)
gets every figure of :func:`.stats.agreement` over its rows, and RSMTool's difference of
standardized means: with the means and SDs (``ddof = 1``) of marks and scores over all
rows that have both, ``DSM = mean over the group of ((p - mean(p)) / sd(p) - (h -
mean(h)) / sd(h))`` (undefined when an SD is 0). Flags: QWK >= 0.70 and Pearson r >= 0.70
(RSMTool's subgroup thresholds), |SMD| <= 0.15 (the report's) and |DSM| <= 0.10
(RSMTool's).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .stats import QWK_THRESHOLD, SMD_THRESHOLD, Agreement, agreement

#: RSMTool's least Pearson r and largest |DSM| of a subgroup.
R_THRESHOLD = 0.70
DSM_THRESHOLD = 0.10


@dataclass
class GroupStats:
    """The agreement figures of the rows whose ``--by`` column holds ``value``, and their
    difference of standardized means ``dsm``."""

    value: str
    agreement: Agreement
    dsm: float | None = None

    @property
    def flags(self) -> dict[str, bool | None]:
        """Whether QWK, r, SMD and DSM meet their thresholds (``None`` when undefined)."""
        a = self.agreement
        return {
            "qwk_ok": a.qwk_ok,
            "pearson_r_ok": None if a.pearson_r is None else a.pearson_r >= R_THRESHOLD,
            "smd_ok": a.smd_ok,
            "dsm_ok": None if self.dsm is None else abs(self.dsm) <= DSM_THRESHOLD,
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"value", …every figure of the agreement…, "dsm", "flags"}``."""
        out = {"value": self.value, **self.agreement.to_dict(), "dsm": self.dsm, "flags": self.flags}
        out["thresholds"] = {"qwk": QWK_THRESHOLD, "pearson_r": R_THRESHOLD, "smd": SMD_THRESHOLD,
                             "dsm": DSM_THRESHOLD}
        return out


def cells(values: Sequence[Any]) -> list[str]:
    """A column's cells as group names: text, an empty cell as ``""``."""
    return ["" if v is None else str(v) for v in values]


def group_stats(groups: Sequence[str], marks: Any, scores: Any) -> list[GroupStats]:
    """The figures per value of ``groups`` (one name per row), sorted by name; ``marks``
    and ``scores`` are numbers per row (NaN or ``None`` where missing)."""
    marks, scores = np.asarray(marks, dtype=np.float64), np.asarray(scores, dtype=np.float64)
    names, codes = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True) if len(groups) \
        else (np.zeros(0, dtype=str), np.zeros(0, dtype=np.int64))
    both = ~np.isnan(marks) & ~np.isnan(scores)
    gap = _standardized_gap(marks, scores, both)
    out = []
    for k, name in enumerate(names.tolist()):
        rows = codes == k
        in_group = gap[rows & both]
        dsm = float(in_group.mean()) if in_group.size and not np.isnan(in_group).any() else None
        out.append(GroupStats(name, agreement(marks[rows], scores[rows]), dsm))
    return out


def _standardized_gap(marks: np.ndarray, scores: np.ndarray, both: np.ndarray) -> np.ndarray:
    """``z(score) - z(mark)`` per row, with the means and SDs of all rows with both (NaN
    everywhere when an SD is undefined or 0)."""
    h, p = marks[both], scores[both]
    if h.size < 2:
        return np.full(marks.size, np.nan)
    sd_h, sd_p = float(h.std(ddof=1)), float(p.std(ddof=1))
    if sd_h == 0 or sd_p == 0 or np.all(h == h[0]) or np.all(p == p[0]):
        return np.full(marks.size, np.nan)
    return (scores - p.mean()) / sd_p - (marks - h.mean()) / sd_h
