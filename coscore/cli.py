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
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .io import INPUT_FORMATS, OUTPUT_FORMATS, AnswerColumns, InputError, open_reader, open_writer
from .io.scoring import Totals, check_no_clash, local_engine, scored_chunks

PROG = "coscore"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

#: Subcommands written in other modules: name -> (module, help, install hint). The module
#: provides ``add_arguments(parser)`` and ``run(args) -> int``; it is imported only when
#: its subcommand is used.
PLUGINS: dict[str, tuple[str, str, str]] = {
    "expect": ("coscore.expect.command", "check rules against their test suites (Expectations 0.7.2)", ""),
    "serve": ("coscore.server", "run the drop-in HTTP scoring service", "pip install 'coscore[serve]'"),
}

#: Scoring engines for ``score --engine`` that take answer chunks (``dask`` reads and writes Parquet itself).
ENGINES: dict[str, Any] = {"local": local_engine}


class UsageError(Exception):
    """A problem with the command line or its inputs: one message, exit 2."""


# -- entry point -------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``coscore`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
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
    _add_score(sub)
    _add_check(sub)
    _add_explain(sub)
    _add_report(sub)
    _add_demo(sub)
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


def _add_score(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score every answer of a data file",
        description="Score every answer of DATA with RULE. Output: every input column in order, then "
        "coscore_score, coscore_combo_<ID> per combo and coscore_error (empty unless that answer failed).",
    )
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
    p.add_argument("--engine", choices=sorted([*ENGINES, "dask"]), default="local",
                   help="where to score (default: local; dask: a Parquet dataset on a Dask cluster, -o OUT_DIR)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: a Dask scheduler "
                   "(tcp://host:8786) or its scheduler file; default: a LocalCluster, one worker per core")
    p.set_defaults(handler=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    """``coscore score``: stream DATA through the rule into OUT."""
    rule, _ = load_rule(args.rule)
    if args.engine == "dask":
        return _score_on_dask(rule, args)
    engine = ENGINES[args.engine]
    totals = Totals()
    with open_reader(args.data, args.format, args.chunk_size) as reader:
        fmt = reader.format
        columns = AnswerColumns.resolve(fmt, reader.source, reader.columns, args.blanks, args.label)
        if fmt in ("csv", "tsv") and reader.columns in (["text"], ["text", "score"]) and not args.blanks:
            _error(f"note: {reader.source} looks like the original CoScore layout; "
                   "give --format coscore to read it so (blanks split on '-', mark in 'score')")
        check_no_clash(reader.source, reader.columns, rule.combo_ids)
        chunks = scored_chunks(rule, reader.chunks(), columns, jobs=args.jobs, engine=engine, totals=totals,
                               decimals=args.decimals)
        output = open_writer(args.output, args.output_format, bom=args.excel)
        with _progress(args.progress, reader) as bar, output as writer:
            with _gc_per_chunk() as collect:
                for chunk in chunks:
                    check_no_clash(chunk.source, chunk.columns[: -len(rule.combo_ids) - 2], rule.combo_ids)
                    writer.write(chunk)
                    bar.advance(chunk)
                    collect()
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


def _add_check(sub: Any) -> None:
    p = sub.add_parser("check", help="check a rule: every error and warning, with carets",
                       description="Compile RULE and list every diagnostic (errors and warnings). "
                       "Exit 1 if there are errors, 0 otherwise.")
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("--json", action="store_true", help="print a JSON object for tools")
    p.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """``coscore check``: list diagnostics; exit 1 on errors."""
    import coscore

    text = read_rule_text(args.rule)
    try:
        rule = coscore.compile(text)
        diagnostics = list(rule.warnings)
    except coscore.RuleError as exc:
        diagnostics = list(exc.diagnostics)
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    if args.json:
        print(json.dumps({
            "rule": args.rule,
            "ok": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [_diagnostic_dict(d) for d in diagnostics],
        }, ensure_ascii=False, indent=2))
    else:
        for d in diagnostics:
            print(f"{args.rule}: {d}")
        summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        print(f"{args.rule}: {'ok' if not errors else 'invalid'} ({summary})")
    return EXIT_FAILED if errors else EXIT_OK


def _diagnostic_dict(d: Any) -> dict[str, Any]:
    if hasattr(d, "to_dict"):
        return d.to_dict()
    return {"path": d.path, "message": d.message, "column": d.column, "severity": d.severity}


# -- explain -----------------------------------------------------------------------------


def _add_explain(sub: Any) -> None:
    p = sub.add_parser("explain", help="show why one answer gets its score",
                       description="Score one answer (each ANSWER is one blank) and show every atom call: "
                       "what the atom saw and found.")
    p.add_argument("rule", metavar="RULE", help="the rule (.json)")
    p.add_argument("answer", metavar="ANSWER", nargs="+", help="the blanks of the answer, in order")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="colour the output (default: when stdout is a terminal)")
    p.set_defaults(handler=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    """``coscore explain``: the score of one answer and the evidence of each atom call."""
    from .explain import explain, render

    rule, text = load_rule(args.rule)
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ if args.color is None else args.color
    print(render(explain(rule, args.answer, text), color=color))
    return EXIT_OK


# -- report ------------------------------------------------------------------------------


def _add_report(sub: Any) -> None:
    p = sub.add_parser("report", help="agreement of coscore with the teachers' marks",
                       description="Agreement statistics between a score column and the teachers' marks in a "
                       "scored file: n, means, SDs, exact and adjacent agreement, QWK, Pearson r, SMD, "
                       "confusion matrix.")
    p.add_argument("scored", metavar="SCORED", help="a file written by 'coscore score'")
    p.add_argument("--label", required=True, metavar="COL", help="the teachers' mark column")
    p.add_argument("--pred", default="coscore_score", metavar="COL", help="the score column (default coscore_score)")
    p.add_argument("--format", choices=OUTPUT_FORMATS, help="format of SCORED (default: from its extension)")
    p.add_argument("--json", action="store_true", help="print the statistics as a JSON object")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report with figures")
    p.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """``coscore report``: the statistics as text or JSON, and optionally an HTML page."""
    from .io.atomic import atomic_output
    from .report import agreement, read_scored, render_html, render_text

    human, pred = read_scored(args.scored, args.label, args.pred, args.format)
    stats = agreement(human, pred)
    if args.html:
        try:
            page = render_html(stats, f"coscore agreement: {os.path.basename(args.scored)}", args.label, args.pred)
        except ImportError as exc:
            raise UsageError(str(exc)) from None
        with atomic_output(args.html) as stream:
            stream.write(page)
    if args.json:
        print(json.dumps(stats.to_dict(), indent=2))
    else:
        print(render_text(stats, args.label, args.pred))
    return EXIT_OK


# -- demo --------------------------------------------------------------------------------


def _add_demo(sub: Any) -> None:
    p = sub.add_parser("demo", help="score the bundled CoScore datasets and show the agreement",
                       description="Score the four CoScore tasks bundled with coscore and print how the "
                       "scores agree with the teachers' marks.")
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    """``coscore demo``."""
    from .demo import run_demo

    print(run_demo())
    return EXIT_OK


# -- helpers -----------------------------------------------------------------------------


def read_rule_text(path: str) -> str:
    """The text of a rule file, with clear errors for a missing file or invalid UTF-8."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a rule file") from None
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8; a rule file must be UTF-8 encoded", line=line) from None


def load_rule(path: str) -> tuple[Any, str]:
    """Compile the rule file at ``path``; a bad rule is a :class:`UsageError` listing every problem."""
    import coscore

    text = read_rule_text(path)
    try:
        return coscore.compile(text), text
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
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of decimal places, got {text!r}") from None
    if not 0 <= value <= 15:
        raise argparse.ArgumentTypeError(f"expected 0 to 15 decimal places, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _version() -> str:
    from . import __version__

    return __version__
