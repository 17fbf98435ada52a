"""``coscore compare DATA SCORER...``: several scorers (rule files or score columns)
against the same teachers' marks, with bootstrap intervals."""
from __future__ import annotations

import argparse
import os

from ..io import InputError
from .agreement import add_agreement_options, check_html, emit, marked_columns
from .errors import UsageError
from .options import add_data_options, blank_columns, positive_int, reading_options, warn_mark_blanks
from .rules import load_rule

DESCRIPTION = """Score DATA with each SCORER (a rule file, or a column of DATA holding scores) and
compare them on the rows all of them scored: every agreement figure with a 95 %
bootstrap interval (seeded: reruns print the same), the paired QWK difference of each
pair, and the rows where the scorers disagree, explained. With --label2, a second
teacher against the first (human-human, with intervals) and each scorer's PRMSE; with
--by, each scorer's figures per group (with DSM and RSMTool's flags)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore compare``."""
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("scorers", metavar="SCORER", nargs="+", help="a rule file (.json) or a column of DATA")
    add_data_options(p)
    p.add_argument("--resamples", type=positive_int, default=1000, metavar="B",
                   help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="bootstrap seed (default: a fixed one)")
    add_agreement_options(p, "comparison", "K rows where the scorers disagree")


def run(args: argparse.Namespace) -> int:
    """Print the comparison (and write its page); return the exit status."""
    from ..labelled import read_table
    from ..report import Provenance
    from ..report.bootstrap import SEED
    from ..report.compare import Scorer, compare
    from ..report.render import comparison_html, comparison_text

    rule_files = [s for s in args.scorers if os.path.isfile(s)]
    columns = [s for s in args.scorers if s not in rule_files]
    check_html(args, [args.data, *rule_files])
    table = read_table(args.data, args.format, args.blanks, args.label, exclude=columns + marked_columns(args),
                       **reading_options(args))
    warn_mark_blanks(table.source, blank_columns(table, columns + marked_columns(args)), args.blanks)
    if table.label is None or table.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=args.label)
    scorers = []
    for name in args.scorers:
        if name in rule_files:
            rule = load_rule(name)[0]
            shown = _unique(os.path.basename(name), [s.name for s in scorers])
            scorers.append(Scorer(shown, table.score(rule).scores, rule, Provenance.of(table.source, name)))
        elif name in table.columns:
            scorers.append(Scorer(_unique(name, [s.name for s in scorers]), table.numbers(name)))
        else:
            raise UsageError(f"SCORER {name!r} is neither a rule file nor a column of {table.source} "
                             f"(columns: {', '.join(table.columns)})")
    date = Provenance.of(table.source).date
    result = compare(table, scorers, date, args.resamples, SEED if args.seed is None else args.seed, args.top,
                     label2=args.label2, by=args.by)
    title = f"coscore comparison: {os.path.basename(args.data)}"
    return emit(args, result.to_dict, lambda: comparison_text(result), lambda: comparison_html(result, title))


def _unique(name: str, taken: list[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``… when already taken."""
    shown, k = name, 2
    while shown in taken:
        shown, k = f"{name} ({k})", k + 1
    return shown
