"""An exam, compiled: :class:`Exam` (its :class:`ExamItem`\\ s, each with its compiled rule),
and how it is scored: :meth:`Exam.scoring`, the pipeline's
:class:`~coscore.pipeline.scoring.Scoring` of its items for a table's columns (what
``coscore score EXAM`` runs), and :meth:`Exam.score_table` for a table in memory.

The wide layout writes ``<item>_score`` and ``<item>_error`` per item (and the combos'
``<item>_combo_<ID>`` with ``combos``), then ``total_score``, the weighted sum; the long
layout ``coscore_score``, ``coscore_error`` (and ``coscore_combo_<ID>``), each row scored
by the rule of the item its ``item_column`` names. :func:`coscore.exam.load_exam` makes one.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnostics import shorten
from ..io.blanks import AnswerColumns
from ..io.errors import InputError
from ..io.table import Chunk
from ..pipeline.files import scored_chunks
from ..pipeline.scoring import ItemPlan, Scoring
from .errors import DICT_SOURCE, ExamError, ExamProblem
from .spec import quote

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["Exam", "ExamItem"]


@dataclass(frozen=True)
class ExamItem:
    """One item of an exam: its ``name``, compiled ``rule``, the ``blanks`` columns it
    reads in order, the teachers' marks (``label``, and ``label2`` for a second rater),
    its ``weight`` in the total, and the rule file it came from (``rule_path``, as
    resolved; ``None`` for an inline rule)."""

    name: str
    rule: Rule
    blanks: tuple[str, ...]
    label: str | None = None
    label2: str | None = None
    weight: float = 1.0
    rule_path: str | None = None


@dataclass(frozen=True)
class Exam:
    """An exam: many items, each scored by its own rule on its own blank columns.

    ``id`` is the student id column (carried through), ``item_column`` the column that
    names each row's item in the long layout (``None``: the wide layout, one row per
    student), ``source`` the exam file (``None`` for an exam given as a mapping). Make one
    with :func:`load_exam`.
    """

    items: tuple[ExamItem, ...]
    name: str | None = None
    id: str | None = None
    item_column: str | None = None
    source: str | None = None

    @property
    def layout(self) -> str:
        """``"wide"`` (one row per student, each item in its own columns) or ``"long"``
        (one row per answer to one item, named in :attr:`item_column`)."""
        return "wide" if self.item_column is None else "long"

    @property
    def names(self) -> tuple[str, ...]:
        """The items' names, in order."""
        return tuple(item.name for item in self.items)

    def score_table(self, table: Any, *, combos: bool = False, decimals: int | None = None) -> Any:
        """Every item scored over ``table`` (a ``pyarrow.Table``/``RecordBatch``, a pandas or
        polars DataFrame, anything with ``__arrow_c_stream__``): a ``pyarrow.Table`` of the
        input columns and the result columns ``coscore score EXAM`` writes, with the same
        values — in the wide layout ``<item>_score``, ``<item>_error`` (and
        ``<item>_combo_<ID>`` with ``combos``) per item, then ``total_score``; in the long
        layout ``coscore_score`` and ``coscore_error``. ``decimals`` rounds the scores as
        ``--decimals`` does. Raises :class:`coscore.io.InputError` (a ``ValueError``) for a
        missing column or a row naming no item, ``TypeError`` for a table it cannot read."""
        import pyarrow as pa

        from ..pipeline.stream import CHUNK_SIZE

        arrow = _arrow_table(table)
        names = arrow.column_names
        if len(set(names)) != len(names):
            raise InputError("<table>", "two columns have the same name",
                             column=next(n for n in names if names.count(n) > 1))
        scoring = self.scoring("parquet", "<table>", names, combos=combos, decimals=decimals)
        scoring.check_no_clash("<table>", names)

        def chunks() -> Iterator[Chunk]:
            for start in range(0, max(arrow.num_rows, 1), CHUNK_SIZE):
                part = arrow.slice(start, CHUNK_SIZE)
                if start and not part.num_rows:
                    return
                data = {name: part.column(name).combine_chunks() for name in names}
                yield Chunk(list(names), data, range(start + 1, start + part.num_rows + 1), "row", "<table>")

        scored = [pa.table([chunk.data[name] for name in chunk.columns], names=chunk.columns)
                  for chunk in scored_chunks(scoring, chunks())]
        return pa.concat_tables(scored)

    def scoring(self, fmt: str, source: str, columns: Sequence[str], *, combos: bool = False,
                decimals: int | None = None) -> Scoring:
        """The :class:`~coscore.pipeline.scoring.Scoring` of this exam for a table of format
        ``fmt`` with ``columns`` (``source`` names it in errors): every column the exam
        names must be there (:class:`~coscore.io.InputError` naming the first one missing)."""
        if fmt == "coscore":
            raise InputError(source, "an exam names its items' columns; the original CoScore layout (text[,score]) has "
                             "none: score it with one rule")
        known = set(columns)
        header = {"line": 1} if fmt in ("csv", "tsv") else {}
        shown = ", ".join(list(columns)[:12]) + (", ..." if len(columns) > 12 else "")
        if fmt != "jsonl":
            for what, name in (("the student id column", self.id), ("the item column", self.item_column)):
                if name is not None and name not in known:
                    raise InputError(source, f"no such column ({what} of the exam; columns: {shown})", column=name,
                                     **header)
        items = []
        for item in self.items:
            if fmt != "jsonl" and item.label2 is not None and item.label2 not in known:
                raise InputError(source, f"no such column (item {item.name}'s second rater; columns: {shown})",
                                 column=item.label2, **header)
            try:
                how = AnswerColumns.resolve(fmt, source, list(columns), list(item.blanks), item.label)
            except InputError as exc:
                raise InputError(exc.source, f"item {item.name}: {exc.problem}", line=exc.line, row=exc.row,
                                 column=exc.column) from None
            items.append(ItemPlan(item.rule.plan, how, item.name, item.weight))
        return Scoring(tuple(items), self.layout, self.item_column, combos, decimals)

    def item(self, name: str) -> ExamItem:
        """The item called ``name``; an unknown name is an :class:`ExamError` listing them."""
        for item in self.items:
            if item.name == name:
                return item
        known = ", ".join(shorten(n, 80) for n in self.names[:50]) + (", …" if len(self.items) > 50 else "")
        raise ExamError(self.source or DICT_SOURCE,
                        [ExamProblem("items", f"no item is called {quote(str(name))} (items: {known})")])


def _arrow_table(table: Any) -> Any:
    """``table`` as a ``pyarrow.Table``; a ``TypeError`` saying what to pass otherwise."""
    import pyarrow as pa

    if isinstance(table, pa.Table):
        return table
    if isinstance(table, pa.RecordBatch):
        return pa.Table.from_batches([table])
    if hasattr(table, "__arrow_c_stream__"):
        try:
            return pa.table(table)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            raise TypeError(f"cannot read the {type(table).__name__} as Arrow columns ({exc}): give a pyarrow "
                            f"Table, or a pandas/polars DataFrame of text columns") from None
    raise TypeError(f"cannot score a {type(table).__name__}: give a pyarrow Table, or a pandas/polars DataFrame")
