"""``coscore report SCORED --label COL``: agreement of a score column with the teachers'
marks in a scored file, as text, JSON or an HTML page."""
from __future__ import annotations

import argparse
import os

from ..io import OUTPUT_FORMATS, InputError
from .agreement import add_agreement_options, check_html, emit, marked_columns
from .options import add_reading_options, column_list, reading_options
from .rules import load_rule

DESCRIPTION = """Agreement statistics between a score column and the teachers' marks in a scored
file: n, means, SDs, exact and adjacent agreement, QWK, unweighted kappa, Pearson r,
RMSE, R², SMD, confusion matrix; with --label2, a second teacher's agreement with the
first (human-human) beside the scores' and PRMSE; then the largest disagreements
(explained), per-combo and per-mark-level figures, and per-subgroup figures with --by
(with DSM and RSMTool's flags). As text or JSON, and optionally an HTML page."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore report``."""
    p.add_argument("scored", metavar="SCORED", help="a file written by 'coscore score'")
    p.add_argument("--pred", default="coscore_score", metavar="COL", help="the score column (default coscore_score)")
    p.add_argument("--rule", metavar="RULE", help="the rule that scored SCORED: its name and hash head the report "
                   "and each disagreement shows the atoms' evidence")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                   help="the answer's blank columns (default: every column except id, the labels, --by and "
                   "coscore_*)")
    p.add_argument("--format", choices=OUTPUT_FORMATS, help="format of SCORED (default: from its extension)")
    add_reading_options(p)
    add_agreement_options(p, "report", "the K largest disagreements")


def run(args: argparse.Namespace) -> int:
    """Print the agreement report (and write its page); return the exit status."""
    from ..labelled import read_table
    from ..report import Provenance, build_report, render_html, report_text

    check_html(args, [args.scored, args.rule])
    rule = load_rule(args.rule)[0] if args.rule else None
    table = read_table(args.scored, args.format, args.blanks, args.label, exclude=marked_columns(args),
                       **reading_options(args))
    if args.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=args.label)
    report = build_report(table, args.pred, Provenance.of(args.scored, args.rule), rule, args.by, args.top,
                          args.label2)
    title = f"coscore agreement: {os.path.basename(args.scored)}"
    return emit(args, report.to_dict, lambda: report_text(report),
                lambda: render_html(report.agreement, title, args.label, args.pred, report))
