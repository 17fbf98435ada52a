"""``coscore app DIR``: serve the original CoScore web app folder on coscore."""
from __future__ import annotations

import argparse
import sqlite3
import sys

from ..http.options import LOG_LEVELS, address_problem, parse_size, serve
from .routes import DEFAULT_MAX_BODY, create_app
from .tasks import DEFAULT_WORKERS

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore app``."""
    parser.add_argument("app_dir", metavar="DIR", help="the original app folder (it holds templates/ and static/)")
    parser.add_argument("--db", default="database.db", metavar="FILE",
                        help="the SQLite database (default: database.db in the working directory, as the "
                        "original server; created when missing)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000)")
    parser.add_argument("--max-body", type=parse_size, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help="largest request body accepted, e.g. 64M (default 64 MiB)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, metavar="N",
                        help=f"tasks scored at the same time (default {DEFAULT_WORKERS})")
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS, help="uvicorn log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    problem = None
    if not 0 <= args.port <= 65535:
        problem = f"not a port number: {args.port}"
    elif args.workers < 1:
        problem = "--workers must be at least 1"
    elif (unusable := address_problem(args.host, args.port)) is not None:
        problem = unusable
    else:
        try:
            app = create_app(args.app_dir, args.db, max_body=args.max_body, workers=args.workers)
        except (OSError, sqlite3.Error) as exc:
            problem = f"{args.db}: {exc}" if isinstance(exc, sqlite3.Error) else str(exc)
    if problem is not None:
        print(f"coscore app: {problem}", file=sys.stderr)
        return 2
    app.state.pool.start()
    serve(app, args.host, args.port, args.log_level)
    return 0
