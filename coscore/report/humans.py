"""A second teacher's marks: human–human agreement beside human–machine, and PRMSE, as
RSMTool evaluates them (Loukina, Madnani et al.; RSMTool's "consistency" and "true score"
sections).

With ``h`` the first marks, ``h2`` the second (present on some or all rows) and ``p`` the
scores:

* **human–human agreement**: every figure of :func:`.stats.agreement` of ``h2`` against
  ``h`` on the rows that have both marks and a score (SMD is the pooled one, as RSMTool's
  for two humans). Flagged as RSMTool does: exact agreement < 50 %, adjacent < 95 %,
  QWK < 0.70, Pearson r < 0.70.
* **degradation**: each human–machine figure (``p`` against ``h`` on every row with both)
  minus the human–human one; RSMTool flags a QWK or r degradation below −0.10.
* **disattenuated correlation**: ``r(h, p) / sqrt(r(h, h2))``, flagged below 0.90;
  undefined when ``r(h, h2) <= 0``.
* **PRMSE** (proportional reduction in mean squared error for the true score), over the
  ``N`` rows with ``h`` and ``p``, ``N2`` of them with ``h2`` too; ``c_i`` the number of
  marks of row ``i`` (1 or 2), ``hbar_i`` their mean, ``M = sum(c_i)``, ``mu`` the mean of
  all ``M`` marks:

  - variance of the raters' errors ``ve = sum over double-marked rows of (h - h2)² / 2, / N2``
  - true-score variance ``vt = (sum c_i (hbar_i - mu)² - (N - 1) ve) / (M - sum(c_i²) / M)``
  - mean squared error against the true score ``mse = (sum c_i (hbar_i - p_i)² - N ve) / M``
  - ``PRMSE = 1 - mse / vt``

  undefined without a double-marked row, and (unlike RSMTool, which divides anyway) when
  ``vt`` is not positive (beyond rounding: its numerator under 1e-9 of its two terms). With
  every row double-marked this is ``vt = var(hbar) - ve / 2`` and
  ``mse = mean((hbar - p)²) - ve / 2``. RSMTool leaves out marks of 0 by default; coscore
  keeps them (0 is a mark on its scale).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .counts import TRUE_SCORE_FIGURES, Sample, TrueScoreColumns, value
from .stats import Agreement, agreement

#: RSMTool's flags on human–human agreement: the least exact and adjacent agreement, QWK and r.
HH_EXACT = 0.50
HH_ADJACENT = 0.95
HH_QWK = 0.70
HH_R = 0.70
#: RSMTool's flag on degradation (human–machine minus human–human) of QWK and r.
DEGRADATION = -0.10
#: RSMTool's flag on the disattenuated correlation.
DISATTENUATED_R = 0.90
#: The figures whose degradation is given, in order.
DEGRADED: tuple[str, ...] = ("pearson_r", "kappa", "qwk", "exact_agreement", "adjacent_agreement", "smd")


@dataclass
class TrueScore:
    """PRMSE and the estimates it is made of (see the module doc); ``None`` where undefined."""

    n: int
    n_double: int
    variance_of_errors: float | None
    true_score_variance: float | None
    mse_true: float | None
    prmse: float | None

    @property
    def n_single(self) -> int:
        """Rows with one mark only."""
        return self.n - self.n_double

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field and ``n_single``."""
        return {**asdict(self), "n_single": self.n_single}


def true_score(human: Any, second: Any, pred: Any) -> TrueScore:
    """RSMTool's PRMSE of ``pred`` over the rows with a first mark and a score (``second``:
    NaN where the answer was marked once)."""
    h, h2, p = (np.asarray(x, dtype=np.float64) for x in (human, second, pred))
    rows = ~np.isnan(h) & ~np.isnan(p)
    h, h2, p = h[rows], h2[rows], p[rows]
    ones = np.ones((1, h.size))
    marks = np.concatenate([h, h2[~np.isnan(h2)]])
    figures = TrueScoreColumns(h, h2, p, float(marks.mean()) if marks.size else 0.0).figures(Sample(ones))
    return TrueScore(int(h.size), int(figures["n_double"][0]),
                     *(value(figures, key) for key in TRUE_SCORE_FIGURES[2:]))


@dataclass
class Consistency:
    """The second marks (column ``label2``) beside the scores: human–human agreement,
    degradation, disattenuated correlation and PRMSE, with RSMTool's flags."""

    label2: str
    human_human: Agreement
    human_machine: Agreement
    true_score: TrueScore

    @property
    def degradation(self) -> dict[str, float | None]:
        """Human–machine minus human–human, for each of :data:`DEGRADED`."""
        out = {}
        for key in DEGRADED:
            a, b = getattr(self.human_machine, key), getattr(self.human_human, key)
            out[key] = None if a is None or b is None else a - b
        return out

    @property
    def disattenuated_r(self) -> float | None:
        """``r(h, p) / sqrt(r(h, h2))``; ``None`` when undefined."""
        hm, hh = self.human_machine.pearson_r, self.human_human.pearson_r
        return None if hm is None or hh is None or hh <= 0 else hm / math.sqrt(hh)

    @property
    def flags(self) -> dict[str, bool | None]:
        """Whether each flagged figure meets RSMTool's threshold (``None`` when undefined)."""
        hh, deg, dis = self.human_human, self.degradation, self.disattenuated_r
        return {
            "exact_agreement_ok": _at_least(hh.exact_agreement, HH_EXACT),
            "adjacent_agreement_ok": _at_least(hh.adjacent_agreement, HH_ADJACENT),
            "qwk_ok": _at_least(hh.qwk, HH_QWK),
            "pearson_r_ok": _at_least(hh.pearson_r, HH_R),
            "qwk_degradation_ok": _at_least(deg["qwk"], DEGRADATION),
            "pearson_r_degradation_ok": _at_least(deg["pearson_r"], DEGRADATION),
            "disattenuated_r_ok": _at_least(dis, DISATTENUATED_R),
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"label2", "human_human": {…agreement…}, "degradation", "disattenuated_r",
        "true_score", "flags", "thresholds"}``."""
        return {
            "label2": self.label2,
            "human_human": self.human_human.to_dict(),
            "degradation": self.degradation,
            "disattenuated_r": self.disattenuated_r,
            "true_score": self.true_score.to_dict(),
            "flags": self.flags,
            "thresholds": {"exact_agreement": HH_EXACT, "adjacent_agreement": HH_ADJACENT, "qwk": HH_QWK,
                           "pearson_r": HH_R, "degradation": DEGRADATION, "disattenuated_r": DISATTENUATED_R},
        }


def consistency(human: Any, second: Any, pred: Any, label2: str = "second") -> Consistency:
    """The :class:`Consistency` of scores ``pred`` with marks ``human`` and ``second``
    (NaN where a row has no such value)."""
    h, h2, p = (np.asarray(x, dtype=np.float64) for x in (human, second, pred))
    scored = ~np.isnan(p)
    return Consistency(label2, agreement(h[scored], h2[scored]), agreement(h, p), true_score(h, h2, p))


def _at_least(x: float | None, threshold: float) -> bool | None:
    return None if x is None else x >= threshold


def mark_centre(human: np.ndarray, second: np.ndarray, weights: np.ndarray) -> float:
    """The mean of all marks (first and second) under one row of tuple weights."""
    double = ~np.isnan(second)
    total = float(weights.sum() + weights[double].sum())
    marks = np.einsum("k,k->", weights, human) + np.einsum("k,k->", weights[double], second[double])
    return float(marks) / total if total else 0.0

