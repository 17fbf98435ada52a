"""How many cells the reader will hold for a sheet, bounded before it is parsed.

The workbook reader (calamine) holds a sheet as one dense grid, from its first to its last
row and column that hold a cell: two cells at ``A1`` and ``XFD1048576`` make a grid of 17
billion cells, and the process dies trying to allocate it (no Python error can catch that).
:class:`Grid` reads the sheet's XML as :mod:`.workbook_guard` streams it, a block at a time,
and keeps an upper bound of that grid:

- rows: the largest row number a cell's reference (``r="B7"``) gives, or that of a row
  holding a cell: its ``<row r="N">``, else one more than the row before (rows without a
  cell, which exporters write by the thousand for styled rows, cost nothing);
- columns: the largest column a cell's reference gives, plus the most cells without a
  reference any one row holds (such a cell follows the one before).

Both are read with numpy from where the writers put them (the reference as the element's
first attribute); a cell whose reference stands elsewhere is read with a regular
expression. :data:`CELLS` (or :data:`SPARSE` times the cells the sheet holds, when more) is
the most the grid may hold.
"""
from __future__ import annotations

import re

import numpy as np

#: The most cells a sheet's grid may hold (about 512 MiB in the reader) ...
CELLS = 1 << 24
#: ... or this many times the cells the sheet holds, when more.
SPARSE = 8
#: Bytes of a reference read after ``r="``: letters, then digits.
_WIDTH = 16
#: Digits (or letters) read of a number: 26 ** 12 still fits 64 bits.
_DIGITS = 12
_REF = re.compile(rb'\sr="([A-Z]*)([0-9]*)"')


class Grid:
    """The bound of one sheet's grid, fed each block's whole elements (see :meth:`add`)."""

    def __init__(self, row_token: bytes, cell_token: bytes) -> None:
        self.row_token = row_token
        self.cell_token = cell_token
        self.cells = 0
        self.top_row = 0      # the largest row number of a cell read
        self.top_column = 0   # the largest column number read (A is 1)
        self.widest = 0       # the most cells without a reference in one row
        self._run = 0         # such cells of the row still open at the end of the last block
        self._row = 0         # the number of the row still open (0: none yet)

    @property
    def rows(self) -> int:
        """An upper bound of the rows of the reader's grid (which runs from the sheet's
        first row, as :mod:`.xlsx` reads it, to its last row holding a cell)."""
        return self.top_row

    @property
    def columns(self) -> int:
        """An upper bound of the columns of the reader's grid."""
        return self.top_column + self.widest

    def add(self, raw: np.ndarray, cells: np.ndarray, rows: np.ndarray) -> None:
        """Count the cells starting at ``cells`` and the rows starting at ``rows`` (positions
        in ``raw``, each element whole, counted once over all blocks, in the order of the
        sheet)."""
        self.cells += len(cells)
        numbers = self._row_numbers(raw, rows)
        loose = cells
        if len(cells):
            loose = cells[~self._references(raw, cells, len(self.cell_token) + 1, False)]
        if not len(rows):
            if len(cells):
                self._take_rows(max(self._row, 1))
            self._run += len(loose)
            self.widest = max(self.widest, self._run)
            return
        before = np.searchsorted(cells, rows)   # the cells before each row
        if before[0] > 0:   # cells of the row left open by the last block
            self._take_rows(max(self._row, 1))
        held = np.append(before[1:], len(cells)) > before
        if held.any():
            self._take_rows(int(numbers[held].max()))
        self._row = int(numbers[-1])
        beside = np.searchsorted(loose, rows)   # the cells without a reference in each row
        counts = np.diff(np.append(beside, len(loose)))
        self.widest = max(self.widest, self._run + int(beside[0]), int(counts.max()))
        self._run = int(counts[-1])

    def _take_rows(self, high: int) -> None:
        """Take in cells on rows up to ``high``."""
        self.top_row = max(self.top_row, high)

    def _row_numbers(self, raw: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The number of each row at ``rows``: its own, else one more than the row before."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        own = np.zeros(len(rows), dtype=np.int64)
        named = self._references(raw, rows, len(self.row_token) + 1, True, own)
        at = np.arange(len(rows))
        last = np.maximum.accumulate(np.where(named, at, -1))   # the last row with a number so far
        base = np.where(last >= 0, own[np.maximum(last, 0)], self._row)
        return base + at - np.where(last >= 0, last, -1)

    def _references(self, raw: np.ndarray, starts: np.ndarray, skip: int, is_row: bool,
                    numbers: np.ndarray | None = None) -> np.ndarray:
        """Take in the largest column the elements at ``starts`` name, and the largest row a
        cell names (a row's own number is put in ``numbers``); whether each names its place."""
        at = starts + skip   # after "<" + the element's name: white space, then (usually) r="
        padded = np.concatenate([raw[: int(at.max()) + _WIDTH + 8], np.zeros(_WIDTH + 8, dtype=np.uint8)])
        first = (padded[at + 1] == 114) & (padded[at + 2] == 61) & (padded[at + 3] == 34) & (padded[at] <= 32)
        where = at[first] + 4
        columns, n_letters = _numbers(padded, where, 65, 90, 26, 64)
        values, _ = _numbers(padded, where + n_letters, 48, 57, 10, 48)
        self.top_column = max(self.top_column, int(columns.max(initial=0)))
        if numbers is not None:
            numbers[first] = values
        if not is_row and len(values):
            self._take_rows(int(values.max()))
        named = first.copy()
        named[np.flatnonzero(first)[padded[where] == 34]] = False   # r=""
        bare = (padded[at] == 62) | (padded[at] == 47)   # no attribute: <row/>, <c>
        for i in np.flatnonzero(~first & ~bare).tolist():   # the reference elsewhere in the tag, or none
            head = raw[int(starts[i]) : int(starts[i]) + 4096].tobytes()
            found = _REF.search(head[: head.find(b">") + 1 or len(head)])
            if found is not None and (found.group(1) or found.group(2)):
                named[i] = True
                row = _digits_number(found.group(2))
                self.top_column = max(self.top_column, _column_number(found.group(1)))
                if numbers is not None:
                    numbers[i] = row
                if not is_row:
                    self._take_rows(row)
        if numbers is not None:   # a row naming no number (or only letters) follows the one before
            named &= numbers > 0
        return named

    def size(self) -> int:
        """An upper bound of the cells of the reader's grid."""
        return self.rows * self.columns

    def too_large(self) -> bool:
        """Whether the grid may hold more than the bound allows."""
        return self.cells > 0 and self.size() > max(CELLS, SPARSE * self.cells)


def _numbers(raw: np.ndarray, where: np.ndarray, low: int, high: int, base: int, zero: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """The number written at each of ``where`` in ``raw`` in the digits ``low``..``high``
    (of ``base``, the digit ``low`` worth ``low - zero``; 0 where none is), and each one's
    count of digits; one of :data:`_DIGITS` digits or more is taken as ``base`` to that
    power (past any sheet's rows and columns)."""
    count = np.zeros(len(where), dtype=np.int64)
    going = np.ones(len(where), dtype=bool)
    for j in range(_WIDTH):
        byte = raw[where + j]
        going &= (byte >= low) & (byte <= high)
        if not going.any():
            break
        count += going
    value = np.zeros(len(where), dtype=np.int64)
    most = int(count.max(initial=0))
    for j in range(min(most, _DIGITS)):
        value = np.where(j < count, value * base + (raw[where + j].astype(np.int64) - zero), value)
    value[count >= _DIGITS] = base ** _DIGITS
    return value, count


def column_letter(index: int) -> str:
    """Excel's name of the 0-based column ``index`` (0 -> ``A``, 26 -> ``AA``)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _digits_number(digits: bytes) -> int:
    """A row number as written (capped as :func:`_numbers` caps it)."""
    return min(int(digits or b"0"), 10 ** _DIGITS)


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number
