"""The options every server command takes (``serve``, ``app``, ``workbench``), read once
into a :class:`~coscore.http.settings.ServerSettings`, and how such a command fails to
start.

A server command adds its options with :func:`add_server_options` (giving its own
defaults), builds its settings with :func:`server_settings` (the address check, who may
connect, the budgets, the proxy) and hands them to its ``create_app`` and to
:func:`coscore.http.options.serve`. Anything that stops it starting goes through
:func:`startup_error`: one line on stderr, exit status 2, no traceback. Importing this
needs the ``serve`` extra.
"""
from __future__ import annotations

import argparse
import sys

from ..diagnostics import shorten
from ..errors import CoscoreError
from ..http import options
from ..http.proxy import Proxy, parse_trusted, root_path
from ..http.settings import ServerSettings
from ..limits import from_arguments as limits_from_arguments
from .errors import EXIT_USAGE

__all__ = ["StartupError", "add_server_options", "server_settings", "startup_error"]


class StartupError(CoscoreError):
    """A server command cannot start; the message says why, on one line."""


def _trusted(text: str) -> tuple[str, ...]:
    try:
        return parse_trusted(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _root_path(text: str) -> str:
    try:
        return root_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_server_options(parser: argparse.ArgumentParser, *, port_default: int, defaults: ServerSettings,
                       workers_default: str | None = None) -> None:
    """Add the options every server command takes, with ``defaults`` (the command's own
    settings: body size, workers, timeouts, memory) and ``port_default``;
    ``workers_default`` says how the default number of workers is chosen when it depends
    on the machine (the help then says that rather than this machine's number)."""
    memory = defaults.memory or 0
    body_timeout = defaults.body_timeout or 10.0
    options.add_arguments(parser, port_default=port_default, max_body=defaults.max_body, workers=defaults.workers,
                          timeout=defaults.timeout, memory=memory, body_timeout=body_timeout,
                          workers_default=workers_default)
    group = parser.add_argument_group("behind a reverse proxy (see docs/deployment.md)")
    group.add_argument("--proxy-headers", action="store_true",
                       help="honour X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For from the proxies "
                       "--forwarded-allow-ips names (for the Origin and Host checks and the client's address)")
    group.add_argument("--forwarded-allow-ips", type=_trusted, default=("127.0.0.1", "::1"), metavar="ADDRESSES",
                       help="the proxies trusted with --proxy-headers: comma-separated addresses or networks, or "
                       "'*' for any peer (default 127.0.0.1,::1)")
    group.add_argument("--root-path", type=_root_path, default="", metavar="PREFIX",
                       help="the path prefix the server is reached under, e.g. /coscore; /coscore/v1/check and "
                       "/v1/check are then both answered, so the proxy may strip the prefix or not")


def server_settings(command: str, args: argparse.Namespace) -> ServerSettings:
    """The :class:`ServerSettings` of the options :func:`add_server_options` added; raises
    :class:`StartupError` when the server could not listen where asked. ``command`` (e.g.
    ``"coscore serve"``) starts the notes printed at start."""
    problem = options.address_problem(args.host, args.port)
    if problem is not None:
        raise StartupError(problem)
    allowed = options.access(command, args.host, args.port, args.token, args.no_token, args.allowed_hosts)
    proxy = Proxy(trusted=tuple(args.forwarded_allow_ips) if args.proxy_headers else (), root_path=args.root_path)
    try:
        return ServerSettings(
            max_body=args.max_body, workers=args.workers, timeout=args.timeout, memory=args.memory or None,
            body_timeout=args.body_timeout, max_in_flight=args.max_in_flight or None,
            limits=limits_from_arguments(args), admission=options.admission(args), allowed_hosts=allowed.hosts,
            token=allowed.token, proxy=proxy, host=args.host, port=args.port, log_level=args.log_level,
            header_timeout=args.header_timeout, notes=allowed.notes)
    except ValueError as exc:
        raise StartupError(str(exc)) from None


def startup_error(command: str, problem: object) -> int:
    """Print why ``command`` could not start, on one shortened line, and return the exit status (2)."""
    print(shorten(f"{command}: {problem}"), file=sys.stderr)
    return EXIT_USAGE

