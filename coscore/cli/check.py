"""``coscore check RULE``: every error and warning of a rule, then what it can score and
how many blanks it reads (against a data file with ``--data``). Given an exam file,
``coscore check EXAM`` checks every item (:mod:`coscore.cli.exam_check`)."""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
from typing import Any

from ..catalog import localize, said
from ..io import format_of, open_reader
from ..limits import add_arguments as add_limit_arguments
from ..limits import from_arguments as limits_from_arguments
from .errors import EXIT_FAILED, EXIT_OK, UsageError
from .options import add_data_options, reading_options, say_skipped, warn_mark_blanks
from .outputs import print_text
from .rules import for_the_command, named_as_data, read_rule_text

DESCRIPTION = """Compile RULE and list every diagnostic (errors and warnings), then what the rule
can score and how many blanks it reads. Given an exam file (.yaml, or .json with items),
check every item's rule, the blanks each item lists, and with --data that every column the
exam names is there. Exit 1 if there are errors, 0 otherwise."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore check``."""
    p.add_argument("rule", metavar="RULE", help="the rule (.json), or an exam (.yaml, or .json with items)")
    p.add_argument("--data", metavar="DATA", help="answers the rule will score: their first rows tell how many "
                   "blanks there are (for an exam: every column it names must be there)")
    add_data_options(p)
    p.add_argument("--label", metavar="COL", help="the mark column of DATA (never taken as a blank)")
    p.add_argument("--json", action="store_true", help="print a JSON object for tools")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="the language of the diagnostics: en (default) or zh, from coscore's message catalog")
    add_limit_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Check RULE and print its diagnostics (or JSON); return the exit status."""
    from ..exam import is_exam_file

    if is_exam_file(args.rule):
        from .exam_check import run_exam

        return run_exam(args)
    import coscore

    from ..diagnostics import Diagnostic
    from ..io import BlanksMisfit
    from ..language import check_rule, combo_findings

    text = read_rule_text(args.rule)
    report = None
    try:
        rule = coscore.compile(text, limits=limits_from_arguments(args))
    except coscore.RuleError as exc:
        swapped = named_as_data(args.rule)
        if swapped is not None:  # JSON Lines given as RULE: the arguments were swapped
            raise swapped from None
        # and what the type pass finds in the combos that were read well: one combo's syntax error hides no other's
        rule, diagnostics = None, list(exc.diagnostics) + combo_findings(exc)
    misfit: list[Diagnostic] = []
    try:
        blanks = _data_blanks(args, rule.blank_need if rule is not None else None) if args.data else None
    except BlanksMisfit as exc:   # the data is fine; its blank columns must be named
        blanks = (exc.offered, exc.offered) if exc.offered else None   # what reading them by default would give
        misfit = [Diagnostic("data", str(exc))]
    if rule is not None:
        report = check_rule(rule, blanks)
        diagnostics = list(rule.warnings) + report.diagnostics
    diagnostics += misfit
    diagnostics = [for_the_command(d, args.rule) for d in diagnostics]
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    if args.json:
        out = {
            "rule": args.rule,
            "ok": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [{**_diagnostic_dict(d), "said": said(d.message)} for d in diagnostics],
        }
        if report is not None:
            out.update(report.to_dict(), data_blanks=None if blanks is None else {"min": blanks[0], "max": blanks[1]})
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        shown = diagnostics if args.lang == "en" else \
            [dataclasses.replace(d, message=localize(d.message, args.lang)) for d in diagnostics]
        lines = [f"{args.rule}: {d}" for d in shown]
        if report is not None:
            n = report.blanks_needed
            reads = f"needs {n} blank{'s' * (n != 1)}" if n else "needs no numbered blank"
            reads += " and reads them all ('*')" if report.reads_all_blanks else ""
            if blanks is not None:
                have = str(blanks[0]) if blanks[0] == blanks[1] else f"{blanks[0]} to {blanks[1]}"
                reads += f" (the data has {have} blank{'s' * (blanks[1] != 1)})"
            for combo in report.combos if not report.always_fails else ():
                lines.append(f"{args.rule}: {combo.describe()}")
            lines.append(f"{args.rule}: {report.describe_range()}; {reads}")
        summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        lines.append(f"{args.rule}: {'ok' if not errors else 'invalid'} ({summary})")
        print_text("\n".join(lines))
    return EXIT_FAILED if errors else EXIT_OK


def _data_blanks(args: argparse.Namespace, need: tuple[int, bool] | None) -> tuple[int, int]:
    """The fewest and the most blanks among DATA's first rows (its header for tables; a
    table that looks like the original CoScore layout, text[,score], is read so), the
    default blank columns taken only when they fit ``need`` (the rule's; else
    :class:`~coscore.io.blanks.BlanksMisfit`)."""
    from ..io import AnswerColumns
    from ..pipeline.tables import answer_lists

    fmt = format_of(args.data, args.format, default="csv")
    if fmt in ("csv", "tsv") and not args.blanks:
        quiet = {**reading_options(args), "on_encoding": None, "on_header": None}
        with open_reader(args.data, fmt, 1, **quiet) as reader:
            if reader.columns in (["text"], ["text", "score"]):
                fmt = "coscore"
    with open_reader(args.data, fmt, 1000, **reading_options(args)) as reader:
        chunks = iter(reader.chunks())
        first = next(chunks, None)
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label,
                                        header_at=getattr(reader, "header_row", None), need=need, sample=first,
                                        reader=args.rule)
        say_skipped(reader.source, columns)
        warn_mark_blanks(reader.source, columns.blanks, args.blanks)
        if columns.blanks:
            return len(columns.blanks), len(columns.blanks)
        for chunk in itertools.chain([first] if first is not None else [], chunks):
            counts = [len(a) for a in answer_lists(columns.select(chunk))]
            if counts:
                return min(counts), max(counts)
    raise UsageError(f"{args.data}: no rows to count the blanks of")


def _diagnostic_dict(d: Any) -> dict[str, Any]:
    if hasattr(d, "to_dict"):
        return d.to_dict()
    return {"path": d.path, "message": d.message, "column": d.column, "severity": d.severity}
