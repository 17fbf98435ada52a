"""A compiled rule: :func:`compile` and :class:`Rule`, a thin face over :mod:`coscore.engine`."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import engine as _engine
from .atoms import Atom
from .diagnostics import Diagnostic, RuleError, shorten
from .engine import AnswerLike
from .engine.builder import gather
from .engine.schedule import workers
from .limits import DEFAULT_LIMITS, Limits
from .pipeline import stream as _stream
from .pipeline import tables as _tables
from .reading import read
from .results import AtomCall, Batch, Outcome
from .spec import RuleSource

__all__ = ["AnswerLike", "AtomCall", "Batch", "Limits", "Outcome", "Rule", "compile"]


class Rule:
    """A compiled CoScore rule. Make one with :func:`coscore.compile`.

    Attributes: ``spec`` (the validated :class:`~coscore.spec.RuleSpec`), ``plan`` (what
    the engine scores with: :class:`coscore.engine.Plan`), ``blank_need`` (how many blanks it
    reads), ``warnings``,
    ``atoms`` (id → prepared atom), ``combo_ids`` (rule order), ``combo_mode``, ``dialect``,
    ``limits`` (its :class:`~coscore.limits.Limits`).
    """

    def __init__(self, plan: _engine.Plan):
        #: The rule as the engine scores it (:class:`coscore.engine.Plan`): what the
        #: pipeline is given, for a rule alone or as an item of an exam.
        self.plan = plan
        self.spec = plan.spec
        self.warnings: list[Diagnostic] = list(plan.spec.warnings)
        self.atoms: dict[str, Atom] = plan.atoms
        self.combo_ids: list[str] = plan.combo_ids
        self.combo_mode: str = plan.combo_mode
        self.dialect: str = plan.spec.dialect
        self.limits: Limits = plan.limits
        #: How many blanks the rule reads: ``(count, any_number)``, a
        #: :class:`coscore.expr.reads.BlankNeed` (``T(1)`` reads 2; ``T('*')`` any number).
        self.blank_need = plan.blank_need

    def __repr__(self) -> str:
        return f"<coscore.Rule {len(self.atoms)} atoms, combos {','.join(self.combo_ids)} {self.combo_mode}>"

    def score(self, answer: AnswerLike) -> Outcome:
        """Score one answer (a list of blanks, or one string for a one-blank answer)."""
        return _engine.score_one(self.plan, answer)

    def trace(self, answer: AnswerLike) -> tuple[Outcome, list[AtomCall]]:
        """Score one answer and list every atom call made, in evaluation order."""
        return _engine.trace(self.plan, answer)

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
        return _engine.evaluate(self.plan, blanks, results, add=add)

    def score_many(self, answers: Iterable[AnswerLike], jobs: int = 1, chunk_size: int | None = None) -> Batch:
        """Score many answers; results keep the input order.

        ``answers`` is any iterable of answers (lists of blanks, or strings), or blank
        columns: a ``pyarrow.Table``/``RecordBatch``, a list of Arrow arrays (one per
        blank, in order), a pandas or polars DataFrame (or anything exposing
        ``__arrow_c_stream__``) of the blank columns, or a table of one column of lists
        of blanks (a null cell is ``""``; see :mod:`coscore.pipeline.tables`). A mapping
        or a DataFrame-like object that cannot be read is a ``TypeError`` that says what
        to pass. Identical answers are scored once, each atom runs once per distinct
        string, and combos are evaluated over whole columns. ``jobs`` threads score
        chunks in parallel (``-1``: every core); with one, the texts of blank columns are
        read (in C, without the GIL) by a second thread, a chunk ahead of scoring. The
        result equals scoring each answer with :meth:`score`.
        """
        table = _tables.blank_table(answers, self.plan.blanks_read, self.blank_need)
        if table is not None:
            return _stream.score_table(self.plan, table, jobs=jobs, chunk_size=chunk_size)
        if chunk_size is None:  # a stream: threads share the GIL-held steps better over larger chunks
            chunk_size = _stream.CHUNK_SIZE if workers(jobs) <= 1 else 2 * _stream.CHUNK_SIZE
        return gather(self.combo_ids, self.score_chunks(answers, chunk_size, jobs))

    def score_chunks(
        self, answers: Iterable[Any], chunk_size: int = _stream.CHUNK_SIZE, jobs: int = 1
    ) -> Iterator[Batch]:
        """Score a stream lazily, one :class:`Batch` per chunk; memory stays bounded by
        the chunk size whatever the stream's length.

        ``answers`` is a stream of answers, cut into chunks of ``chunk_size``; or blank
        columns as :meth:`score_many` takes them, cut into chunks of ``chunk_size`` rows
        (an Arrow ``RecordBatchReader`` or C stream is read batch by batch, each batch a
        chunk); or a stream of such tables, each one chunk as it comes. Tables are read
        ahead: their texts are read by a second thread while a chunk is scored.
        """
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        tables, python = _tables.table_stream(answers, self.plan.blanks_read, chunk_size, self.blank_need)
        return _stream.score_tables(self.plan, tables, jobs=jobs, ahead=not python)




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
        raise RuleError([Diagnostic("rule", "compiling it needs more memory than is available (lower the rule's "
                                            "size, or the max_table_bytes budget to refuse it sooner)")]) from None
    except RecursionError:
        raise RuleError([Diagnostic("rule", "nested too deeply")]) from None
    except Exception as exc:  # noqa: BLE001 - compiling untrusted input raises RuleError only
        raise RuleError([Diagnostic("rule", shorten(f"cannot be compiled: {type(exc).__name__}: {exc}"))]) from None
