"""A compiled rule and its results: :func:`compile`, :class:`Rule`, :class:`Outcome`, :class:`Batch`."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence, Union

import numpy as np

from . import atoms as _atoms
from . import columns as _columns
from . import engine as _engine
from .diagnostics import Diagnostic
from .expr.evaluate import Answer as _Answer
from .expr.evaluate import combo_result, compile_tree, total
from .spec import RuleSource, RuleSpec, read

#: An answer: its blanks, or one string for a one-blank answer.
AnswerLike = Union[Sequence[str], str]


@dataclass(frozen=True)
class Outcome:
    """The result of scoring one answer.

    ``score`` is the clamped total (``None`` when the answer failed), ``combos`` each
    combo's contribution in rule order (the combos that completed, when it failed),
    ``error`` a one-line message such as ``"combos.B: division by zero"``, else ``None``.
    """

    score: float | None
    combos: dict[str, float]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Batch:
    """The results of scoring many answers, aligned with the input order.

    ``scores`` is a float64 array (NaN where the answer failed), ``errors`` a list of
    messages (``None`` where it did not), ``combos`` maps each combo id to a float64
    array of its contributions (NaN from the failing combo on).
    """

    scores: np.ndarray
    errors: list[str | None]
    combos: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scores)

    def __getitem__(self, index: int) -> Outcome:
        error = self.errors[index]
        combos = {
            cid: float(values[index])
            for cid, values in self.combos.items()
            if error is None or not math.isnan(values[index])
        }
        return Outcome(None if error is not None else float(self.scores[index]), combos, error)

    @property
    def failed(self) -> np.ndarray:
        """A boolean mask of the answers that failed."""
        return np.fromiter((e is not None for e in self.errors), dtype=bool, count=len(self.errors))


@dataclass(frozen=True)
class AtomCall:
    """One ``G``/``M`` call made while scoring an answer (see :meth:`Rule.trace`)."""

    combo: str
    op: str
    atom: str
    text: Any
    hit: bool
    value: int | float


class Rule:
    """A compiled CoScore rule. Make one with :func:`coscore.compile`."""

    def __init__(self, spec: RuleSpec):
        self.spec = spec
        self.warnings: list[Diagnostic] = list(spec.warnings)
        self.atoms: dict[str, _atoms.Atom] = {aid: _atoms.build(a) for aid, a in spec.atoms.items()}
        self.combo_ids: list[str] = [c.id for c in spec.combos]
        self.combo_mode: str = spec.combo_mode
        self.dialect: str = spec.dialect
        self._manual = spec.dialect == "manual"
        self._combos = [(c.id, compile_tree(c.tree), c.score, c.mode) for c in spec.combos]
        self._plan = _engine.plan(self)

    def __repr__(self) -> str:
        return f"<coscore.Rule {len(self.atoms)} atoms, combos {','.join(self.combo_ids)} {self.combo_mode}>"

    # -- one answer ------------------------------------------------------------------
    def _evaluate(self, blanks: list, results: list, trace: list | None = None):
        """The raw total (Python int/float, as the original) of one answer.

        Appends each combo's raw result to ``results`` as it completes, so after an
        exception ``len(results)`` is the index of the failing combo. Errors are the
        original engine's exception classes.
        """
        answer = _Answer(blanks, self.atoms, self._manual, trace)
        for _, evaluate, score, mode in self._combos:
            if trace is not None:
                trace.append(len(results))
            results.append(combo_result(evaluate(answer), score, mode))
        return total(results, self.combo_mode)

    def score(self, answer: AnswerLike) -> Outcome:
        """Score one answer (a list of blanks, or one string for a one-blank answer)."""
        return self._outcome(answer, None)

    def trace(self, answer: AnswerLike) -> tuple[Outcome, list[AtomCall]]:
        """Score one answer and list every atom call made, in evaluation order."""
        events: list = []
        outcome = self._outcome(answer, events)
        calls: list[AtomCall] = []
        combo = self.combo_ids[0] if self.combo_ids else ""
        for event in events:
            if isinstance(event, int):
                combo = self.combo_ids[event]
            else:
                calls.append(AtomCall(combo, *event))
        return outcome, calls

    def _outcome(self, answer: AnswerLike, trace: list | None) -> Outcome:
        results: list = []
        try:
            blanks = _blanks(answer)
        except TypeError as exc:
            return Outcome(None, {}, f"answer: {exc}")
        try:
            value = self._evaluate(blanks, results, trace)
        except Exception as exc:  # one answer's failure never escapes
            combos = {cid: _as_float(r) for cid, r in zip(self.combo_ids, results)}
            return Outcome(None, combos, _message(self.combo_ids, results, exc))
        combos = {cid: _as_float(r) for cid, r in zip(self.combo_ids, results)}
        return Outcome(float(value), combos)

    # -- many answers ----------------------------------------------------------------
    def score_many(self, answers: Iterable[AnswerLike], jobs: int = 1, chunk_size: int | None = None) -> Batch:
        """Score many answers; results keep the input order.

        ``answers`` is any iterable of answers (lists of blanks, or strings), or blank
        columns: a ``pyarrow.Table``/``RecordBatch`` or a list of Arrow arrays, one
        per blank in order (a null cell is ``""``; see :mod:`coscore.columns`). Identical
        answers are scored once, each atom runs once per distinct string, and combos are
        evaluated over whole columns. ``jobs`` threads score chunks in parallel
        (``-1``: every core). The result equals scoring each answer with :meth:`score`.
        """
        columns = _columns.as_blank_columns(answers)
        if columns is not None:
            answers = _columns.answers_from_columns(columns)
        return _engine.score_many(self, answers, jobs=jobs, chunk_size=chunk_size)

    def score_chunks(
        self, answers: Iterable[AnswerLike], chunk_size: int = _engine.DEFAULT_CHUNK_SIZE, jobs: int = 1
    ) -> Iterator[Batch]:
        """Score a stream of answers lazily, one :class:`Batch` per ``chunk_size`` answers.

        Memory stays bounded by the chunk size whatever the stream's length.
        """
        return _engine.score_chunks(self, answers, chunk_size=chunk_size, jobs=jobs)


def compile(source: RuleSource, *, dialect: str | None = None) -> Rule:  # noqa: A001 - public name
    """Compile a rule from a dict, JSON text, or a path (``os.PathLike``) to a JSON file.

    ``dialect`` is ``"coscore"`` (the original engine: ``L`` counts distinct CJK
    characters) or ``"manual"`` (``L`` is the number of characters, as the manual
    says); by default the rule's own ``"dialect"`` key, else ``"coscore"``.
    Raises :class:`coscore.RuleError` listing every problem.
    """
    return Rule(read(source, dialect))


def _blanks(answer: AnswerLike) -> list:
    if isinstance(answer, str):
        return [answer]
    if isinstance(answer, (list, tuple)):
        return list(answer)
    raise TypeError(f"an answer is a list of blanks or a string, not {type(answer).__name__}")


def _as_float(value) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _message(combo_ids: list[str], results: list, exc: Exception) -> str:
    """``"combos.B: division by zero"`` — where it failed, and why, on one line."""
    if isinstance(exc, ZeroDivisionError):
        why = "division by zero"
    elif isinstance(exc, KeyError) and exc.args:
        why = str(exc.args[0])
    else:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    index = len(results)
    if index < len(combo_ids):
        return f"combos.{combo_ids[index]}: {why}"
    return f"score: {why}" if results or not combo_ids else why
