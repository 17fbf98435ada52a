"""A stored dataset scored by a rule, for the workbench's dataset view.

:func:`score_dataset` runs in a worker process: it reads the dataset's answers as a task
does (:func:`coscore.webapp.answers.task_answers`: lines ``1..length``, the text before the
first comma split on ``-`` into blanks), scores them all with :meth:`coscore.Rule.score_many`
and keeps, as a :class:`Scored`, what the view shows: the agreement with the marks
(:func:`coscore.report.agreement`, intervals from :func:`coscore.report.compare.agreement_intervals`),
the rows in order of disagreement (:func:`coscore.report.disagreement_order`), the
distinct answers by count, the distributions of marks and scores, and where each answer's
line is in the data, so that :func:`page` can show any page of rows later without
scoring again.

A row's mark is the second comma-separated field of its line, as the original tasks page
reads it, taken as a number (fractions kept). A mark that is empty or not a number (缺考,
-) is no mark: its row is left out of the agreement and counted (``left_out``), as
``--missing-marks skip`` does; a mark that is not finite (``inf``, ``nan``) or
lies outside 0–10 refuses the dataset (:class:`~coscore.webapp.answers.TaskFailed`, naming
the row). Only datasets stored as ``labeled`` have marks.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...messages import shorten
from ...report import SCALE, agreement, disagreement_order, round_half_up
from ...report.compare import agreement_intervals
from ...report.bootstrap import LEVEL, RESAMPLES, SEED
from ..answers import TaskFailed, task_answers

__all__ = ["Scored", "score_dataset", "page", "warm", "LISTS", "FIGURES"]

#: The figures of the agreement shown, in order (fields of :class:`coscore.report.Agreement`).
FIGURES = ("qwk", "exact_agreement", "adjacent_agreement", "kappa", "pearson_r", "smd", "rmse", "mean_human",
           "mean_pred", "sd_human", "sd_pred")
#: The lists of rows a page may show.
LISTS = ("disagreements", "distinct")
#: Failed answers whose messages are kept (the rest are counted).
KEPT_ERRORS = 10_000
_NUMBER = r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$"
#: A mark written as a number that is not finite (JavaScript's ``Infinity`` passes the
#: original's upload check).
_NOT_FINITE = re.compile(r"[-+]?(inf|infinity|nan)", re.IGNORECASE)


@dataclass
class Scored:
    """A dataset scored by a rule: per row (0-based) its ``scores`` (NaN where it failed),
    ``marks`` (NaN where none; ``None`` for an unlabelled dataset), where its line is in
    the data (``starts``, ``ends``: character offsets); rows in order of disagreement
    (``order``); the distinct answers, most frequent first (``distinct``: each one's first
    row; ``counts``); the ``errors`` of failed rows; ``summary``: the JSON-ready figures."""

    scores: np.ndarray
    marks: np.ndarray | None
    starts: np.ndarray
    ends: np.ndarray
    order: np.ndarray
    distinct: np.ndarray
    counts: np.ndarray
    distinct_marks: np.ndarray
    errors: dict[int, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


def _line_offsets(lines: list[str], count: int) -> tuple[np.ndarray, np.ndarray]:
    """Where answer lines ``1..count`` start and end in the text they were split from."""
    lengths = np.fromiter(map(len, lines[: count + 1]), dtype=np.int64, count=count + 1)
    starts = np.cumsum(lengths + 1) - (lengths + 1)
    return starts[1:], starts[1:] + lengths[1:]


def _marks(lines: list[str]) -> tuple[np.ndarray, dict[str, Any]]:
    """Each line's mark (its second comma-separated field as a number), NaN where it is
    empty or not a number; and those rows, counted (``{"rows", "values": {field: rows}}``,
    ``""`` for empty, the most frequent first). :class:`TaskFailed` for the first mark that
    is not finite or lies outside 0–10, naming its row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ...expr.ranges import SCALE as RANGE
    from ...io.arrays import string_array

    fields = [line.split(",", 2)[1] if "," in line else "" for line in lines]  # short: quick to convert
    text = pc.utf8_trim_whitespace(string_array(fields))
    number = pc.if_else(pc.match_substring_regex(text, _NUMBER), text, pa.scalar(None, pa.string()))
    marks = pc.cast(number, pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)
    low, high = RANGE
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~((marks >= low) & (marks <= high)))   # no mark, not finite, out of range
    counts: dict[str, int] = {}
    for i, written in zip(odd.tolist(), text.take(pa.array(odd, pa.int64())).to_pylist()):
        if math.isnan(marks[i]) and not _NOT_FINITE.fullmatch(written):
            counts[written] = counts.get(written, 0) + 1
            continue
        shown = shorten(repr(written), 80)
        problem = (f"the mark {shown} is not a finite number: correct it in the dataset (a mark from 0 to 10)"
                   if _NOT_FINITE.fullmatch(written) else f"the mark {shown} is outside the 0–10 scale of coscore's "
                   "scores: correct it in the dataset (a mark on another scale must be rescaled to 0–10)")
        raise TaskFailed(f"row {i + 1} of the dataset (line {i + 2}): {problem}, or leave it empty to leave the row "
                         "unmarked")
    values = dict(sorted(counts.items(), key=lambda item: -item[1]))   # stable: ties in row order
    return marks, {"rows": sum(values.values()), "values": values}


def _distinct(blanks: Any, marks: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first row of each distinct answer, most frequent first (ties: earliest first),
    its count and its mean mark."""
    import pyarrow.compute as pc

    texts = pc.binary_join(blanks.column(0), "-")
    codes = pc.dictionary_encode(texts).combine_chunks().indices.to_numpy(zero_copy_only=False).astype(np.int64)
    if not codes.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    _, first = np.unique(codes, return_index=True)
    counts = np.bincount(codes)
    if marks is None:
        means = np.full(counts.size, np.nan)
    else:
        marked = ~np.isnan(marks)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.bincount(codes, np.where(marked, marks, 0.0)) / np.bincount(codes, marked.astype(np.float64))
    order = np.lexsort((first, -counts))
    return first[order], counts[order], means[order]


def _histogram(values: np.ndarray) -> list[int]:
    """Counts of ``values`` rounded half up on the 0–10 scale (NaN left out, the rest clipped)."""
    kept = values[~np.isnan(values)]
    rounded = np.clip(round_half_up(kept), SCALE[0], SCALE[-1])
    return np.bincount(rounded, minlength=len(SCALE)).tolist()


def _number(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _agreement(scores: np.ndarray, marks: np.ndarray) -> dict[str, Any] | None:
    """The agreement figures with their intervals; ``None`` when no row has a mark and a score."""
    found = agreement(marks, scores)
    if not found.n:
        return None
    intervals = agreement_intervals(marks, scores)
    out: dict[str, Any] = {"n": found.n}
    for name in FIGURES:
        ci = intervals.get(name)
        out[name] = {"value": _number(getattr(found, name)), "ci": list(ci) if ci else None}
    out.update(qwk_ok=found.qwk_ok, smd_ok=found.smd_ok, confusion=found.confusion,
               thresholds=found.to_dict()["thresholds"])
    return out


def warm() -> None:
    """Load now what reading a dataset loads the first time (pyarrow's first compute call
    imports pandas: about 0.3 s), so that the first dataset a worker scores is not the slow
    one. A worker calls it once, when it starts."""
    _distinct(task_answers("text\na", 1).blanks, _marks(["a,1"])[0])


def score_dataset(rule: Any, data: str, count: Any, labelled: bool) -> Scored:
    """Score the dataset text ``data`` (``count`` answers) with ``rule`` (compiled); see the
    module's description. Raises :class:`coscore.webapp.answers.TaskFailed` for a dataset
    whose length does not fit its lines, or with a mark that is not finite or lies outside 0–10."""
    import pyarrow.compute as pc

    began = time.perf_counter()
    answers = task_answers(data, count)
    n = len(answers)
    lines = data.split("\n")
    starts, ends = _line_offsets(lines, n)
    marks, left_out = _marks(lines[1 : n + 1]) if labelled else (None, None)
    batch = rule.score_many(answers.blanks)
    scores = np.asarray(batch.scores, dtype=np.float64)
    errors: dict[int, str] = {}
    failed = 0
    for index, error in enumerate(batch.errors):
        if error is not None:
            failed += 1
            if len(errors) < KEPT_ERRORS:
                errors[index] = error
    order = np.asarray(disagreement_order(scores, marks) if marks is not None else [], dtype=np.int64)
    first, counts, means = _distinct(answers.blanks, marks)
    sizes = pc.list_value_length(answers.blanks.column(0))
    summary = {
        "answers": n,
        "labelled": marks is not None,
        "marked": int((~np.isnan(marks)).sum()) if marks is not None else 0,
        "left_out": left_out,
        "failed": failed,
        "blanks": {"min": pc.min(sizes).as_py(), "max": pc.max(sizes).as_py()} if n else None,
        "mean_score": _number(float(np.nanmean(scores))) if n and failed < n else None,
        "agreement": _agreement(scores, marks) if marks is not None else None,
        "distributions": {"scale": list(SCALE), "scores": _histogram(scores),
                          "marks": _histogram(marks) if marks is not None else None},
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "level": LEVEL, "of": "marks and scores"},
        "distinct_answers": int(first.size),
        "disagreeing": int(order.size),
    }
    summary["seconds"] = round(time.perf_counter() - began, 4)
    return Scored(scores, marks, starts, ends, order, first, counts, means, errors, summary)


def page(scored: Scored, data: str, which: str, number: int, size: int) -> dict[str, Any]:
    """Page ``number`` (0-based; clamped to the last) of ``size`` rows of list ``which``
    (``"disagreements"`` or ``"distinct"``), each row with its answer's blanks."""
    rows = scored.order if which == "disagreements" else scored.distinct
    total = int(rows.size)
    pages = max(1, math.ceil(total / size))
    number = min(max(number, 0), pages - 1)
    picked = rows[number * size : (number + 1) * size]
    lines = [data[scored.starts[i] : scored.ends[i]] for i in picked.tolist()]
    answers = task_answers("\n".join(["text", *lines]), len(lines))
    out = []
    for j, i in enumerate(picked.tolist()):
        score = _number(float(scored.scores[i]))
        mark = _number(float(scored.marks[i])) if scored.marks is not None else None
        row: dict[str, Any] = {"row": i + 1, "answer": answers[j], "score": score, "mark": mark}
        if score is None:
            row["error"] = scored.errors.get(i, "the answer cannot be scored")
        if which == "disagreements":
            row["gap"] = None if score is None or mark is None else abs(score - mark)
        else:
            position = number * size + j
            row["count"] = int(scored.counts[position])
            row["mean_mark"] = _number(float(scored.distinct_marks[position]))
        out.append(row)
    return {"list": which, "page": number, "pages": pages, "size": size, "total": total, "rows": out}
