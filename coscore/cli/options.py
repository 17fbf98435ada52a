"""Option types and option groups that several ``coscore`` subcommands share: column
lists, bounded whole numbers, the ``--format``/``--blanks`` pair of a command that
reads a data file, and the warning for a mark column taken as a blank."""
from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterable
from typing import Any

from ..diagnostics import shorten
from ..io import INPUT_FORMATS, InputError, looks_like_marks
from .errors import print_error

#: What separates the names of a column list: ``,`` and its full-width form.
_SEPARATORS = re.compile("[,，]")


def column_list(text: str) -> list[str]:
    """``a,b,c`` as a list of column names, for an argparse ``type``; a full-width comma
    (``，``, as a Chinese keyboard types it) separates names too."""
    names = [name.strip() for name in _SEPARATORS.split(text)]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {shorten(repr(text), 200)}")
    return names


def decimals(text: str) -> int:
    """A number of decimal places, 0 to 15, for an argparse ``type``."""
    return whole_number(text, 0, 15, "a number of decimal places", "0 to 15 decimal places")


def positive_int(text: str) -> int:
    """A positive integer, for an argparse ``type``."""
    return whole_number(text, 1, None, "a positive integer", "a positive integer")


def resample_count(text: str) -> int:
    """A number of bootstrap resamples, 1 to :data:`coscore.report.bootstrap.MAX_RESAMPLES`."""
    from ..report.bootstrap import MAX_RESAMPLES

    return whole_number(text, 1, MAX_RESAMPLES, "a number of resamples", f"1 to {MAX_RESAMPLES:,} resamples")


def whole_number(text: str, low: int, high: int | None, kind: str, bounds: str) -> int:
    """``text`` as an int from ``low`` to ``high`` (None: no upper bound), for an argparse
    ``type``; the errors say it expected ``kind`` (not a number) or ``bounds``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {kind}, got {shorten(repr(text), 200)}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"expected {bounds}, got {shorten(repr(text), 200)}")
    return value


def add_data_options(p: argparse.ArgumentParser) -> None:
    """``--format``, ``--blanks`` and the reading options (:func:`add_reading_options`) for a
    command that reads a data file DATA."""
    p.add_argument("--format", choices=INPUT_FORMATS, help="format of DATA (default: from its extension)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                   help="the blank columns of DATA (default: every column except id, the label and score columns)")
    add_reading_options(p)


def add_id_option(p: argparse.ArgumentParser) -> None:
    """``--id-column COL``: the column that names each row wherever a row is named."""
    p.add_argument("--id-column", metavar="COL",
                   help="the column that names each row (student ids) wherever a row is named (default: a column "
                   "named id, student_id, 学号 or 考号, when there is one; else the row number)")


def add_reading_options(p: argparse.ArgumentParser) -> None:
    """``--encoding``, ``--sheet``, ``--header-row`` and ``--max-cell-chars``: how a data file is read."""
    p.add_argument("--encoding", metavar="NAME",
                   help="the text encoding of CSV/TSV/JSON Lines/coscore input: any codec Python knows "
                   "(gb18030 also reads GBK and GB2312), or 'auto' (a byte order mark, else a guess, said on "
                   "stderr); default UTF-8")
    p.add_argument("--sheet", metavar="NAME|N", help="the sheet of .xlsx, .xls or .ods input: its name, or 1 for the "
                   "first (default)")
    p.add_argument("--header-row", type=positive_int, metavar="N",
                   help="the row of .xlsx/.xls/.ods input (the line of CSV/TSV) that holds the column names, from 1; "
                   "the rows above it are skipped (default: the first row with a value, or the row below a title "
                   "standing alone in the first one, said on stderr)")
    p.add_argument("--max-cell-chars", type=positive_int, metavar="N",
                   help="refuse a cell longer than N characters (default 1,000,000; workbooks: Excel's 32,767)")


def reading_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`coscore.io.open_reader` that the reading options ask
    for; what ``--encoding auto`` chose, and a title row skipped above the header, are said on stderr."""
    return {"encoding": getattr(args, "encoding", None), "sheet": getattr(args, "sheet", None),
            "max_cell_chars": getattr(args, "max_cell_chars", None), "on_encoding": say_encoding,
            "header_row": getattr(args, "header_row", None), "on_header": say_header}


def say_encoding(source: str, choice: str) -> None:
    """Say on stderr which encoding ``--encoding auto`` chose for ``source``."""
    print_error(f"{shorten(source, 300)}: read as {choice}")


def say_header(source: str, what: str) -> None:
    """Say on stderr which row of ``source`` was taken as its header, below a title row
    (``what``: ``header: row 2 (…); the title row 1 (…) was skipped — …``)."""
    print_error(f"{shorten(source, 300)}: {what}")


def warn_mark_blanks(source: str, blanks: Iterable[str], given: object) -> None:
    """Warn on stderr about each blank column whose name says it holds marks
    (:data:`coscore.io.identifiers.MARK_NAMES`), unless the blanks were ``given``
    (``--blanks``): it probably holds the teachers' marks, and ``--label`` keeps it out."""
    if given:
        return
    for name in blanks:
        if looks_like_marks(name):
            print_error(f"warning: {source}: column {shorten(repr(name), 200)} is read as a blank of each answer; "
                        f"if it holds the teachers' marks, give --label {shorten(shlex.quote(name), 200)}")


def recorded_blanks(path: str, given: list[str] | None, fmt: str | None = None) -> list[str] | None:
    """The blank columns to read a scored file with: ``given`` (``--blanks``), else those
    its record says it was scored with (a Parquet or ``.xlsx`` file ``coscore score``
    wrote for one rule: :func:`coscore.io.scored_metadata`), else ``None`` (the defaults)."""
    if given or path == "-" or fmt not in (None, "parquet", "xlsx"):
        return given
    from ..io import scored_metadata

    try:
        record = scored_metadata(path)
    except InputError:
        return None   # no record to read: the reader says what is wrong with the file
    blanks = record.get("blanks") if record is not None and record.get("kind") == "rule" else None
    return [str(b) for b in blanks] if isinstance(blanks, list) and blanks else None


def say_skipped(source: str, columns: Any) -> None:
    """Say on stderr which columns were not taken as default blanks (an
    :class:`coscore.io.blanks.AnswerColumns`' ``skipped``): they look like identifiers or groups."""
    if columns.skipped:
        named = ", ".join(f"{shorten(name, 100)} ({kind})" for name, kind in columns.skipped[:8])
        more = f" and {len(columns.skipped) - 8} more" if len(columns.skipped) > 8 else ""
        print_error(f"note: {source}: not taken as blanks, as they look like identifiers or groups: {named}{more}; "
                    "give --blanks to choose the blank columns")


def blank_columns(table: Any, exclude: Iterable[str] = ()) -> list[str]:
    """The names of the blank columns of a table read whole (:func:`coscore.labelled.read_table`
    with ``exclude``): its columns but ``id``, the label, ``exclude`` and ``coscore_*``, when
    they are its blanks (``[]`` where the blanks are lists, as in JSON Lines)."""
    chosen = getattr(getattr(table, "blanks", None), "column_names", [])
    skip = {"id", table.label, *exclude}
    names = [name for name in table.columns if name not in skip and not name.startswith("coscore_")]
    return names if len(names) == len(chosen) and all(c == f"blank{i}" for i, c in enumerate(chosen)) else []
