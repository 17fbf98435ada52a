"""``coscore explain RULE ANSWER...``: why an answer, or rows of a data file, get their
scores (each combo's value and contribution, what each atom saw and found)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from .agreement import add_missing_marks_option
from .errors import EXIT_OK, UsageError
from .exams import is_exam, item_table, load_exam_file, pick_item, refuse_rule_options
from .options import (
    add_data_options,
    add_id_option,
    blank_columns,
    positive_int,
    reading_options,
    recorded_blanks,
    warn_mark_blanks,
)
from .outputs import print_text
from .rules import load_rule

if TYPE_CHECKING:
    from ..exam import Exam, ExamItem
    from ..labelled import Table
    from ..rule import Rule

DESCRIPTION = """Explain one answer typed on the command line (each ANSWER is one blank), or rows of a
data file: 'explain RULE DATA --row N | --id X | --where disagree'. Shows each combo's
expression value and contribution, and every distinct atom call once: what the atom saw
and found.
With an exam file in place of RULE, --item NAME picks the item: its rule, its blanks and
marks in DATA (in the long layout, its rows only)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore explain``."""
    p.add_argument("rule", metavar="RULE|EXAM", help="the rule (.json), or an exam file with --item NAME: that "
                   "item's rule, blanks and marks")
    p.add_argument("answer", metavar="ANSWER|DATA", nargs="+",
                   help="the blanks of the answer, in order; or one data file with --row/--id/--where")
    rows = p.add_mutually_exclusive_group()
    rows.add_argument("--row", type=positive_int, action="append", metavar="N",
                      help="explain row N of DATA (1 = the first answer; repeatable)")
    rows.add_argument("--id", action="append", metavar="X", help="explain the row whose id is X (repeatable)")
    rows.add_argument("--where", choices=["disagree"],
                      help="disagree: the rows whose score differs from the mark, largest absolute difference "
                           "score − mark first")
    p.add_argument("--label", metavar="COL", help="the mark column of DATA (default 'score' in the original "
                   "CoScore layout); its value is shown next to the score")
    p.add_argument("--item", metavar="NAME", help="with an exam: the item to explain (its rule; in DATA its "
                   "blanks and marks, and in the long layout its rows only)")
    p.add_argument("--limit", type=positive_int, default=10, metavar="K", help="at most K rows (default 10)")
    add_data_options(p)
    add_id_option(p)
    add_missing_marks_option(p)
    p.add_argument("--json", action="store_true", help="print the explanations as JSON")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="colour the output (default: when stdout is a terminal)")


def run(args: argparse.Namespace) -> int:
    """Print the explanations (or JSON); return the exit status."""
    from ..explain import explain, render, to_dict

    exam, item = None, None
    if is_exam(args.rule):
        refuse_rule_options(args, ("--label", "--blanks"))
        exam = load_exam_file(args.rule)
        item = pick_item(exam, args.item, args.rule, "explain")
        rule, text = item.rule, None
    elif args.item is not None:
        raise UsageError(f"--item is for an exam; {args.rule} is a rule")
    else:
        rule, text = load_rule(args.rule)
    if _rows_given(args):
        picked = _explained_rows(rule, args, exam, item)
    elif len(args.answer) == 1 and os.path.isfile(args.answer[0]):
        raise UsageError(f"{args.answer[0]} is a file: pick its rows with --row N, --id X or --where disagree")
    else:
        picked = [({}, args.answer)]
    items = [(where, explain(rule, answer, text)) for where, answer in picked]
    if args.json:
        out = [{**where, **to_dict(ex)} for where, ex in items]
        print(json.dumps(out if _rows_given(args) else out[0], ensure_ascii=False, indent=2))
        return EXIT_OK
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ if args.color is None else args.color
    blocks = []
    for where, ex in items:
        head = "  ".join(f"{k} {v}" for k, v in where.items() if k in ("row", "id", "mark"))
        blocks.append((f"── {head}\n" if head else "") + render(ex, color=color))
    print_text("\n\n".join(blocks) if blocks else "no rows to explain")
    return EXIT_OK


def _rows_given(args: argparse.Namespace) -> bool:
    """Whether rows were picked from a data file (JSON is then always a list)."""
    return bool(args.row or args.id or args.where)


def _explained_rows(rule: Rule, args: argparse.Namespace, exam: Exam | None = None,
                    item: ExamItem | None = None) -> list[tuple[dict[str, Any], list[str]]]:
    """The rows of DATA that ``--row``/``--id``/``--where`` pick, with where they are
    (of an exam: ``item``'s blanks and marks, and in the long layout its rows only)."""
    from ..labelled import read_table

    if len(args.answer) != 1:
        raise UsageError("with --row, --id or --where give one data file after the rule")
    if exam is not None and item is not None:
        table = item_table(exam, item, args.answer[0], args.format,
                           {**reading_options(args), "missing_marks": args.missing_marks})
    else:
        blanks = recorded_blanks(args.answer[0], args.blanks, args.format)   # a scored file: as it was scored
        table = read_table(args.answer[0], args.format, blanks, args.label, need=rule.blank_need,
                           reader_name=args.rule, id_column=args.id_column, missing_marks=args.missing_marks,
                           **reading_options(args))
        warn_mark_blanks(table.source, blank_columns(table), args.blanks)
    ids = table.ids
    if args.row:
        chosen = [_position(table, n, item) for n in args.row]
    elif args.id:
        index = {value: i for i, value in reversed(list(enumerate(ids)))}
        missing = [x for x in args.id if x not in index]
        if missing:
            raise UsageError(f"{table.source}: no row with id {missing[0]!r}")
        chosen = [index[x] for x in args.id]
    else:
        if table.label is None:
            raise UsageError("--where disagree needs the teachers' marks: give --label COL" if item is None else
                             f"--where disagree needs the teachers' marks: item {item.name} has none (name its "
                             "mark column with 'label:' in the exam)")
        from ..report import disagreement_order

        chosen = disagreement_order(table.score(rule).scores, table.marks)
    out = []
    for i in chosen[: args.limit]:
        where: dict[str, Any] = {"row": table.row_number(i), "id": ids[i]}
        if table.label is not None:
            mark = float(table.marks[i])
            where["mark"] = None if mark != mark else mark
        out.append((where, table.answers[i]))
    return out


def _position(table: Table, n: int, item: ExamItem | None) -> int:
    """The index in ``table`` of the file's row ``n`` (1 = the first answer)."""
    import numpy as np

    if table.origin is None:
        if n > len(table):
            raise UsageError(f"{table.source}: no row {n} (it has {len(table)} rows)")
        return n - 1
    found = np.flatnonzero(table.origin == n - 1)
    if not found.size:
        raise UsageError(f"{table.source}: row {n} is not an answer to item {item.name if item else '?'} (its rows "
                         f"are {_some_rows(table)}); give --row one of them")
    return int(found[0])


def _some_rows(table: Table) -> str:
    numbers = [str(table.row_number(i)) for i in range(min(len(table), 8))]
    return (", ".join(numbers) + (", …" if len(table) > 8 else "")) or "none"
