"""``coscore workbench [DATA… | --exam EXAM] [--rule RULE] [--store DIR]``: the rule
workbench served alone (:mod:`coscore.workbench`), its arguments and serving until
interrupted. Importing it needs the ``serve`` extra, so a missing extra makes the
subcommand unavailable with an install hint.

It takes the options of every server command (:mod:`.server_options`: address, access,
budgets, a reverse proxy in front) and those of every command that reads a data file
(:mod:`.options`). At start it opens DATA, ``--rule`` and ``--exam``
(:func:`coscore.workbench.startup.open_files`); then it prints the address to open and
serves until Ctrl-C. Anything that stops it starting (an address in use, a store folder it
cannot use, a file it cannot open) is one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from pathlib import Path

from ..http.options import positive, serve
from ..workbench.app import DEFAULT_SETTINGS, create_app
from ..workbench.library import IMPORT_TIME
from ..workbench.startup import OpeningError, open_files
from ..workbench.store import default_store
from .options import add_reading_options, column_list
from .server_options import StartupError, add_server_options, server_settings, startup_error

__all__ = ["DESCRIPTION", "add_arguments", "run"]

COMMAND = "coscore workbench"

DESCRIPTION = """Serve the rule workbench on its own: edit a rule with live diagnostics, test answers, import data
files (CSV, TSV, JSON Lines, Parquet, .xlsx) with a column mapping and see the agreement with the teachers'
marks, open an exam and see its items worst first, keep every saved version of a rule. Nothing else is needed:
the workbench keeps its rules, versions and datasets in --store (default: the user's data folder). Listens on
127.0.0.1 only, unless --host says otherwise (then a token is required); behind a reverse proxy, see
--proxy-headers and --root-path."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore workbench``."""
    parser.add_argument("data", nargs="*", metavar="DATA", help="data files to import at start (a dataset each)")
    parser.add_argument("--exam", metavar="EXAM", help="an exam file (as coscore score EXAM takes it) to open, on the "
                        "first DATA file")
    parser.add_argument("--rule", metavar="RULE", help="a rule file to open (saved as a version of the rule named "
                        "after the file)")
    parser.add_argument("--store", metavar="DIR", help=f"the folder of the workbench's rules, versions and datasets "
                        f"(default: {default_store()})")
    parser.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                        help="the blank columns of DATA (default: as coscore report takes them)")
    parser.add_argument("--label", metavar="COL", help="the column of DATA holding the teachers' marks")
    parser.add_argument("--label2", metavar="COL", help="a second rater's marks")
    parser.add_argument("--group", metavar="COL", help="a group column (class, school)")
    parser.add_argument("--id-column", metavar="COL", help="the column that names each row (default: id, 学号…)")
    add_reading_options(parser)  # --encoding, --sheet, --header-row, --max-cell-chars
    parser.add_argument("--no-browser", action="store_true", help=argparse.SUPPRESS)
    add_server_options(parser, port_default=DEFAULT_SETTINGS.port, defaults=DEFAULT_SETTINGS)
    parser.add_argument("--import-time", type=positive(float), default=IMPORT_TIME, metavar="SECONDS",
                        help=f"seconds a worker may take to read a data file whole (default {IMPORT_TIME:g})")


def run(args: argparse.Namespace) -> int:
    """Open the files given, then serve until interrupted; return the exit status."""
    folder = Path(args.store) if args.store else default_store()
    try:
        settings = server_settings(COMMAND, args)
        app = create_app(folder, settings, import_time=args.import_time)
    except StartupError as exc:
        return startup_error(COMMAND, exc)
    except (OSError, sqlite3.Error) as exc:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or exc
        return startup_error(COMMAND, f"{folder}: cannot use this folder as the store ({reason})")
    app.state.pool.start()
    if args.data or args.exam or args.rule:
        reading = {"encoding": args.encoding, "sheet": args.sheet, "header_row": args.header_row,
                   "max_cell_chars": args.max_cell_chars}
        columns = {"blanks": args.blanks or [], "label": args.label, "label2": args.label2, "group": args.group,
                   "id": args.id_column}
        try:
            said = asyncio.run(open_files(app, args.data, rule=args.rule, exam=args.exam, reading=reading,
                                          columns=columns))
        except OpeningError as exc:
            app.state.pool.close()
            return startup_error(COMMAND, exc)
        for line in said:
            print(f"{COMMAND}: {line}", file=sys.stderr)
    host = settings.host if ":" not in settings.host else f"[{settings.host}]"
    url = f"http://{'127.0.0.1' if settings.host in ('0.0.0.0', '::', '') else host}:{settings.port}/"
    print(f"{COMMAND}: store {folder}", file=sys.stderr)
    notes = settings.notes if settings.token else (*settings.notes, f"{COMMAND}: open {url}")
    serve(app, settings.host, settings.port, settings.log_level, header_timeout=settings.header_timeout,
          notes=notes)
    return 0
