"""The most columns a table may have, checked before its rows are parsed (issue 37).

A CSV header of 300,000 names in 2.9 MB made the Arrow parser allocate a builder per
column and abort the process (``std::bad_alloc``); a Parquet file or a JSON Lines
object can be as wide. Every reader refuses a table wider than :data:`MAX_COLUMNS`
(Excel's own limit, 16,384 columns) in one line, before the rows are read:

- CSV/TSV: the header's fields are counted while its lines are read, before the ``csv``
  module splits them (:class:`FieldCounter`), so a header of millions of fields is
  refused without building them;
- Parquet: from the file's schema (its footer), before a row group is read;
- JSON Lines: the keys of one object (a line), and the columns over the file.
"""
from __future__ import annotations

from typing import Any

from .errors import InputError

#: The most columns a table may have (Excel's limit: column XFD).
MAX_COLUMNS = 16_384


def too_wide(source: str, count: int | str, what: str, **where: Any) -> InputError:
    """The error for a table of ``count`` columns (or a description, e.g. ``"more than
    16,384"``); ``what`` says whose columns (``"the header has"``)."""
    shown = f"{count:,}" if isinstance(count, int) else count
    return InputError(source, f"{what} {shown} columns; coscore reads at most {MAX_COLUMNS:,} (Excel's own "
                      f"limit): keep only the columns to score (the ids, the answers, the marks)", **where)


class FieldCounter:
    """Counts the fields of one CSV/TSV record line by line, as RFC 4180 quotes them
    (a delimiter inside quotes is not a field's end), without splitting it."""

    def __init__(self, delimiter: str) -> None:
        self.delimiter = delimiter
        self.fields = 1
        self._quoted = False

    def add(self, line: str) -> int:
        """Take in the next line of the record; the fields so far."""
        if '"' not in line:
            if not self._quoted:
                self.fields += line.count(self.delimiter)
            return self.fields
        parts = line.split('"')
        start = 1 if self._quoted else 0   # the parts outside quotes: every other one
        self.fields += sum(part.count(self.delimiter) for part in parts[start::2])
        self._quoted = self._quoted != (len(parts) % 2 == 0)
        return self.fields
