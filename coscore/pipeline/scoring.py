"""What a run scores and where the results go: one rule, or the items of an exam.

A :class:`Scoring` is the items of a run — each an :class:`ItemPlan`: a rule's plan, the
columns that hold its answers (:class:`~coscore.io.blanks.AnswerColumns`: io names them)
and its name and weight — laid out one of two ways:

- **long**: one score column for every row, each row scored by its item's rule (the
  item named in ``item_column``; a rule alone is the one item of every row). The result
  columns are ``coscore_score``, ``coscore_combo_<ID>`` and ``coscore_error``.
- **wide**: every row is one student's answers to every item: each item's results in
  columns of its own (``<item>_score``, ``<item>_combo_<ID>`` with ``combos``,
  ``<item>_error``), then ``total_score``, the weighted sum of the item scores.

:meth:`Scoring.work` turns a reader's chunk into the engine's work (each item's blank
columns, through :func:`~coscore.pipeline.tables.from_columns`, the one conversion) and
:meth:`Scoring.results` the scored work into the result arrays, assembled once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.plan import Plan
from ..io.blanks import AnswerColumns
from ..io.errors import InputError
from ..io.table import Chunk
from ..results import Batch
from .results import COMBO_PREFIX, ERROR_COLUMN, ERROR_TYPE, SCORE_COLUMN, SCORE_TYPE, result_arrays, result_columns
from .stream import CHUNK_SIZE, Work
from .tables import BlankTable, from_columns

__all__ = ["LAYOUTS", "TOTAL_COLUMN", "ItemPlan", "Scoring", "chunk_size"]

#: The wide layout's total column: the weighted sum of the item scores.
TOTAL_COLUMN = "total_score"
#: How a run lays out its results (see the module's text).
LAYOUTS = ("long", "wide")


def chunk_size(layout: str, items: int) -> int:
    """The rows a run reads and scores at a time: :data:`~.stream.CHUNK_SIZE`, except in
    the long layout of many items, whose chunk is cut among them: there a chunk holds
    about a quarter of that for each item, at most four times as many rows in all."""
    if layout != "long" or items <= 1:
        return CHUNK_SIZE
    return min(4 * CHUNK_SIZE, max(CHUNK_SIZE, items * (CHUNK_SIZE // 4)))


@dataclass(frozen=True)
class ItemPlan:
    """One rule's part of a run: its ``plan``, the ``columns`` that hold its answers, its
    ``name`` (an exam item's; ``None`` for a rule alone) and ``weight`` in the total."""

    plan: Plan
    columns: AnswerColumns
    name: str | None = None
    weight: float = 1.0

    @property
    def combo_ids(self) -> list[str]:
        return self.plan.combo_ids


@dataclass(frozen=True)
class Scoring:
    """The items of a run and how their results are laid out (see the module's text).

    ``item_column``: in the long layout with several items, the column naming each row's
    item. ``combos``: write the combo columns. ``decimals``: round the written scores and
    combo values to that many places (as ``numpy.round``: halves to even); the total is
    the weighted sum of the written item scores, rounded so too."""

    items: tuple[ItemPlan, ...]
    layout: str = "long"
    item_column: str | None = None
    combos: bool = True
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {self.layout!r}")
        if not self.items:
            raise ValueError("a run scores at least one item")
        if self.layout == "long" and self.item_column is None and len(self.items) != 1:
            raise ValueError("the long layout of several items needs the column that names each row's item")
        if self.layout == "wide" and any(item.name is None for item in self.items):
            raise ValueError("every item of the wide layout needs a name")

    @property
    def names(self) -> list[str | None]:
        return [item.name for item in self.items]

    def combo_ids(self) -> list[str]:
        """The combo ids of the long layout's columns: every item's, each once, in order."""
        return list(dict.fromkeys(cid for item in self.items for cid in item.combo_ids))

    def columns(self) -> list[str]:
        """The result columns, in order, written after the input columns."""
        if self.layout == "long":
            combos = [COMBO_PREFIX + cid for cid in self.combo_ids()] if self.combos else []
            return [SCORE_COLUMN, *combos, ERROR_COLUMN]
        names: list[str] = []
        for item in self.items:
            names += item_columns(str(item.name), item.combo_ids if self.combos else ())
        return [*names, TOTAL_COLUMN]

    def types(self) -> dict[str, str]:
        """The type of each result column (for writers with typed columns)."""
        errors = set(self.error_columns())
        return {name: ERROR_TYPE if name in errors else SCORE_TYPE for name in self.columns()}

    def error_columns(self) -> list[str]:
        """The columns that say why an answer failed."""
        if self.layout == "long":
            return [ERROR_COLUMN]
        return [f"{item.name}_error" for item in self.items]

    def check_no_clash(self, source: str, columns: Sequence[str]) -> None:
        """Refuse input that already has a column the run would add (a scored file)."""
        added = set(self.columns())
        drop = "the coscore_* columns" if self.layout == "long" else "the result columns (<item>_score, " \
            f"<item>_error, {TOTAL_COLUMN})"
        for name in columns:
            if name in added or (self.layout == "long" and name.startswith(COMBO_PREFIX)):
                raise InputError(source, f"the input already has this output column (is it a scored file?); "
                                 f"drop {drop} first", column=name)

    # -- one chunk -------------------------------------------------------------------------

    def work(self, chunk: Chunk) -> Work:
        """The engine's work for ``chunk``: each item's plan with the table of its answers
        (in the long layout of several items, the rows of that item, taken in order);
        its ``context`` is ``(chunk, rows)``, each item's rows (``None``: every row)."""
        if self.item_column is None:
            tables = [(item.plan, from_columns(item.columns.select(chunk), item.plan.blanks_read))
                      for item in self.items]
            return Work(tables, (chunk, None))
        rows = self.item_rows(chunk)
        selected: dict[AnswerColumns, list[Any]] = {}
        tables = []
        for item, taken in zip(self.items, rows):
            if item.columns not in selected:   # items of the long layout share their columns
                selected[item.columns] = item.columns.select(chunk)
            tables.append((item.plan, _take(selected[item.columns], taken, item.plan)))
        return Work(tables, (chunk, rows))

    def item_rows(self, chunk: Chunk) -> list[np.ndarray]:
        """The rows of ``chunk`` of each item (the long layout's item column read), each
        an increasing index array; :class:`InputError` at the first row naming no item of
        the run."""
        import pyarrow as pa
        import pyarrow.compute as pc

        column = str(self.item_column)
        if column not in chunk.data:
            raise InputError(chunk.source, "no such column (the item column)", column=column)
        values = _item_texts(chunk, column)
        names = [str(name) for name in self.names]
        codes = pc.index_in(values, value_set=pa.array(names, pa.string()))
        if codes.null_count:
            bad = int(np.flatnonzero(~np.asarray(codes.is_valid()))[0])
            value = values[bad].as_py()
            shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
            what = "names no item (an empty cell)" if value is None else \
                f"names item {value!r}, which is not one of the exam's items ({shown})"
            raise InputError(chunk.source, what, column=column, **chunk.where(bad))
        code = np.asarray(codes, dtype=np.int64)
        order = np.argsort(code, kind="stable")
        counts = np.bincount(code, minlength=len(names))
        return np.split(order, np.cumsum(counts)[:-1])

    def results(self, work: Work) -> dict[str, Any]:
        """The result arrays of scored ``work``, by name, in :meth:`columns` order."""
        chunk, rows = work.context
        batches = [builder.batch() for builder in work.builders]
        if self.layout == "wide":
            return self._wide(batches, len(chunk))
        if rows is None:
            return result_arrays(batches[0], self.items[0].combo_ids if self.combos else (), self.decimals)
        return self._long(batches, rows, len(chunk))

    def _wide(self, batches: list[Batch], n: int) -> dict[str, Any]:
        from ..io.arrays import float_array

        arrays: dict[str, Any] = {}
        total = np.zeros(n)
        for item, batch in zip(self.items, batches):
            combo_ids = item.combo_ids if self.combos else ()
            found = result_arrays(batch, combo_ids, self.decimals)
            for old, new in zip(result_columns(combo_ids), item_columns(str(item.name), combo_ids)):
                arrays[new] = found[old]
            scores = batch.scores if self.decimals is None else np.round(batch.scores, self.decimals)
            total += item.weight * scores   # NaN (a failed answer) makes the total NaN: null
        arrays[TOTAL_COLUMN] = float_array(total if self.decimals is None else np.round(total, self.decimals))
        return arrays

    def _long(self, batches: list[Batch], rows: list[np.ndarray], n: int) -> dict[str, Any]:
        from ..io.arrays import float_array, string_array

        scores = np.full(n, np.nan)
        combo_ids = self.combo_ids() if self.combos else []
        combos = {cid: np.full(n, np.nan) for cid in combo_ids}
        errors: list[str | None] = [None] * n
        failed = False
        for batch, taken in zip(batches, rows):
            if not len(taken):
                continue
            scores[taken] = batch.scores
            for cid, values in batch.combos.items():
                if cid in combos:
                    combos[cid][taken] = values
            if batch.errors.count(None) != len(batch.errors):
                failed = True
                for row, error in zip(taken.tolist(), batch.errors):
                    errors[row] = error
        round_ = (lambda v: v) if self.decimals is None else (lambda v: np.round(v, self.decimals))
        arrays = {SCORE_COLUMN: float_array(round_(scores))}
        arrays.update((COMBO_PREFIX + cid, float_array(round_(values))) for cid, values in combos.items())
        if failed:
            arrays[ERROR_COLUMN] = string_array(errors)
        else:
            import pyarrow as pa

            arrays[ERROR_COLUMN] = pa.nulls(n, pa.string())
        return arrays


def item_columns(name: str, combo_ids: Sequence[str]) -> list[str]:
    """The wide layout's columns of item ``name``: ``<name>_score``, ``<name>_combo_<ID>``
    for each of ``combo_ids``, ``<name>_error``."""
    return [f"{name}_score", *(f"{name}_combo_{cid}" for cid in combo_ids), f"{name}_error"]


def _item_texts(chunk: Chunk, column: str) -> Any:
    """The item column of ``chunk`` as an Arrow ``string`` array (numbers written as
    text: an item named ``1`` is the number 1 of a CSV file)."""
    import pyarrow as pa

    values = chunk.data[column]
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        kind = values.type
        if pa.types.is_dictionary(kind):
            values = values.cast(kind.value_type)
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            try:
                values = values.cast(pa.string())
            except (pa.ArrowException, TypeError):
                raise InputError(chunk.source, f"an item column must hold item names, not {values.type}",
                                 column=column) from None
        return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    texts: list[str | None] = []
    for i, value in enumerate(chunk.pylist(column)):
        if value is None or isinstance(value, str):
            texts.append(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            texts.append(str(value))
        else:
            raise InputError(chunk.source, f"an item must be named by text, got {type(value).__name__}",
                             column=column, **chunk.where(i))
    return pa.array(texts, pa.string())


def _take(columns: list[Any], rows: np.ndarray, plan: Plan) -> BlankTable:
    """The rows ``rows`` of blank ``columns`` as the table one item scores."""
    import pyarrow as pa

    index = pa.array(rows, pa.int64())
    return from_columns([column.take(index) for column in columns], plan.blanks_read)
