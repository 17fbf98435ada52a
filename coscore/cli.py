"""The ``coscore`` command: score files, check and explain rules, report agreement.

Thin by design: it parses arguments and calls the library (:mod:`coscore.io`,
:mod:`coscore.report`, :mod:`coscore.explain`, :mod:`coscore.demo`). Exit status: 0 on
success, 1 for ``check`` with errors or ``score --strict`` with failed answers, 2 for a
usage or input error (one line on stderr naming file, line and column).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

# Only light modules here: numpy, pyarrow and the engine are imported by the command that
# needs them, inside main(), where Ctrl-C during those imports is an "interrupted" line.
from .io import INPUT_FORMATS, OUTPUT_FORMATS, InputError, format_of, open_reader, open_writer
from .limits import add_arguments as add_limit_arguments
from .limits import from_arguments as limits_from_arguments

if TYPE_CHECKING:
    from .pipeline.files import Totals

PROG = "coscore"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: An unexpected error: a fault of coscore's own, reported on one line.
EXIT_INTERNAL = 3

#: Subcommands written in other modules: name -> (module, help, install hint). The module
#: provides ``add_arguments(parser)`` and ``run(args) -> int``; it is imported only when
#: its subcommand is used.
PLUGINS: dict[str, tuple[str, str, str]] = {
    "expect": ("coscore.expect.command", "check rules against their test suites (Expectations 0.7.2)", ""),
    "serve": ("coscore.server", "run the drop-in HTTP scoring service", "pip install 'coscore[serve]'"),
    "app": ("coscore.webapp.command", "serve the original CoScore web app (pages, API, database) on coscore",
            "pip install 'coscore[serve]'"),
}

#: Where ``score --engine`` scores: here, or on a Dask cluster (which reads and writes Parquet itself).
ENGINES = ("local", "dask")


#: The built-in subcommands, in the order ``--help`` lists them: name -> (one-line help,
#: the function that adds its arguments, its handler). The handler's docstring is the
#: command's description in ``--help``. Filled by :func:`_command`.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def _command(name: str, summary: str, arguments: Callable[[argparse.ArgumentParser], None]) -> Callable[
        [Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Register the decorated handler as the subcommand ``name``."""
    def register(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (summary, arguments, handler)
        return handler
    return register


class UsageError(Exception):
    """A problem with the command line or its inputs: one message, exit 2."""


# -- entry point -------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``coscore`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Never ends in a traceback: an input problem is one line and exit 2; anything
    unexpected is one line too (:func:`_unexpected`), exit 2 for what the input or the
    system caused (a file the system refuses, nesting too deep, memory) and
    :data:`EXIT_INTERNAL` for a fault of coscore's own. ``COSCORE_TRACEBACK=1`` prints
    the traceback as well, for a bug report.
    """
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:  # e.g. while the command's modules are imported
        _error("interrupted")
        return 130
    except SystemExit as exc:  # a subcommand that gave up with a message
        if isinstance(exc.code, str):
            print(exc.code.strip().splitlines()[0] if exc.code.strip() else PROG, file=sys.stderr)
            return EXIT_USAGE
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except Exception as exc:  # the last resort: one line, never a traceback
        if os.environ.get("COSCORE_TRACEBACK") == "1":
            import traceback

            traceback.print_exc()
        message, status = _unexpected(exc)
        _error(message)
        return status


def _run(argv: list[str]) -> int:
    parser = build_parser(argv)
    unavailable = getattr(parser, "unavailable_plugin", None)
    if unavailable is not None:
        _error(unavailable)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors: argparse has printed them
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except (InputError, UsageError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `coscore score ... | head`
        _silence_stdout()
        return EXIT_OK


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser; a plugin subcommand named in ``argv`` gets its own arguments."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Score students' short answers with CoScore rules.",
        epilog="Run 'coscore demo' to see it work on the bundled CoScore datasets.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, (summary, arguments, handler) in COMMANDS.items():
        p = sub.add_parser(name, help=summary, description=inspect.cleandoc(handler.__doc__ or summary))
        arguments(p)
        p.set_defaults(handler=handler)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_text, hint) in PLUGINS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            problem = _attach_plugin(p, module)
            if problem is not None:
                reason = problem + (f"; try: {hint}" if hint else "")
                parser.unavailable_plugin = f"'{name}' is not available in this installation ({reason})"  # type: ignore[attr-defined]
    return parser


def _attach_plugin(parser: argparse.ArgumentParser, module: str) -> str | None:
    """Import the plugin's module and let it add its arguments; return why it cannot be
    imported (the subcommand then exits 2), or ``None``."""
    try:
        mod = importlib.import_module(module)
        add_arguments, run = mod.add_arguments, mod.run
    except (ImportError, AttributeError) as exc:
        return str(exc)
    add_arguments(parser)
    parser.set_defaults(handler=run)
    return None


# -- score -------------------------------------------------------------------------------


def _score_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("data", metavar="DATA", nargs="+",
                   help="answers: .csv .tsv .jsonl .parquet .xlsx files or globs (read in order as one "
                   "table, same columns), or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="output file: .csv .tsv .jsonl .parquet .xlsx (format from its extension); "
                   "default: CSV on stdout")
    p.add_argument("--format", choices=INPUT_FORMATS, help="input format (default: from DATA's extension; "
                   "'coscore' is the original CoScore layout: text[,score], blanks joined with '-')")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, help="output format (default: from OUT's extension)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=_column_list,
                   help="the blank columns, in order (default: every column except 'id' and the label; "
                   "JSON Lines: the 'answers' or 'answer' key)")
    p.add_argument("--label", metavar="COL", help="the teacher's mark column (never taken as a blank)")
    p.add_argument("--excel", action="store_true",
                   help="CSV/TSV output starts with a UTF-8 byte order mark, so Excel shows Chinese text right")
    p.add_argument("--decimals", type=_decimals, metavar="N",
                   help="round the written scores and combo columns to N decimal places")
    p.add_argument("--strict", action="store_true", help="exit 1 if any answer fails to score")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--jobs", "-j", type=_positive_int, default=1, metavar="N",
                   help="parallel workers for scoring (default 1)")
    p.add_argument("--chunk-size", type=_positive_int, default=65536, metavar="N",
                   help="rows read and scored at a time (default 65536)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="where to score (default: local; dask: a Parquet dataset on a Dask cluster, -o OUT_DIR)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: a Dask scheduler "
                   "(tcp://host:8786) or its scheduler file; default: a LocalCluster, one worker per core")
    add_limit_arguments(p)


@_command("score", "score every answer of a data file", _score_arguments)
def cmd_score(args: argparse.Namespace) -> int:
    """Score every answer of DATA with RULE. Output: every input column in order, then
    coscore_score, coscore_combo_<ID> per combo and coscore_error (empty unless that answer
    failed)."""
    from .io.blanks import AnswerColumns
    from .pipeline.files import Totals, score_into
    from .pipeline.results import check_no_clash

    rule, _ = load_rule(args.rule, limits_from_arguments(args))
    if args.engine == "dask":
        return _score_on_dask(rule, args)
    totals = Totals()
    with open_reader(args.data, args.format, args.chunk_size) as reader:
        fmt = reader.format
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label)
        if fmt in ("csv", "tsv") and reader.columns in (["text"], ["text", "score"]) and not args.blanks:
            _error(f"note: {reader.source} looks like the original CoScore layout; "
                   "give --format coscore to read it so (blanks split on '-', mark in 'score')")
        check_no_clash(reader.source, reader.columns, rule.combo_ids)
        with _progress(args.progress, reader) as bar, open_writer(args.output, args.output_format,
                                                                   bom=args.excel) as writer:
            with _gc_per_chunk() as collect:
                def each(chunk: Any) -> None:
                    bar.advance(chunk)
                    collect()

                score_into(rule, reader.chunks(), columns, writer, jobs=args.jobs, totals=totals,
                           decimals=args.decimals, each=each)
    return _finish(totals, args.strict)


def _finish(totals: Totals, strict: bool) -> int:
    if totals.errors:
        _error(f"{totals.errors} of {totals.rows} answers could not be scored (see the coscore_error column)")
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
        from .dask import ClusterError, score_files
    except ImportError as exc:
        raise UsageError(f"--engine dask needs: pip install 'coscore[dask]' ({exc})") from None
    from .pipeline.files import Totals

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


class _Progress:
    """A tqdm bar over bytes (text files), rows (Parquet) or rows without a total (stdin)."""

    def __init__(self, enabled: bool, reader: Any) -> None:
        self._bar: Any = None
        self._last = 0
        self._by_bytes = bool(getattr(reader, "total_bytes", None))
        if not enabled:
            return
        from tqdm import tqdm

        if self._by_bytes:
            self._bar = tqdm(total=reader.total_bytes, unit="B", unit_scale=True, desc="scoring", file=sys.stderr)
        else:
            total = getattr(reader, "total_rows", None)
            self._bar = tqdm(total=total, unit=" rows", unit_scale=True, desc="scoring", file=sys.stderr)
        self._rows = 0

    def advance(self, chunk: Any) -> None:
        if self._bar is None:
            return
        self._rows += len(chunk)
        if self._by_bytes and chunk.position is not None:
            self._bar.update(chunk.position - self._last)
            self._last = chunk.position
            self._bar.set_postfix_str(f"{self._rows:,} rows", refresh=False)
        else:
            self._bar.update(len(chunk))

    def __enter__(self) -> "_Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()


def _progress(flag: bool | None, reader: Any) -> _Progress:
    enabled = sys.stderr.isatty() if flag is None else flag
    return _Progress(enabled, reader)


# -- check -------------------------------------------------------------------------------


def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("--data", metavar="DATA", help="answers the rule will score: their first rows tell how many "
                   "blanks there are")
    _add_data_options(p)
    p.add_argument("--label", metavar="COL", help="the mark column of DATA (never taken as a blank)")
    p.add_argument("--json", action="store_true", help="print a JSON object for tools")
    add_limit_arguments(p)


def _add_data_options(p: argparse.ArgumentParser) -> None:
    """``--format`` and ``--blanks`` for a command that reads a data file DATA."""
    p.add_argument("--format", choices=INPUT_FORMATS, help="format of DATA (default: from its extension)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=_column_list,
                   help="the blank columns of DATA (default: every column except id, the label and score columns)")


@_command("check", "check a rule: every error and warning, with carets", _check_arguments)
def cmd_check(args: argparse.Namespace) -> int:
    """Compile RULE and list every diagnostic (errors and warnings), then what the rule
    can score and how many blanks it reads. Exit 1 if there are errors, 0 otherwise."""
    import coscore
    from .expr.types import check_rule

    text = read_rule_text(args.rule)
    blanks = _data_blanks(args) if args.data else None
    report = None
    try:
        rule = coscore.compile(text, limits=limits_from_arguments(args))
        report = check_rule(rule, blanks)
        diagnostics = list(rule.warnings) + report.diagnostics
    except coscore.RuleError as exc:
        diagnostics = list(exc.diagnostics)
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    if args.json:
        out = {
            "rule": args.rule,
            "ok": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [_diagnostic_dict(d) for d in diagnostics],
        }
        if report is not None:
            out.update(report.to_dict(), data_blanks=None if blanks is None else {"min": blanks[0], "max": blanks[1]})
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        for d in diagnostics:
            print(f"{args.rule}: {d}")
        if report is not None:
            n = report.blanks_needed
            reads = f"needs {n} blank{'s' * (n != 1)}" if n else "needs no numbered blank"
            reads += " and reads them all ('*')" if report.reads_all_blanks else ""
            if blanks is not None:
                have = str(blanks[0]) if blanks[0] == blanks[1] else f"{blanks[0]} to {blanks[1]}"
                reads += f" (the data has {have} blank{'s' * (blanks[1] != 1)})"
            for combo in report.combos if not report.always_fails else ():
                print(f"{args.rule}: {combo.describe()}")
            print(f"{args.rule}: {report.describe_range()}; {reads}")
        summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        print(f"{args.rule}: {'ok' if not errors else 'invalid'} ({summary})")
    return EXIT_FAILED if errors else EXIT_OK


def _data_blanks(args: argparse.Namespace) -> tuple[int, int]:
    """The fewest and the most blanks among DATA's first rows (its header for tables; a
    table that looks like the original CoScore layout, text[,score], is read so)."""
    from .io.blanks import AnswerColumns
    from .pipeline.tables import answer_lists

    fmt = format_of(args.data, args.format, default="csv")
    if fmt in ("csv", "tsv") and not args.blanks:
        with open_reader(args.data, fmt, 1) as reader:
            if reader.columns in (["text"], ["text", "score"]):
                fmt = "coscore"
    with open_reader(args.data, fmt, 1000) as reader:
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label)
        if columns.blanks:
            return len(columns.blanks), len(columns.blanks)
        for chunk in reader.chunks():
            counts = [len(a) for a in answer_lists(columns.select(chunk))]
            if counts:
                return min(counts), max(counts)
    raise UsageError(f"{args.data}: no rows to count the blanks of")


def _diagnostic_dict(d: Any) -> dict[str, Any]:
    if hasattr(d, "to_dict"):
        return d.to_dict()
    return {"path": d.path, "message": d.message, "column": d.column, "severity": d.severity}


# -- explain -----------------------------------------------------------------------------


def _explain_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("answer", metavar="ANSWER|DATA", nargs="+",
                   help="the blanks of the answer, in order; or one data file with --row/--id/--where")
    rows = p.add_mutually_exclusive_group()
    rows.add_argument("--row", type=_positive_int, action="append", metavar="N",
                      help="explain row N of DATA (1 = the first answer; repeatable)")
    rows.add_argument("--id", action="append", metavar="X", help="explain the row whose id is X (repeatable)")
    rows.add_argument("--where", choices=["disagree"],
                      help="disagree: the rows whose score differs from the mark, largest |score − mark| first")
    p.add_argument("--label", metavar="COL", help="the mark column of DATA (default 'score' in the original "
                   "CoScore layout); its value is shown next to the score")
    p.add_argument("--limit", type=_positive_int, default=10, metavar="K", help="at most K rows (default 10)")
    _add_data_options(p)
    p.add_argument("--json", action="store_true", help="print the explanations as JSON")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="colour the output (default: when stdout is a terminal)")


@_command("explain", "show why answers get their scores", _explain_arguments)
def cmd_explain(args: argparse.Namespace) -> int:
    """Explain one answer typed on the command line (each ANSWER is one blank), or rows of a
    data file: 'explain RULE DATA --row N | --id X | --where disagree'. Shows each combo's
    expression value and contribution, and every distinct atom call once: what the atom saw
    and found."""
    from .explain import explain, render, to_dict

    rule, text = load_rule(args.rule)
    if _rows_given(args):
        picked = _explained_rows(rule, args)
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
    print("\n\n".join(blocks) if blocks else "no rows to explain")
    return EXIT_OK


def _rows_given(args: argparse.Namespace) -> bool:
    """Whether rows were picked from a data file (JSON is then always a list)."""
    return bool(args.row or args.id or args.where)


def _explained_rows(rule: Any, args: argparse.Namespace) -> list[tuple[dict[str, Any], list[str]]]:
    """The rows of DATA that ``--row``/``--id``/``--where`` pick, with where they are."""
    from .labelled import read_table

    if len(args.answer) != 1:
        raise UsageError("with --row, --id or --where give one data file after the rule")
    table = read_table(args.answer[0], args.format, args.blanks, args.label)
    ids = table.ids
    if args.row:
        for n in args.row:
            if n > len(table):
                raise UsageError(f"{table.source}: no row {n} (it has {len(table)} rows)")
        chosen = [n - 1 for n in args.row]
    elif args.id:
        index = {value: i for i, value in reversed(list(enumerate(ids)))}
        missing = [x for x in args.id if x not in index]
        if missing:
            raise UsageError(f"{table.source}: no row with id {missing[0]!r}")
        chosen = [index[x] for x in args.id]
    else:
        if table.label is None:
            raise UsageError("--where disagree needs the teachers' marks: give --label COL")
        from .report import disagreement_order

        chosen = disagreement_order(table.score(rule).scores, table.marks)
    out = []
    for i in chosen[: args.limit]:
        where: dict[str, Any] = {"row": i + 1, "id": ids[i]}
        if table.label is not None:
            mark = float(table.marks[i])
            where["mark"] = None if mark != mark else mark
        out.append((where, table.answers[i]))
    return out


# -- report ------------------------------------------------------------------------------


def _report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scored", metavar="SCORED", help="a file written by 'coscore score'")
    p.add_argument("--pred", default="coscore_score", metavar="COL", help="the score column (default coscore_score)")
    p.add_argument("--rule", metavar="RULE", help="the rule that scored SCORED: its name and hash head the report "
                   "and each disagreement shows the atoms' evidence")
    p.add_argument("--by", metavar="COL", help="also give the figures per value of COL (school, class, …)")
    p.add_argument("--blanks", metavar="COL[,COL...]", type=_column_list,
                   help="the answer's blank columns (default: every column except id, the label, --by and coscore_*)")
    p.add_argument("--format", choices=OUTPUT_FORMATS, help="format of SCORED (default: from its extension)")
    _add_agreement_options(p, "report", "the K largest disagreements")


@_command("report", "agreement of coscore with the teachers' marks", _report_arguments)
def cmd_report(args: argparse.Namespace) -> int:
    """Agreement statistics between a score column and the teachers' marks in a scored
    file: n, means, SDs, exact and adjacent agreement, QWK, unweighted kappa, Pearson r,
    RMSE, R², SMD, confusion matrix; then the largest disagreements (explained), per-combo
    and per-mark-level figures, and per-subgroup figures with --by. As text or JSON, and
    optionally an HTML page."""
    from .labelled import read_table
    from .report import Provenance, build_report, render_html, report_text

    rule = load_rule(args.rule)[0] if args.rule else None
    table = read_table(args.scored, args.format, args.blanks, args.label, exclude=[args.by] if args.by else ())
    if args.label not in table.columns:
        raise InputError(table.source, f"no such column (columns: {', '.join(table.columns)})", column=args.label)
    report = build_report(table, args.pred, Provenance.of(args.scored, args.rule), rule, args.by, args.top)
    title = f"coscore agreement: {os.path.basename(args.scored)}"
    return _emit(args, report.to_dict, lambda: report_text(report),
                 lambda: render_html(report.agreement, title, args.label, args.pred, report))


def _add_agreement_options(p: argparse.ArgumentParser, what: str, rows: str) -> None:
    """The options of a command that measures agreement with the teachers' marks and
    prints ``what`` through :func:`_emit`: ``--label`` (required), ``--top`` (it shows
    ``rows``), ``--json`` and ``--html``."""
    p.add_argument("--label", required=True, metavar="COL", help="the teachers' mark column")
    p.add_argument("--top", type=_positive_int, default=10, metavar="K", help=f"show {rows} (default 10)")
    p.add_argument("--json", action="store_true", help=f"print the {what} as a JSON object")
    p.add_argument("--html", metavar="FILE", help=f"also write the {what} as a self-contained HTML page with figures")


def _emit(args: argparse.Namespace, data: Callable[[], Any], text: Callable[[], str],
          page: Callable[[], str]) -> int:
    """Write the HTML page to ``--html`` (if given), then print JSON (``--json``) or text."""
    from .io.atomic import atomic_output

    if args.html:
        try:
            html = page()
        except ImportError as exc:
            raise UsageError(str(exc)) from None
        with atomic_output(args.html) as stream:
            stream.write(html)
    print(json.dumps(data(), ensure_ascii=False, indent=2) if args.json else text())
    return EXIT_OK


# -- compare -----------------------------------------------------------------------------


def _compare_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA", help="answers with the teachers' marks")
    p.add_argument("scorers", metavar="SCORER", nargs="+", help="a rule file (.json) or a column of DATA")
    _add_data_options(p)
    p.add_argument("--resamples", type=_positive_int, default=1000, metavar="B",
                   help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="bootstrap seed (default: a fixed one)")
    _add_agreement_options(p, "comparison", "K rows where the scorers disagree")


@_command("compare", "compare scorers (rules or score columns) against the same marks", _compare_arguments)
def cmd_compare(args: argparse.Namespace) -> int:
    """Score DATA with each SCORER (a rule file, or a column of DATA holding scores) and
    compare them on the rows all of them scored: every agreement figure with a 95 %
    bootstrap interval (seeded: reruns print the same), the paired QWK difference of each
    pair, and the rows where the scorers disagree, explained."""
    from .labelled import read_table
    from .report import Provenance
    from .report.bootstrap import SEED
    from .report.compare import Scorer, compare
    from .report.render import comparison_html, comparison_text

    rule_files = [s for s in args.scorers if os.path.isfile(s)]
    columns = [s for s in args.scorers if s not in rule_files]
    table = read_table(args.data, args.format, args.blanks, args.label, exclude=columns)
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
    result = compare(table, scorers, date, args.resamples, SEED if args.seed is None else args.seed, args.top)
    title = f"coscore comparison: {os.path.basename(args.data)}"
    return _emit(args, result.to_dict, lambda: comparison_text(result), lambda: comparison_html(result, title))


def _unique(name: str, taken: list[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``… when already taken."""
    shown, k = name, 2
    while shown in taken:
        shown, k = f"{name} ({k})", k + 1
    return shown


# -- demo --------------------------------------------------------------------------------


@_command("demo", "score the bundled CoScore datasets and show the agreement", lambda parser: None)
def cmd_demo(args: argparse.Namespace) -> int:
    """Score the four CoScore tasks bundled with coscore and print how the scores agree with
    the teachers' marks."""
    from .demo import run_demo

    print(run_demo())
    return EXIT_OK


# -- helpers -----------------------------------------------------------------------------


def read_rule_text(path: str) -> str:
    """The text of a rule file, with clear errors for a missing file or invalid UTF-8."""
    from .io import open_file

    with open_file(path) as f:
        raw = f.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8; a rule file must be UTF-8 encoded", line=line) from None


def load_rule(path: str, limits: Any = None) -> tuple[Any, str]:
    """Compile the rule file at ``path`` (with ``limits``: a :class:`coscore.Limits`);
    a bad rule is a :class:`UsageError` listing every problem."""
    import coscore

    text = read_rule_text(path)
    try:
        return coscore.compile(text, limits=limits), text
    except coscore.RuleError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"] or exc.diagnostics
        problems = "\n".join(f"  {line}" for d in errors for line in str(d).splitlines())
        raise UsageError(f"{path}: invalid rule (run 'coscore check {path}' for details)\n{problems}") from None


def _column_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {text!r}")
    return names


def _decimals(text: str) -> int:
    return _whole_number(text, 0, 15, "a number of decimal places", "0 to 15 decimal places")


def _positive_int(text: str) -> int:
    return _whole_number(text, 1, None, "a positive integer", "a positive integer")


def _whole_number(text: str, low: int, high: int | None, kind: str, bounds: str) -> int:
    """``text`` as an int from ``low`` to ``high`` (None: no upper bound), for an argparse
    ``type``; the errors say it expected ``kind`` (not a number) or ``bounds``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"expected {bounds}, got {text!r}")
    return value


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def _unexpected(exc: Exception) -> tuple[str, int]:
    """One line for an exception no subcommand turned into a message, and the exit status."""
    from .diagnostics import shorten

    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read", EXIT_USAGE
    if isinstance(exc, MemoryError):
        return "out of memory (the input is too large for this machine)", EXIT_USAGE
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return shorten(f"{where}{exc.strerror or exc}"), EXIT_USAGE
    text = str(exc).strip().splitlines()
    detail = f": {text[0]}" if text else ""
    return shorten(f"unexpected error ({type(exc).__name__}{detail}); "
                   "please report it, with COSCORE_TRACEBACK=1 for the details"), EXIT_INTERNAL


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _version() -> str:
    from . import __version__

    return __version__
