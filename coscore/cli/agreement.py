"""What ``coscore report`` and ``coscore compare`` share: the options of a command that
measures agreement with the teachers' marks, and how it prints (text, JSON, an HTML page)."""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from .errors import EXIT_FAILED, EXIT_OK, UsageError, print_error
from .options import add_id_option, positive_int
from .outputs import print_text, refuse_input_as_output

#: The choices of ``--missing-marks`` (:data:`coscore.marks.MISSING_MARKS`; spelled out
#: here so that building the parser imports no numpy).
MISSING_MARKS = ("error", "skip")


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
    add_id_option(p)
    add_missing_marks_option(p)
    p.add_argument("--json", action="store_true", help=f"print the {what} as a JSON object")
    p.add_argument("--html", metavar="FILE", help=f"also write the {what} as a self-contained HTML page with figures")


def add_missing_marks_option(p: argparse.ArgumentParser) -> None:
    """``--missing-marks {error,skip}``: what a mark that is not a number does."""
    p.add_argument("--missing-marks", choices=MISSING_MARKS, default="error",
                   help="a mark that is not a number (缺考, absent, -): 'error' (the default) stops at the first, "
                   "naming its row; 'skip' leaves such rows out of the figures and says how many. An empty mark is "
                   "no mark either way; a mark that is not finite (inf) or lies outside 0-10 is always an error")


def marks_left_out(table: Any) -> tuple[dict[str, Any], list[str]]:
    """What the commands that read marks and have no report of their own (tune, suggest,
    explain) say of the rows left out for their mark: the JSON fields ``missing_marks`` and
    ``left_out`` (``None`` unless ``--missing-marks skip``), and the line of text (none
    when no row was left out)."""
    from ..marks import left_out

    found = left_out(table, table.label) if table.missing_marks == "skip" and table.label in table.columns else None
    fields = {"missing_marks": table.missing_marks, "left_out": found.to_dict() if found else None}
    return fields, [found.describe()] if found and found.rows else []


def after_heading(text: str, lines: list[str]) -> str:
    """``text`` with ``lines`` after its first line (its heading)."""
    if not lines:
        return text
    head, _, rest = text.partition("\n")
    return "\n".join([head, *lines, *([rest] if rest else [])])


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


def add_search_inputs(p: argparse.ArgumentParser) -> None:
    """What a search (``tune``, ``suggest``) reads: ``RULE|EXAM``, ``DATA``, ``--label`` and
    ``--item`` (an exam's item: its rule, blanks and marks)."""
    p.add_argument("rule", metavar="RULE|EXAM", help="the rule (.json), or an exam file with --item NAME: that "
                   "item's rule, blanks and marks")
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("--label", metavar="COL", help="the teachers' mark column (required, except with an exam)")
    p.add_argument("--item", metavar="NAME", help="with an exam: the item (its rule; in DATA its blanks and marks, "
                   "and in the long layout its rows only)")


def stopped_search(args: argparse.Namespace, stop: Any) -> int:
    """The end of a search (``tune``, ``suggest``) stopped by its budget
    (:class:`coscore.search_budget.SearchStopped`): one line on stderr naming the budget,
    the flag that raises it and the best result so far; with ``--json`` that too, as data,
    on stdout. Exit status 1."""
    flag = {"time": " (give more with --max-seconds)", "memory": " (give more with --max-memory)"}
    if args.json:
        print(json.dumps({"stopped": {"budget": stop.budget, "limit": stop.limit, "stage": stop.stage},
                          "best_so_far": stop.partial}, ensure_ascii=False, indent=2))
    print_error(f"{stop}{flag.get(stop.budget, '')}")
    return EXIT_FAILED


def emit(args: argparse.Namespace, data: Callable[[], Any], text: Callable[[], str],
         page: Callable[[], str]) -> int:
    """Write the HTML page to ``--html`` (if given; :func:`check_html` first), then print
    JSON (``--json``) or text (each line shortened)."""
    from ..io import atomic_output

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
