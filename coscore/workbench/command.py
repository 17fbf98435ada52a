"""``coscore workbench``: its arguments, the files it opens at start, and serving until
interrupted.

DATA files are imported into the store as the page imports them (the command's readers,
the mapping from ``--blanks``, ``--label``, ``--label2``, ``--group``, ``--id-column``, the
defaults and refusals of ``coscore report``); ``--rule`` is saved as a version of the rule
named after its file; ``--exam`` is opened on the first DATA file, each item's rule saved
as a rule. A file that cannot be read stops the command with the message the page would
show (exit 2). Then the URL to open is printed and the server runs until Ctrl-C.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..http import options
from ..http.options import access, address_problem, positive, serve
from ..limits import from_arguments as limits_from_arguments
from .app import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MEMORY, DEFAULT_TIMEOUT, DEFAULT_WORKERS, create_app
from .library import IMPORT_TIME
from .store import default_store

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = """Serve the rule workbench on its own: edit a rule with live diagnostics, test answers, import data
files (CSV, TSV, JSON Lines, Parquet, .xlsx) with a column mapping and see the agreement with the teachers'
marks, open an exam and see its items worst first, keep every saved version of a rule. Nothing else is needed:
the workbench keeps its rules, versions and datasets in --store (default: the user's data folder). Listens on
127.0.0.1 only, unless --host says otherwise (then a token is required)."""


def add_arguments(parser: argparse.ArgumentParser, column_list: Callable[[str], list[str]],
                  add_reading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """The arguments of ``coscore workbench``. What every command that reads a data file
    shares comes from the command (:mod:`coscore.cli.workbench` gives it; a front never
    imports the command): ``column_list``, the type of ``--blanks``, and
    ``add_reading_options``, which adds ``--encoding``, ``--sheet``, ``--header-row`` and
    ``--max-cell-chars``."""
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
    add_reading_options(parser)
    parser.add_argument("--no-browser", action="store_true", help=argparse.SUPPRESS)
    options.add_arguments(parser, port_default=5050, max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS,
                          timeout=DEFAULT_TIMEOUT, memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT)
    parser.add_argument("--import-time", type=positive(float), default=IMPORT_TIME, metavar="SECONDS",
                        help=f"seconds a worker may take to read a data file whole (default {IMPORT_TIME:g})")


async def _open_files(app: Any, args: argparse.Namespace) -> list[str]:
    """Import DATA, save --rule, open --exam (see the module's description); what was opened, in lines."""
    from ..http.responses import ApiError

    library = app.state.library
    said: list[str] = []
    rule_text = None
    if args.rule:
        rule_text = Path(args.rule).read_text(encoding="utf-8")
        name = Path(args.rule).stem
        number = app.state.store.save_rule(name, None, rule_text, f"file:{args.rule}")
        said.append(f"rule {name} (version {number})")
    reading = {"encoding": args.encoding, "sheet": args.sheet, "header_row": args.header_row,
               "max_cell_chars": args.max_cell_chars}
    mapping = {"blanks": args.blanks or [], "label": args.label, "label2": args.label2, "group": args.group,
               "id": args.id_column}
    first = None
    for data in args.data:
        path = Path(data)
        if not path.is_file():
            raise ApiError(400, f"{data}: no such file")
        upload = app.state.store.folder("uploads") / f"{os.urandom(8).hex()}{path.suffix.lower()}"
        shutil.copyfile(path, upload)
        found = await library.import_dataset({"upload": upload.stem, "file": path.name, "reading": reading,
                                              "columns": mapping, "rule": rule_text,
                                              "name_them": "--blanks COL[,COL...]"})
        first = first or found["name"]
        left = found.get("left_out") or {}
        said.append(f"dataset {found['name']}: {found['count']:,} rows, blanks {', '.join(found['columns']['blanks'])}"
                    + (f", marks {found['columns']['label']}" if found["columns"].get("label") else "")
                    + (f" ({left['rows']} left out: no mark)" if left.get("rows") else ""))
    if args.exam:
        exam = await library.open_exam(Path(args.exam).name, str(Path(args.exam).resolve()), True, first)
        said.append(f"exam {exam['exam']}: {len(exam['items'])} items" + (f" on {first}" if first else ""))
    return said


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    from ..http.responses import ApiError

    problem = address_problem(args.host, args.port)
    if problem is not None:
        print(f"coscore workbench: {problem}", file=sys.stderr)
        return 2
    allowed = access("coscore workbench", args.host, args.port, args.token, args.no_token, args.allowed_hosts)
    folder = Path(args.store) if args.store else default_store()
    try:
        app = create_app(folder, max_body=args.max_body, workers=args.workers, timeout=args.timeout,
                         memory=args.memory or None, body_timeout=args.body_timeout,
                         max_in_flight=args.max_in_flight or None, import_time=args.import_time,
                         limits=limits_from_arguments(args), allowed_hosts=allowed.hosts, token=allowed.token,
                         admission=options.admission(args))
    except OSError as exc:
        print(f"coscore workbench: {folder}: cannot use this folder as the store ({exc.strerror or exc})",
              file=sys.stderr)
        return 2
    app.state.pool.start()
    if args.data or args.exam or args.rule:
        try:
            said = asyncio.run(_open_files(app, args))
        except (ApiError, OSError, UnicodeDecodeError) as exc:
            app.state.pool.close()
            message = exc.message if isinstance(exc, ApiError) else str(exc)
            print(f"coscore workbench: {message}", file=sys.stderr)
            return 2
        for line in said:
            print(f"coscore workbench: {line}", file=sys.stderr)
    host = args.host if ":" not in args.host else f"[{args.host}]"
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::', '') else host}:{args.port}/"
    print(f"coscore workbench: store {folder}", file=sys.stderr)
    notes = allowed.notes if allowed.token else (f"coscore workbench: open {url}",)
    serve(app, args.host, args.port, args.log_level, header_timeout=args.header_timeout, notes=notes)
    return 0
