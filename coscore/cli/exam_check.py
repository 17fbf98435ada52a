"""``coscore check EXAM``: every problem of an exam file — its structure, every item's rule
checked as ``coscore check RULE`` checks one (errors and warnings), the blanks each item
lists against those its rule reads — and, with ``--data``, that every column the exam
names is in the data (in the long layout, that the data's items are the exam's)."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic, RuleError, shorten
from ..exam.errors import ExamProblem
from ..exam.load import ExamBuild, ItemBuild, build_exam, rule_problem
from ..exam.needs import describe_need
from ..exam.spec import ExamDraft, quote
from ..io import MISSING, format_of, open_file, open_reader
from ..limits import from_arguments as limits_from_arguments
from .errors import EXIT_FAILED, EXIT_OK, UsageError
from .options import reading_options
from .outputs import print_text
from .rules import for_the_command

#: The most item names of the data that the exam lacks that one problem lists.
SHOWN_NAMES = 10


@dataclass
class _Found:
    """Everything ``check EXAM`` reports: each problem with the rule diagnostic it comes from
    (for its caret lines), and each item's diagnostics and score range."""

    problems: list[tuple[ExamProblem, Diagnostic | None]] = field(default_factory=list)
    diagnostics: dict[int, list[Diagnostic]] = field(default_factory=dict)
    ranges: dict[int, str] = field(default_factory=dict)

    def add(self, problem: ExamProblem, diagnostic: Diagnostic | None = None) -> None:
        self.problems.append((problem, diagnostic))


def run_exam(args: argparse.Namespace) -> int:
    """Check the exam file ``args.rule`` (and its columns against ``--data``); print the
    problems (or JSON) and return the exit status: 1 with errors, else 0."""
    if args.blanks or args.label:
        flag = "--blanks" if args.blanks else "--label"
        raise UsageError(f"{flag} does not apply to an exam: its file names each item's columns (blanks:, label: "
                         f"in {args.rule})")
    with open_file(args.rule):  # a missing or unreadable exam file is a usage error (exit 2)
        pass
    build = build_exam(args.rule, limits=limits_from_arguments(args))
    found = _check_rules(build)
    if args.data:
        for problem in _check_data(build.draft, args):
            found.add(problem)
    found.problems.sort(key=lambda pair: pair[0].line or 0)
    errors = sum(p.severity == "error" for p, _ in found.problems)
    warnings = len(found.problems) - errors
    if args.json:
        print(json.dumps(_json(args.rule, build, found, errors, warnings), ensure_ascii=False, indent=2))
    else:
        print_text("\n".join(_lines(args.rule, build, found, errors, warnings)))
    return EXIT_FAILED if errors else EXIT_OK


def _check_rules(build: ExamBuild) -> _Found:
    """The exam's problems, each rule's diagnostics as the command words them, plus what
    :func:`~coscore.expr.types.check_rule` finds in each compiled rule."""
    from ..language import check_rule

    compiled = {rule_problem(item.draft, d) for item in build.items for d in item.diagnostics}
    found = _Found()
    for problem in build.problems:
        if problem not in compiled:  # the rules' diagnostics follow, worded for the command
            found.add(problem)
    for item in build.items:
        diagnostics = list(item.diagnostics)
        blanks = item.draft.blanks
        if item.rule is not None:
            count = len(blanks) if blanks is not None and len(blanks) >= item.need else None
            try:
                report = check_rule(item.rule, count)
                diagnostics += report.diagnostics
                found.ranges[item.draft.index] = report.describe_range()
            except RuleError as exc:
                diagnostics += exc.diagnostics
        shown = [for_the_command(d, item.draft.rule_written or item.draft.where) for d in diagnostics]
        found.diagnostics[item.draft.index] = shown
        for d in shown:
            found.add(rule_problem(item.draft, d), d)
    return found


def _check_data(draft: ExamDraft, args: argparse.Namespace) -> list[ExamProblem]:
    """Every column the exam names that DATA lacks (its header only); in the long layout,
    the items DATA names that the exam lacks and the exam's items with no rows."""
    fmt = format_of(args.data, args.format, default="csv")
    with open_reader(args.data, fmt, 1, **reading_options(args)) as reader:
        source, columns = reader.source, list(reader.columns)
    have = set(columns)
    listed = shorten(", ".join(columns) or "none", 300)

    def missing(column: str, where: str, line: int | None) -> ExamProblem:
        return ExamProblem(where, f"column {quote(column)} is not in {shorten(source, 300)} (its columns: {listed})",
                           line)

    problems = []
    for key in ("id", "item_column"):
        column = getattr(draft, key)
        if column is not None and column not in have:
            problems.append(missing(column, key, draft.lines.get(key)))
    for item in draft.items:
        for index, column in enumerate(item.blanks or ()):
            if column not in have:
                problems.append(missing(column, f"{item.where}.blanks[{index}]", item.blank_lines[index]))
        for key in ("label", "label2"):
            column = getattr(item, key)
            if column is not None and column not in have:
                problems.append(missing(column, f"{item.where}.{key}", item.lines.get(key)))
    if draft.item_column is not None and draft.item_column in have:
        problems += _check_items(draft, args, fmt, source)
    return problems


def _check_items(draft: ExamDraft, args: argparse.Namespace, fmt: str, source: str) -> list[ExamProblem]:
    """The long layout: DATA's item column read whole against the exam's items."""
    column = draft.item_column
    assert column is not None
    names = {item.name for item in draft.items if item.name is not None}
    rows: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    empty = 0
    with open_reader(args.data, fmt, **{**reading_options(args), "on_encoding": None, "on_header": None}) as reader:
        for chunk in reader.chunks():
            for value in chunk.pylist(column):
                if value is None or value is MISSING or value == "":
                    empty += 1
                    continue
                name = value if isinstance(value, str) else str(value)
                if name in names:
                    rows[name] += 1
                elif name in unknown or len(unknown) < 10_000:
                    unknown[name] += 1
                else:
                    unknown["…"] += 1
    where, line, data = "item_column", draft.lines.get("item_column"), shorten(source, 300)
    problems = []
    if unknown:
        shown = ", ".join(f"{quote(name, 100)} ({count:,} row{'s' * (count != 1)})"
                          for name, count in unknown.most_common(SHOWN_NAMES))
        more = len(unknown) - SHOWN_NAMES
        problems.append(ExamProblem(where, f"{data} names items the exam does not have: {shown}"
                                    f"{f' and {more:,} more' if more > 0 else ''}; add them to the exam, or "
                                    f"leave their rows out", line))
    if empty:
        problems.append(ExamProblem(where, f"{empty:,} row{'s' * (empty != 1)} of {data} name{'s' * (empty == 1)} "
                                    f"no item (column {quote(column)} is empty)", line))
    for item in draft.items:
        if item.name is not None and not rows[item.name]:
            problems.append(ExamProblem(item.where, f"has no rows in {data} (no row's {quote(column)} is "
                                        f"{quote(item.name)})", item.line))
    return problems


def _summary(build: ExamBuild, item: ItemBuild, found: _Found) -> str:
    """One line on one item: its name, rule, blanks and what its rule reads and scores."""
    draft = item.draft
    rule = shorten(draft.rule_path, 300) if draft.rule_path is not None else (
        "inline rule" if draft.rule_node is not None else "no rule")
    blanks = "no blanks" if draft.blanks is None else "blanks " + shorten(", ".join(draft.blanks), 300)
    if item.rule is None:
        reads = "the rule does not compile" if draft.rule is not None else "no rule to check"
    else:
        reads = describe_need(item.need, item.any_number)
        if draft.index in found.ranges:
            reads += f"; {found.ranges[draft.index]}"
    name = f"item {shorten(draft.name, 100)}" if draft.name is not None else draft.where
    return f"{name}: {rule}, {blanks}: {reads}"


def _lines(path: str, build: ExamBuild, found: _Found, errors: int, warnings: int) -> list[str]:
    """The text report: the problems (a rule's with its caret), one line per item, the verdict."""
    lines = []
    for problem, diagnostic in found.problems:
        lines.append(problem.located(path))
        if diagnostic is not None and diagnostic.column is not None and diagnostic.source is not None:
            lines.extend(str(diagnostic).splitlines()[1:])  # the caret under the place
    lines.extend(f"{path}: {_summary(build, item, found)}" for item in build.items)
    summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    lines.append(f"{path}: {'ok' if not errors else 'invalid'} ({summary})")
    return lines


def _json(path: str, build: ExamBuild, found: _Found, errors: int, warnings: int) -> dict[str, object]:
    """The ``--json`` object."""
    items: dict[str, dict[str, object]] = {}
    for item in build.items:
        draft = item.draft
        key = draft.name if draft.name is not None and draft.name not in items else draft.where
        compiled = item.rule is not None
        items[key] = {
            "rule": draft.rule_path,
            "blanks": list(draft.blanks) if draft.blanks is not None else None,
            "diagnostics": [d.to_dict() for d in found.diagnostics.get(draft.index, [])],
            "blanks_needed": item.need if compiled else None,
            "reads_any_number": item.any_number if compiled else None,
        }
    exam = build.draft
    return {"exam": path, "ok": errors == 0, "errors": errors, "warnings": warnings,
            "layout": "wide" if exam.item_column is None else "long",
            "items": items, "problems": [p.to_dict() for p, _ in found.problems]}
