"""The rule workbench (:mod:`coscore.workbench`) mounted on the original app: its rules
and datasets are the app's database's, its jobs run in the app's worker pool.

:class:`AppCatalog` is what the workbench asks of a store: the stored rules and datasets,
a dataset as a :class:`~coscore.workbench.scorings.Source`, and saving a rule through the
original route (``/api/saveRule``). A dataset of the original app is CSV text in the
``text,score`` layout: a row's answer is read as a task reads it (the text before the
line's first comma, split on ``-`` into blanks: :func:`.answers.task_answers`), its mark
is the second comma-separated field, as a number (fractions kept). A mark that is empty
or not a number (缺考, -) is no mark: its row is left out of the agreement and counted, as
``--missing-marks skip`` does; a mark that is not finite (``inf``, ``nan``) or lies outside
0–10 refuses the dataset (422, naming the row). Only datasets stored as ``labeled`` have marks.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..http.bodies import Body
from ..http.responses import ApiError, json_bytes
from ..messages import shorten
from ..workbench import Answers
from .answers import TaskFailed, task_answers

if TYPE_CHECKING:
    from .api import Api

__all__ = ["AppCatalog", "LegacyData", "LegacySource", "legacy_marks"]

_NUMBER = r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$"
#: A mark written as a number that is not finite (JavaScript's ``Infinity`` passes the
#: original's upload check).
_NOT_FINITE = re.compile(r"[-+]?(inf|infinity|nan)", re.IGNORECASE)


def legacy_marks(lines: list[str]) -> tuple[np.ndarray, dict[str, Any]]:
    """Each line's mark (its second comma-separated field as a number), NaN where it is
    empty or not a number; and those rows, counted (``{"rows", "values": {field: rows}}``,
    ``""`` for empty, the most frequent first). :class:`TaskFailed` for the first mark that
    is not finite or lies outside 0–10, naming its row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io import string_array
    from ..language import SCORE_SCALE as RANGE

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


@dataclass(frozen=True)
class LegacyData:
    """A dataset's text, its length and whether it has marks: what a worker scores."""

    text: str
    count: Any
    labelled: bool

    def load(self) -> Answers:
        """The answers and marks (in a worker); 422 when the length does not fit the lines
        or a mark is not finite or lies outside 0–10."""
        try:
            answers = task_answers(self.text, self.count)
            lines = self.text.split("\n", len(answers) + 1)[1 : len(answers) + 1]
            marks, left = legacy_marks(lines) if self.labelled else (None, None)
        except TaskFailed as exc:
            raise ApiError(422, str(exc)) from None
        return Answers(answers.blanks, marks, left)


class LegacySource:
    """A dataset of the app's database, by its name and what says it is still the same
    (its creation time, length and type): the text is read once, when first scored."""

    def __init__(self, store: Any, name: str, meta: tuple[Any, ...]):
        self.store = store
        self.name = name
        self.meta = meta
        self.key = ("app", name, *meta)
        self._data: LegacyData | None = None
        self._lines: list[str] | None = None

    def payload(self) -> LegacyData:
        if self._data is None:
            rows = self.store.read("SELECT data FROM data WHERE name = ? AND create_time IS ? AND length IS ?",
                                   (self.name, self.meta[0], self.meta[1]))
            if not rows or not isinstance(rows[0][0], str):
                raise ApiError(409, f"the dataset {self.name!r} changed while it was read; try again")
            self._data = LegacyData(rows[0][0], self.meta[1], self.meta[2] == "labeled")
        return self._data

    def answers_of(self, rows: Sequence[int]) -> list[list[str]]:
        if self._lines is None:
            self._lines = self.payload().text.split("\n")
        picked = [self._lines[i + 1] for i in rows]
        return list(task_answers("\n".join(["text", *picked]), len(picked)))


class AppCatalog:
    """The workbench's view of the app: its ``api`` (:class:`.api.Api`: the database and
    the original routes). No file import, versions or exams: those are ``coscore workbench``'s."""

    features: ClassVar[dict[str, bool]] = {"files": False, "versions": False, "exams": False, "app": True}

    def __init__(self, api: Api):
        self.api = api
        self.store = api.store

    def listing(self) -> dict[str, Any]:
        """The stored rules (with their text) and datasets (without their data)."""
        rows = self.store.read("SELECT name, description, type, length, create_time FROM data")
        rules = [{k: r[k] for k in ("name", "prompt", "rule", "created", "modified")} for r in self.store.rules()]
        return {"rules": rules,
                "datasets": [{"name": r[0], "desc": r[1], "type": r[2], "count": r[3], "created": r[4]} for r in rows]}

    def source(self, name: str, view: Any = None) -> LegacySource:
        """The dataset called ``name``; 404 when there is none."""
        if view is not None:
            raise ApiError(400, "the datasets of the original app have one layout (text,score): no 'columns'")
        rows = self.store.read("SELECT create_time, length, type FROM data WHERE name = ?", (name,))
        if not rows:
            raise ApiError(404, f"no dataset named {name!r}")
        return LegacySource(self.store, name, tuple(rows[0]))

    async def save_rule(self, name: str, prompt: str | None, text: str) -> dict[str, Any]:
        """Store the rule through the original route (inserted or updated by name, ``desc``
        from the prompt); without ``prompt`` the stored one is kept (empty for a new rule)."""
        from starlette.concurrency import run_in_threadpool

        if prompt is None:
            rows = await run_in_threadpool(self.store.read, "SELECT prompt FROM rules WHERE name = ?", (name,))
            prompt = rows[0][0] if rows and isinstance(rows[0][0], str) else ""
        with Body(json_bytes({"name": name, "prompt": prompt, "rule": text}), None, 0, None) as body:
            reply = await self.api.save_rule(body)  # the original route's checks and storage
        return {**reply, "name": name}
