"""The agreement figures as functions of the joint counts of (mark, score, …) values.

Every figure the reports give -- means, SDs, exact and adjacent agreement, QWK, Cohen's
kappa, Pearson r, RMSE, R², SMD, PRMSE -- depends on the rows only through how often each
distinct tuple of values occurs. So a figure is computed here from a *tally* (the distinct
tuples, one per row of ``values``) and *weights*: a ``(b, K)`` array whose row ``r`` says
how many times each of the ``K`` tuples counts in sample ``r``. The rows of a table are the
tally of themselves with weight 1; a bootstrap resample is the same tally with resampled
weights (:mod:`.bootstrap`), so the point estimates and every resample go through the one
set of formulas below (those of :mod:`.stats`' module doc and of :mod:`.humans`).

Sums over a sample are matrix products ``weights @ columns`` of per-tuple columns, taken
about a fixed centre (the full sample's mean) so that variances lose no precision. Sums of
integers (the rounded 0–10 values the kappas use) are exact, so "undefined" (a zero
denominator) is decided exactly; a value is constant on a sample when its least and
largest value over the tuples the sample holds are equal, and then its variance is 0.
A figure that is undefined on a sample is NaN.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The 0–10 integer scale of the rounded values (as :data:`.stats.SCALE`).
CATEGORIES = 11
#: The figures of one scorer against the marks, in order (keys of :meth:`PairColumns.figures`).
PAIR_FIGURES: tuple[str, ...] = (
    "n", "mean_human", "mean_pred", "sd_human", "sd_pred", "exact_agreement", "adjacent_agreement", "qwk",
    "kappa", "pearson_r", "rmse", "r2", "smd",
)
#: The relative size below which a difference of two sums counts as rounding, not as a value.
ROUNDING = 1e-9
#: The true-score figures (keys of :meth:`TrueScoreColumns.figures`).
TRUE_SCORE_FIGURES: tuple[str, ...] = (
    "n", "n_double", "variance_of_errors", "true_score_variance", "mse_true", "prmse",
)


@dataclass
class Tally:
    """Distinct tuples and how often each occurs: ``values[k]`` (one column per variable,
    NaN allowed) occurs ``counts[k]`` times."""

    values: np.ndarray
    counts: np.ndarray

    def __len__(self) -> int:
        return int(self.counts.size)


def tally(columns: Sequence[np.ndarray]) -> Tally:
    """The distinct tuples of equal-length float ``columns`` (NaN equals NaN) and their counts."""
    found = tally_within(columns, None)
    return found if found is not None else _tally_bytes(columns)


def tally_within(columns: Sequence[np.ndarray], limit: int | None) -> Tally | None:
    """:func:`tally`, or ``None`` when there are more than ``limit`` distinct tuples
    (decided without listing them all when one column's distinct values already say so),
    or when the tuples are too many to code in 62 bits."""
    n = len(columns[0]) if columns else 0
    key = np.zeros(n, dtype=np.int64)
    radix = 1
    for column in columns:
        uniques, codes = np.unique(column, return_inverse=True)
        if limit is not None and uniques.size > limit:
            return None
        radix *= max(1, uniques.size)
        if radix >= 1 << 62:
            return None
        key = key * uniques.size + codes.reshape(-1)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if limit is not None and first.size > limit:
        return None
    values = np.column_stack([np.asarray(c, dtype=np.float64)[first] for c in columns]) if columns \
        else np.zeros((first.size, 0))
    return Tally(values, counts.astype(np.int64))


def _tally_bytes(columns: Sequence[np.ndarray]) -> Tally:
    """The distinct tuples by their bytes (for columns with too many distinct values to code)."""
    matrix = np.ascontiguousarray(np.column_stack([np.asarray(c, dtype=np.float64) for c in columns]))
    rows = matrix.view(np.dtype((np.void, matrix.dtype.itemsize * matrix.shape[1]))).reshape(-1)
    _, first, counts = np.unique(rows, return_index=True, return_counts=True)
    return Tally(matrix[first], counts.astype(np.int64))


def rounded(values: np.ndarray) -> np.ndarray:
    """Rounded half up and clipped to 0–10, as floats (NaN stays NaN)."""
    floor = np.floor(values)
    return np.clip(floor + (values - floor >= 0.5), 0, CATEGORIES - 1)


def centre(values: np.ndarray, weights: np.ndarray) -> float:
    """The weighted mean of ``values`` under one row of weights (0 when the weights are all 0)."""
    total = float(weights.sum())
    return float(np.einsum("k,k->", weights, values)) / total if total else 0.0


class Sample:
    """``weights`` (``(b, K)``) over tuples: what every figure needs of them, computed once."""

    def __init__(self, weights: np.ndarray):
        self.weights = np.asarray(weights, dtype=np.float64)
        self.support = self.weights > 0
        self.n = self.weights.sum(axis=1)

    def sums(self, columns: list[np.ndarray]) -> np.ndarray:
        """``(b, len(columns))``: each column's weighted sum in each sample."""
        out = np.empty((self.n.size, len(columns)))
        for j, column in enumerate(columns):
            out[:, j] = np.einsum("bk,k->b", self.weights, column)
        return out

    def histogram(self, codes: np.ndarray) -> np.ndarray:
        """``(b, CATEGORIES)``: the weight of each integer code 0–10 in each sample."""
        b = self.n.size
        cells = (codes[None, :] + CATEGORIES * np.arange(b)[:, None]).reshape(-1)
        return np.bincount(cells, weights=self.weights.reshape(-1), minlength=CATEGORIES * b).reshape(b, CATEGORIES)

    def constant(self, values: np.ndarray) -> np.ndarray:
        """Whether ``values`` takes one value only over the tuples each sample holds."""
        low = np.where(self.support, values, np.inf).min(axis=1, initial=np.inf)
        high = np.where(self.support, values, -np.inf).max(axis=1, initial=-np.inf)
        return low >= high


class PairColumns:
    """What :meth:`figures` needs of per-tuple values ``human`` and ``pred``, made once.
    ``centres`` (any values near the means; the full sample's means) only steady the sums."""

    def __init__(self, human: np.ndarray, pred: np.ndarray, centres: tuple[float, float]):
        self.human, self.pred, self.centres = human, pred, centres
        h, p = human - centres[0], pred - centres[1]
        rh, rp = rounded(human), rounded(pred)
        self.codes = rh.astype(np.int64), rp.astype(np.int64)
        gap = rh - rp
        self.columns = [h, p, h * h, p * p, h * p, np.square(pred - human), (gap == 0).astype(np.float64),
                        (np.abs(gap) <= 1).astype(np.float64), gap * gap, rh, rp, rh * rh, rp * rp]

    def figures(self, sample: Sample) -> dict[str, np.ndarray]:
        """Every figure of ``pred`` against ``human`` in each sample of ``sample``: arrays
        of length ``b`` keyed by :data:`PAIR_FIGURES`, NaN where undefined."""
        (s_h, s_p, s_hh, s_pp, s_hp, s_d, s_eq, s_adj, s_q, s_rh, s_rp, s_rhh, s_rpp) = sample.sums(self.columns).T
        hist_h, hist_p = sample.histogram(self.codes[0]), sample.histogram(self.codes[1])
        n, (c_h, c_p) = sample.n, self.centres
        const_h, const_p = sample.constant(self.human), sample.constant(self.pred)
        with np.errstate(divide="ignore", invalid="ignore"):
            some = np.where(n > 0, n, np.nan)
            m_h, m_p = s_h / some, s_p / some
            ss_h = np.where(const_h, 0.0, np.maximum(s_hh - n * m_h * m_h, 0.0))
            ss_p = np.where(const_p, 0.0, np.maximum(s_pp - n * m_p * m_p, 0.0))
            dof = np.where(n >= 2, n - 1, np.nan)
            var_h, var_p = ss_h / dof, ss_p / dof
            qwk_den = n * s_rhh + n * s_rpp - 2 * s_rh * s_rp
            chance = (hist_h * hist_p).sum(axis=1)
            pe = chance / (some * some)
            r = np.clip((s_hp - n * m_h * m_p) / np.sqrt(ss_h * ss_p), -1.0, 1.0)
            pooled = np.sqrt((var_h + var_p) / 2)
            return {
                "n": n,
                "mean_human": m_h + c_h,
                "mean_pred": m_p + c_p,
                "sd_human": np.sqrt(var_h),
                "sd_pred": np.sqrt(var_p),
                "exact_agreement": s_eq / some,
                "adjacent_agreement": s_adj / some,
                "qwk": np.where(qwk_den != 0, 1.0 - n * s_q / np.where(qwk_den != 0, qwk_den, 1.0), np.nan),
                "kappa": np.where(chance != n * n, (s_eq / some - pe) / (1.0 - pe), np.nan),
                "pearson_r": np.where((n >= 2) & ~const_h & ~const_p, r, np.nan),
                "rmse": np.sqrt(s_d / some),
                "r2": np.where(const_h, np.nan, 1.0 - s_d / ss_h),
                "smd": np.where(pooled > 0, (m_p + c_p - m_h - c_h) / pooled, np.nan),
            }


class TrueScoreColumns:
    """What :meth:`figures` needs for RSMTool's true-score evaluation (Loukina et al. 2020)
    of per-tuple scores ``pred``: tuples have a first mark ``human`` and a second mark
    ``second`` (NaN where the answer was marked once); see :mod:`.humans` for the formulas.
    ``centre_mark`` (near the mean mark) only steadies the sums."""

    def __init__(self, human: np.ndarray, second: np.ndarray, pred: np.ndarray, centre_mark: float):
        double = ~np.isnan(second)
        second0 = np.where(double, second, 0.0)
        ratings = 1.0 + double
        mean_mark = np.where(double, (human + second0) / 2, human) - centre_mark
        self.columns = [double * 1.0, np.where(double, (human - second0) ** 2 / 2, 0.0),
                        human + second0 - ratings * centre_mark, ratings * mean_mark * mean_mark,
                        ratings * (mean_mark + centre_mark - pred) ** 2]

    def figures(self, sample: Sample) -> dict[str, np.ndarray]:
        """The figures in each sample, keyed by :data:`TRUE_SCORE_FIGURES`; NaN where undefined."""
        s_double, s_err, s_marks, s_dev, s_sq = sample.sums(self.columns).T
        n = sample.n
        m = n + s_double  # every mark given
        with np.errstate(divide="ignore", invalid="ignore"):
            errors = s_err / np.where(s_double > 0, s_double, np.nan)
            mean = s_marks / m  # the mean mark, less centre_mark
            spread, noise = s_dev - m * mean * mean, (n - 1) * errors
            true_var = (spread - noise) / (m - (n + 3 * s_double) / m)
            mse = (s_sq - n * errors) / m
            # positive beyond rounding: a true-score variance of 0 must not come out as 1e-18. The
            # rounding is that of the sums the spread is the difference of (s_dev, m * mean²).
            prmse = np.where(spread - noise > ROUNDING * (np.abs(s_dev) + np.abs(noise)), 1.0 - mse / true_var, np.nan)
        return {"n": n, "n_double": s_double, "variance_of_errors": errors, "true_score_variance": true_var,
                "mse_true": mse, "prmse": prmse}


def subset(sample: Sample, keep: np.ndarray) -> Sample:
    """The samples restricted to the tuples where ``keep`` holds."""
    return Sample(sample.weights[:, keep])


def value(figures: dict[str, np.ndarray], key: str, row: int = 0) -> float | None:
    """One figure of one sample as a float, ``None`` where undefined."""
    x = float(figures[key][row])
    return None if np.isnan(x) else x
