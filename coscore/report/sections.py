"""The sections of a full agreement report beyond the overall figures: where the data
and rule came from, the answers the rule gets most wrong (explained), each combo's share,
each mark level, each subgroup (:mod:`.groups`) and a second teacher's marks
(:mod:`.humans`).
"""
from __future__ import annotations

import datetime as _dt
import math
import os
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..labelled import RESULT_PREFIX, Table, file_hash
from ..marks import LeftOut, left_out
from .groups import GroupStats, cells, group_stats
from .humans import Consistency, consistency
from .stats import Agreement, agreement, disagreement_order, round_half_up

if TYPE_CHECKING:
    from ..rule import Rule

#: The per-combo columns ``coscore score`` writes: ``coscore_combo_<ID>``.
COMBO_PREFIX = RESULT_PREFIX + "combo_"
ERROR_COLUMN = RESULT_PREFIX + "error"


@dataclass
class Provenance:
    """What a report is about: the rule file (name and SHA-256), the data file, the date
    (UTC, ISO 8601; ``SOURCE_DATE_EPOCH`` fixes it for reproducible outputs)."""

    rule: str | None
    rule_sha256: str | None
    data: str
    date: str

    @classmethod
    def of(cls, data: str, rule_path: str | None = None) -> Provenance:
        """The provenance of a report on ``data`` with the rule file at ``rule_path``."""
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        moment = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch and epoch.isdigit()
                  else _dt.datetime.now(_dt.timezone.utc))
        rule = os.path.basename(rule_path) if rule_path else None
        digest = file_hash(rule_path) if rule_path else None
        return cls(rule, digest, str(data), moment.replace(microsecond=0).isoformat())


@dataclass
class Disagreement:
    """One answer the scorer gets wrong: both numbers and why (``explanation``: the
    combos that counted and each atom call's evidence, in short)."""

    row: int
    id: str
    answer: list[str]
    mark: float
    score: float | None
    error: str | None
    explanation: list[str] = field(default_factory=list)


@dataclass
class ComboStats:
    """One combo over the rows with a mark and a score: the share where it counts
    (contributes non-zero), its mean contribution and its correlation with the mark."""

    id: str
    counts: float | None
    mean_contribution: float | None
    correlation: float | None


@dataclass
class LevelStats:
    """One mark level (rounded half up): how many rows, their mean score and the share
    scored exactly that level."""

    mark: int
    n: int
    mean_score: float
    exact_agreement: float


@dataclass
class FullReport:
    """Everything ``coscore report`` shows."""

    provenance: Provenance
    label: str
    pred: str
    agreement: Agreement
    disagreements: list[Disagreement]
    combos: list[ComboStats]
    levels: list[LevelStats]
    by: str | None = None
    groups: list[GroupStats] = field(default_factory=list)
    consistency: Consistency | None = None
    #: ``--missing-marks``; with ``skip``, the rows left out for their mark (``left_out``)
    #: and for their second mark (``left_out_label2``).
    missing_marks: str = "error"
    left_out: LeftOut | None = None
    left_out_label2: LeftOut | None = None
    #: With a rule: the rows that rule scores otherwise than the file's score column.
    rescored: Rescored | None = None

    def left_out_lines(self) -> list[str]:
        """A line for each mark column with rows left out (``--missing-marks skip``), and
        one when the rule scores some rows otherwise than the file does."""
        lines = [found.describe() for found in (self.left_out, self.left_out_label2) if found and found.rows]
        return lines + ([self.rescored.describe(self.pred)] if self.rescored is not None else [])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the overall figures at the top level (as
        :meth:`Agreement.to_dict`), then the provenance and every section; with a second
        mark column, ``label2`` and ``consistency`` (:meth:`.humans.Consistency.to_dict`);
        ``missing_marks``, ``left_out`` and ``left_out_label2`` (:meth:`LeftOut.to_dict`, or
        ``None`` unless ``--missing-marks skip``)."""
        out = self.agreement.to_dict()
        out.update(asdict(self.provenance))
        out.update(
            label=self.label,
            pred=self.pred,
            disagreements=[asdict(d) for d in self.disagreements],
            combos=[asdict(c) for c in self.combos],
            levels=[asdict(level) for level in self.levels],
            by=self.by,
            groups=[g.to_dict() for g in self.groups],
            label2=self.consistency.label2 if self.consistency else None,
            consistency=self.consistency.to_dict() if self.consistency else None,
            missing_marks=self.missing_marks,
            left_out=self.left_out.to_dict() if self.left_out else None,
            left_out_label2=self.left_out_label2.to_dict() if self.left_out_label2 else None,
            rescored_differ=asdict(self.rescored) if self.rescored is not None else None,
            summary=self.summary(),
        )
        return json_ready(out)

    def summary(self) -> list[str]:
        """The plain-language sentences that head the report (:func:`.summary.report_summary`)."""
        from .summary import report_summary

        return report_summary(self)


@dataclass
class Rescored:
    """The rows the report's rule scores otherwise than the scored file says: how many,
    and the first (its row, the file's score and the rule's)."""

    rows: int
    first_row: int
    in_file: float | None
    rescored: float | None

    def describe(self, pred: str) -> str:
        """One line: the evidence shown is for the rule's scores, not the file's."""
        def shown(value: float | None) -> str:
            return "no score" if value is None else f"{value:g}"

        return (f"warning: the rule scores {self.rows} row{'s' * (self.rows != 1)} otherwise than the file's {pred} "
                f"(first: row {self.first_row}, {shown(self.in_file)} in the file, {shown(self.rescored)} now): "
                "the evidence below is for the rule's scores — was the file scored with another rule, or other "
                "blank columns (--blanks)?")


def rescored(table: Table, scores: np.ndarray, rule: Rule) -> Rescored | None:
    """Where ``rule`` scores ``table``'s answers otherwise than ``scores`` (the file's), or
    ``None``. The file's scores may be rounded (``--decimals``): the rule's are rounded to
    the fewest decimals that write every one of the file's."""
    again = table.score(rule).scores
    places = _decimals(scores)
    if places is not None:
        again = np.round(again, places)
    same = (again == scores) | (np.isnan(again) & np.isnan(scores))
    differ = np.flatnonzero(~same)
    if not differ.size:
        return None
    i = int(differ[0])

    def value(x: float) -> float | None:
        return None if math.isnan(x) else float(x)

    return Rescored(int(differ.size), table.row_number(i), value(float(scores[i])), value(float(again[i])))


def _decimals(values: np.ndarray) -> int | None:
    """The fewest decimal places that write every finite value as it is (``None``: more than 15)."""
    finite = values[np.isfinite(values)]
    for places in range(16):
        if np.array_equal(np.round(finite, places), finite):
            return places
    return None


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, ±inf) as ``None``, for strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def build_report(
    table: Table,
    pred: str,
    provenance: Provenance,
    rule: Rule | None = None,
    by: str | None = None,
    top: int = 10,
    label2: str | None = None,
) -> FullReport:
    """The full report on a scored ``table`` (its label is the mark) for score column
    ``pred``; ``rule`` (compiled) adds the evidence to each disagreement, ``by`` the
    figures per value of that column, ``label2`` (a column of second marks) human–human
    agreement and PRMSE."""
    marks, scores = table.marks, table.numbers(pred)
    second = table.marks_of(label2, "second mark") if label2 else None
    skip = table.missing_marks == "skip"
    return FullReport(
        provenance,
        table.label or "",
        pred,
        agreement(marks, scores),
        disagreements(table, scores, rule, top),
        combo_stats(table, marks, scores),
        level_stats(marks, scores),
        by,
        group_stats(column_cells(table, by), marks, scores) if by else [],
        consistency(marks, second, scores, label2) if label2 else None,
        table.missing_marks,
        left_out(table, table.label) if skip and table.label in table.columns else None,
        left_out(table, label2, second, "second mark") if skip and label2 else None,
        rescored(table, scores, rule) if rule is not None else None,
    )


def disagreements(table: Table, scores: np.ndarray, rule: Rule | None, top: int) -> list[Disagreement]:
    """The ``top`` rows with the largest |score − mark|, explained."""
    out = []
    ids = table.ids
    errors = table.columns.get(ERROR_COLUMN)
    combo_columns = [c for c in table.columns if c.startswith(COMBO_PREFIX)]
    for i in disagreement_order(scores, table.marks)[:top]:
        score = None if math.isnan(scores[i]) else float(scores[i])
        error = (errors[i] or None) if errors else None
        out.append(Disagreement(table.row_number(i), ids[i], table.answers[i], float(table.marks[i]), score,
                                error if score is None else None,
                                _why(rule, table, i, combo_columns)))
    return out


def _why(rule: Rule | None, table: Table, i: int, combo_columns: list[str]) -> list[str]:
    """The rule's short explanation of row ``i``, or else the combos its scored columns show."""
    if rule is not None:
        from ..explain import explain, summary

        return summary(explain(rule, table.answers[i]))
    counted = [f"{name[len(COMBO_PREFIX):]}={table.columns[name][i]}" for name in combo_columns
               if table.columns[name][i] not in (None, "", 0, "0", "0.0")]
    return [f"combos: {', '.join(counted) or 'none counted'}"] if combo_columns else []


def combo_stats(table: Table, marks: np.ndarray, scores: np.ndarray) -> list[ComboStats]:
    """Per-combo figures from the ``coscore_combo_<ID>`` columns, over rows with both numbers."""
    both = ~np.isnan(marks) & ~np.isnan(scores)
    out = []
    for name in table.columns:
        if not name.startswith(COMBO_PREFIX):
            continue
        values = table.numbers(name)[both]
        values = np.where(np.isnan(values), 0.0, values)
        h = marks[both]
        n = values.size
        out.append(ComboStats(
            name[len(COMBO_PREFIX):],
            float((values != 0).mean()) if n else None,
            float(values.mean()) if n else None,
            _correlation(values, h),
        ))
    return out


def _correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return None
    return max(-1.0, min(1.0, float(np.corrcoef(x, y)[0, 1])))


def level_stats(marks: np.ndarray, scores: np.ndarray) -> list[LevelStats]:
    """Per mark level (rounded half up): n, mean score, exact agreement."""
    both = ~np.isnan(marks) & ~np.isnan(scores)
    h, p = round_half_up(marks[both]), scores[both]
    out = []
    for level in sorted(set(h.tolist())):
        rows = h == level
        out.append(LevelStats(int(level), int(rows.sum()), float(p[rows].mean()),
                              float((round_half_up(p[rows]) == level).mean())))
    return out


def column_cells(table: Table, column: str) -> list[str]:
    """The cells of ``column`` as text (:func:`.groups.cells`); :class:`coscore.io.InputError`
    when there is no such column."""
    from ..io import InputError

    if column not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=column)
    return cells(table.columns[column])
