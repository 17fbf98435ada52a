"""``POST /v1/exam/score``: every paper of an exam scored, each item by its own rule.

The request is ``{"exam": {<an inline exam>}, "papers": [{"q1": answer, ...}, ...]}``: the
exam as an exam file holds it (:func:`coscore.exam.load_exam`; every rule inline, a rule
given as a path is refused, the server never reads its own files), and one object per
student naming each item's answer (an array of blanks, or one string). The answer is
``{"papers": [{"q1": {"score", "combos", "error"}, ..., "total"}, ...], "warnings": {"q1":
[...], ...}}`` (each item's warnings are what ``/v1/check`` finds in its rule, the type
pass's findings included, at most :data:`~coscore.http.rules.MAX_LISTED` of them, errors
first; ``"warningsOmitted": {"q1": N}`` counts the rest of an item that has more); ``total``
is the weighted sum of the item scores, ``null`` when an item failed or has no answer.
Each item's answers (over every paper) are scored in one call of its rule's
``score_many``, so a score equals what ``/v1/score`` gives for the same rule and answer.

An exam's budgets are the sum of its items': at most :data:`MAX_EXAM_ITEMS` items, each
rule compiled under the service's limits; the answer's size (papers × Σ (combos + 2)
numbers) is checked before scoring; and the request may run for the per-request timeout
times its number of items, checked here every :data:`CHECK_EVERY` answers (the pool
itself stops the job only at the timeout times :data:`MAX_EXAM_ITEMS`, the most any exam
may get).
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from ..diagnostics import json_type, shorten
from ..http.bodies import json_object
from ..http.responses import ApiError, floats
from ..http.rules import findings, listed
from ..limits import Limits

if TYPE_CHECKING:  # the exam model (and YAML) are imported by the first exam request
    from ..exam import Exam, ExamProblem
    from ..rule import Rule

__all__ = ["CHECK_EVERY", "MAX_EXAM_ITEMS", "NO_ANSWER", "ExamClock", "score_exam"]

#: The most items an exam of one request may have (each item's rule has the rule budgets).
MAX_EXAM_ITEMS = 100
#: Answers of one item scored between two looks at the request's clock.
CHECK_EVERY = 1024
#: The error of an item a paper gives no answer for.
NO_ANSWER = "no answer for this item"


class ExamClock:
    """The wall-time budget of one exam request: ``timeout`` seconds per item, counted
    from when the clock was made (``timeout`` ``None``: no budget)."""

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.started = time.monotonic()
        self.limit: float | None = None

    def start(self, items: int) -> None:
        """The exam has ``items`` items: its budget is ``timeout × items``."""
        if self.timeout is not None:
            self.limit = self.timeout * items
        self.check()

    def check(self) -> None:
        """:class:`ApiError` 503 ``"budget": "time"`` once the budget has run out."""
        if self.limit is not None and time.monotonic() - self.started > self.limit:
            raise ApiError.budget("time", f"the request ran past its {self.limit:g} s budget ({self.timeout:g} s "
                                  "for each item of the exam) and was stopped", self.limit)


def score_exam(body: bytes, *, limits: Limits, clock: ExamClock, max_response: int) -> dict:
    """``POST /v1/exam/score``: see the module's description; rules compiled with
    ``limits``, no answer over ``max_response`` bytes, the time on ``clock``."""
    data = json_object(body, ("exam", "papers"))
    exam = _load(data["exam"], limits)
    clock.start(len(exam.items))
    papers = _papers(data["papers"], exam)
    numbers = len(papers) * sum(len(item.rule.combo_ids) + 2 for item in exam.items)
    if 2 * numbers > max_response:  # each number takes 2 bytes at least ("0,")
        raise ApiError.budget("response", f"the answer would hold {numbers:,} numbers, at least {2 * numbers:,} "
                              f"bytes; the limit is {max_response:,} (send fewer papers, or fewer items, per "
                              "request)", max_response)
    results: list[dict[str, Any]] = [{} for _ in papers]
    warnings, omitted = {}, {}
    for item in exam.items:
        found = listed(findings(item.rule))  # what /v1/check finds in the item's rule
        warnings[item.name] = found["warnings"]
        if "warningsOmitted" in found:
            omitted[item.name] = found["warningsOmitted"]
        clock.check()
        _score_item(item.name, item.rule, papers, results, clock)
    for paper in results:
        paper["total"] = _total(exam, paper)
    return {"papers": results, "warnings": warnings, **({"warningsOmitted": omitted} if omitted else {})}


def _load(source: Any, limits: Limits) -> Exam:
    """The request's exam, compiled with ``limits``; 422 ``invalid exam`` listing every
    problem, or 422 ``"budget": "exam_items"`` past :data:`MAX_EXAM_ITEMS` items."""
    from ..exam import ExamError, ExamProblem, load_exam

    if not isinstance(source, dict):  # a string would be the path of a file: never read one
        raise _invalid([ExamProblem("", f"an exam is a JSON object with items (inline rules), not "
                                        f"{json_type(source)}")])
    items = source.get("items")
    if isinstance(items, list) and len(items) > MAX_EXAM_ITEMS:
        raise ApiError(422, f"the exam has {len(items):,} items; the limit is {MAX_EXAM_ITEMS:,} per request (send "
                       "the items in several requests)", budget="exam_items", limit=MAX_EXAM_ITEMS)
    try:
        return load_exam(source, limits=limits, allow_files=False)
    except ExamError as exc:
        raise _invalid(exc.problems) from None


def _invalid(problems: list[ExamProblem]) -> ApiError:
    """The 422 of an exam that cannot be used, every problem listed (messages shortened)."""
    listed = [{**p.to_dict(), "where": shorten(p.where, 300), "message": shorten(p.message)} for p in problems]
    return ApiError(422, "invalid exam", problems=listed)


def _papers(value: Any, exam: Exam) -> list[dict]:
    """The request's papers: an array of objects naming only the exam's items; 400 otherwise."""
    if not isinstance(value, list):
        raise ApiError(400, f"'papers' must be an array of papers (objects: item name → answer), not "
                       f"{json_type(value)}")
    names = set(exam.names)
    for index, paper in enumerate(value):
        if not isinstance(paper, dict):
            raise ApiError(400, f"papers[{index}] must be an object (item name → answer), not {json_type(paper)}")
        for key in paper:
            if key not in names:
                listed = ", ".join(shorten(n, 80) for n in exam.names[:50]) + (", …" if len(names) > 50 else "")
                raise ApiError(400, f"papers[{index}]: {shorten(repr(key), 200)} is not an item of the exam "
                               f"(items: {listed})")
    return value


def _score_item(name: str, rule: Rule, papers: list[dict], results: list[dict[str, Any]], clock: ExamClock) -> None:
    """Score every paper's answer to the item ``name`` with ``rule`` (``score_chunks``:
    :data:`CHECK_EVERY` answers at a time, the clock checked after each, so that one item
    with many papers cannot outrun the budget by more than a chunk's work); each paper's
    result goes to ``results`` (a paper without an answer gets :data:`NO_ANSWER`)."""
    present = [index for index, paper in enumerate(papers) if name in paper]
    scores: list[float | None] = []
    combos: dict[str, list[float | None]] = {cid: [] for cid in rule.combo_ids}
    errors: list[str | None] = []
    for batch in rule.score_chunks([papers[index][name] for index in present], chunk_size=CHECK_EVERY):
        scores += floats(batch.scores)   # a malformed answer is its own error
        for cid, values in batch.combos.items():
            combos[cid] += floats(values)
        errors += batch.errors
        clock.check()
    missing = {"score": None, "combos": dict.fromkeys(rule.combo_ids), "error": NO_ANSWER}
    for result in results:
        result[name] = missing
    for row, index in enumerate(present):
        error = errors[row]
        results[index][name] = {"score": scores[row], "combos": {cid: values[row] for cid, values in combos.items()},
                                "error": None if error is None else shorten(error)}


def _total(exam: Exam, paper: dict[str, Any]) -> float | None:
    """Σ weight × score over the exam's items (in their order, as ``coscore score EXAM``
    sums them), or ``None`` when an item failed, has no answer or the sum is not finite."""
    total = 0.0
    for item in exam.items:
        result = paper[item.name]
        if result["error"] is not None or result["score"] is None:
            return None
        total += item.weight * result["score"]
    return total if math.isfinite(total) else None
