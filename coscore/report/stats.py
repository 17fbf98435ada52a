"""Agreement statistics between scores and teachers' marks, as in automated-scoring
practice (RSMTool).

Formulas (``h`` = human marks, ``p`` = coscore scores, over the ``n`` rows that have both):

* rounding: ``round_half_up(x) = floor(x) + (1 if x - floor(x) >= 0.5 else 0)``, then
  clipped to the 0–10 integer scale; exact agreement, adjacent agreement, the QWK and the
  confusion matrix use these integers; the means, SDs, Pearson r and SMD use raw scores.
* exact agreement = share of rows with ``round(h) == round(p)``; adjacent agreement =
  share with ``|round(h) - round(p)| <= 1`` (fractions 0–1).
* QWK (quadratic weighted kappa) on the 11 categories 0..10: with ``O`` the confusion
  matrix, ``E = outer(row sums, column sums) / n`` and ``W[i, j] = (i - j)**2 / 100``,
  ``qwk = 1 - sum(W * O) / sum(W * E)``; undefined (``None``) when ``sum(W * E) == 0``.
* SD = sample standard deviation (``ddof=1``); Pearson r is undefined when an SD is 0.
* unweighted kappa: Cohen's kappa on the same integers, ``(po - pe) / (1 - pe)``.
* RMSE = ``sqrt(mean((p - h)**2))``; R² = ``1 - sum((h - p)**2) / sum((h - mean(h))**2)``
  (undefined when every mark is equal), both on raw scores.
* SMD (RSMTool, pooled) = ``(mean(p) - mean(h)) / sqrt((sd(h)**2 + sd(p)**2) / 2)``,
  undefined when the denominator is 0.

ETS's usual thresholds are flagged: QWK >= 0.70 and |SMD| <= 0.15. The figures are
computed from the counts of the distinct (mark, score) pairs (:mod:`.counts`): in QWK,
``sum(W * E)`` is ``(n sum(round(h)²) + n sum(round(p)²) - 2 sum(round(h)) sum(round(p))) /
(100 n)``, the same number.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .counts import PAIR_FIGURES, PairColumns, Sample, centre, tally, value

#: The integer score scale of the kappas and the confusion matrix.
SCALE: tuple[int, ...] = tuple(range(11))
#: ETS's usual minimum quadratic weighted kappa.
QWK_THRESHOLD = 0.70
#: ETS's usual maximum absolute standardized mean difference.
SMD_THRESHOLD = 0.15


@dataclass
class Agreement:
    """Agreement statistics of predicted scores with human marks (see the module doc).

    Fractions are 0–1; a statistic that is undefined for the data is ``None``.
    ``confusion[i][j]`` counts rows with human mark ``i`` and coscore score ``j``
    (rounded half up, 0–10).
    """

    n: int
    mean_human: float | None
    mean_pred: float | None
    sd_human: float | None
    sd_pred: float | None
    exact_agreement: float | None
    adjacent_agreement: float | None
    qwk: float | None
    pearson_r: float | None
    smd: float | None
    confusion: list[list[int]]
    labels: list[int] = field(default_factory=lambda: list(SCALE))
    n_rows: int = 0
    n_without_label: int = 0
    n_without_pred: int = 0
    n_clipped: int = 0
    kappa: float | None = None
    rmse: float | None = None
    r2: float | None = None

    @property
    def qwk_ok(self) -> bool | None:
        """Whether QWK >= 0.70 (``None`` when QWK is undefined)."""
        return None if self.qwk is None else self.qwk >= QWK_THRESHOLD

    @property
    def smd_ok(self) -> bool | None:
        """Whether |SMD| <= 0.15 (``None`` when SMD is undefined)."""
        return None if self.smd is None else abs(self.smd) <= SMD_THRESHOLD

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every statistic, plus the thresholds and flags."""
        out = asdict(self)
        out["thresholds"] = {"qwk": QWK_THRESHOLD, "smd": SMD_THRESHOLD}
        out["qwk_ok"] = self.qwk_ok
        out["smd_ok"] = self.smd_ok
        return out


def round_half_up(values: Any) -> np.ndarray:
    """Round to the nearest integer, halves up (2.5 -> 3, -2.5 -> -2), as int64."""
    x = np.asarray(values, dtype=np.float64)
    floor = np.floor(x)
    return (floor + (x - floor >= 0.5)).astype(np.int64)


def quadratic_weighted_kappa(human: Sequence[int], pred: Sequence[int], categories: int = len(SCALE)) -> float | None:
    """Cohen's kappa with quadratic weights over integer categories ``0..categories-1``."""
    observed = _confusion(np.asarray(human), np.asarray(pred), categories).astype(np.float64)
    n = observed.sum()
    if n == 0:
        return None
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    idx = np.arange(categories)
    weights = (idx[:, None] - idx[None, :]) ** 2 / (categories - 1) ** 2
    denominator = float((weights * expected).sum())
    if denominator == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denominator


def agreement(human: Any, pred: Any) -> Agreement:
    """Agreement of ``pred`` with ``human`` (equal-length numeric sequences).

    Rows where either value is NaN or ``None`` are left out (and counted). The figures are
    those of :class:`.counts.PairColumns` over the distinct (mark, score) pairs weighted by
    their counts (the formulas of the module doc).
    """
    h_all, p_all = _floats(human), _floats(pred)
    if h_all.shape != p_all.shape:
        raise ValueError(f"human and pred differ in length: {h_all.size} and {p_all.size}")
    has_h, has_p = ~np.isnan(h_all), ~np.isnan(p_all)
    both = has_h & has_p
    pairs = tally([h_all[both], p_all[both]])  # the distinct (mark, score) pairs and their counts
    h, p, counts = pairs.values[:, 0], pairs.values[:, 1], pairs.counts
    rh_raw, rp_raw = round_half_up(h), round_half_up(p)
    lo, hi = SCALE[0], SCALE[-1]
    clipped = int(counts @ ((rh_raw < lo) | (rh_raw > hi)) + counts @ ((rp_raw < lo) | (rp_raw > hi)))
    rh, rp = np.clip(rh_raw, lo, hi), np.clip(rp_raw, lo, hi)
    weights = counts.astype(np.float64)
    figures = PairColumns(h, p, (centre(h, weights), centre(p, weights))).figures(Sample(weights[None, :]))
    measured: dict[str, Any] = {key: value(figures, key) for key in PAIR_FIGURES if key != "n"}
    return Agreement(
        **measured,
        n=int(both.sum()),
        confusion=_confusion(rh, rp, len(SCALE), counts).tolist(),
        n_rows=int(h_all.size),
        n_without_label=int((~has_h).sum()),
        n_without_pred=int((has_h & ~has_p).sum()),
        n_clipped=clipped,
    )


def cohen_kappa(human: Sequence[int], pred: Sequence[int], categories: int = len(SCALE)) -> float | None:
    """Cohen's (unweighted) kappa over integer categories ``0..categories-1``."""
    observed = _confusion(np.asarray(human), np.asarray(pred), categories).astype(np.float64)
    n = observed.sum()
    if n == 0:
        return None
    chance = float((observed.sum(axis=1) * observed.sum(axis=0)).sum()) / n**2
    if chance == 1:
        return None
    return (float(np.trace(observed)) / n - chance) / (1 - chance)


def _floats(values: Any) -> np.ndarray:
    """``values`` as a float64 array, ``None`` as NaN (a float array passes as it is)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        return values.astype(np.float64, copy=False)
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


def _confusion(h: np.ndarray, p: np.ndarray, categories: int, counts: np.ndarray | None = None) -> np.ndarray:
    cells = h.astype(np.int64) * categories + p.astype(np.int64)
    matrix = np.bincount(cells, weights=counts, minlength=categories * categories)
    return matrix.astype(np.int64).reshape(categories, categories)




def disagreement_order(scores: Any, marks: Any) -> list[int]:
    """Indexes of the rows whose score differs from the mark, the largest |score − mark|
    first; a row without a score (it failed) counts as the largest. Rows without a mark
    and rows that agree exactly are left out."""
    s = np.asarray(scores, dtype=np.float64)
    h = np.asarray(marks, dtype=np.float64)
    has_mark = ~np.isnan(h)
    gap = np.where(np.isnan(s), np.inf, np.abs(s - np.where(has_mark, h, 0.0)))
    picked = np.flatnonzero(has_mark & (gap > 0))
    return picked[np.argsort(-gap[picked], kind="stable")].tolist()   # Python ints, made at once
