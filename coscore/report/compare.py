"""Several scorers against the same marks on the same rows: every agreement figure per
scorer with a bootstrap interval, the paired difference in QWK per pair of scorers, and
the rows where the scorers disagree with each other.

Rows count only when they have a mark and a score from every scorer, so all figures are
on the same rows; one set of resamples (:func:`.bootstrap.resamples`) serves every
scorer and pair, which makes the differences paired.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ..labelled import Table
from .bootstrap import RESAMPLES, SEED, interval, resamples
from .sections import LevelStats, Provenance, json_ready, level_stats
from .stats import Agreement, agreement, round_half_up

#: The figures compared, in order (fields of :class:`.stats.Agreement`).
FIGURES: tuple[str, ...] = (
    "qwk", "kappa", "exact_agreement", "adjacent_agreement", "pearson_r", "rmse", "r2", "smd", "mean_pred", "sd_pred",
)


@dataclass
class Scorer:
    """One scorer: its ``name``, its scores over the table's rows (NaN where none) and,
    for a rule, the compiled rule and its provenance."""

    name: str
    scores: np.ndarray
    rule: Any = None
    provenance: Provenance | None = None


@dataclass
class Estimate:
    """A figure and its 95 % bootstrap interval (``None`` where undefined)."""

    value: float | None
    ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci": list(self.ci) if self.ci else None}


@dataclass
class ScorerResult:
    """One scorer's figures (``agreement``), their intervals (``estimates``) and its
    figures per mark level (``levels``)."""

    name: str
    kind: str
    rule_sha256: str | None
    agreement: Agreement
    estimates: dict[str, Estimate]
    levels: list[LevelStats] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "rule_sha256": self.rule_sha256}
        out.update({key: e.to_dict() for key, e in self.estimates.items()})
        out["confusion"] = self.agreement.confusion
        out["levels"] = [asdict(level) for level in self.levels]
        return out


@dataclass
class PairResult:
    """QWK of ``a`` minus QWK of ``b``, with its paired bootstrap interval."""

    a: str
    b: str
    qwk_difference: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "qwk_difference": self.qwk_difference.to_dict()}


@dataclass
class SplitRow:
    """A row where the scorers' rounded scores differ, with each rule's evidence."""

    row: int
    id: str
    answer: list[str]
    mark: float | None
    scores: dict[str, float | None]
    explanations: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Comparison:
    """The outcome of :func:`compare`."""

    n: int
    n_rows: int
    label: str
    data: str
    date: str
    resamples: int
    seed: int
    scorers: list[ScorerResult]
    pairs: list[PairResult]
    rows: list[SplitRow]

    def to_dict(self) -> dict[str, Any]:
        """``{"n", "scorers": [{"name", "qwk": {"value", "ci"}, …}], "pairs": [{"a", "b",
        "qwk_difference": {"value", "ci"}}], …}``."""
        return json_ready({
            "n": self.n, "n_rows": self.n_rows, "label": self.label, "data": self.data, "date": self.date,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": 0.95},
            "scorers": [s.to_dict() for s in self.scorers],
            "pairs": [p.to_dict() for p in self.pairs],
            "disagreements": [asdict(r) for r in self.rows],
        })


def compare(table: Table, scorers: list[Scorer], date: str, count: int = RESAMPLES, seed: int = SEED,
            top: int = 10) -> Comparison:
    """Compare ``scorers`` against ``table``'s marks on the rows every one of them scored."""
    marks = table.marks
    keep = ~np.isnan(marks)
    for s in scorers:
        keep &= ~np.isnan(s.scores)
    rows = np.flatnonzero(keep)
    h = marks[rows]
    preds = {s.name: s.scores[rows] for s in scorers}
    draws = resamples(rows.size, count, seed)
    per_draw = {name: [agreement(h[i], p[i]) for i in draws] for name, p in preds.items()}
    results = []
    for s in scorers:
        overall = agreement(h, preds[s.name])
        estimates = {key: Estimate(getattr(overall, key), interval([getattr(a, key) for a in per_draw[s.name]]))
                     for key in FIGURES}
        digest = s.provenance.rule_sha256 if s.provenance else None
        results.append(ScorerResult(s.name, "rule" if s.rule is not None else "column", digest, overall, estimates,
                                    level_stats(h, preds[s.name])))
    pairs = []
    for a, b in combinations(results, 2):
        value = _difference(a.agreement.qwk, b.agreement.qwk)
        spread = [_difference(x.qwk, y.qwk) for x, y in zip(per_draw[a.name], per_draw[b.name])]
        pairs.append(PairResult(a.name, b.name, Estimate(value, interval(spread))))
    return Comparison(int(rows.size), len(table), table.label or "", table.source, date, count, seed,
                      results, pairs, split_rows(table, scorers, top))


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def split_rows(table: Table, scorers: list[Scorer], top: int) -> list[SplitRow]:
    """The ``top`` rows where the scorers' rounded scores differ most (largest spread of
    raw scores first; a scorer without a score on a row counts as the largest)."""
    matrix = np.vstack([s.scores for s in scorers]) if scorers else np.zeros((0, len(table)))
    failed = np.isnan(matrix).any(axis=0) & ~np.isnan(matrix).all(axis=0)
    filled = np.where(np.isnan(matrix), 0.0, matrix)
    rounded = round_half_up(filled)
    differ = (rounded != rounded[:1]).any(axis=0) | failed if len(scorers) > 1 else np.zeros(len(table), bool)
    spread = np.where(failed, np.inf, filled.max(axis=0) - filled.min(axis=0)) if scorers else np.zeros(0)
    picked = np.flatnonzero(differ)
    order = picked[np.argsort(-spread[picked], kind="stable")][:top]
    ids = table.ids
    out = []
    for i in order:
        mark = float(table.marks[i])
        row = SplitRow(int(i) + 1, ids[i], table.answers[i], None if math.isnan(mark) else mark,
                       {s.name: None if math.isnan(s.scores[i]) else float(s.scores[i]) for s in scorers})
        for s in scorers:
            if s.rule is not None:
                from ..explain import explain, summary

                row.explanations[s.name] = summary(explain(s.rule, table.answers[i]))
        out.append(row)
    return out
