"""``coscore suggest RULE DATA --label COL``: what the rule misses -- phrases that separate
high marks from low ones and that no atom covers, and the answers it scores furthest
from their marks, grouped by similarity, with the atom that came closest."""
from __future__ import annotations

import argparse
import os

from .agreement import emit
from .errors import UsageError
from .options import add_data_options, positive_int, reading_options
from .rules import load_rule

DESCRIPTION = """Read the marked answers of DATA and show what RULE misses: the phrases (runs of 2 to
4 characters, never across punctuation; no word segmentation needed for Chinese) that
separate high marks from low ones and that no atom names, each with its counts and
example answers; then the distinct answers the rule scores furthest from their marks,
grouped by similarity, each with the atom that came closest. --json prints the same as
data (documented in docs/tune.md)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore suggest``."""
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("--label", required=True, metavar="COL", help="the teachers' mark column")
    add_data_options(p)
    p.add_argument("--top", type=positive_int, default=10, metavar="K",
                   help="phrases of high marks and of low marks to show, each (default 10)")
    p.add_argument("--min-rows", type=positive_int, default=3, metavar="N",
                   help="a phrase must be in at least N rows (default 3)")
    p.add_argument("--min-z", type=float, default=2.0, metavar="Z",
                   help="a phrase must separate the marks with |z| >= Z (default 2)")
    p.add_argument("--limit", type=positive_int, default=20, metavar="K",
                   help="missed answers to show, furthest first (default 20)")
    p.add_argument("--json", action="store_true", help="print the suggestions as a JSON object")
    p.set_defaults(html=None)


def run(args: argparse.Namespace) -> int:
    """Print the suggestions (text or JSON); return the exit status."""
    from ..labelled import read_marked
    from ..suggest import render, suggest

    table = read_marked(args.data, args.format, args.blanks, args.label, **reading_options(args))
    try:
        found = suggest(load_rule(args.rule)[0], list(table.answers), table.marks, top=args.top,
                        min_rows=args.min_rows, min_z=args.min_z, limit=args.limit)
    except ValueError as exc:   # no marked answer
        raise UsageError(f"{table.source}: {exc}") from None
    where = {"rule": args.rule, "data": table.source, "label": table.label}
    return emit(args, lambda: {**where, **found.to_dict()},
                lambda: render(found, os.path.basename(args.rule), os.path.basename(table.source)), str)
