"""A dataset scored by a rule, for the workbench's dataset view.

:func:`analyse` runs in a worker process. It takes a dataset's answers as a source gives
them (:class:`Answers`: the blanks as an Arrow table — blank columns, or one column of
lists of blanks — the teachers' marks, NaN where a row has none, and what was left out),
scores them all with :meth:`coscore.Rule.score_many` and keeps, as a :class:`Scored`,
what the view shows: the agreement with the marks (:func:`coscore.report.agreement`,
intervals from :func:`coscore.report.compare.agreement_intervals`), the rows in order of
disagreement (:func:`coscore.report.disagreement_order`), the distinct answers by count and
the distributions of marks and scores, so that :func:`page` can show any page of rows
later (their answers read back by the source) without scoring again.

Where the answers come from is the source's business: a file imported into the
workbench's store (:mod:`.datasets`), or a dataset of the original app's database
(:mod:`coscore.webapp.bench`).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..catalog import said
from ..report import SCALE, agreement, disagreement_order, round_half_up
from ..report.bootstrap import LEVEL, RESAMPLES, SEED
from ..report.compare import agreement_intervals

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["Answers", "Scored", "analyse", "page", "warm", "answer_keys", "score_blanks", "distinct_answers", "LISTS",
           "FIGURES"]

#: The figures of the agreement shown, in order (fields of :class:`coscore.report.Agreement`).
FIGURES = ("qwk", "exact_agreement", "adjacent_agreement", "kappa", "pearson_r", "smd", "rmse", "mean_human",
           "mean_pred", "sd_human", "sd_pred")
#: The lists of rows a page may show.
LISTS = ("disagreements", "distinct")
#: Failed answers whose messages are kept (the rest are counted).
KEPT_ERRORS = 10_000
#: What joins the blanks of an answer into one text where answers are compared (a
#: character no answer types: the unit separator).
_JOIN = "\x1f"


@dataclass
class Answers:
    """A dataset's answers as a source gives them to :func:`analyse`: ``blanks``, an Arrow
    table of the blank columns in order (or of one column of lists of blanks); ``marks``,
    each row's mark as a float, NaN where it has none (``None``: the dataset has no marks);
    ``left_out``, the rows without a mark counted (``{"rows", "values": {cell: rows}}``,
    ``None`` without marks); ``extra``: more figures for the summary (JSON-ready);
    ``distinct``: :func:`distinct_answers` of these answers and marks, when the source kept
    it (it depends on no rule: a file's is found once, when it is imported)."""

    blanks: Any
    marks: np.ndarray | None
    left_out: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    distinct: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


@dataclass
class Scored:
    """A dataset scored by a rule: per row (0-based) its ``scores`` (NaN where it failed)
    and ``marks`` (NaN where none; ``None`` for a dataset without marks); rows in order of
    disagreement (``order``); the distinct answers, most frequent first (``distinct``: each
    one's first row; ``counts``; ``distinct_marks``: their mean marks); the ``errors`` of
    failed rows; ``summary``: the JSON-ready figures."""

    scores: np.ndarray
    marks: np.ndarray | None
    order: np.ndarray
    distinct: np.ndarray
    counts: np.ndarray
    distinct_marks: np.ndarray
    errors: dict[int, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


def _is_lists(blanks: Any) -> bool:
    import pyarrow as pa

    return blanks.num_columns == 1 and (pa.types.is_list(blanks.schema.types[0])
                                        or pa.types.is_large_list(blanks.schema.types[0]))


def answer_keys(blanks: Any) -> Any:
    """Each answer as one text (its blanks joined by a character no answer holds): equal
    texts, equal answers. One array (chunks combined)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _is_lists(blanks):
        keys = pc.binary_join(blanks.column(0), _JOIN)
    elif not blanks.num_columns:
        keys = pa.array([""] * blanks.num_rows, pa.string())
    else:
        columns = [pc.fill_null(pc.cast(c, pa.string()), "") for c in blanks.columns]
        keys = columns[0] if len(columns) == 1 else pc.binary_join_element_wise(*columns, _JOIN)
    return keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys


def distinct_answers(blanks: Any, marks: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first row of each distinct answer, most frequent first (ties: earliest first),
    its count and its mean mark."""
    import pyarrow.compute as pc

    codes = pc.dictionary_encode(answer_keys(blanks)).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    if not codes.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    # codes are given in order of first appearance: a row is a first one where its code passes all before it
    before = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.concatenate(([True], codes[1:] > before[:-1])))
    counts = np.bincount(codes)
    if marks is None:
        means = np.full(counts.size, np.nan)
    else:
        marked = ~np.isnan(marks)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.bincount(codes, np.where(marked, marks, 0.0)) / np.bincount(codes, marked.astype(np.float64))
    order = np.argsort(-counts, kind="stable")   # ties: in order of first appearance
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


def _blank_counts(blanks: Any) -> dict[str, int] | None:
    import pyarrow.compute as pc

    if not blanks.num_rows:
        return None
    if not _is_lists(blanks):
        return {"min": blanks.num_columns, "max": blanks.num_columns}
    sizes = pc.list_value_length(blanks.column(0))
    return {"min": pc.min(sizes).as_py(), "max": pc.max(sizes).as_py()}


def score_blanks(rule: Rule, blanks: Any) -> Any:
    """``rule.score_many`` of a blanks table (:class:`Answers`)."""
    return rule.score_many(blanks if _is_lists(blanks) else list(blanks.columns))


def warm() -> None:
    """Load now what scoring a dataset loads the first time (pyarrow's first compute call
    imports pandas: about 0.3 s), so that the first dataset a worker scores is not the slow
    one. A worker calls it once, when it starts."""
    import pyarrow as pa

    distinct_answers(pa.table({"answers": pa.array([["a"]], pa.list_(pa.string()))}), np.array([1.0]))


def analyse(rule: Rule, answers: Answers, began: float | None = None) -> Scored:
    """Score ``answers`` with ``rule`` (compiled) and gather what the view shows (see the
    module's description); ``began``: when reading them began (``time.perf_counter``)."""
    began = time.perf_counter() if began is None else began
    blanks, marks = answers.blanks, answers.marks
    n = blanks.num_rows
    if answers.distinct is not None:
        batch = score_blanks(rule, blanks)
        first, counts, means = answers.distinct
    else:
        with ThreadPoolExecutor(1) as pool:   # the distinct answers counted while they are scored
            distinct = pool.submit(distinct_answers, blanks, marks)
            batch = score_blanks(rule, blanks)
            first, counts, means = distinct.result()
    scores = np.asarray(batch.scores, dtype=np.float64)
    errors: dict[int, str] = {}
    failed = 0
    for index, error in enumerate(batch.errors):
        if error is not None:
            failed += 1
            if len(errors) < KEPT_ERRORS:
                errors[index] = error
    order = np.asarray(disagreement_order(scores, marks) if marks is not None else [], dtype=np.int64)
    summary = {
        "answers": n,
        "labelled": marks is not None,
        "marked": int((~np.isnan(marks)).sum()) if marks is not None else 0,
        "left_out": answers.left_out,
        "failed": failed,
        "blanks": _blank_counts(blanks),
        "mean_score": _number(float(np.nanmean(scores))) if n and failed < n else None,
        "agreement": _agreement(scores, marks) if marks is not None else None,
        "distributions": {"scale": list(SCALE), "scores": _histogram(scores),
                          "marks": _histogram(marks) if marks is not None else None},
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "level": LEVEL, "of": "marks and scores"},
        "distinct_answers": int(first.size),
        "disagreeing": int(order.size),
        **answers.extra,
    }
    summary["seconds"] = round(time.perf_counter() - began, 4)
    small = np.int32 if n < 2**31 else np.int64   # what goes back to the server: half the bytes
    return Scored(scores, marks, order.astype(small), first.astype(small), counts.astype(small), means, errors,
                  summary)


def page(scored: Scored, answers_of: Callable[[Sequence[int]], list[list[str]]], which: str, number: int,
         size: int) -> dict[str, Any]:
    """Page ``number`` (0-based; clamped to the last) of ``size`` rows of list ``which``
    (``"disagreements"`` or ``"distinct"``), each row with its answer's blanks, which
    ``answers_of(rows)`` (0-based) reads back from the dataset."""
    rows = scored.order if which == "disagreements" else scored.distinct
    total = int(rows.size)
    pages = max(1, math.ceil(total / size))
    number = min(max(number, 0), pages - 1)
    picked = rows[number * size : (number + 1) * size].tolist()
    answers = answers_of(picked)
    out = []
    for j, i in enumerate(picked):
        score = _number(float(scored.scores[i]))
        mark = _number(float(scored.marks[i])) if scored.marks is not None else None
        row: dict[str, Any] = {"row": i + 1, "answer": answers[j], "score": score, "mark": mark}
        if score is None:
            row["error"] = scored.errors.get(i, "the answer cannot be scored")
            row["error_said"] = said(row["error"])  # the page writes it in its language (coscore.catalog)
        if which == "disagreements":
            row["gap"] = None if score is None or mark is None else abs(score - mark)
        else:
            position = number * size + j
            row["count"] = int(scored.counts[position])
            row["mean_mark"] = _number(float(scored.distinct_marks[position]))
        out.append(row)
    return {"list": which, "page": number, "pages": pages, "size": size, "total": total, "rows": out}
