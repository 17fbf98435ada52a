"""``coscore compare DATA SCORER...``: several scorers (rule files or score columns)
against the same teachers' marks, with bootstrap intervals."""
from __future__ import annotations

import argparse
import os

from ..io import InputError
from .agreement import add_agreement_options, check_html, emit, marked_columns, require_label
from .errors import UsageError
from .exams import exam_inputs, is_exam, load_exam_file, refuse_rule_options
from .options import add_data_options, blank_columns, reading_options, resample_count, warn_mark_blanks
from .rules import load_rule

DESCRIPTION = """Score DATA with each SCORER (a rule file, or a column of DATA holding scores) and
compare them on the rows all of them scored: every agreement figure with a 95 %
bootstrap interval (seeded: reruns print the same), the paired QWK difference of each
pair, and the rows where the scorers disagree, explained. With --label2, a second
teacher against the first (human-human, with intervals) and each scorer's PRMSE; with
--by, each scorer's figures per group (with DSM and RSMTool's flags). With --exam, the
SCORERs are two versions of an exam, EXAM_A EXAM_B: compared item by item (each item's
marks and columns from the exam) and on the students' totals."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore compare``."""
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("scorers", metavar="SCORER", nargs="+", help="a rule file (.json) or a column of DATA; with "
                   "--exam, two exam files EXAM_A EXAM_B")
    p.add_argument("--exam", action="store_true",
                   help="the SCORERs are two exams, EXAM_A EXAM_B (two versions of a paper's rules): compare them "
                   "item by item (items matched by name; marks and columns from EXAM_A) and in total")
    add_data_options(p)
    p.add_argument("--resamples", type=resample_count, default=1000, metavar="B",
                   help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="bootstrap seed (default: a fixed one)")
    add_agreement_options(p, "comparison", "K rows where the scorers disagree", label_required=False)
    p.set_defaults(usage_error=p.error)


def run(args: argparse.Namespace) -> int:
    """Print the comparison (and write its page); return the exit status."""
    from ..labelled import read_table
    from ..marks import left_out
    from ..report import Provenance
    from ..report.bootstrap import SEED
    from ..report.compare import Scorer, compare
    from ..report.render import comparison_html, comparison_text

    if args.exam:
        return _compare_exams(args)
    require_label(args)
    rule_files = [s for s in args.scorers if os.path.isfile(s)]
    columns = [s for s in args.scorers if s not in rule_files]
    check_html(args, [args.data, *rule_files])
    rules = {name: load_rule(name)[0] for name in rule_files if not is_exam(name)}
    needs = [rule.blank_need for rule in rules.values()]
    need = (max(n.count for n in needs), any(n.any_number for n in needs)) if needs else None   # the most any reads
    table = read_table(args.data, args.format, args.blanks, args.label, exclude=columns + marked_columns(args),
                       need=need, reader_name=" and ".join(rules) or "the rule", id_column=args.id_column,
                       missing_marks=args.missing_marks, **reading_options(args))
    warn_mark_blanks(table.source, blank_columns(table, columns + marked_columns(args)), args.blanks)
    if table.label is None or table.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=args.label)
    scorers: list[Scorer] = []
    for name in args.scorers:
        if name in rule_files and is_exam(name):
            raise UsageError(f"SCORER {name!r} is an exam file: compare two exams with --exam EXAM_A EXAM_B "
                             "(no --label: each item's marks come from the exam)")
        if name in rule_files:
            rule = rules[name]
            shown = _unique(os.path.basename(name), [s.name for s in scorers])
            scorers.append(Scorer(shown, table.score(rule).scores, rule, Provenance.of(table.source, name)))
        elif name in table.columns:   # another teacher's marks or another system's scores: read as marks are
            scores = table.marks_of(name, "score")
            found = left_out(table, name, scores, "score") if args.missing_marks == "skip" else None
            scorers.append(Scorer(_unique(name, [s.name for s in scorers]), scores, left_out=found))
        else:
            raise UsageError(f"SCORER {name!r} is neither a rule file nor a column of {table.source} "
                             f"(columns: {', '.join(table.columns)})")
    date = Provenance.of(table.source).date
    result = compare(table, scorers, date, args.resamples, SEED if args.seed is None else args.seed, args.top,
                     label2=args.label2, by=args.by)
    title = f"coscore comparison: {os.path.basename(args.data)}"
    return emit(args, result.to_dict, lambda: comparison_text(result), lambda: comparison_html(result, title))


def _compare_exams(args: argparse.Namespace) -> int:
    """``coscore compare DATA --exam EXAM_A EXAM_B``: two versions of a paper's rules, per
    item and in total."""
    from ..report import Provenance
    from ..report.bootstrap import SEED
    from ..report.exam_compare import check_same_columns, compare_exams, compared_items
    from ..report.items import item_tables
    from ..report.render_exam import exam_comparison_html, exam_comparison_text

    refuse_rule_options(args, ("--label", "--label2", "--blanks"))
    if len(args.scorers) != 2:
        raise UsageError(f"--exam compares two exams: give EXAM_A EXAM_B after DATA (got {len(args.scorers)} "
                         f"file{'s' * (len(args.scorers) != 1)})")
    exams = []
    for path in args.scorers:
        if not is_exam(path):
            raise UsageError(f"{path} is not an exam file (a .yaml file, or .json with 'items'): --exam compares "
                             "two exams")
        exams.append(load_exam_file(path))
    a, b = exams
    check_html(args, [args.data, *exam_inputs(a), *exam_inputs(b)])
    marked, _, _, unmarked = compared_items(a, b)
    try:
        check_same_columns(a, b, [*marked, *unmarked])
    except ValueError as exc:
        both = f"{os.path.basename(args.scorers[0])} and {os.path.basename(args.scorers[1])}"
        raise UsageError(f"{both}: {exc}") from None
    if not marked:
        raise UsageError(f"{args.scorers[0]} and {args.scorers[1]} have no item with marks in common: nothing to "
                         "compare; name each item's mark column with 'label:'")
    if a.layout == "long" and a.id is None:
        raise UsageError(f"{args.scorers[0]}: the total of the long layout gathers each student's rows by the "
                         "student id column: name it with 'id:' in the exams")
    first = _unique(os.path.basename(args.scorers[0]), [])
    names = (first, _unique(os.path.basename(args.scorers[1]), [first]))
    tables = item_tables(a, args.data, args.format, [a.item(name) for name in marked],
                         missing_marks=args.missing_marks, **reading_options(args))
    source = next(iter(tables.values())).source
    result = compare_exams(a, b, names, tables, source, Provenance.of(source).date, args.resamples,
                           SEED if args.seed is None else args.seed, args.top, args.by)
    title = f"coscore comparison: {os.path.basename(args.data)} ({names[0]} and {names[1]})"
    return emit(args, result.to_dict, lambda: exam_comparison_text(result),
                lambda: exam_comparison_html(result, title))


def _unique(name: str, taken: list[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``… when already taken."""
    shown, k = name, 2
    while shown in taken:
        shown, k = f"{name} ({k})", k + 1
    return shown
