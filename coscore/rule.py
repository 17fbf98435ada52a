"""A compiled rule: :func:`compile` and :class:`Rule`, a thin face over :mod:`coscore.engine`."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from . import columns as _columns
from . import engine as _engine
from .atoms import Atom
from .diagnostics import Diagnostic, RuleError, shorten
from .engine import AnswerLike
from .limits import DEFAULT_LIMITS, Limits
from .reading import read
from .results import AtomCall, Batch, Outcome
from .spec import RuleSource

__all__ = ["compile", "Rule", "AnswerLike", "Outcome", "Batch", "AtomCall", "Limits"]


class Rule:
    """A compiled CoScore rule. Make one with :func:`coscore.compile`.

    Attributes: ``spec`` (the validated :class:`~coscore.spec.RuleSpec`), ``warnings``,
    ``atoms`` (id → prepared atom), ``combo_ids`` (rule order), ``combo_mode``, ``dialect``,
    ``limits`` (its :class:`~coscore.limits.Limits`).
    """

    def __init__(self, plan: _engine.Plan):
        self._plan = plan
        self.spec = plan.spec
        self.warnings: list[Diagnostic] = list(plan.spec.warnings)
        self.atoms: dict[str, Atom] = plan.atoms
        self.combo_ids: list[str] = plan.combo_ids
        self.combo_mode: str = plan.combo_mode
        self.dialect: str = plan.spec.dialect
        self.limits: Limits = plan.limits

    def __repr__(self) -> str:
        return f"<coscore.Rule {len(self.atoms)} atoms, combos {','.join(self.combo_ids)} {self.combo_mode}>"

    def score(self, answer: AnswerLike) -> Outcome:
        """Score one answer (a list of blanks, or one string for a one-blank answer)."""
        return _engine.score_one(self._plan, answer)

    def trace(self, answer: AnswerLike) -> tuple[Outcome, list[AtomCall]]:
        """Score one answer and list every atom call made, in evaluation order."""
        return _engine.trace(self._plan, answer)

    def evaluate(self, blanks: list, results: list, *, add: Callable[[list], Any] | None = None):
        """The raw total of one answer, exactly as the original engine returns it.

        For drop-in front ends that must answer as the original did: the total is a
        Python ``int`` or ``float`` (not clamped to a float), each combo's raw result is
        appended to ``results`` as it completes, and a failure raises the original's
        exception class (``ZeroDivisionError``, ``TypeError``…) with ``len(results)``
        the index of the failing combo — :func:`coscore.results.failure_message` words
        it. ``blanks`` is indexed as given (a ``str`` gives its characters). ``add``
        totals ADD rules instead of the one left-to-right order (``coscore.compat``
        passes the interpreter's own ``sum``, as the original did).
        Use :meth:`score` unless you need exactly this.
        """
        return _engine.evaluate(self._plan, blanks, results, add=add)

    def score_many(self, answers: Iterable[AnswerLike], jobs: int = 1, chunk_size: int | None = None, *,
                   read_ahead: bool = True) -> Batch:
        """Score many answers; results keep the input order.

        ``answers`` is any iterable of answers (lists of blanks, or strings), or blank
        columns: a ``pyarrow.Table``/``RecordBatch`` or a list of Arrow arrays, one
        per blank in order (a null cell is ``""``; see :mod:`coscore.columns`). Identical
        answers are scored once, each atom runs once per distinct string, and combos are
        evaluated over whole columns. ``jobs`` threads score chunks in parallel
        (``-1``: every core); for blank columns with ``jobs=1``, a second thread reads
        the next chunk's texts (in C, without the GIL) while one is scored, unless
        ``read_ahead`` is false (for a caller that already reads its input in another
        thread, as ``coscore score`` does). The result equals scoring each answer with
        :meth:`score`.
        """
        columns = _columns.as_blank_columns(answers)
        if columns is not None:
            return _columns.score_columns(self._plan, columns, jobs=jobs, chunk_size=chunk_size, read_ahead=read_ahead)
        return _engine.score_many(self._plan, answers, jobs=jobs, chunk_size=chunk_size)

    def score_chunks(
        self, answers: Iterable[AnswerLike], chunk_size: int = _engine.DEFAULT_CHUNK_SIZE, jobs: int = 1
    ) -> Iterator[Batch]:
        """Score a stream of answers lazily, one :class:`Batch` per ``chunk_size`` answers.

        Memory stays bounded by the chunk size whatever the stream's length.
        """
        return _engine.score_chunks(self._plan, answers, chunk_size=chunk_size, jobs=jobs)


def compile(source: RuleSource, *, dialect: str | None = None, limits: Limits | None = None) -> Rule:  # noqa: A001
    """Compile a rule from a dict, JSON text, or a path (``os.PathLike``) to a JSON file.

    ``dialect`` is ``"coscore"`` (the original engine: ``L`` counts distinct CJK
    characters) or ``"manual"`` (``L`` is the number of characters, as the manual
    says); by default the rule's own ``"dialect"`` key, else ``"coscore"``.
    ``limits`` are the rule's budgets (:class:`coscore.Limits`; default
    :data:`coscore.limits.DEFAULT_LIMITS`): its size is checked against them here, and
    every answer it scores is bounded by them.
    Raises :class:`coscore.RuleError` listing every problem, and nothing else whatever
    ``source`` holds.
    """
    if limits is None:
        limits = DEFAULT_LIMITS
    elif not isinstance(limits, Limits):
        raise TypeError(f"limits must be a coscore.Limits, not {type(limits).__name__}")
    try:
        return Rule(_engine.plan(read(source, dialect, limits), limits))
    except RuleError:
        raise
    except MemoryError:
        raise RuleError([Diagnostic("rule", "compiling it needs more memory than is available (lower the "
                                            "rule's size, or the max_table_bytes budget to refuse it sooner)")]) from None
    except RecursionError:
        raise RuleError([Diagnostic("rule", "nested too deeply")]) from None
    except Exception as exc:  # noqa: BLE001 - compiling untrusted input raises RuleError only
        raise RuleError([Diagnostic("rule", shorten(f"cannot be compiled: {type(exc).__name__}: {exc}"))]) from None
