"""Where a table's header is: what the CSV/TSV and workbook readers share about it.

A teacher's sheet often has a title above its header (``2026 期中 第5题`` alone in A1,
merged across the columns). ``header_row`` (``--header-row N``) names the row (CSV: the
line) holding the column names, and the rows above it are skipped. Without it the header
is the first row that holds a value, unless that row holds one value alone above a row of
two or more: that one is a title, the row below is the header, and the reader says so
(:func:`announcement`). A lone ``text`` is the header of the original CoScore layout, never
a title. Errors that come from the header name the row taken and :data:`HINT`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..messages import shorten

#: Told ``(file, what)`` when a title row was skipped: ``what`` is :func:`announcement`'s line.
OnHeader = Callable[[str, str], None]
#: What an error that comes from the header ends with.
HINT = "if the column names are in another row, give --header-row N (N: that row's number)"
#: The names shown of a header found below a title.
_SHOWN = 3


def is_title(values: Sequence[str]) -> bool:
    """Whether a first row holding ``values`` (its non-empty cells) may be a title: one value
    alone (not ``text``, the original CoScore layout's header)."""
    return len(values) == 1 and values[0] != "text"


def announcement(unit: str, header: int, names: Sequence[str], title_at: int, title: str) -> str:
    """``header: row 2 (学号, 班级, 第1空, …); the title row 1 ('2026 期中 第5题') was skipped —
    give --header-row to choose another`` (``unit``: ``row`` or ``line``)."""
    shown = ", ".join(shorten(name, 60) for name in names[:_SHOWN]) + (", …" if len(names) > _SHOWN else "")
    return (f"header: {unit} {header} ({shown}); the title {unit} {title_at} ({shorten(title, 100)!r}) was "
            "skipped — give --header-row to choose another")
