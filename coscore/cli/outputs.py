"""What the ``coscore`` subcommands write: a check that an output file is none of the
run's inputs, and text reports printed with every line shortened."""
from __future__ import annotations

import os
from collections.abc import Iterable

from ..diagnostics import shorten
from ..io import clashing_input
from .errors import UsageError


def refuse_input_as_output(output: str | None, inputs: Iterable[str | os.PathLike[str]], flag: str) -> None:
    """Raise :class:`UsageError` (exit 2) when the file ``output`` (given with ``flag``)
    is one of ``inputs`` — through a symbolic or hard link, or spelled otherwise — so
    that nothing is opened for writing over the data being read."""
    same = clashing_input(output, inputs)
    if same is not None:
        where = "" if os.fspath(same) == os.fspath(output or "") else f" (the same file as {same})"
        raise UsageError(f"{output}: {flag} names an input file of this run{where}; "
                         "write the output to another file")


def print_text(text: str) -> None:
    """Print ``text`` on stdout, each line shortened (:func:`coscore.diagnostics.shorten`):
    a report quotes answers, ids and column names, which may be megabytes long."""
    print("\n".join(_short_line(line) for line in text.split("\n")))


def _short_line(line: str) -> str:
    short = shorten(line)
    if short is not line and "\x1b[" in line:
        short += "\x1b[0m"  # a colour cut off mid-line ends here
    return short
