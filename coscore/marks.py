"""The teachers' marks as numbers: a cell read as a mark (:func:`number_cell`), a column of
them (:func:`number_column`, :func:`mark_column`), what a mark that is not a number does
(:data:`MISSING_MARKS`, :class:`LeftOut`), and marks given to the library's tools
(:func:`marks_array`). A mark that is not finite, or lies outside 0–10 in a file, is an
error naming its place.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .diagnostics import shorten
from .io import InputError


class Table(Protocol):
    """What the marks need of a table read whole (:class:`coscore.labelled.Table`)."""

    @property
    def source(self) -> str: ...
    @property
    def columns(self) -> Mapping[str, Sequence[Any]]: ...
    @property
    def places(self) -> Sequence[dict[str, int]]: ...
    @property
    def marks(self) -> np.ndarray: ...

    def numbers(self, column: str, lenient: bool = False) -> np.ndarray: ...

#: What a mark that is not a number (缺考, absent, -) does (``--missing-marks``): ``error``
#: stops at the first, naming it; ``skip`` leaves its row out of the figures, counted
#: (:func:`left_out`). An empty mark is no mark either way; a mark that is not finite or
#: lies outside 0–10 is an error either way (:func:`mark_column`).
MISSING_MARKS = ("error", "skip")


def marks_array(marks: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``marks`` as floats for the library's tools (``tune``, ``suggest``): ``None`` or NaN
    is no mark (NaN); a mark that is infinite or not a number is refused with a
    ``ValueError`` naming its row (1-based)."""
    if isinstance(marks, np.ndarray) and marks.dtype.kind in "fiub":
        values = marks.astype(np.float64).reshape(-1)
    else:
        values = np.empty(len(marks), dtype=np.float64)
        for i, mark in enumerate(marks):
            if mark is None:
                values[i] = math.nan
                continue
            if isinstance(mark, (bool, np.bool_)) or not isinstance(mark, (int, float, np.integer, np.floating)):
                raise ValueError(f"the mark of row {i + 1} is {shorten(repr(mark), 80)}, not a number: give numbers "
                                 "(None or NaN for an answer with no mark)")
            try:
                values[i] = float(mark)
            except OverflowError:   # an int beyond a float's range
                values[i] = math.inf if mark > 0 else -math.inf
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        i = int(infinite[0])
        raise ValueError(f"the mark of row {i + 1} is {values[i]:g}, not a finite number"
                         + (f" ({infinite.size} such marks)" if infinite.size > 1 else "")
                         + ": give finite marks (None or NaN for an answer with no mark)")
    return values


def number_cell(value: Any, source: str, column: str, where: dict[str, int], lenient: bool = False) -> float:
    """A cell as a float: NaN when empty; :class:`InputError` at ``where`` when it is not a
    number (``lenient``: NaN). An integer beyond a float's range is infinite (with its sign)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        if lenient:
            return math.nan
        raise InputError(source, f"expected a number, got {shorten(repr(value), 80)}", column=column, **where)
    try:
        return float(value)
    except OverflowError:   # an int of 400 digits
        return math.inf if isinstance(value, int) and value > 0 else -math.inf  # only an int overflows
    except ValueError:
        if lenient:
            return math.nan
        raise InputError(source, f"expected a number, got {shorten(repr(value), 80)}", column=column, **where) from None


#: Text that Arrow's cast and Python's ``float`` read as the same number.
_PLAIN_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


def number_column(values: Any, source: str, column: str, where: Callable[[int], dict[str, int]],
                  lenient: bool = False) -> np.ndarray:
    """The cells of ``values`` (a list, or an Arrow array) as floats, each what
    :func:`number_cell` gives (``where(i)`` locates cell ``i`` for its error; ``lenient``:
    NaN for a cell that is not a number): numbers and plain numeric text of Arrow arrays
    converted at once, other cells one by one."""
    if not hasattr(values, "type") or not hasattr(values, "to_pylist"):
        return _cells(values, range(len(values)), source, column, where, lenient)
    import pyarrow as pa
    import pyarrow.compute as pc

    from .io.arrays import float_values

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    kind = values.type
    if pa.types.is_dictionary(kind):
        values, kind = values.cast(kind.value_type), kind.value_type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_null(kind) \
            or pa.types.is_decimal(kind):
        return float_values(pc.cast(values, pa.float64(), safe=False)).copy()
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return _cells(values.to_pylist(), range(len(values)), source, column, where, lenient)
    plain = pc.fill_null(pc.match_substring_regex(values, _PLAIN_NUMBER), False)
    empty = pc.fill_null(pc.equal(pc.binary_length(values), 0), True)
    out = np.full(len(values), math.nan)
    taken = np.asarray(plain)
    if taken.any():
        out[taken] = float_values(pc.cast(values.filter(plain), pa.float64()))
    other = np.flatnonzero(~taken & ~np.asarray(empty))
    if other.size:
        cells = values.take(pa.array(other)).to_pylist()
        out[other] = _cells(cells, other.tolist(), source, column, where, lenient)
    return out


def _cells(values: Sequence[Any], rows: Iterable[int], source: str, column: str,
           where: Callable[[int], dict[str, int]], lenient: bool = False) -> np.ndarray:
    return np.fromiter(
        (number_cell(v, source, column, where(i), lenient) for v, i in zip(values, rows)), dtype=np.float64,
        count=len(values)
    )


@dataclass(frozen=True)
class LeftOut:
    """The rows of a mark column left out of the figures because their cell is empty or
    not a number (``--missing-marks skip``): how many (``rows``), and each such value as
    written (``""``: empty) with its rows, the most frequent first. ``what`` the column
    holds: ``mark``, ``second mark`` or ``score`` (a scorer column of ``compare``)."""

    column: str
    what: str
    rows: int
    values: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """``{"column", "rows", "values": {value: rows}}``."""
        return {"column": self.column, "rows": self.rows, "values": dict(self.values)}

    def describe(self) -> str:
        """One line: ``12 rows left out: their mark in 教师A is empty or not a number (缺考 ×11, - ×1)``."""
        shown = [f"{shorten(value, 40) if value else 'empty'} ×{count}" for value, count in self.values.items()]
        if len(shown) > 8:
            shown = [*shown[:8], f"{len(shown) - 8} more values"]
        rows = f"{self.rows} row{'s' * (self.rows != 1)}"
        its = "their" if self.rows != 1 else "its"
        where = f"{its} {self.what} in {shorten(self.column, 80)} is empty or not a number ({', '.join(shown)})"
        if self.what == "second mark":
            return f"{rows} left out of the human–human figures: {where}"
        return f"{rows} left out: {where}"


def mark_column(table: Table, column: str, missing: str = "error", what: str = "mark") -> np.ndarray:
    """``column`` of ``table`` as marks on coscore's 0–10 scale: floats, NaN where the cell
    is empty (a NaN of a column of numbers is an empty cell) and, with ``missing="skip"``,
    where it is not a number (缺考, absent, -: :func:`left_out` counts them). Raises
    :class:`InputError` at the cell's row and column, in file order: with
    ``missing="error"`` for a mark that is not a number (the message says to give
    ``--missing-marks skip``); whatever ``missing`` says, for one that is not finite (``inf``,
    ``nan`` written as text) or lies outside 0–10 (``50000``, ``1e999``): ``skip`` is for marks not
    recorded, not for wrong ones. ``what`` names the values in messages."""
    from .expr.ranges import SCALE

    if missing not in MISSING_MARKS:
        raise ValueError(f"missing must be one of {', '.join(MISSING_MARKS)}, not {missing!r}")
    values = table.numbers(column, lenient=True)
    low, high = SCALE
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~((values >= low) & (values <= high)))   # NaN, ±inf and out of range
    cells = table.columns[column]
    for i in odd.tolist():
        value = float(values[i])
        cell = cells[i]
        if math.isnan(value):
            if _no_value(cell):
                continue
            if not _reads_as_nan(cell):   # not a number
                if missing == "skip":
                    continue
                raise InputError(table.source, f"expected a number, got {shorten(repr(cell), 80)}; give "
                                 "--missing-marks skip to leave such rows out", column=column, **table.places[i])
        shown = _shown(cell)
        if math.isnan(value) or (math.isinf(value) and _names_infinity(cell)):   # not 1e999: a number too large
            problem = f"the {what} {shown} is not a finite number: correct it (a {what} from 0 to 10)"
        else:
            problem = (f"the {what} {shown} is outside the 0–10 scale of coscore's scores: correct it (a {what} on "
                       "another scale must be rescaled to 0–10)")
        raise InputError(table.source, f"{problem}, or empty the cell to leave the row out; --missing-marks skip "
                         f"leaves out only {what}s that are not recorded, not wrong ones", column=column,
                         **table.places[i])
    return values


def left_out(table: Table, column: str, values: np.ndarray | None = None, what: str = "mark") -> LeftOut:
    """The rows whose ``values`` (of ``column``; default the table's marks) are NaN — empty
    or, read with ``--missing-marks skip``, not a number — with the values their cells
    hold (:class:`LeftOut`)."""
    values = table.marks if values is None else values
    cells = table.columns.get(column)
    counts: dict[str, int] = {}
    for i in np.flatnonzero(np.isnan(values)).tolist():
        cell = cells[i] if cells is not None else None
        key = "" if _no_value(cell) else shorten(str(cell).strip(), 80)
        counts[key] = counts.get(key, 0) + 1
    ordered = dict(sorted(counts.items(), key=lambda item: -item[1]))   # stable: ties in file order
    return LeftOut(column, what, sum(counts.values()), ordered)


def _no_value(cell: Any) -> bool:
    """Whether a cell holds no mark: empty, blank text, or a NaN of a column of numbers."""
    return (cell is None or (isinstance(cell, str) and not cell.strip())
            or (isinstance(cell, float) and math.isnan(cell)))


def _reads_as_nan(cell: Any) -> bool:
    """Whether a cell is text that reads as the number NaN (``nan``, ``NaN``)."""
    if not isinstance(cell, str):
        return False
    try:
        return math.isnan(float(cell))
    except ValueError:
        return False


def _names_infinity(cell: Any) -> bool:
    """Whether a cell that reads as infinite says so (``inf``, ``-Infinity``, a float's
    infinity), rather than being a number too large for a float (``1e999``)."""
    if isinstance(cell, float):
        return True
    return isinstance(cell, str) and cell.strip().lstrip("+-").lower() in ("inf", "infinity")


def _shown(cell: Any) -> str:
    """A cell as a message quotes it: text quoted, a number as written (``50000``, ``-3``)."""
    if isinstance(cell, str):
        return shorten(repr(cell), 80)
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return shorten(str(cell), 80)
