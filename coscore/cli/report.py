"""``coscore report SCORED --label COL``: agreement of a score column with the teachers'
marks in a scored file, as text, JSON or an HTML page."""
from __future__ import annotations

import argparse
import os

from ..io import OUTPUT_FORMATS, InputError
from .agreement import add_agreement_options, check_html, emit, marked_columns, require_label
from .errors import UsageError
from .options import add_reading_options, column_list, reading_options, recorded_blanks
from .rules import load_rule

DESCRIPTION = """Agreement statistics between a score column and the teachers' marks in a scored
file: n, means, SDs, exact and adjacent agreement, QWK, unweighted kappa, Pearson r,
RMSE, R², SMD, confusion matrix; with --label2, a second teacher's agreement with the
first (human-human) beside the scores' and PRMSE; then the largest disagreements
(explained), per-combo and per-mark-level figures, and per-subgroup figures with --by
(with DSM and RSMTool's flags). As text or JSON, and optionally an HTML page. With --exam
EXAM: every item with marks reported as it would be alone, after an overview (worst
first), then the students' totals against their weighted marks."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore report``."""
    p.add_argument("scored", metavar="SCORED", help="a file written by 'coscore score'")
    p.add_argument("--exam", metavar="EXAM", help="the exam that scored SCORED: a report per item with marks, an "
                   "overview (worst first) and the students' totals; each item's columns come from the exam")
    p.add_argument("--pred", default="coscore_score", metavar="COL", help="the score column (default coscore_score)")
    p.add_argument("--rule", metavar="RULE", help="the rule that scored SCORED: its name and hash head the report "
                   "and each disagreement shows the atoms' evidence")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                   help="the answer's blank columns (default: every column except id, the labels, --by and "
                   "coscore_*)")
    p.add_argument("--format", choices=OUTPUT_FORMATS, help="format of SCORED (default: from its extension)")
    add_reading_options(p)
    add_agreement_options(p, "report", "the K largest disagreements", label_required=False)
    p.set_defaults(usage_error=p.error)


def run(args: argparse.Namespace) -> int:
    """Print the agreement report (and write its page); return the exit status."""
    from ..labelled import read_table
    from ..report import Provenance, build_report, render_html, report_text

    if args.exam is not None:
        return _exam_report(args)
    require_label(args)
    check_html(args, [args.scored, args.rule])
    rule = load_rule(args.rule)[0] if args.rule else None
    blanks = recorded_blanks(args.scored, args.blanks, args.format)   # as the file says it was scored
    table = read_table(args.scored, args.format, blanks, args.label, exclude=marked_columns(args),
                       need=rule.blank_need if rule is not None else None, reader_name=args.rule or "the rule",
                       id_column=args.id_column, missing_marks=args.missing_marks, **reading_options(args))
    if args.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=args.label)
    report = build_report(table, args.pred, Provenance.of(args.scored, args.rule), rule, args.by, args.top,
                          args.label2)
    title = f"coscore agreement: {os.path.basename(args.scored)}"
    return emit(args, report.to_dict, lambda: report_text(report),
                lambda: render_html(report.agreement, title, args.label, args.pred, report))


def _exam_report(args: argparse.Namespace) -> int:
    """``coscore report SCORED --exam EXAM``: each item's report, the overview, the total."""
    from ..report import Provenance
    from ..report.exam import build_exam_report
    from ..report.items import item_tables
    from ..report.render_exam import exam_report_html, exam_report_text
    from .exams import exam_inputs, load_exam_file, refuse_rule_options

    refuse_rule_options(args, ("--label", "--label2", "--pred", "--rule", "--blanks"))
    exam = load_exam_file(args.exam)
    if exam.layout == "long" and exam.id is None:
        raise UsageError(f"{args.exam}: the total of the long layout gathers each student's rows by the student id "
                         "column: name it with 'id:' in the exam")
    check_html(args, [args.scored, *exam_inputs(exam)])
    marked = [item for item in exam.items if item.label is not None]
    if not marked:
        raise UsageError(f"{args.exam}: no item has marks (a 'label'): nothing to report; name each item's mark "
                         "column with 'label:'")
    tables = item_tables(exam, args.scored, args.format, marked, missing_marks=args.missing_marks,
                         **reading_options(args))
    report = build_exam_report(exam, tables, str(args.scored), Provenance.of(args.scored).date, args.by, args.top)
    title = f"coscore agreement: {os.path.basename(args.scored)} ({os.path.basename(args.exam)})"
    return emit(args, report.to_dict, lambda: exam_report_text(report), lambda: exam_report_html(report, title))
