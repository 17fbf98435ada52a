"""How many cells the reader will hold for a sheet, bounded before it is parsed.

The workbook reader (calamine) holds a sheet as one dense grid, from its first to its last
row and column that hold a cell: two cells at ``A1`` and ``XFD1048576`` make a grid of 17
billion cells, and the process dies trying to allocate it (no Python error can catch that).
:class:`Grid` reads the sheet's XML as :mod:`.workbook_guard` streams it, a block at a time,
and keeps an upper bound of that grid:

- rows: the largest row number a ``<row r="N">`` or a cell's reference (``r="B7"``) gives,
  plus one for every row without a number (it follows the one before);
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
_REF = re.compile(rb'\sr="([A-Z]*)([0-9]*)"')


class Grid:
    """The bound of one sheet's grid, fed each block's whole elements (see :meth:`add`)."""

    def __init__(self, row_token: bytes, cell_token: bytes) -> None:
        self.row_token = row_token
        self.cell_token = cell_token
        self.cells = 0
        self.top_row = 0      # the largest row number read
        self.unnumbered = 0   # rows without a number
        self.top_column = 0   # the largest column number read (A is 1)
        self.widest = 0       # the most cells without a reference in one row
        self._run = 0         # such cells of the row still open at the end of the last block

    def add(self, raw: np.ndarray, cells: np.ndarray, rows: np.ndarray) -> None:
        """Count the cells starting at ``cells`` and the rows starting at ``rows`` (positions
        in ``raw``, each element whole and counted once over all blocks)."""
        self.cells += len(cells)
        if len(rows):
            self._references(raw, rows, len(self.row_token) + 1, True)
        if not len(cells):
            return
        loose = cells[~self._references(raw, cells, len(self.cell_token) + 1, False)]
        if len(rows):   # the cells without a reference in each row
            before = np.searchsorted(loose, rows)
            counts = np.diff(np.append(before, len(loose)))
            self.widest = max(self.widest, self._run + int(before[0]), int(counts.max()))
            self._run = int(counts[-1])
        else:
            self._run += len(loose)
            self.widest = max(self.widest, self._run)

    def _references(self, raw: np.ndarray, starts: np.ndarray, skip: int, is_row: bool) -> np.ndarray:
        """Take in the largest row and column the elements at ``starts`` name; whether each
        names its place."""
        at = starts + skip   # after "<" + the element's name: white space, then (usually) r="
        padded = np.concatenate([raw[: int(at.max()) + _WIDTH + 8], np.zeros(_WIDTH + 8, dtype=np.uint8)])
        first = (padded[at + 1] == 114) & (padded[at + 2] == 61) & (padded[at + 3] == 34) & (padded[at] <= 32)
        where = at[first] + 4
        column, n_letters = _largest(padded, where, 65, 90, 26, 64)
        row, _ = _largest(padded, where + n_letters, 48, 57, 10, 48)
        self.top_column = max(self.top_column, column)
        self.top_row = max(self.top_row, row)
        named = first.copy()
        named[np.flatnonzero(first)[padded[where] == 34]] = False   # r=""
        for i in np.flatnonzero(~first).tolist():   # the reference elsewhere in the tag, or none
            head = raw[int(starts[i]) : int(starts[i]) + 4096].tobytes()
            found = _REF.search(head[: head.find(b">") + 1 or len(head)])
            if found is not None and (found.group(1) or found.group(2)):
                named[i] = True
                self.top_column = max(self.top_column, _column_number(found.group(1)))
                self.top_row = max(self.top_row, int(found.group(2) or 0))
        if is_row:
            self.unnumbered += int((~named).sum())
        return named

    def size(self) -> int:
        """An upper bound of the cells of the reader's grid."""
        return (self.top_row + self.unnumbered) * (self.top_column + self.widest)

    def too_large(self) -> bool:
        """Whether the grid may hold more than the bound allows."""
        return self.cells > 0 and self.size() > max(CELLS, SPARSE * self.cells)


def _largest(raw: np.ndarray, where: np.ndarray, low: int, high: int, base: int, zero: int) -> tuple[int, np.ndarray]:
    """The largest number written at ``where`` in ``raw`` in the digits ``low``..``high``
    (of ``base``, the digit ``low`` worth ``low - zero``), and each one's count of digits;
    one of 15 digits or more is taken as ``base`` to that power."""
    count = np.zeros(len(where), dtype=np.int64)
    going = np.ones(len(where), dtype=bool)
    for j in range(_WIDTH):
        byte = raw[where + j]
        going &= (byte >= low) & (byte <= high)
        if not going.any():
            break
        count += going
    if not len(where) or not count.max():
        return 0, count
    most = int(count.max())
    if most >= _WIDTH - 1:
        return base ** most, count
    value = np.zeros(len(where), dtype=np.int64)
    for j in range(most):
        value = np.where(j < count, value * base + (raw[where + j].astype(np.int64) - zero), value)
    return int(value.max()), count


def column_letter(index: int) -> str:
    """Excel's name of the 0-based column ``index`` (0 -> ``A``, 26 -> ``AA``)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number
