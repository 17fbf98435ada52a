"""Reading Excel workbooks (``.xlsx``) through fastexcel (Rust, on calamine), as Arrow
string columns.

The workbook is first checked by :mod:`.workbook_guard` (zip bombs, DTDs, cells over the
limit, shared-string bombs, cells far apart); fastexcel opens the parts (parsing the
shared strings) in a second thread while their text and the sheet are checked, then one sheet
(``sheet``: its name or 1-based number; default the first) is read whole, every cell as
text, and handed on in chunks.

- The header is the sheet's first row that holds a value, or, when that row holds one
  value alone (a title, often merged across the columns) above a row of two or more, that
  row (said to ``on_header``); ``header_row`` names it instead (the rows above are
  skipped). Its columns run from its first to its last named cell (empty columns on the
  left are not part of the table, nor one that holds nothing but a title above the
  header). An empty or repeated name is an error naming the header's row and
  ``--header-row``.
- A cell is text as Excel shows it: text as it is (an ``=1+1`` typed as text stays that
  text; a formula gives its cached value), numbers in Excel's general form (``42``,
  ``0.5``, at most 9 decimals: ``0.333333333``), booleans ``true``/``false``, dates
  ``2024-01-02 03:04:05``, an empty or error cell ``""``. OOXML's ``_xHHHH_`` escapes are
  decoded (``_x0001_`` is U+0001); one that names a character XML cannot hold (a
  surrogate, U+FFFE, U+FFFF) stays as written.
- Rows with no value are skipped; row numbers in messages are the sheet's.
- A cell over ``max_cell_chars`` characters (default Excel's own limit, 32,767) is an
  error naming its row and column, found before the sheet is parsed.

The sheet is held in memory while it is read (Excel's 1,048,576 rows bound it).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._text import display_name
from ..arrays import int_array, valid_mask
from ..errors import InputError
from ..header_rows import HINT, OnHeader, announcement, is_title
from ..table import CHUNK_SIZE, Chunk
from .sheet_grid import column_letter
from .workbook_guard import EXCEL_CELL_CHARS, check_workbook


def _fastexcel() -> Any:
    """fastexcel, imported when a workbook is first read."""
    import fastexcel

    return fastexcel


class XlsxReader:
    """Read one sheet of an ``.xlsx`` workbook in chunks of Arrow string columns; row
    numbers are the sheet's. ``sheets`` lists the workbook's sheets, ``sheet`` is the one read."""

    unit = "row"
    #: What the file is called in messages.
    kind = ".xlsx"

    def __init__(
        self, path: str | os.PathLike[str], chunk_size: int = CHUNK_SIZE, *, sheet: str | int | None = None,
        max_cell_chars: int | None = None, header_row: int | None = None, on_header: OnHeader | None = None,
    ) -> None:
        self.source = display_name(path)
        self._header_row = header_row
        self._on_header = on_header
        self.total_bytes: int | None = None
        self._chunk_size = chunk_size
        name = os.fspath(path)
        if name == "-":
            raise InputError(self.source, f"an {self.kind} workbook cannot be read from standard input; give its file")
        if not os.path.exists(name):
            raise InputError(self.source, "no such file")
        if os.path.isdir(name):
            raise InputError(self.source, f"not a readable {self.kind} workbook (is a directory)")
        limit = EXCEL_CELL_CHARS if max_cell_chars is None else max_cell_chars
        self._letters: list[str] | None = None   # the columns' letters, found when a message needs one
        sheets, index, table = self._load(name, sheet, limit)
        self.sheets: list[str] = sheets
        self.sheet: str = sheets[index]
        self._reload = (name, sheet, limit)
        self._where = f"sheet {self.sheet!r}"
        self._rows, self._numbers = self._data(table)
        self.total_rows: int | None = len(self._numbers)

    def _load(self, name: str, sheet: str | int | None, limit: int) -> tuple[list[str], int, Any]:
        """The sheet names, the index of the one read and its grid (an Arrow record batch
        of text, loaded eagerly: some 0.05 s less per 200,000 rows than lazily)."""
        book = self._open(name, sheet, limit)
        return book.sheets, book.index, self._sheet(book, eager=True)

    def _letter(self, column: int) -> str:
        """The letter of the grid's ``column``, for a message: only a sheet loaded lazily
        tells where its grid starts, so the workbook is read again (once, for the message)."""
        if self._letters is None:
            name, sheet, limit = self._reload
            loaded = self._sheet(self._open(name, sheet, limit), eager=False, n_rows=1)
            self._letters = [column_letter(info.absolute_index) for info in loaded.selected_columns]
        return self._letters[column]

    def _open(self, name: str, sheet: str | int | None, limit: int) -> Any:
        """The workbook checked, and opened by fastexcel (parsing the shared strings) while
        its sheet is checked."""
        return self._fastexcel_call(check_workbook, name, self.source, sheet, limit, opener=_fastexcel().read_excel)

    def _sheet(self, book: Any, **options: Any) -> Any:
        """The chosen sheet of ``book``, every cell as text, with no header."""
        return self._fastexcel_call(book.opened.load_sheet, book.index, header_row=None, skip_rows=0,
                                    dtypes="string", schema_sample_rows=1, **options)

    def _fastexcel_call(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        """``call(*args, **kwargs)``, fastexcel's errors (a damaged or foreign file) as one line."""
        try:
            return call(*args, **kwargs)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(self.source, f"not a readable .xlsx workbook ({' '.join(str(exc).split())})") from None

    def _data(self, table: Any) -> tuple[list[Any], np.ndarray]:
        """The header checked and taken off; the data columns and their row numbers."""
        columns = [table.column(i) for i in range(table.num_columns)]
        counts = np.zeros(table.num_rows, dtype=np.int64)  # the values of each row
        for column in columns:
            counts += valid_mask(column)
        filled = np.flatnonzero(counts)
        head, title = self._header_at(columns, counts, filled)
        names = [column[head].as_py() or "" for column in columns]
        while names and names[-1] == "":
            names.pop()
        rows = filled[filled > head]
        start = 0  # the grid's columns left of the table: empty in the header and below it
        while start < len(names) and names[start] == "" and not valid_mask(columns[start])[rows].any():
            start += 1
        at = f"row {head + 1}" + ("" if title is None else f", below the title in row {title + 1}")
        seen: set[str] = set()
        for i, name in enumerate(names[start:], start):
            if name == "" or name in seen:
                raise InputError(self.source, f"{self._where}: the header ({at}) has an empty or repeated column name "
                                 f"(cell {self._letter(i)}{head + 1}); {HINT}", row=head + 1, column=name)
            seen.add(name)
        self.columns: list[str] = names[start:]
        #: the sheet's row of the header
        self.header_row: int = head + 1
        end = len(names)
        width = end - start
        for i, column in enumerate(columns[end:], end):
            beyond = np.flatnonzero(valid_mask(column)[rows])
            if len(beyond):
                number = int(rows[beyond[0]]) + 1
                raise InputError(self.source, f"{self._where}: a value beyond the {width} named columns "
                                 f"(cell {self._letter(i)}{number}); the header is {at}; {HINT}", row=number)
        if title is not None and self._on_header is not None:
            lone = next(column[title].as_py() for column in columns if column[title].is_valid)
            self._on_header(self.source, announcement("row", head + 1, self.columns, title + 1, str(lone)))
        kept = [_text(column) for column in columns[start:end]]
        if len(rows) and rows[-1] - rows[0] + 1 == len(rows):  # no empty row among the data: a slice
            kept = [column.slice(int(rows[0]), len(rows)) for column in kept]
        elif len(rows) != table.num_rows:
            indices = int_array(rows)
            kept = [column.take(indices) for column in kept]
        return kept, rows + 1

    def _header_at(self, columns: list[Any], counts: np.ndarray, filled: np.ndarray) -> tuple[int, int | None]:
        """The grid row of the header, and that of the title skipped above it (or ``None``):
        ``header_row``, else the first row holding a value, else the row below a lone title."""
        asked = self._header_row
        if asked is not None:
            if asked > len(counts) or not counts[asked - 1]:
                last = f"; its last row with a value is row {int(filled[-1]) + 1}" if len(filled) else ""
                raise InputError(self.source, f"{self._where}: row {asked} (--header-row {asked}) holds no value"
                                 f"{last}; give the row that holds the column names", row=asked)
            return asked - 1, None
        if not len(filled):
            raise InputError(self.source, f"{self._where} is empty; expected a header row", row=1)
        head = int(filled[0])
        if len(filled) > 1 and counts[head] == 1 and counts[filled[1]] >= 2:
            lone = next(column[head].as_py() for column in columns if column[head].is_valid)
            if is_title([str(lone)]):
                return int(filled[1]), head
        return head, None

    def chunks(self) -> Iterator[Chunk]:
        """The rows, ``chunk_size`` at a time."""
        total = len(self._numbers)
        types = dict.fromkeys(self.columns, "str")
        for start in range(0, max(total, 1), self._chunk_size):
            stop = min(total, start + self._chunk_size)
            data = {name: self._rows[i].slice(start, stop - start) for i, name in enumerate(self.columns)}
            lines = self._numbers[start:stop].tolist()
            yield Chunk(list(self.columns), data, lines, "row", self.source, None, types)

    def close(self) -> None:
        """Let the sheet go."""
        self._rows = []


class WorkbookReader(XlsxReader):
    """Read one sheet of a legacy ``.xls`` or an OpenDocument ``.ods`` workbook, as
    :class:`XlsxReader` reads ``.xlsx`` (the same header, cells and row numbers): the sheet
    is read by fastexcel in a child process under a memory budget
    (:mod:`.workbook_child`), then each cell is held to ``max_cell_chars``."""

    def __init__(self, path: str | os.PathLike[str], chunk_size: int = CHUNK_SIZE, *, sheet: str | int | None = None,
                 max_cell_chars: int | None = None, kind: str = ".xls", header_row: int | None = None,
                 on_header: OnHeader | None = None) -> None:
        self.kind = kind
        super().__init__(path, chunk_size, sheet=sheet, max_cell_chars=max_cell_chars, header_row=header_row,
                         on_header=on_header)

    def _load(self, name: str, sheet: str | int | None, limit: int) -> tuple[list[str], int, Any]:
        from .workbook_child import read_sheet

        _fastexcel()
        loaded = read_sheet(name, self.source, sheet, self.kind)
        _check_cells(self.source, loaded.sheets[loaded.index], loaded.table, loaded.letters, limit)
        self._letters = loaded.letters   # the child tells them
        return loaded.sheets, loaded.index, loaded.table


def _check_cells(source: str, sheet: str, table: Any, letters: list[str], limit: int) -> None:
    """Refuse a cell over ``limit`` characters, naming its row and column."""
    import pyarrow.compute as pc

    for column, letter in zip(table.columns, letters):
        lengths = pc.utf8_length(column)
        longest = pc.max(lengths).as_py()
        if longest is not None and longest > limit:
            row = int(np.flatnonzero(np.asarray(pc.fill_null(pc.greater(lengths, limit), False)))[0]) + 1
            raise InputError(source, f"sheet {sheet!r}: a cell holds more than {limit:,} characters; Excel's own "
                             f"limit is {EXCEL_CELL_CHARS:,} (--max-cell-chars)", row=row, column=letter)


def _text(column: Any) -> Any:
    """A string column with its nulls (empty and error cells) as ``""``."""
    if not column.null_count:
        return column
    import pyarrow.compute as pc

    return pc.fill_null(column, "")
