"""``coscore score RULE DATA...``: score every answer of a data file and write the scores;
``coscore score EXAM DATA...``: every item of an exam, in one pass over the data."""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..io import INPUT_FORMATS, OUTPUT_FORMATS, Chunk, Reader, Writer, expand, open_reader, open_writer
from ..limits import add_arguments as add_limit_arguments
from ..limits import from_arguments as limits_from_arguments
from .errors import EXIT_FAILED, EXIT_OK, UsageError, print_error
from .options import (
    add_reading_options,
    column_list,
    decimals,
    positive_int,
    reading_options,
    say_skipped,
    warn_mark_blanks,
)
from .outputs import refuse_input_as_output
from .progress import announce_reading, progress_bar
from .rules import load_rule

if TYPE_CHECKING:
    from ..exam import Exam
    from ..pipeline.files import Totals
    from ..pipeline.scoring import Scoring
    from ..rule import Rule

DESCRIPTION = """Score every answer of DATA with RULE. Output: every input column in order, then
coscore_score, coscore_combo_<ID> per combo and coscore_error (empty unless that answer
failed). With an EXAM file, every item in one pass: in the wide layout <item>_score and
<item>_error per item (and <item>_combo_<ID> with --combos), then total_score; in the long
layout (the exam's item_column names each row's item) coscore_score and coscore_error."""

#: Where ``score --engine`` scores: here, or on a Dask cluster (which reads and writes Parquet itself).
ENGINES = ("local", "dask")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore score``."""
    p.add_argument("rule", metavar="RULE|EXAM", help="the rule (.json), or an exam file (.yaml, or .json with "
                   "'items'): every item scored in one pass")
    p.add_argument("data", metavar="DATA", nargs="+",
                   help="answers: .csv .tsv .jsonl .parquet .xlsx .xls .ods files or globs (read in order as one "
                   "table, same columns), or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="output file: .csv .tsv .jsonl .parquet .xlsx (format from its extension); "
                   "default: CSV on stdout")
    p.add_argument("--format", choices=INPUT_FORMATS, help="input format (default: from DATA's extension; "
                   "'coscore' is the original CoScore layout: text[,score], blanks joined with '-')")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, help="output format (default: from OUT's extension)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=column_list,
                   help="the blank columns, in order (default: every column except 'id' and the label; "
                   "JSON Lines: the 'answers' or 'answer' key); an exam names each item's")
    p.add_argument("--label", metavar="COL", help="the teacher's mark column (never taken as a blank)")
    p.add_argument("--combos", action="store_true",
                   help="an exam: write each item's combo columns too (a rule's are always written)")
    p.add_argument("--totals", metavar="FILE",
                   help="an exam in the long layout: write each student's item scores and total to FILE "
                   "(.csv .tsv .jsonl .parquet .xlsx; needs the exam's id column)")
    p.add_argument("--excel", action="store_true",
                   help="CSV/TSV output starts with a UTF-8 byte order mark, so Excel shows Chinese text right")
    p.add_argument("--decimals", type=decimals, metavar="N",
                   help="round the written scores and combo columns to N decimal places")
    p.add_argument("--strict", action="store_true", help="exit 1 if any answer fails to score")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--jobs", "-j", type=positive_int, default=1, metavar="N",
                   help="parallel workers for scoring: chunks, and an exam's items, on N threads (default 1)")
    p.add_argument("--chunk-size", type=positive_int, default=None, metavar="N",
                   help="rows read and scored at a time (default 16384)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="where to score (default: local; dask: a Parquet dataset on a Dask cluster, -o OUT_DIR)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: a Dask scheduler "
                   "(tcp://host:8786) or its scheduler file; default: a LocalCluster, one worker per core")
    add_reading_options(p)
    add_limit_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Score DATA with RULE (or every item of EXAM) into OUT (or stdout); return the exit status."""
    from ..exam import is_exam_file

    if is_exam_file(args.rule):
        return _score_exam(args)
    for flag, value in (("--combos", args.combos), ("--totals", args.totals)):
        if value:
            raise UsageError(f"{flag} is for an exam; {args.rule} is a rule (a rule's combo columns are always "
                             "written)" if flag == "--combos" else f"{flag} is for an exam in the long layout; "
                             f"{args.rule} is a rule")
    from ..io import AnswerColumns
    from ..pipeline.scoring import ItemPlan, Scoring, chunk_size

    rule, _ = load_rule(args.rule, limits_from_arguments(args))
    if args.engine == "dask":
        return _score_on_dask(rule, args)

    def scoring(reader: Reader, first: Callable[[], Chunk | None]) -> Scoring:
        fmt = reader.format
        defaults = not args.blanks and fmt not in ("jsonl", "coscore")   # then the first rows tell ids from blanks
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label,
                                        need=rule.blank_need, sample=first() if defaults else None,
                                        reader=f"{args.rule}",
                                        header_at=getattr(reader, "header_row", None))
        say_skipped(reader.source, columns)
        warn_mark_blanks(reader.source, columns.blanks, args.blanks)
        if fmt in ("csv", "tsv") and reader.columns in (["text"], ["text", "score"]) and not args.blanks:
            print_error(f"note: {reader.source} looks like the original CoScore layout; "
                        "give --format coscore to read it so (blanks split on '-', mark in 'score')")
        return Scoring((ItemPlan(rule.plan, columns),), decimals=args.decimals)

    def record(chosen: Scoring) -> dict[str, Any]:
        from .run_record import rule_record

        return rule_record(args.rule, chosen, rule.limits)

    return _finish(_score(args, [args.rule], scoring, chunk_size("long", 1), record=record), args.strict)


def _score_exam(args: argparse.Namespace) -> int:
    """``coscore score EXAM DATA…``: every item of the exam in one pass over DATA."""
    from ..exam import ExamError, load_exam
    from ..pipeline.scoring import TOTAL_COLUMN, chunk_size
    from ..pipeline.students import StudentTotals, Tee

    for flag, value in (("--blanks", args.blanks), ("--label", args.label)):
        if value:
            raise UsageError(f"{flag} does not apply to an exam: its file names each item's columns")
    try:
        exam = load_exam(args.rule, limits=limits_from_arguments(args))
    except ExamError as exc:
        raise UsageError(str(exc)) from None
    if args.totals and exam.layout != "long":
        raise UsageError(f"--totals is for an exam in the long layout; the wide layout writes {TOTAL_COLUMN} "
                         "in each row")
    if args.totals and exam.id is None:
        raise UsageError(f"--totals needs the student id column: name it with 'id:' in {args.rule}")
    if args.engine == "dask":
        return _score_on_dask(exam, args)
    students: list[StudentTotals] = []

    def scoring(reader: Reader, first: Callable[[], Chunk | None]) -> Scoring:
        chosen = exam.scoring(reader.format, reader.source, reader.columns, combos=args.combos,
                              decimals=args.decimals)
        if args.totals:
            students.append(StudentTotals(chosen, str(exam.id), reader.source))
        return chosen

    def tee(writer: Writer) -> Writer:   # the totals are kept as the chunks are written, behind scoring
        return Tee(writer, students[0]) if students else writer

    def record(chosen: Scoring) -> dict[str, Any]:
        from .run_record import exam_record

        return exam_record(exam, chosen, limits_from_arguments(args))

    rule_files = [item.rule_path for item in exam.items if item.rule_path]
    rows = chunk_size(exam.layout, len(exam.items))
    if not args.totals:
        return _finish(_score(args, [args.rule, *rule_files], scoring, rows, record=record), args.strict)
    refuse_input_as_output(args.totals, [args.rule, *rule_files, *expand(args.data)], "--totals")
    if args.output is not None and os.path.abspath(args.totals) == os.path.abspath(args.output):
        raise UsageError(f"{args.totals}: --totals and -o name the same file; give two files")
    with open_writer(args.totals) as totals_writer:   # written only when the whole run succeeds
        done = _score(args, [args.rule, *rule_files], scoring, rows, tee, record=record)
        students[0].write_totals(totals_writer)
    return _finish(done, args.strict)


def _score(args: argparse.Namespace, inputs: list[str],
           scoring_of: Callable[[Reader, Callable[[], Chunk | None]], Scoring], rows: int,
           tee: Callable[[Writer], Writer] | None = None,
           record: Callable[[Scoring], dict[str, Any]] | None = None) -> Totals:
    """Read DATA once (``rows`` at a time, unless ``--chunk-size`` says), score it as
    ``scoring_of(reader, first)`` says (``first()`` reads the first chunk ahead, when the
    choice of columns needs its rows), write OUT (through ``tee``); what was scored.
    A Parquet or .xlsx OUT records ``record(scoring)`` (how it was scored), and an .xlsx OUT
    keeps a workbook input's sheet name."""
    from ..pipeline.files import Totals, score_into

    refuse_input_as_output(args.output, [*inputs, *expand(args.data)], "-o")
    totals = Totals()
    files = expand(args.data)
    announce_reading(args.progress, files[0] if files else "-", args.format)
    with open_reader(args.data, args.format, args.chunk_size or rows, **reading_options(args)) as reader:
        chunks = _Peek(reader.chunks())
        scoring = scoring_of(reader, chunks.first)
        scoring.check_no_clash(reader.source, reader.columns)
        output = open_writer(args.output, args.output_format, bom=args.excel,
                             metadata=record(scoring) if record is not None else None,
                             sheet=getattr(reader, "sheet", None))
        with progress_bar(args.progress, reader) as bar, output as writer, _gc_per_chunk() as collect:
            def advance(chunk: Chunk) -> None:
                bar.advance(chunk)
                collect()

            score_into(scoring, chunks, tee(writer) if tee else writer, jobs=args.jobs, totals=totals,
                       each=advance)
    totals.error_columns = scoring.error_columns()
    return totals


def _finish(totals: Totals, strict: bool) -> int:
    if totals.errors:
        where = ", ".join(totals.error_columns[:3]) + (", …" if len(totals.error_columns) > 3 else "")
        print_error(f"{totals.errors} of {totals.answers} answers could not be scored "
                    f"(see the {where} column{'s' * (len(totals.error_columns) > 1)})")
        if strict:
            return EXIT_FAILED
    return EXIT_OK


def _score_on_dask(scorer: Rule | Exam, args: argparse.Namespace) -> int:
    """``coscore score --engine dask``: a Parquet glob in, a Parquet dataset out, on a
    cluster; a rule, or every item of an exam."""
    if not args.output:
        raise UsageError("--engine dask writes a Parquet dataset: give its directory with -o OUT_DIR")
    if args.format not in (None, "parquet"):
        raise UsageError("--engine dask reads Parquet only")
    if args.totals:
        raise UsageError("--totals runs on the local engine (a student's rows may lie in any partition); "
                         "score without --engine dask")
    try:
        from ..dask import ClusterError, score_exam_files, score_files
    except ImportError as exc:
        raise UsageError(f"--engine dask needs: pip install 'coscore[dask]' ({exc})") from None
    from ..pipeline.files import Totals

    totals = Totals()
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    data = args.data[0] if len(args.data) == 1 else args.data
    try:
        from ..rule import Rule

        if isinstance(scorer, Rule):
            score_files(scorer, data, args.output, blanks=args.blanks, label=args.label,
                        scheduler=args.scheduler, totals=totals, progress=progress)
            totals.answers = totals.rows
        else:
            score_exam_files(scorer, data, args.output, combos=args.combos, decimals=args.decimals,
                             scheduler=args.scheduler, totals=totals, progress=progress)
    except ClusterError as exc:
        raise UsageError(str(exc)) from None
    return _finish(totals, args.strict)


class _Peek:
    """A reader's chunks, the first of which may be read ahead (:meth:`first`): a stream
    on standard input is not waited for unless its rows are needed."""

    _UNREAD = object()

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self._chunks = iter(chunks)
        self._first: Any = self._UNREAD

    def first(self) -> Chunk | None:
        """The first chunk (``None``: there is none), read now if it was not."""
        if self._first is self._UNREAD:
            self._first = next(self._chunks, None)
        return self._first

    def __iter__(self) -> Iterator[Chunk]:
        if self._first is not self._UNREAD and self._first is not None:
            yield self._first
        yield from self._chunks


@contextlib.contextmanager
def _gc_per_chunk() -> Iterator[Callable[[], object]]:
    """Run the cycle collector once per chunk instead of every few hundred allocations:
    a chunk allocates some 10^5 lists, which otherwise triggers collections that cost
    a third of the run; reference counting still frees each chunk as it goes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield lambda: gc.collect(1)
    finally:
        if was_enabled:
            gc.enable()
