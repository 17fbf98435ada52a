"""``coscore suggest RULE DATA --label COL``: what the rule misses -- phrases that separate
high marks from low ones and that no atom covers, and the answers it scores furthest
from their marks, grouped by similarity, with the atom that came closest."""
from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from ..limits import finite_number
from ..search_budget import add_arguments as add_budget_arguments
from .agreement import (
    add_missing_marks_option,
    add_search_inputs,
    after_heading,
    emit,
    marks_left_out,
    require_label,
    stopped_search,
)
from .errors import UsageError
from .exams import is_exam, item_rule_name, item_table, load_exam_file, pick_item, refuse_rule_options
from .options import add_data_options, add_id_option, positive_int, reading_options
from .rules import load_rule

if TYPE_CHECKING:
    from ..labelled import Table
    from ..suggest import Suggestions

DESCRIPTION = """Read the marked answers of DATA and show what RULE misses: the phrases (runs of 2 to
4 characters, never across punctuation; no word segmentation needed for Chinese) that
separate high marks from low ones and that no atom names, each with its counts and
example answers; then the distinct answers the rule scores furthest from their marks,
grouped by similarity, each with the atom that came closest. --json prints the same as
data (documented in docs/tune.md). It runs within --max-seconds and --max-memory; past
either it stops with one line saying what it had found and exits with status 1.
With an exam file in place of RULE, --item NAME picks the item: its rule, its blanks and
marks in DATA (in the long layout, its rows only)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore suggest``."""
    add_search_inputs(p)
    add_data_options(p)
    add_missing_marks_option(p)
    p.add_argument("--top", type=positive_int, default=10, metavar="K",
                   help="phrases of high marks and of low marks to show, each (default 10)")
    p.add_argument("--min-rows", type=positive_int, default=3, metavar="N",
                   help="a phrase must be in at least N rows (default 3)")
    p.add_argument("--min-z", type=_z, default=2.0, metavar="Z",
                   help="a phrase must separate the marks with an absolute z of at least Z (default 2)")
    p.add_argument("--limit", type=positive_int, default=20, metavar="K",
                   help="missed answers to show, furthest first (default 20)")
    p.add_argument("--json", action="store_true", help="print the suggestions as a JSON object")
    add_id_option(p)
    add_budget_arguments(p)
    p.set_defaults(html=None, usage_error=p.error)


def _z(text: str) -> float:
    return finite_number(text, 0, "a finite number of at least 0")


def run(args: argparse.Namespace) -> int:
    """Print the suggestions (text or JSON); return the exit status."""
    from ..labelled import read_marked
    from ..search_budget import SearchStopped, from_arguments
    from ..suggest import render_text, suggest

    if is_exam(args.rule):
        refuse_rule_options(args, ("--label", "--blanks"))
        exam = load_exam_file(args.rule)
        item = pick_item(exam, args.item, args.rule, "suggest")
        table = item_table(exam, item, args.data, args.format,
                           {**reading_options(args), "missing_marks": args.missing_marks}, marks=True)
        rule = item.rule
        shown = f"item {item.name} of {os.path.basename(args.rule)} (rule {item_rule_name(exam, item)})"
        where: dict[str, Any] = {"exam": args.rule, "item": item.name, "rule": item.rule_path}
    else:
        if args.item is not None:
            raise UsageError(f"--item is for an exam; {args.rule} is a rule")
        require_label(args)
        rule, shown, where = load_rule(args.rule)[0], os.path.basename(args.rule), {"rule": args.rule}
        table = read_marked(args.data, args.format, args.blanks, args.label, need=rule.blank_need,
                            reader_name=args.rule, id_column=args.id_column, missing_marks=args.missing_marks,
                            **reading_options(args))
    try:
        found = suggest(rule, list(table.answers), table.marks, top=args.top,
                        min_rows=args.min_rows, min_z=args.min_z, limit=args.limit, budget=from_arguments(args))
    except SearchStopped as stop:
        return stopped_search(args, stop)
    except ValueError as exc:   # no marked answer
        raise UsageError(f"{table.source}: {exc}") from None
    if table.origin is not None:   # the long layout: the item's rows, numbered as in DATA
        _renumber(found, table)
    fields, left = marks_left_out(table)
    where.update(data=table.source, label=table.label, **fields)
    return emit(args, lambda: {**where, **found.to_dict()},
                lambda: after_heading(render_text(found, shown, os.path.basename(table.source)), left), str)


def _renumber(found: Suggestions, table: Table) -> None:
    """Number the rows ``found`` shows (1 = the first of ``table``) as in ``table``'s file."""
    for phrase in [*found.high, *found.low]:
        for example in phrase.examples:
            example["row"] = table.row_number(example["row"] - 1)
    for group in found.groups:
        for missed in group.answers:
            missed.rows = [table.row_number(r - 1) for r in missed.rows]
