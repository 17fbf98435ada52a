"""``coscore serve``: its arguments, and serving until interrupted."""
from __future__ import annotations

import argparse

from ..http import options
from ..http.options import access, address_problem, parse_size, serve
from ..http.rules import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE
from ..limits import from_arguments as limits_from_arguments
from .app import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MEMORY, DEFAULT_TIMEOUT, DEFAULT_WORKERS, create_app
from .endpoints import DEFAULT_MAX_RESPONSE

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore serve``."""
    options.add_arguments(parser, port_default=8000, max_body=DEFAULT_MAX_BODY, workers=DEFAULT_WORKERS,
                          timeout=DEFAULT_TIMEOUT, memory=DEFAULT_MEMORY, body_timeout=DEFAULT_BODY_TIMEOUT)
    parser.add_argument("--max-response", type=parse_size, default=DEFAULT_MAX_RESPONSE, metavar="BYTES",
                        help="largest answer sent, e.g. 16M (default 16 MiB); /v1/score refuses a request whose "
                        "answer would be larger (422)")
    parser.add_argument("--cache-size", type=int, default=DEFAULT_CACHE_SIZE, metavar="N",
                        help=f"compiled rules each worker keeps (default {DEFAULT_CACHE_SIZE})")
    parser.add_argument("--cache-bytes", type=parse_size, default=DEFAULT_CACHE_BYTES, metavar="BYTES",
                        help="memory the compiled rules each worker keeps may take (default 256M)")
    parser.add_argument("--cors-origin", action="append", metavar="ORIGIN", dest="cors_origins",
                        help="allow browser pages from ORIGIN (e.g. http://localhost:5000, or '*') to call "
                        "the service; repeatable")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    if args.cache_size < 0:
        raise SystemExit("coscore serve: --cache-size must be >= 0")
    problem = address_problem(args.host, args.port)
    if problem is not None:
        raise SystemExit(f"coscore serve: {problem}")
    allowed = access("coscore serve", args.host, args.port, args.token, args.no_token, args.allowed_hosts)
    app = create_app(max_body=args.max_body, cache_size=args.cache_size, cors_origins=args.cors_origins,
                     workers=args.workers, timeout=args.timeout, memory=args.memory or None,
                     cache_bytes=args.cache_bytes, body_timeout=args.body_timeout,
                     limits=limits_from_arguments(args), max_in_flight=args.max_in_flight or None,
                     max_response=args.max_response, allowed_hosts=allowed.hosts, token=allowed.token)
    serve(app, args.host, args.port, args.log_level, header_timeout=args.header_timeout, notes=allowed.notes)
    return 0
