"""``coscore app DIR``: serve the original CoScore web app folder on coscore."""
from __future__ import annotations

import argparse
import sqlite3
import sys

from ..http import options
from ..http.options import access, address_problem, positive, serve
from ..limits import from_arguments as limits_from_arguments
from .routes import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MEMORY, DEFAULT_TIMEOUT, create_app
from .tasks import DEFAULT_TASK_TIME, DEFAULT_WORKERS

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore app``."""
    parser.add_argument("app_dir", metavar="DIR", help="the original app folder (it holds templates/ and static/)")
    parser.add_argument("--db", default="database.db", metavar="FILE",
                        help="the SQLite database (default: database.db in the working directory, as the "
                        "original server; created when missing)")
    options.add_arguments(parser, port_default=5000, max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS,
                          timeout=DEFAULT_TIMEOUT, memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT)
    parser.add_argument("--task-time", type=positive(float), default=DEFAULT_TASK_TIME, metavar="SECONDS",
                        help=f"seconds of workers' time one task may use in all (default {DEFAULT_TASK_TIME:g})")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    problem = address_problem(args.host, args.port)
    if problem is None:
        allowed = access("coscore app", args.host, args.port, args.token, args.no_token, args.allowed_hosts)
        try:
            app = create_app(args.app_dir, args.db, max_body=args.max_body, workers=args.workers,
                             timeout=args.timeout, memory=args.memory or None, body_timeout=args.body_timeout,
                             max_in_flight=args.max_in_flight or None, task_time=args.task_time,
                             limits=limits_from_arguments(args), allowed_hosts=allowed.hosts, token=allowed.token)
        except (OSError, sqlite3.Error) as exc:
            problem = f"{args.db}: {exc}" if isinstance(exc, sqlite3.Error) else str(exc)
    if problem is not None:
        print(f"coscore app: {problem}", file=sys.stderr)
        return 2
    app.state.pool.start()
    serve(app, args.host, args.port, args.log_level, header_timeout=args.header_timeout, notes=allowed.notes)
    return 0
