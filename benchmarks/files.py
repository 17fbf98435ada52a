"""The file path against its floor: ``coscore score`` end to end vs pyarrow's own I/O.

    python benchmarks/files.py                  # 1,000,000 distinct rows per rule
    python benchmarks/files.py --ten-million    # 10,000,000 (needs several GB to build the input)
    python benchmarks/files.py --rows 200000 --rules lab-tools
    python benchmarks/files.py --dask           # + coscore.dask vs one process, 12,000,000 rows
    python benchmarks/files.py --xlsx --no-files  # .xlsx against CSV, 200,000 rows of 2 blanks

For the lane-change and lab-tools rules it builds ``--rows`` distinct answers (the
``distinct`` workload of :mod:`benchmarks.workloads`, columns ``id, b0, ...``), writes them
as CSV and Parquet, and measures in the same run:

- ``coscore score`` CSV->CSV and Parquet->Parquet, end to end: a new process, from its
  start to its exit (``python -m coscore``), its CPU time (user + system, all threads:
  less moved by other load than the wall time) and its peak RSS (the kernel's ``VmHWM``
  of that process, read as it exits);
- the floor: pyarrow reading the same input (all columns as strings for CSV) plus writing
  the same input and output columns (the scored file's table), in this process;
- ``Rule.score_many`` in memory on the Python lists, on the same answers as an Arrow
  table of blank columns, and on lists made from that table first (``to_pylist``);
- for reference (not in the budget): coscore's own reader and writer, each alone, and the
  start-up of a ``coscore score`` process (Python and the imports of a CSV run).

The ``coscore`` processes cache their bytecode (in the temporary folder), as an installed
package does, even where ``PYTHONDONTWRITEBYTECODE`` is set: otherwise every run would
compile coscore's modules again (some 0.1 s).

The target is ``end to end <= 1.5 * (read + write) + score_many``; each line prints the
ratio of the time to that budget (<= 1 meets it). Times are the best of ``--repeat`` runs.

With ``--dask`` it also scores a Parquet dataset of ``--dask-rows`` rows (the Parquet
input, repeated as ``--dask-files`` files) twice: by one ``coscore score`` process
(the files as a glob, into one Parquet file) and by ``coscore score --engine dask`` on
a two-worker ``LocalCluster``, and prints the speed-up (target: >= 1.5).

With ``--xlsx`` it builds ``--xlsx-rows`` rows of two Chinese blanks (lane-change's and
lab-tools' answers, scored by one rule made of both), as CSV and as an ``.xlsx`` with
shared strings (as Excel saves one; written by xlsxwriter), and prints, as medians of
``--repeat`` runs (at least 3; the four commands take turns) in the same run:
``.xlsx``->``.xlsx`` over CSV->CSV (target <= 4), ``.xlsx``->CSV over CSV->CSV (reading
.xlsx, target <= 2), each run's peak RSS (target < 500 MB), coscore's two readers alone,
and whether the ``.xlsx`` output holds exactly the CSV output's values.

Timings on a loaded machine are noisy: compare ratios measured in one run.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402
import pyarrow.csv as pa_csv  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import coscore  # noqa: E402
from benchmarks import workloads  # noqa: E402
from coscore.pipeline.tables import answers_from_columns  # noqa: E402

RULES = ("lane-change", "lab-tools")

#: Runs ``coscore`` as ``python -m coscore`` would, then writes the process's peak RSS
#: (VmHWM, in kB) to the file named by COSCORE_BENCH_HWM.
_LAUNCH = """
import os, sys
from coscore.cli import main
try:
    status = main(sys.argv[1:])
finally:
    with open('/proc/self/status') as f:
        hwm = next((line.split()[1] for line in f if line.startswith('VmHWM')), '0')
    with open(os.environ['COSCORE_BENCH_HWM'], 'w') as f:
        f.write(hwm)
sys.exit(status)
"""


def _best(fn, repeat: int, clock=time.perf_counter) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = clock()
        result = fn()
        best = min(best, clock() - start)
    return best, result


def _environment(folder: Path) -> dict[str, str]:
    """The environment of a ``coscore`` process: this checkout first on the path, and
    its modules' bytecode cached (in ``folder``, not in the checkout) as an installed
    package's is, even where ``PYTHONDONTWRITEBYTECODE`` is set."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(folder / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


#: What a ``coscore score`` run of CSV to CSV imports before it reads a row.
_SCORE_IMPORTS = ("import coscore.cli.score, coscore.pipeline.files, coscore.io.delimited.columnar_csv, "
                  "coscore.io.delimited.delimited, coscore.rule")


def startup(folder: Path, repeat: int) -> float:
    """Best wall time (s) of a new process that imports what ``coscore score`` of CSV
    imports (its modules, numpy, pyarrow) and does nothing else. The first run (not
    counted) caches the bytecode."""
    command = [sys.executable, "-c", _SCORE_IMPORTS]
    env = _environment(folder)
    subprocess.run(command, env=env, capture_output=True, check=True)
    best, _ = _best(lambda: subprocess.run(command, env=env, capture_output=True, check=True), max(repeat, 3))
    return best


def _stages(rule, src: Path, scored, fmt: str, folder: Path, repeat: int) -> dict:
    """coscore's own reader (all chunks of ``src``) and writer (``scored`` in chunks), each
    alone in this process, for comparison with pyarrow's read and write."""
    from coscore.io import Chunk, open_reader, open_writer

    def read() -> None:
        with open_reader(src) as reader:
            for _ in reader.chunks():
                pass

    types = {name: "float64" for name in scored.column_names if name.startswith("coscore_")}
    types["coscore_error"] = "string"
    pieces = [scored.slice(start, 65536) for start in range(0, scored.num_rows, 65536)]
    chunks = [Chunk(list(p.column_names), {n: p.column(n) for n in p.column_names}, range(p.num_rows), "row",
                    str(src), None, types) for p in pieces]

    def write() -> None:
        with open_writer(folder / f"stage.{fmt}") as writer:
            for chunk in chunks:
                writer.write(chunk)

    return {"read_s": _best(read, repeat)[0], "write_s": _best(write, repeat)[0]}


def _command(args: list[str], folder: Path, repeat: int, cpu: list[float] | None = None) -> tuple[float, float]:
    """Best wall time (s) of ``coscore ARGS`` in a new process, and its peak RSS (MB);
    the CPU time (user + system) of that best run is appended to ``cpu``."""
    hwm = folder / "hwm.txt"
    env = dict(_environment(folder), COSCORE_BENCH_HWM=str(hwm))
    best, peak, best_cpu = float("inf"), 0.0, 0.0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _LAUNCH, *args], env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"coscore {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
        if elapsed < best:
            best = elapsed
            best_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        peak = max(peak, int(hwm.read_text() or 0) / 1024)
    if cpu is not None:
        cpu.append(best_cpu)
    return best, peak


def _inputs(name: str, rows: int, folder: Path) -> tuple[list[list[str]], pa.Table]:
    answers = workloads.distinct(name, rows)
    width = max(len(a) for a in answers)
    columns = {"id": pa.array([str(i) for i in range(rows)], pa.string())}
    for i in range(width):
        columns[f"b{i}"] = pa.array([a[i] if i < len(a) else "" for a in answers], pa.string())
        for a in answers:  # the lists scored in memory are the same answers as the file's
            while len(a) < width:
                a.append("")
    table = pa.table(columns)
    pa_csv.write_csv(table, folder / "in.csv")
    pq.write_table(table, folder / "in.parquet")
    return answers, table


def bench_rule(name: str, rows: int, folder: Path, repeat: int) -> dict:
    rule_path = folder / f"{name}.rule.json"
    rule_path.write_text(json.dumps(workloads.rule_source(name), ensure_ascii=False), encoding="utf-8")
    rule = coscore.compile(rule_path)
    answers, table = _inputs(name, rows, folder)
    blanks = table.drop_columns(["id"])
    out: dict = {"rule": name, "rows": rows}
    out["score_many_lists_s"], _ = _best(lambda: rule.score_many(answers), repeat)  # noqa: F821 - before the del
    out["score_many_arrow_s"], _ = _best(lambda: rule.score_many(blanks), repeat)
    # the CPU time of each (Arrow reads the next chunk's texts in a second thread)
    out["score_many_lists_cpu_s"], _ = _best(lambda: rule.score_many(answers), repeat, time.process_time)  # noqa: F821
    out["score_many_arrow_cpu_s"], _ = _best(lambda: rule.score_many(blanks), repeat, time.process_time)
    # the lists made from the table first, as a file path without the Arrow entry would
    out["score_many_converted_s"], _ = _best(lambda: rule.score_many(answers_from_columns(blanks.columns)), repeat)
    del answers
    string_types = {column: pa.string() for column in table.column_names}
    for fmt in ("csv", "parquet"):
        src, dst = folder / f"in.{fmt}", folder / f"out.{fmt}"
        cpu: list[float] = []
        blank_names = ",".join(c for c in table.column_names if c != "id")   # named: the rule reads fewer
        wall, peak = _command(["score", str(rule_path), str(src), "-o", str(dst), "--blanks", blank_names,
                               "--no-progress"], folder, repeat, cpu)
        scored = pq.read_table(dst) if fmt == "parquet" else pa_csv.read_csv(dst, convert_options=pa_csv.ConvertOptions(
            column_types={**string_types, "coscore_error": pa.string()}))
        if fmt == "csv":
            read = lambda: pa_csv.read_csv(src, convert_options=pa_csv.ConvertOptions(column_types=string_types))  # noqa: E731
            write = lambda: pa_csv.write_csv(scored, folder / "floor.csv")  # noqa: E731, F821 - before the del
        else:
            read = lambda: pq.read_table(src)  # noqa: E731
            write = lambda: pq.write_table(scored, folder / "floor.parquet")  # noqa: E731, F821
        read_s, _ = _best(read, repeat)
        write_s, _ = _best(write, repeat)
        budget = 1.5 * (read_s + write_s) + out["score_many_lists_s"]
        out[fmt] = {"coscore_score_s": wall, "coscore_score_cpu_s": cpu[0], "peak_rss_mb": peak, "pyarrow_read_s": read_s,
                    "pyarrow_write_s": write_s, "budget_s": budget, "ratio_to_budget": wall / budget,
                    "coscore_stages": _stages(rule, src, scored, fmt, folder, repeat)}
        del scored
    return out


def bench_dask(name: str, rows: int, files: int, folder: Path, repeat: int) -> dict:
    """One ``coscore score`` process vs ``--engine dask`` (2 workers) on ``rows`` rows in
    ``files`` Parquet files, each a copy of ``rows // files`` distinct rows."""
    import shutil

    per_file = rows // files
    rule_path = folder / f"{name}.rule.json"
    rule_path.write_text(json.dumps(workloads.rule_source(name), ensure_ascii=False), encoding="utf-8")
    _, table = _inputs(name, per_file, folder)
    blank_names = ",".join(c for c in table.column_names if c != "id")   # named: the rule reads fewer
    dataset = folder / "dataset"
    dataset.mkdir(exist_ok=True)
    for i in range(files):
        pq.write_table(table, dataset / f"part-{i:03d}.parquet")
    del table
    glob = str(dataset / "*.parquet")
    cpu: list[float] = []
    local, local_peak = _command(["score", str(rule_path), glob, "-o", str(folder / "one.parquet"), "--blanks",
                                  blank_names, "--no-progress"], folder, repeat, cpu)
    best = float("inf")
    for attempt in range(repeat):
        out = folder / f"dask-out-{attempt}"
        wall, _ = _command(["score", str(rule_path), glob, "--engine", "dask", "-o", str(out), "--blanks",
                            blank_names, "--no-progress"], folder, 1)
        best = min(best, wall)
        shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(dataset, ignore_errors=True)
    return {"rule": name, "rows": per_file * files, "files": files, "local_s": local, "local_cpu_s": cpu[0],
            "local_peak_rss_mb": local_peak, "dask_s": best, "speedup": local / best, "cores": os.cpu_count() or 1}


def _print_dask(result: dict) -> None:
    print(f"{result['rule']}, {result['rows']:,} rows in {result['files']} Parquet files: one coscore score process "
          f"{result['local_s']:.2f} s (peak RSS {result['local_peak_rss_mb']:.0f} MB), --engine dask on 2 workers "
          f"{result['dask_s']:.2f} s; speed-up {result['speedup']:.2f} (target >= 1.5: "
          f"{_verdict(result['speedup'] >= 1.5)})")
    busy = result["local_cpu_s"] / result["local_s"]
    print(f"  the one process keeps {busy:.2f} cores busy (CPU {result['local_cpu_s']:.2f} s): on "
          f"{result['cores']} cores no engine can be more than {result['cores'] / busy:.2f} x faster")


#: Issue 14's memory target for a streaming ``coscore score``, whatever the file's length.
RSS_TARGET_MB = 400


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _print(result: dict) -> None:
    name, rows = result["rule"], result["rows"]
    print(f"{name}, {rows:,} distinct rows")
    lists, arrow = result["score_many_lists_s"], result["score_many_arrow_s"]
    converted = result["score_many_converted_s"]
    print(f"  score_many: lists {lists:.2f} s, Arrow table {arrow:.2f} s (Arrow/lists {arrow / lists:.2f}, "
          f"target <= 1: {_verdict(arrow <= lists)}); "
          f"the table made into lists first {converted:.2f} s (Arrow/that {arrow / converted:.2f}); "
          f"CPU time: lists {result['score_many_lists_cpu_s']:.2f} s, Arrow {result['score_many_arrow_cpu_s']:.2f} s "
          f"(Arrow/lists {result['score_many_arrow_cpu_s'] / result['score_many_lists_cpu_s']:.2f})")
    for fmt, label in (("csv", "CSV->CSV"), ("parquet", "Parquet->Parquet")):
        r = result[fmt]
        print(f"  coscore score {label}: {r['coscore_score_s']:.2f} s (CPU {r['coscore_score_cpu_s']:.2f} s), "
              f"peak RSS {r['peak_rss_mb']:.0f} MB; "
              f"budget 1.5 x (read {r['pyarrow_read_s']:.2f} + write {r['pyarrow_write_s']:.2f}) + "
              f"score_many {lists:.2f} = {r['budget_s']:.2f} s; ratio {r['ratio_to_budget']:.2f} "
              f"(target <= 1: {_verdict(r['ratio_to_budget'] <= 1)}; RSS target < {RSS_TARGET_MB} MB: "
              f"{_verdict(r['peak_rss_mb'] < RSS_TARGET_MB)})")
        stages = r["coscore_stages"]
        print(f"    (coscore's reader alone {stages['read_s']:.2f} s, its writer alone {stages['write_s']:.2f} s)")


#: Issue 26's targets for .xlsx, against the same data as CSV.
XLSX_TARGET, XLSX_READ_TARGET, XLSX_RSS_MB = 4.0, 2.0, 500


def two_blank_rule() -> dict:
    """lane-change's rule on blank 0 and lab-tools' on blank 1, as one rule (combos added)."""
    lane, lab = workloads.rule_source("lane-change"), workloads.rule_source("lab-tools")
    atoms = dict(lane["atoms"])
    renamed = {old: str(len(atoms) + i) for i, old in enumerate(lab["atoms"])}
    atoms.update({renamed[old]: atom for old, atom in lab["atoms"].items()})
    combos = dict(lane["combos"])
    for i, combo in enumerate(lab["combos"].values()):
        text = combo["combo"].replace("T(0)", "T(1)")
        for old, new in renamed.items():
            text = text.replace(f"M({old},", f"M({new},").replace(f"G({old},", f"G({new},")
        combos[chr(ord("A") + len(lane["combos"]) + i)] = {**combo, "combo": text}
    return {"atoms": atoms, "combos": combos, "comboMode": "ADD"}


def _xlsx_inputs(rows: int, folder: Path) -> pa.Table:
    import xlsxwriter

    lane, lab = workloads.distinct("lane-change", rows), workloads.distinct("lab-tools", rows)
    table = pa.table({"id": [str(i) for i in range(rows)], "b0": [a[0] for a in lane], "b1": [a[0] for a in lab]})
    pa_csv.write_csv(table, folder / "in.csv")
    book = xlsxwriter.Workbook(str(folder / "in.xlsx"), {"strings_to_numbers": False, "strings_to_formulas": False,
                                                         "strings_to_urls": False})
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, table.column_names)
    for j, column in enumerate(table.columns):
        sheet.write_column(1, j, column.to_pylist())
    book.close()
    return table


def _alternated(commands: dict[str, list[str]], folder: Path, repeat: int) -> dict[str, tuple[float, float]]:
    """For each named ``coscore ARGS``: the median wall time (s) over ``repeat`` runs and the
    largest peak RSS (MB). The commands take turns, one run each per round, so a change
    in the machine's load falls on all of them alike."""
    import statistics

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, args in commands.items():
            runs[name].append(_command(args, folder, 1))
    return {name: (statistics.median(r[0] for r in got), max(r[1] for r in got)) for name, got in runs.items()}


def _same_output(csv_out: Path, xlsx_out: Path) -> bool:
    """Whether the .xlsx output holds the CSV output's values (scores as numbers)."""
    import fastexcel

    scored = pa_csv.read_csv(csv_out, convert_options=pa_csv.ConvertOptions(
        column_types={"id": pa.string(), "b0": pa.string(), "b1": pa.string(), "coscore_error": pa.string()},
        strings_can_be_null=False))
    numbers = {n: "float" for n in scored.column_names if n.startswith("coscore_") and n != "coscore_error"}
    texts = {n: "string" for n in scored.column_names if n not in numbers}
    book = fastexcel.read_excel(str(xlsx_out)).load_sheet(0, dtypes={**numbers, **texts}).to_arrow()
    for name in scored.column_names:
        got, want = book.column(name), scored.column(name)
        if name in texts:
            got = got.fill_null("")
            want = want.fill_null("")
        if got.to_pylist() != want.to_pylist():
            return False
    return True


def bench_xlsx(rows: int, folder: Path, repeat: int) -> dict:
    """``.xlsx`` against CSV on the same ``rows`` rows of two blanks (see the module's doc)."""
    import statistics

    repeat = max(repeat, 3)
    rule_path = folder / "two-blanks.rule.json"
    rule_path.write_text(json.dumps(two_blank_rule(), ensure_ascii=False), encoding="utf-8")
    _xlsx_inputs(rows, folder)
    out: dict = {"rows": rows, "repeat": repeat}
    commands = {f"{src}->{dst}": ["score", str(rule_path), str(folder / f"in.{src}"), "-o",
                                  str(folder / f"out-{src}.{dst}"), "--no-progress"]
                for src, dst in (("csv", "csv"), ("xlsx", "csv"), ("xlsx", "xlsx"), ("csv", "xlsx"))}
    out.update(_alternated(commands, folder, repeat))
    out["same_output"] = _same_output(folder / "out-csv.csv", folder / "out-xlsx.xlsx")
    from coscore.io import open_reader

    def read(name: str) -> None:
        with open_reader(folder / name) as reader:
            for _ in reader.chunks():
                pass

    for fmt in ("csv", "xlsx"):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            read(f"in.{fmt}")
            times.append(time.perf_counter() - start)
        out[f"read_{fmt}_s"] = statistics.median(times)
    return out


def _print_xlsx(result: dict) -> None:
    base, base_rss = result["csv->csv"]
    print(f"{result['rows']:,} rows x 2 blanks, medians of {result['repeat']} runs: CSV->CSV {base:.2f} s "
          f"(peak RSS {base_rss:.0f} MB)")
    for key, target in (("xlsx->xlsx", XLSX_TARGET), ("xlsx->csv", XLSX_READ_TARGET), ("csv->xlsx", None)):
        wall, peak = result[key]
        verdict = f"target <= {target:g}: {_verdict(wall / base <= target)}; " if target else ""
        print(f"  {key.replace('xlsx', '.xlsx').replace('csv', 'CSV')}: {wall:.2f} s, {wall / base:.2f} x CSV->CSV "
              f"({verdict}peak RSS {peak:.0f} MB, target < {XLSX_RSS_MB}: {_verdict(peak < XLSX_RSS_MB)})")
    print(f"  readers alone: CSV {result['read_csv_s']:.2f} s, .xlsx {result['read_xlsx_s']:.2f} s "
          f"({result['read_xlsx_s'] / result['read_csv_s']:.2f} x)")
    print(f"  .xlsx output holds exactly the CSV output's values: {_verdict(result['same_output'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="distinct rows per rule (default 1,000,000)")
    parser.add_argument("--ten-million", action="store_true", help="10,000,000 rows per rule")
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=workloads.RULES)
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement; the best counts")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--dask", action="store_true", help="also coscore.dask (2 workers) vs one process")
    parser.add_argument("--dask-rows", type=int, default=12_000_000, help="rows of the Dask dataset (default 12,000,000)")
    parser.add_argument("--dask-files", type=int, default=12, help="Parquet files of the Dask dataset (default 12)")
    parser.add_argument("--no-files", action="store_true", help="skip the file measurements (with --dask, --xlsx)")
    parser.add_argument("--xlsx", action="store_true", help="also .xlsx against CSV (issue 26's targets)")
    parser.add_argument("--xlsx-rows", type=int, default=200_000, help="rows of the .xlsx comparison (default 200,000)")
    args = parser.parse_args(argv)
    rows = 10_000_000 if args.ten_million else args.rows
    results = []
    with tempfile.TemporaryDirectory(prefix="coscore-files-") as tmp:
        start = startup(Path(tmp), args.repeat)  # caches the bytecode before any run is timed
        print(f"start-up of a coscore score process (Python + the imports of a CSV run): {start:.2f} s")
        results.append({"startup_s": start})
        for name in [] if args.no_files else args.rules:
            result = bench_rule(name, rows, Path(tmp), args.repeat)
            _print(result)
            sys.stdout.flush()
            results.append(result)
        if args.xlsx:
            result = bench_xlsx(args.xlsx_rows, Path(tmp), args.repeat)
            _print_xlsx(result)
            sys.stdout.flush()
            results.append(result)
        if args.dask:
            for name in args.rules:
                result = bench_dask(name, args.dask_rows, args.dask_files, Path(tmp), args.repeat)
                _print_dask(result)
                sys.stdout.flush()
                results.append(result)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
