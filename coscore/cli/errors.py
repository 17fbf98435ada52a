"""How the ``coscore`` command fails: its exit statuses, :class:`UsageError` and the
one-line messages it prints on stderr (never a traceback)."""
from __future__ import annotations

import argparse
import contextvars
import os
import sys

from ..errors import UsageError as UsageError  # defined there (coscore exports it); raised here

PROG = "coscore"
#: The subcommand running and its arguments (set by :func:`coscore.cli.main`), so that a
#: message can say how that subcommand is called: ``coscore score RULE DATA``.
RUNNING: contextvars.ContextVar[tuple[str, argparse.Namespace] | None] = contextvars.ContextVar(
    "coscore_running", default=None)
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: An unexpected error: a fault of coscore's own, reported on one line.
EXIT_INTERNAL = 3
#: Ctrl-C (SIGINT); SIGTERM and SIGHUP give 128 + their number too (:mod:`coscore.cli.signals`).
EXIT_INTERRUPTED = 130


def print_error(message: str) -> None:
    """Print ``coscore: message`` on stderr, at most :data:`~coscore.diagnostics.MESSAGE_LIMIT`
    characters in all (a message quoting a file name, a column or a value is shortened)."""
    from ..diagnostics import shorten

    print(shorten(f"{PROG}: {message}"), file=sys.stderr)


def describe_unexpected(exc: Exception) -> tuple[str, int]:
    """One line for an exception no subcommand turned into a message, and the exit status."""
    from ..diagnostics import shorten

    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read", EXIT_USAGE
    if isinstance(exc, MemoryError):
        return "out of memory (the input is too large for this machine)", EXIT_USAGE
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return shorten(f"{where}{exc.strerror or exc}"), EXIT_USAGE
    text = str(exc).strip().splitlines()
    detail = f": {text[0]}" if text else ""
    return shorten(f"unexpected error ({type(exc).__name__}{detail}); "
                   "please report it, with COSCORE_TRACEBACK=1 for the details"), EXIT_INTERNAL


def silence_stdout() -> None:
    """Point stdout at the null device, after its reader went away (``coscore ... | head``)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
