"""``coscore serve``: its arguments, and serving until interrupted."""
from __future__ import annotations

import argparse

from ..http.options import LOG_LEVELS, address_problem, parse_size, port, positive, serve
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..limits import add_arguments as add_limit_arguments
from ..limits import from_arguments as limits_from_arguments
from .app import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MEMORY, DEFAULT_TIMEOUT, DEFAULT_WORKERS, create_app

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore serve``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; "
                        "0.0.0.0 for every interface)")
    parser.add_argument("--port", type=port, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--max-body", type=parse_size, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help="largest request body accepted, e.g. 16M (default 16 MiB); larger ones get 413")
    parser.add_argument("--cache-size", type=int, default=DEFAULT_CACHE_SIZE, metavar="N",
                        help=f"compiled rules each worker keeps (default {DEFAULT_CACHE_SIZE})")
    parser.add_argument("--cache-bytes", type=parse_size, default=DEFAULT_CACHE_BYTES, metavar="BYTES",
                        help="memory the compiled rules each worker keeps may take (default 256M)")
    parser.add_argument("--workers", type=positive(int), default=DEFAULT_WORKERS, metavar="N",
                        help=f"worker processes scoring at once (default: one per core, 2 to 8; here {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=positive(float), default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"wall-time budget of one request; past it the worker is killed and the request "
                        f"answered 503 (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--memory", type=parse_size, default=DEFAULT_MEMORY, metavar="BYTES",
                        help="memory a worker may grow by; a request needing more is answered 422 "
                        "(default 1G; 0 for no limit)")
    parser.add_argument("--body-timeout", type=positive(float), default=DEFAULT_BODY_TIMEOUT, metavar="SECONDS",
                        help=f"time a client may take to send a request body, else 408 (default {DEFAULT_BODY_TIMEOUT:g})")
    parser.add_argument("--cors-origin", action="append", metavar="ORIGIN", dest="cors_origins",
                        help="allow browser pages from ORIGIN (e.g. http://localhost:5000, or '*') to call "
                        "the service; repeatable")
    add_limit_arguments(parser)
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS, help="uvicorn log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    if args.cache_size < 0:
        raise SystemExit("coscore serve: --cache-size must be >= 0")
    problem = address_problem(args.host, args.port)
    if problem is not None:
        raise SystemExit(f"coscore serve: {problem}")
    app = create_app(max_body=args.max_body, cache_size=args.cache_size, cors_origins=args.cors_origins,
                     workers=args.workers, timeout=args.timeout, memory=args.memory or None,
                     cache_bytes=args.cache_bytes, body_timeout=args.body_timeout,
                     limits=limits_from_arguments(args))
    serve(app, args.host, args.port, args.log_level)
    return 0
