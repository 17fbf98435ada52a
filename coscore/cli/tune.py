"""``coscore tune RULE DATA --label COL``: search the rule's thresholds and scores for
better agreement with the marks; keep the change only if it holds up held out."""
from __future__ import annotations

import argparse
import os

from .agreement import emit
from .errors import UsageError
from .options import add_data_options, positive_int, reading_options, whole_number
from .rules import load_rule

DESCRIPTION = """Search what a teacher would otherwise tweak by hand -- OP/CS thresholds, combo
scores and (with --drop) leaving out combos -- for better agreement with the marks in
DATA (QWK, or --metric). The change is kept only if it raises the figure on answers the
search never saw: k-fold cross-validation (--folds, --seed), with a paired bootstrap
interval of the improvement that lies above zero. Prints the figures before and after
with their intervals, the changes as JSON paths, and writes the rule to use with -o
(the rule unchanged when nothing holds up, and why)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore tune``."""
    from ..report.bootstrap import RESAMPLES, SEED
    from ..tune import METRICS

    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("--label", required=True, metavar="COL", help="the teachers' mark column")
    p.add_argument("-o", "--output", metavar="TUNED", help="write the rule to use here (.json)")
    add_data_options(p)
    p.add_argument("--metric", choices=list(METRICS), default="qwk", help="the figure to raise (default qwk)")
    p.add_argument("--folds", type=_folds, default=5, metavar="K", help="cross-validation folds (default 5)")
    p.add_argument("--seed", type=_seed, default=SEED, metavar="S",
                   help=f"seed of the folds and the bootstrap (default {SEED})")
    p.add_argument("--resamples", type=positive_int, default=RESAMPLES, metavar="B",
                   help=f"bootstrap resamples (default {RESAMPLES})")
    p.add_argument("--drop", action="store_true", help="also try leaving out each combo")
    p.add_argument("--json", action="store_true", help="print the outcome as a JSON object")
    p.set_defaults(html=None)


def _folds(text: str) -> int:
    return whole_number(text, 2, None, "a number of folds", "at least 2 folds")


def _seed(text: str) -> int:
    return whole_number(text, 0, None, "a seed", "a seed of 0 or more")


def run(args: argparse.Namespace) -> int:
    """Tune, write the rule and print the outcome (text or JSON); return the exit status."""
    from ..io.atomic import atomic_output
    from ..labelled import read_marked
    from ..tune import tune
    from ..tune.render import render

    text = load_rule(args.rule)[1]
    table = read_marked(args.data, args.format, args.blanks, args.label, **reading_options(args))
    try:
        result = tune(text, list(table.answers), table.marks, metric=args.metric, folds=args.folds,
                      seed=args.seed, resamples=args.resamples, drop=args.drop)
    except ValueError as exc:
        raise UsageError(f"{table.source}: {exc}") from None
    if args.output:
        with atomic_output(args.output) as stream:
            stream.write(result.text)
    where = {"rule": args.rule, "data": table.source, "label": table.label, "output": args.output}
    return emit(args, lambda: {**where, **result.to_dict()},
                lambda: render(result, os.path.basename(args.rule), os.path.basename(table.source), args.output),
                str)
