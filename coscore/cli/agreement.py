"""What ``coscore report`` and ``coscore compare`` share: the options of a command that
measures agreement with the teachers' marks, and how it prints (text, JSON, an HTML page)."""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from .errors import EXIT_OK, UsageError
from .options import positive_int
from .outputs import print_text, refuse_input_as_output


def add_agreement_options(p: argparse.ArgumentParser, what: str, rows: str, label_required: bool = True) -> None:
    """The options of a command that measures agreement with the teachers' marks and
    prints ``what`` through :func:`emit`: ``--label`` (required, unless ``label_required``
    is false: the command then checks with :func:`require_label` when it needs one),
    ``--label2`` and ``--by`` (:func:`marked_columns`), ``--top`` (it shows ``rows``),
    ``--json`` and ``--html``."""
    p.add_argument("--label", required=label_required, metavar="COL",
                   help="the teachers' mark column" + ("" if label_required else " (required, except with --exam)"))
    p.add_argument("--label2", metavar="COL",
                   help="a second teacher's marks (on some or all rows): human-human agreement beside "
                   "human-machine, and PRMSE (RSMTool's)")
    p.add_argument("--by", metavar="COL",
                   help="also give the figures per value of COL (school, class, …), with RSMTool's flags")
    p.add_argument("--top", type=positive_int, default=10, metavar="K", help=f"show {rows} (default 10)")
    p.add_argument("--json", action="store_true", help=f"print the {what} as a JSON object")
    p.add_argument("--html", metavar="FILE", help=f"also write the {what} as a self-contained HTML page with figures")


def check_html(args: argparse.Namespace, inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Refuse an ``--html`` page that would replace one of ``inputs`` (exit 2), before
    anything is read or written."""
    refuse_input_as_output(args.html, [name for name in inputs if name], "--html")


def require_label(args: argparse.Namespace) -> None:
    """Exit as argparse does (usage, ``the following arguments are required: --label``,
    exit 2) when ``--label`` is missing: for a parser whose ``--label`` is not required
    (:func:`add_agreement_options` with ``label_required=False``: an exam gives the marks)
    and whose defaults hold its ``usage_error`` (``parser.error``)."""
    if args.label is None:
        args.usage_error("the following arguments are required: --label")


def marked_columns(args: argparse.Namespace) -> list[str]:
    """The columns ``--label2`` and ``--by`` name (never taken as blanks)."""
    return [c for c in (args.label2, args.by) if c]


def emit(args: argparse.Namespace, data: Callable[[], Any], text: Callable[[], str],
         page: Callable[[], str]) -> int:
    """Write the HTML page to ``--html`` (if given; :func:`check_html` first), then print
    JSON (``--json``) or text (each line shortened)."""
    from ..io.atomic import atomic_output

    if args.html:
        try:
            html = page()
        except ImportError as exc:
            raise UsageError(str(exc)) from None
        with atomic_output(args.html) as stream:
            stream.write(html)
    if args.json:
        print(json.dumps(data(), ensure_ascii=False, indent=2))
    else:
        print_text(text())
    return EXIT_OK
