"""The ``coscore`` command: score files, check and explain rules, report agreement.

Thin by design: it parses arguments and calls the library (:mod:`coscore.io`,
:mod:`coscore.report`, :mod:`coscore.explain`, :mod:`coscore.demo`). Each subcommand is a
module of this package with ``add_arguments(parser)`` and ``run(args) -> int`` (and a
``DESCRIPTION`` for its ``--help``), listed once in :data:`COMMANDS` and imported only when
that subcommand runs. Exit status: 0 on success, 1 for ``check`` with errors or ``score
--strict`` with failed answers, 2 for a usage or input error (one line on stderr naming
file, line and column), ``128 + N`` when stopped by signal N (130 for Ctrl-C, 143 for
SIGTERM, 129 for SIGHUP: :mod:`coscore.cli.signals`). Every message that quotes what
it was given is shortened (:func:`coscore.diagnostics.shorten`).
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple, NoReturn

from ..diagnostics import shorten

# Only light modules here: numpy, pyarrow and the engine are imported by the subcommand
# that needs them, inside main(), where Ctrl-C during those imports is an "interrupted" line.
from ..io import InputError
from .errors import (
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    RUNNING,
    UsageError,
    describe_unexpected,
    print_error,
    silence_stdout,
)
from .signals import describe as describe_stop
from .signals import exit_status as stop_status
from .signals import stop_on_signals

__all__ = ["ArgumentParser", "COMMANDS", "Command", "EXIT_FAILED", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE",
           "UsageError", "build_parser", "main"]


class Command(NamedTuple):
    """A subcommand: the module that holds it, its one-line help, and how to install what
    it needs when that is an optional extra ("" when it needs nothing more)."""

    module: str
    summary: str
    install_hint: str = ""


#: The subcommands, in the order ``--help`` lists them. A module provides
#: ``add_arguments(parser)``, ``run(args) -> int`` and optionally ``DESCRIPTION`` (the
#: text of its ``--help``; default: the one-line help).
COMMANDS: dict[str, Command] = {
    "score": Command("coscore.cli.score", "score every answer of a data file"),
    "check": Command("coscore.cli.check", "check a rule: every error and warning, with carets"),
    "explain": Command("coscore.cli.explain", "show why answers get their scores"),
    "report": Command("coscore.cli.report", "agreement of coscore with the teachers' marks"),
    "compare": Command("coscore.cli.compare", "compare scorers (rules or score columns) against the same marks"),
    "tune": Command("coscore.cli.tune", "tune a rule's thresholds and scores on marked answers, checked held out"),
    "suggest": Command("coscore.cli.suggest", "what a rule misses: phrases of high marks, answers scored furthest off"),
    "demo": Command("coscore.cli.demo", "score the bundled CoScore datasets and show the agreement"),
    "expect": Command("coscore.cli.expect", "check rules against their test suites (Expectations 0.7.2)"),
    "serve": Command("coscore.cli.serve", "run the drop-in HTTP scoring service", "pip install 'coscore[serve]'"),
    "app": Command("coscore.cli.app", "serve the original CoScore web app (pages, API, database) on coscore",
                   "pip install 'coscore[serve]'"),
    "workbench": Command("coscore.cli.workbench", "serve the rule workbench alone: edit, test and measure rules "
                         "on your data files and exams", "pip install 'coscore[serve]'"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``coscore`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Never ends in a traceback: an input problem is one line and exit 2; anything
    unexpected is one line too (:func:`coscore.cli.errors.describe_unexpected`), exit 2
    for what the input or the system caused (a file the system refuses, nesting too deep,
    memory) and :data:`EXIT_INTERNAL` for a fault of coscore's own.
    ``COSCORE_TRACEBACK=1`` prints the traceback as well, for a bug report.
    SIGINT (Ctrl-C), SIGTERM and SIGHUP stop a run cleanly (:mod:`coscore.cli.signals`):
    no partial output, one line, exit ``128 + N``; when ``argv`` is ``None`` (the
    process's own command line), signals after that are ignored while the process exits.
    """
    with stop_on_signals(process_ends=argv is None):
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(argv: list[str]) -> int:
    try:
        return _run(argv)
    except KeyboardInterrupt as exc:  # e.g. while the command's modules are imported
        print_error(describe_stop(exc))
        return stop_status(exc)
    except SystemExit as exc:  # a subcommand that gave up with a message
        if isinstance(exc.code, str):
            print(shorten(exc.code.strip().splitlines()[0]) if exc.code.strip() else PROG, file=sys.stderr)
            return EXIT_USAGE
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except Exception as exc:  # the last resort: one line, never a traceback
        if os.environ.get("COSCORE_TRACEBACK") == "1":
            import traceback

            traceback.print_exc()
        message, status = describe_unexpected(exc)
        print_error(message)
        return status


def _run(argv: list[str]) -> int:
    parser = build_parser(argv)
    unavailable = getattr(parser, "unavailable_command", None)
    if unavailable is not None:
        print_error(unavailable)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors: argparse has printed them
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    running = RUNNING.set((next((a for a in argv if not a.startswith("-")), ""), args))
    try:
        return int(args.handler(args))
    except (InputError, UsageError) as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP (coscore.cli.signals)
        print_error(describe_stop(exc))
        return stop_status(exc)
    except BrokenPipeError:  # e.g. `coscore score ... | head`
        silence_stdout()
        return EXIT_OK
    finally:
        RUNNING.reset(running)


def build_parser(argv: Sequence[str] = (), *, every: bool = False) -> argparse.ArgumentParser:
    """The argument parser; the subcommand named in ``argv`` (its first word) gets its
    arguments, the others only their one-line help. With ``every``, every subcommand gets
    its arguments (the command reference is generated from this parser; it imports every
    subcommand's module)."""
    parser = ArgumentParser(
        prog=PROG,
        description="Score students' short answers with CoScore rules.",
        epilog="Run 'coscore demo' to see it work on the bundled CoScore datasets.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, summary, hint) in COMMANDS.items():
        p = sub.add_parser(name, help=summary, description=summary)
        if every or name == chosen:
            problem = _attach(p, module)
            if problem is not None:
                reason = problem + (f"; try: {hint}" if hint else "")
                parser.unavailable_command = f"'{name}' is not available in this installation ({reason})"  # type: ignore[attr-defined]
    return parser


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors quote what was typed shortened
    (:func:`coscore.diagnostics.shorten`); its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the shortened ``message`` on stderr; exit 2."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, shorten(f"{self.prog}: error: {message}") + "\n")


def _attach(parser: argparse.ArgumentParser, module: str) -> str | None:
    """Import the subcommand's module and let it add its arguments; return why it cannot
    be imported (the subcommand then exits 2), or ``None``."""
    try:
        mod = importlib.import_module(module)
        add_arguments, run = mod.add_arguments, mod.run
    except (ImportError, AttributeError) as exc:
        return str(exc)
    description = getattr(mod, "DESCRIPTION", None)
    if description:
        parser.description = inspect.cleandoc(description)
    add_arguments(parser)
    parser.set_defaults(handler=run)
    return None


def _version() -> str:
    from .. import __version__

    return __version__
