"""``coscore tune RULE DATA --label COL``: search the rule's thresholds and scores for
better agreement with the marks; keep the change only if it holds up held out."""
from __future__ import annotations

import argparse
import os
from typing import Any

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
from .options import add_data_options, reading_options, resample_count, whole_number
from .rules import load_rule, read_rule_text

DESCRIPTION = """Search what a teacher would otherwise tweak by hand -- OP/CS thresholds, combo
scores and (with --drop) leaving out combos -- for better agreement with the marks in
DATA (QWK, or --metric). The change is kept only if it raises the figure on answers the
search never saw: k-fold cross-validation (--folds, --seed), with a paired bootstrap
interval of the improvement that lies above zero. Prints the figures before and after
with their intervals, the changes as JSON paths, and writes the rule to use with -o
(the rule unchanged when nothing holds up, and why). The search runs within --max-seconds
and --max-memory; past either it stops with one line saying the best it had found (not
made, since it was not checked held out), writes nothing and exits with status 1.
With an exam file in place of RULE, --item NAME picks the item: its rule, its blanks and
marks in DATA (in the long layout, its rows only)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore tune``."""
    from ..report.bootstrap import RESAMPLES, SEED
    from ..tune import METRICS

    add_search_inputs(p)
    p.add_argument("-o", "--output", metavar="TUNED", help="write the rule to use here (.json)")
    add_data_options(p)
    add_missing_marks_option(p)
    p.add_argument("--metric", choices=list(METRICS), default="qwk", help="the figure to raise (default qwk)")
    p.add_argument("--folds", type=_folds, default=5, metavar="K", help="cross-validation folds (default 5)")
    p.add_argument("--seed", type=_seed, default=SEED, metavar="S",
                   help=f"seed of the folds and the bootstrap (default {SEED})")
    p.add_argument("--resamples", type=resample_count, default=RESAMPLES, metavar="B",
                   help=f"bootstrap resamples (default {RESAMPLES})")
    p.add_argument("--drop", action="store_true", help="also try leaving out each combo")
    p.add_argument("--json", action="store_true", help="print the outcome as a JSON object")
    add_budget_arguments(p)
    p.set_defaults(html=None, usage_error=p.error)


def _folds(text: str) -> int:
    from ..tune.tuning import MAX_FOLDS

    return whole_number(text, 2, MAX_FOLDS, "a number of folds", f"2 to {MAX_FOLDS} folds")


def _seed(text: str) -> int:
    return whole_number(text, 0, None, "a seed", "a seed of 0 or more")


def run(args: argparse.Namespace) -> int:
    """Tune, write the rule and print the outcome (text or JSON); return the exit status."""
    from ..io import atomic_output
    from ..labelled import read_marked
    from ..search_budget import SearchStopped, from_arguments
    from ..tune import tune
    from ..tune.render import render

    where: dict[str, Any]
    if is_exam(args.rule):
        refuse_rule_options(args, ("--label", "--blanks"))
        exam = load_exam_file(args.rule)
        item = pick_item(exam, args.item, args.rule, "tune")
        table = item_table(exam, item, args.data, args.format,
                           {**reading_options(args), "missing_marks": args.missing_marks}, marks=True)
        source: Any = read_rule_text(item.rule_path) if item.rule_path is not None else item.rule
        shown = f"item {item.name} of {os.path.basename(args.rule)} (rule {item_rule_name(exam, item)})"
        where = {"exam": args.rule, "item": item.name, "rule": item.rule_path}
    else:
        if args.item is not None:
            raise UsageError(f"--item is for an exam; {args.rule} is a rule")
        require_label(args)
        rule, source = load_rule(args.rule)
        table = read_marked(args.data, args.format, args.blanks, args.label, need=rule.blank_need,
                            reader_name=args.rule, missing_marks=args.missing_marks, **reading_options(args))
        shown, item, where = os.path.basename(args.rule), None, {"rule": args.rule}
    try:
        result = tune(source, list(table.answers), table.marks, metric=args.metric, folds=args.folds,
                      seed=args.seed, resamples=args.resamples, drop=args.drop, budget=from_arguments(args))
    except SearchStopped as stop:
        return stopped_search(args, stop)
    except ValueError as exc:
        raise UsageError(f"{table.source}: {exc}") from None
    if args.output:
        with atomic_output(args.output) as stream:
            stream.write(result.text)
    fields, left = marks_left_out(table)
    where.update(data=table.source, label=table.label, output=args.output, **fields)

    def text() -> str:
        out = after_heading(render(result, shown, os.path.basename(table.source), args.output), left)
        if item is not None and args.output:
            out += (f"\n{args.output} is item {item.name}'s rule ({item_rule_name(exam, item)}) as tuned: to score "
                    f"with it, point the item's 'rule:' in {args.rule} at it")
        return out

    return emit(args, lambda: {**where, **result.to_dict()}, text, str)
