"""The one error the readers and writers raise: :class:`InputError`."""
from __future__ import annotations

from ..errors import CoscoreError
from ..messages import shorten


class InputError(CoscoreError, ValueError):
    """A data file that cannot be read or written as asked.

    The message names the file, and the line (header = line 1), row and column
    where they apply, e.g. ``answers.csv: line 7, column 'blank2': ...``.

    Attributes:
        source: the file name as the user gave it (``-`` is ``<stdin>``).
        line: 1-based line number in a text file, or ``None``.
        row: 1-based row number where there are no lines (Parquet), or ``None``.
        column: the column (or JSON key) concerned, or ``None``.
        problem: what is wrong, without the location.
    """

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        line: int | None = None,
        row: int | None = None,
        column: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.row = row
        self.column = column
        self.problem = problem
        where = [source]
        place = []
        if line is not None:
            place.append(f"line {line}")
        if row is not None:
            place.append(f"row {row}")
        if column is not None:
            place.append(f"column {shorten(repr(column), 200)}")
        if place:
            where.append(", ".join(place))
        # a cell or a header echoed in the problem can be megabytes: the message stays bounded
        super().__init__(": ".join([*where, shorten(problem)]))
