"""Option types and option groups that several ``coscore`` subcommands share: column
lists, bounded whole numbers, and the ``--format``/``--blanks`` pair of a command that
reads a data file."""
from __future__ import annotations

import argparse

from ..io import INPUT_FORMATS


def column_list(text: str) -> list[str]:
    """``a,b,c`` as a list of column names, for an argparse ``type``."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {text!r}")
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
        raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"expected {bounds}, got {text!r}")
    return value


def add_data_options(p: argparse.ArgumentParser) -> None:
    """``--format`` and ``--blanks`` for a command that reads a data file DATA."""
    p.add_argument("--format", choices=INPUT_FORMATS, help="format of DATA (default: from its extension)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                   help="the blank columns of DATA (default: every column except id, the label and score columns)")
