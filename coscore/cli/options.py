"""Option types and option groups that several ``coscore`` subcommands share: column
lists, bounded whole numbers, the ``--format``/``--blanks`` pair of a command that
reads a data file, and the warning for a mark column taken as a blank."""
from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterable
from typing import Any

from ..diagnostics import shorten
from ..io import INPUT_FORMATS
from .errors import print_error

#: Column names that usually hold the teachers' marks (compared case-insensitively): taken
#: as a blank because ``--label`` was forgotten, they would change what rules read.
MARK_NAMES = ("mark", "score", "label", "grade", "human")


def column_list(text: str) -> list[str]:
    """``a,b,c`` as a list of column names, for an argparse ``type``."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {shorten(repr(text), 200)}")
    return names


def decimals(text: str) -> int:
    """A number of decimal places, 0 to 15, for an argparse ``type``."""
    return whole_number(text, 0, 15, "a number of decimal places", "0 to 15 decimal places")


def positive_int(text: str) -> int:
    """A positive integer, for an argparse ``type``."""
    return whole_number(text, 1, None, "a positive integer", "a positive integer")


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


def add_reading_options(p: argparse.ArgumentParser) -> None:
    """``--encoding``, ``--sheet`` and ``--max-cell-chars``: how a data file is read."""
    p.add_argument("--encoding", metavar="NAME",
                   help="the text encoding of CSV/TSV/JSON Lines/coscore input: any codec Python knows "
                   "(gb18030 also reads GBK and GB2312), or 'auto' (a byte order mark, else a guess, said on "
                   "stderr); default UTF-8")
    p.add_argument("--sheet", metavar="NAME|N", help="the sheet of .xlsx, .xls or .ods input: its name, or 1 for the first "
                   "(default)")
    p.add_argument("--max-cell-chars", type=positive_int, metavar="N",
                   help="refuse a cell longer than N characters (default 1,000,000; workbooks: Excel's 32,767)")


def reading_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`coscore.io.open_reader` that the reading options ask
    for; what ``--encoding auto`` chose is said on stderr."""
    return {"encoding": getattr(args, "encoding", None), "sheet": getattr(args, "sheet", None),
            "max_cell_chars": getattr(args, "max_cell_chars", None), "on_encoding": say_encoding}


def say_encoding(source: str, choice: str) -> None:
    """Say on stderr which encoding ``--encoding auto`` chose for ``source``."""
    print_error(f"{shorten(source, 300)}: read as {choice}")


def warn_mark_blanks(source: str, blanks: Iterable[str], given: object) -> None:
    """Warn on stderr about each blank column whose name is one of :data:`MARK_NAMES`,
    unless the blanks were ``given`` (``--blanks``): it probably holds the teachers'
    marks, and ``--label`` keeps it out of the answers."""
    if given:
        return
    for name in blanks:
        if name.strip().casefold() in MARK_NAMES:
            print_error(f"warning: {source}: column {shorten(repr(name), 200)} is read as a blank of each answer; "
                        f"if it holds the teachers' marks, give --label {shorten(shlex.quote(name), 200)}")


def blank_columns(table: Any, exclude: Iterable[str] = ()) -> list[str]:
    """The names of the blank columns of a table read whole (:func:`coscore.labelled.read_table`
    with ``exclude``): its columns but ``id``, the label, ``exclude`` and ``coscore_*``, when
    they are its blanks (``[]`` where the blanks are lists, as in JSON Lines)."""
    chosen = getattr(getattr(table, "blanks", None), "column_names", [])
    skip = {"id", table.label, *exclude}
    names = [name for name in table.columns if name not in skip and not name.startswith("coscore_")]
    return names if len(names) == len(chosen) and all(c == f"blank{i}" for i, c in enumerate(chosen)) else []
