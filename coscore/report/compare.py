"""Several scorers against the same marks on the same rows: every agreement figure per
scorer with a bootstrap interval, the paired difference in QWK per pair of scorers, and
the rows where the scorers disagree with each other; with a second mark column, the
second teacher against the first (human–human, with intervals) and each scorer's PRMSE;
with a group column, every scorer's figures per group.

Rows count only when they have a mark and a score from every scorer, so all figures are
on the same rows; one set of resamples (:class:`.bootstrap.Resampling`, of the tuples
(mark, second mark, every score)) serves every scorer and pair, which makes the
differences paired.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from ..labelled import Table
from ..marks import LeftOut, left_out
from .bootstrap import RESAMPLES, SEED, Resampling, interval
from .counts import PairColumns, TrueScoreColumns, centre, subset

if TYPE_CHECKING:
    from ..rule import Rule
from .groups import GroupStats, group_stats
from .humans import mark_centre, true_score
from .sections import LevelStats, Provenance, column_cells, json_ready, level_stats
from .stats import Agreement, agreement, round_half_up

#: The figures compared, in order (fields of :class:`.stats.Agreement`).
FIGURES: tuple[str, ...] = (
    "qwk", "kappa", "exact_agreement", "adjacent_agreement", "pearson_r", "rmse", "r2", "smd", "mean_pred", "sd_pred",
)


@dataclass
class Scorer:
    """One scorer: its ``name``, its scores over the table's rows (NaN where none) and,
    for a rule, the compiled rule and its provenance; for a column read with
    ``--missing-marks skip``, the rows left out for their score (``left_out``)."""

    name: str
    scores: np.ndarray
    rule: Rule | None = None
    provenance: Provenance | None = None
    left_out: LeftOut | None = None


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
    groups: list[GroupStats] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "kind", "rule_sha256", "n", <figure>: {"value", "ci"}…, "confusion",
        "levels", "groups"}``."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "rule_sha256": self.rule_sha256,
                               "n": self.agreement.n}
        out.update({key: e.to_dict() for key, e in self.estimates.items()})
        out["confusion"] = self.agreement.confusion
        out["levels"] = [asdict(level) for level in self.levels]
        out["groups"] = [g.to_dict() for g in self.groups]
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
    method: str = "counts"
    label2: str | None = None
    human_human: ScorerResult | None = None
    by: str | None = None
    #: ``--missing-marks``; with ``skip``, the rows left out for their mark, their second
    #: mark and (by scorer) their score in a scorer column.
    missing_marks: str = "error"
    left_out: LeftOut | None = None
    left_out_label2: LeftOut | None = None
    left_out_scorers: dict[str, LeftOut] = field(default_factory=dict)

    def left_out_lines(self) -> list[str]:
        """A line for each column with rows left out (``--missing-marks skip``)."""
        found = [self.left_out, *self.left_out_scorers.values(), self.left_out_label2]
        return [f.describe() for f in found if f and f.rows]

    def to_dict(self) -> dict[str, Any]:
        """``{"n", "scorers": [{"name", "qwk": {"value", "ci"}, …}], "pairs": [{"a", "b",
        "qwk_difference": {"value", "ci"}}], …}``; with a second mark column also
        ``label2`` and ``human_human`` (shaped as a scorer), with a group column ``by``."""
        return json_ready({
            "n": self.n, "n_rows": self.n_rows, "label": self.label, "data": self.data, "date": self.date,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": 0.95, "method": self.method},
            "scorers": [s.to_dict() for s in self.scorers],
            "pairs": [p.to_dict() for p in self.pairs],
            "label2": self.label2,
            "human_human": self.human_human.to_dict() if self.human_human else None,
            "by": self.by,
            "disagreements": [asdict(r) for r in self.rows],
            "missing_marks": self.missing_marks,
            "left_out": self.left_out.to_dict() if self.left_out else None,
            "left_out_label2": self.left_out_label2.to_dict() if self.left_out_label2 else None,
            "left_out_scorers": {name: found.to_dict() for name, found in self.left_out_scorers.items()},
            "summary": self.summary(),
        })

    def summary(self) -> list[str]:
        """The plain-language lines that head the comparison (:func:`.summary.comparison_summary`)."""
        from .summary import comparison_summary

        return comparison_summary(self)


def compare(table: Table, scorers: list[Scorer], date: str, count: int = RESAMPLES, seed: int = SEED,
            top: int = 10, label2: str | None = None, by: str | None = None,
            method: str | None = None) -> Comparison:
    """Compare ``scorers`` against ``table``'s marks on the rows every one of them scored;
    ``label2`` (a column of second marks) adds human–human agreement and PRMSE, ``by`` (a
    column) each scorer's figures per group. ``method`` asks for a way of resampling
    (:class:`.bootstrap.Resampling`; by default it chooses)."""
    marks = table.marks
    keep = ~np.isnan(marks)
    for s in scorers:
        keep &= ~np.isnan(s.scores)
    rows = np.flatnonzero(keep)
    h = marks[rows]
    preds = {s.name: s.scores[rows] for s in scorers}
    seconds = table.marks_of(label2, "second mark") if label2 else None
    second = seconds[rows] if seconds is not None else None
    groups = [column_cells(table, by)[i] for i in rows] if by else None
    resampling = Resampling([h, *([second] if second is not None else []), *preds.values()], method)
    draws = _draws(resampling, len(scorers), second is not None, count, seed)
    results = []
    for k, s in enumerate(scorers):
        overall = agreement(h, preds[s.name])
        estimates = {key: Estimate(getattr(overall, key), interval(draws[k][key])) for key in FIGURES}
        if second is not None:
            estimates["prmse"] = Estimate(true_score(h, second, preds[s.name]).prmse, interval(draws[k]["prmse"]))
        digest = s.provenance.rule_sha256 if s.provenance else None
        results.append(ScorerResult(s.name, "rule" if s.rule is not None else "column", digest, overall, estimates,
                                    level_stats(h, preds[s.name]),
                                    group_stats(groups, h, preds[s.name]) if groups is not None else []))
    pairs = []
    for (i, a), (j, b) in combinations(enumerate(results), 2):
        value = _difference(a.agreement.qwk, b.agreement.qwk)
        pairs.append(PairResult(a.name, b.name, Estimate(value, interval(draws[i]["qwk"] - draws[j]["qwk"]))))
    humans = None
    if second is not None and label2:
        double = ~np.isnan(second)
        overall = agreement(h[double], second[double])
        humans = ScorerResult(label2, "human", None, overall,
                              {key: Estimate(getattr(overall, key), interval(draws[-1][key])) for key in FIGURES},
                              level_stats(h[double], second[double]))
    skip = table.missing_marks == "skip"
    return Comparison(int(rows.size), len(table), table.label or "", table.source, date, count, seed,
                      results, pairs, split_rows(table, scorers, top), resampling.method, label2, humans, by,
                      table.missing_marks,
                      left_out(table, table.label) if skip and table.label is not None and table.label in table.columns
                      else None,
                      left_out(table, label2, seconds, "second mark")
                      if skip and label2 is not None and seconds is not None
                      else None,
                      {s.name: s.left_out for s in scorers if s.left_out is not None})


def agreement_intervals(human: Any, pred: Any, count: int = RESAMPLES, seed: int = SEED) -> dict[str, Any]:
    """The bootstrap interval (or ``None``) of each agreement figure of ``pred`` against
    ``human`` (equal-length sequences; rows where either is NaN left out), drawn as
    :func:`compare` draws them for one scorer: by counts of distinct pairs when they are few."""
    h, p = np.asarray(human, dtype=np.float64), np.asarray(pred, dtype=np.float64)
    keep = ~np.isnan(h) & ~np.isnan(p)
    draws = _draws(Resampling([h[keep], p[keep]]), 1, False, count, seed)[0]
    return {key: interval(draws[key]) for key in FIGURES}


def _draws(resampling: Resampling, scorers: int, second: bool, count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Each figure over ``count`` resamples: one dict per scorer (with ``prmse`` when there
    are second marks), then, with second marks, one for the second teacher against the
    first on the double-marked tuples. Tuple columns: mark, [second mark], each score."""
    h = resampling.column(0)
    observed = resampling.observed().weights[0]
    centre_h = centre(h, observed)
    first = 2 if second else 1
    parts: list[dict[str, list[np.ndarray]]] = [{} for _ in range(scorers + (1 if second else 0))]

    def add(k: int, figures: dict[str, np.ndarray]) -> None:
        for key, values in figures.items():
            parts[k].setdefault(key, []).append(values)

    pairs = [PairColumns(h, p, (centre_h, centre(p, observed)))
             for p in (resampling.column(first + k) for k in range(scorers))]
    if second:
        h2 = resampling.column(1)
        double = ~np.isnan(h2)
        humans = PairColumns(h[double], h2[double], (centre(h[double], observed[double]),
                                                     centre(h2[double], observed[double])))
        centre_marks = mark_centre(h, h2, observed)
        true = [TrueScoreColumns(h, h2, resampling.column(first + k), centre_marks) for k in range(scorers)]
    for sample in resampling.samples(count, seed):
        for k in range(scorers):
            add(k, pairs[k].figures(sample))
            if second:
                add(k, {"prmse": true[k].figures(sample)["prmse"]})
        if second:
            add(scorers, humans.figures(subset(sample, double)))
    return [defaultdict(lambda: np.empty(0), {key: np.concatenate(values) for key, values in part.items()})
            for part in parts]


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
        row = SplitRow(table.row_number(int(i)), ids[i], table.answers[i], None if math.isnan(mark) else mark,
                       {s.name: None if math.isnan(s.scores[i]) else float(s.scores[i]) for s in scorers})
        for s in scorers:
            if s.rule is not None:
                from ..explain import explain, summary

                row.explanations[s.name] = summary(explain(s.rule, table.answers[i]))
        out.append(row)
    return out
