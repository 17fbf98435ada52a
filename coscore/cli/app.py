"""``coscore app DIR``: the original CoScore web app (pages, API, database) served on
coscore (:mod:`coscore.webapp`), its arguments and serving until interrupted. Importing
it needs the ``serve`` extra, so a missing extra makes the subcommand unavailable with an
install hint.

DIR is the folder that holds ``templates/`` and ``static/``; the folder above it (the
original repository, which holds ``app/``) is accepted too, and a DIR that is neither
gets an error naming the folder to give when one is found next to it.
"""
from __future__ import annotations

import argparse
import shlex
import sqlite3
from pathlib import Path

from ..http.options import positive, serve
from ..webapp import quotas
from ..webapp.routes import DEFAULT_SETTINGS, create_app
from ..webapp.tasks import DEFAULT_TASK_TIME
from .server_options import StartupError, add_server_options, server_settings, startup_error

__all__ = ["add_arguments", "app_folder", "run"]

COMMAND = "coscore app"
#: What an app folder holds.
PARTS = ("templates", "static")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore app``."""
    parser.add_argument("app_dir", metavar="DIR", help="the original app folder (it holds templates/ and static/)")
    parser.add_argument("--db", default="database.db", metavar="FILE",
                        help="the SQLite database (default: database.db in the working directory, as the "
                        "original server; created when missing)")
    add_server_options(parser, port_default=5000, defaults=DEFAULT_SETTINGS)
    parser.add_argument("--task-time", type=positive(float), default=DEFAULT_TASK_TIME, metavar="SECONDS",
                        help=f"seconds of workers' time one task may use in all (default {DEFAULT_TASK_TIME:g})")
    quotas.add_arguments(parser)  # store quotas: --max-datasets, --max-data-bytes, --max-tasks, --max-task-bytes


def run(args: argparse.Namespace) -> int:
    """Serve the app folder DIR (or the app folder inside it) until interrupted; return the exit status."""
    folder, problem = app_folder(args.app_dir)
    if problem is not None:
        return startup_error(COMMAND, problem)
    try:
        settings = server_settings(COMMAND, args)
        app = create_app(folder, args.db, settings, task_time=args.task_time, quotas=quotas.from_arguments(args))
    except StartupError as exc:
        return startup_error(COMMAND, exc)
    except sqlite3.Error as exc:
        return startup_error(COMMAND, f"{args.db}: {exc}")
    except OSError as exc:
        return startup_error(COMMAND, exc)
    app.state.pool.start()
    serve(app, settings.host, settings.port, settings.log_level, header_timeout=settings.header_timeout,
          notes=settings.notes)
    return 0


def app_folder(given: str) -> tuple[Path, str | None]:
    """The app folder ``given`` names: itself when it holds ``templates/`` and
    ``static/``, else its ``app/`` subfolder when that does; with the reason when
    neither (naming a folder nearby that would do: its parent, a subfolder, or a
    subfolder's ``app/``)."""
    root = Path(given)
    if _is_app(root):
        return root, None
    if _is_app(root / "app"):
        return root / "app", None
    if not root.is_dir():
        return root, f"{given} is not a CoScore app folder: there is no such folder"
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError as exc:
        return root, f"{given} is not a CoScore app folder: cannot read it ({exc.strerror or exc})"
    near = [root.parent] + children + [p / "app" for p in children]
    found = next((p for p in near if _is_app(p)), None)
    hint = f"; try: coscore app {shlex.quote(str(found))}" if found is not None else ""
    return root, f"{given} is not a CoScore app folder: it needs templates/ and static/{hint}"


def _is_app(folder: Path) -> bool:
    try:
        return all((folder / part).is_dir() for part in PARTS)
    except OSError:
        return False
