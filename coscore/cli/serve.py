"""``coscore serve``: the drop-in HTTP scoring service (:mod:`coscore.server`), its
arguments and serving until interrupted. Importing it needs the ``serve`` extra, so a
missing extra makes the subcommand unavailable with an install hint."""
from __future__ import annotations

import argparse

from ..http.options import parse_size, serve
from ..server import DEFAULT_CACHE_BYTES, DEFAULT_CACHE_SIZE, create_app
from ..server.app import DEFAULT_SETTINGS, WORKERS_RULE
from ..server.endpoints import DEFAULT_MAX_RESPONSE
from .server_options import StartupError, add_server_options, server_settings, startup_error

__all__ = ["add_arguments", "run"]

COMMAND = "coscore serve"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore serve``."""
    add_server_options(parser, port_default=8000, defaults=DEFAULT_SETTINGS, workers_default=WORKERS_RULE)
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
        return startup_error(COMMAND, "--cache-size must be >= 0")
    try:
        settings = server_settings(COMMAND, args)
    except StartupError as exc:
        return startup_error(COMMAND, exc)
    app = create_app(settings, cache_size=args.cache_size, cache_bytes=args.cache_bytes,
                     cors_origins=args.cors_origins, max_response=args.max_response)
    serve(app, settings.host, settings.port, settings.log_level, header_timeout=settings.header_timeout,
          notes=settings.notes)
    return 0
