"""``coscore score RULE DATA...``: score every answer of a data file and write the scores."""
from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..io import INPUT_FORMATS, OUTPUT_FORMATS, expand, open_reader, open_writer
from ..limits import add_arguments as add_limit_arguments
from ..limits import from_arguments as limits_from_arguments
from .errors import EXIT_FAILED, EXIT_OK, UsageError, print_error
from .options import add_reading_options, column_list, decimals, positive_int, reading_options, warn_mark_blanks
from .outputs import refuse_input_as_output
from .progress import announce_reading, progress_bar
from .rules import load_rule

if TYPE_CHECKING:
    from ..pipeline.files import Totals

DESCRIPTION = """Score every answer of DATA with RULE. Output: every input column in order, then
coscore_score, coscore_combo_<ID> per combo and coscore_error (empty unless that answer
failed)."""

#: Where ``score --engine`` scores: here, or on a Dask cluster (which reads and writes Parquet itself).
ENGINES = ("local", "dask")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore score``."""
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
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
                   "JSON Lines: the 'answers' or 'answer' key)")
    p.add_argument("--label", metavar="COL", help="the teacher's mark column (never taken as a blank)")
    p.add_argument("--excel", action="store_true",
                   help="CSV/TSV output starts with a UTF-8 byte order mark, so Excel shows Chinese text right")
    p.add_argument("--decimals", type=decimals, metavar="N",
                   help="round the written scores and combo columns to N decimal places")
    p.add_argument("--strict", action="store_true", help="exit 1 if any answer fails to score")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--jobs", "-j", type=positive_int, default=1, metavar="N",
                   help="parallel workers for scoring (default 1)")
    p.add_argument("--chunk-size", type=positive_int, default=None, metavar="N",
                   help="rows read and scored at a time (default: the engine's chunk, 16384)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="where to score (default: local; dask: a Parquet dataset on a Dask cluster, -o OUT_DIR)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: a Dask scheduler "
                   "(tcp://host:8786) or its scheduler file; default: a LocalCluster, one worker per core")
    add_reading_options(p)
    add_limit_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Score DATA with RULE into OUT (or stdout); return the exit status."""
    from ..io.blanks import AnswerColumns
    from ..pipeline.files import Totals, score_into
    from ..pipeline.results import check_no_clash

    rule, _ = load_rule(args.rule, limits_from_arguments(args))
    if args.engine == "dask":
        return _score_on_dask(rule, args)
    refuse_input_as_output(args.output, [args.rule, *expand(args.data)], "-o")
    totals = Totals()
    from ..engine import DEFAULT_CHUNK_SIZE   # a chunk as the file is read is a chunk as the engine scores

    files = expand(args.data)
    announce_reading(args.progress, files[0] if files else "-", args.format)
    with open_reader(args.data, args.format, args.chunk_size or DEFAULT_CHUNK_SIZE, **reading_options(args)) as reader:
        fmt = reader.format
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label)
        warn_mark_blanks(reader.source, columns.blanks, args.blanks)
        if fmt in ("csv", "tsv") and reader.columns in (["text"], ["text", "score"]) and not args.blanks:
            print_error(f"note: {reader.source} looks like the original CoScore layout; "
                        "give --format coscore to read it so (blanks split on '-', mark in 'score')")
        check_no_clash(reader.source, reader.columns, rule.combo_ids)
        output = open_writer(args.output, args.output_format, bom=args.excel)
        with progress_bar(args.progress, reader) as bar, output as writer, _gc_per_chunk() as collect:
            def each(chunk: Any) -> None:
                bar.advance(chunk)
                collect()

            score_into(rule, reader.chunks(), columns, writer, jobs=args.jobs, totals=totals,
                       decimals=args.decimals, each=each)
    return _finish(totals, args.strict)


def _finish(totals: Totals, strict: bool) -> int:
    if totals.errors:
        print_error(f"{totals.errors} of {totals.rows} answers could not be scored (see the coscore_error column)")
        if strict:
            return EXIT_FAILED
    return EXIT_OK


def _score_on_dask(rule: Any, args: argparse.Namespace) -> int:
    """``coscore score --engine dask``: a Parquet glob in, a Parquet dataset out, on a cluster."""
    if not args.output:
        raise UsageError("--engine dask writes a Parquet dataset: give its directory with -o OUT_DIR")
    if args.format not in (None, "parquet"):
        raise UsageError("--engine dask reads Parquet only")
    try:
        from ..dask import ClusterError, score_files
    except ImportError as exc:
        raise UsageError(f"--engine dask needs: pip install 'coscore[dask]' ({exc})") from None
    from ..pipeline.files import Totals

    totals = Totals()
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        data = args.data[0] if len(args.data) == 1 else args.data
        score_files(rule, data, args.output, blanks=args.blanks, label=args.label,
                    scheduler=args.scheduler, totals=totals, progress=progress)
    except ClusterError as exc:
        raise UsageError(str(exc)) from None
    return _finish(totals, args.strict)


@contextlib.contextmanager
def _gc_per_chunk() -> Iterator[Callable[[], None]]:
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
