"""Exams: ``coscore score EXAM`` against its items' single-rule commands (issue 34's targets).

    python benchmarks/exam.py                    # the full run: some 4 minutes on 2 cores
    python benchmarks/exam.py --rows 20000 --students 20000 --repeat 1   # a smoke run
    python benchmarks/exam.py --skip-long        # the wide figures only
    python benchmarks/exam.py --data-dir DIR     # keep the generated data in DIR, reuse it next time

The data (generated once, reused when found in ``--data-dir``; default a folder in the
temporary directory, deleted at the end unless ``--keep`` or ``--data-dir`` is given):

- **wide** -- ``--rows`` rows (200,000) of an ``id`` column and eight text columns
  ``q1`` ... ``q8``, scored by an 8-item exam: the four demo rules twice (``q1`` lab-tools,
  ``q2`` lane-change, ``q3`` shortest-path, ``q4`` traffic-light, ``q5`` ... ``q8`` the same
  again), each item reading its own column. Each column is the ``--workload`` of
  :mod:`benchmarks.workloads` for its rule (``distinct``: every answer distinct, 1-3 edits
  of a dataset answer; ``real-duplicates``: the dataset's repeated answers kept at their
  real frequency), seeded by the item (``q5`` ... ``q8`` are other answers than
  ``q1`` ... ``q4``); an answer's blanks are joined into the one text (the two rules that
  read ``T('*')`` see what they saw before). One Parquet file.
- **long** -- ``--students`` students (1,000,000) x 20 items (the four rules five times,
  ``q1`` ... ``q20``) = 20,000,000 rows of ``id, item, answer``: each answer drawn (numpy,
  seeded) from a pool of ``--pool`` (250,000) answers of the item's rule (the same
  workload), so an item's answers repeat about ``students / pool`` times over the file
  but seldom within one chunk. Rows are ordered by student, each student's 20 items in
  order (``--long-order student``), or shuffled within each row group of 1,000,000 rows
  (``--long-order shuffled``: a student's rows are spread over some 60 chunks). Written
  with pyarrow in row groups of 1,000,000 rows; built from the pools with ``take``.

Measured in the same run, the commands taking turns (one run each per round, the order
rotating; ``--repeat`` rounds, 3 by default), each a new process (``python -c`` running
``coscore.cli.main``, its bytecode cached as :mod:`benchmarks.files` does):

1. **A** ``coscore score exam.yaml wide.parquet -o out.parquet --jobs 1 --no-progress``
   against **B**, the eight commands ``coscore score rules/X.rule.json wide.parquet
   --blanks qK -o outK.parquet --no-progress`` one after another (their times summed).
   Target: median A <= 0.4 x median B. Exactness: each item's ``qK_score`` and
   ``qK_error`` of A equal ``coscore_score`` and ``coscore_error`` of the single-rule run
   K, the input columns are carried through unchanged, ``total_score`` is the sum of the
   item scores, and ``--jobs 2`` writes the same table as ``--jobs 1``.
2. **C** the exam with ``--jobs 2``: target median A / median C >= 1.7.
3. Peak RSS (the process's ``VmHWM``, read as it exits) of A against the largest of the
   single-rule commands': target <= 1.5x.
4. The long layout scored with ``--totals`` (``exam-long.yaml``, ``--long-repeat`` runs,
   after the rounds): its time and peak RSS (``VmHWM``, and psutil sampling every 50 ms;
   a run that passes ``--long-limit-mb`` is stopped). Target: peak < 1 GB. Checked: the
   totals file has one row per student, each total the sum of the student's item scores
   and equal to the sum of the student's rows of the scored file; the first
   ``--long-check-rows`` rows' scores equal ``Rule.score_many`` of their answers.

Prints each figure with its target and PASS/FAIL, and writes ``exam.json`` (every run's
time, CPU time and peak RSS, the configuration and the machine) to ``--out``
(default ``benchmarks/results/``). The machine is shared: figures are medians and ratios
of runs measured in turns, in one run of this script. Making the data takes some 35 s
the first time (most of it the Python edits of :mod:`benchmarks.workloads`).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402 - after the path is set, as every benchmark
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from benchmarks import workloads  # noqa: E402
from benchmarks.files import _LAUNCH, _command, _environment, _verdict, startup  # noqa: E402

#: issue 34's targets
SPEED_TARGET = 0.4        # exam at --jobs 1 over the eight single-rule commands
JOBS_TARGET = 1.7         # --jobs 2 speed-up
RSS_RATIO_TARGET = 1.5    # exam's peak RSS over one single-rule command's
LONG_RSS_TARGET_MB = 1024

WIDE_ITEMS = 8
LONG_ITEMS = 20
#: rows of a row group of the long file
LONG_GROUP = 1_000_000
MB = 1024 * 1024


def item_rule(k: int) -> str:
    """The demo rule of item ``q<k>`` (k from 1): the four rules in turn."""
    return workloads.RULES[(k - 1) % len(workloads.RULES)]


def _answers(workload: str, name: str, n: int, seed: int) -> list[str]:
    """``n`` answers of rule ``name`` from ``workload``, each one text (its blanks joined)."""
    make = workloads.distinct if workload == "distinct" else workloads.real_duplicates
    return ["".join(answer) for answer in make(name, n, seed=seed)]


def _write_rules(folder: Path) -> None:
    rules = folder / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    for name in workloads.RULES:
        shutil.copyfile(workloads.DEMO / f"{name}.rule.json", rules / f"{name}.rule.json")


def _write_exams(folder: Path) -> tuple[Path, Path]:
    """``exam.yaml`` (wide, q1..q8) and ``exam-long.yaml`` (q1..q20, column ``answer``)."""
    wide = ["name: bench", "id: id", "items:"]
    for k in range(1, WIDE_ITEMS + 1):
        wide += [f"  - name: q{k}", f"    rule: rules/{item_rule(k)}.rule.json", f"    blanks: [q{k}]"]
    long = ["name: bench-long", "id: id", "item_column: item", "items:"]
    for k in range(1, LONG_ITEMS + 1):
        long.append(f"  - {{name: q{k}, rule: rules/{item_rule(k)}.rule.json, blanks: [answer]}}")
    (folder / "exam.yaml").write_text("\n".join(wide) + "\n", encoding="utf-8")
    (folder / "exam-long.yaml").write_text("\n".join(long) + "\n", encoding="utf-8")
    return folder / "exam.yaml", folder / "exam-long.yaml"


def wide_data(folder: Path, rows: int, workload: str) -> Path:
    """The wide Parquet file (``id``, ``q1`` ... ``q8``), made unless already there."""
    path = folder / f"wide-{workload}-{rows}.parquet"
    if path.exists():
        return path
    columns = {"id": pa.array(np.arange(1, rows + 1)).cast(pa.string())}
    for k in range(1, WIDE_ITEMS + 1):
        # seed: q1..q4 draw 0, q5..q8 draw 1 (other answers of the same rules)
        columns[f"q{k}"] = pa.array(_answers(workload, item_rule(k), rows, seed=(k - 1) // len(workloads.RULES)),
                                    pa.string())
    partial = path.with_suffix(".partial")
    pq.write_table(pa.table(columns), partial)
    partial.rename(path)  # a file found is a whole one
    return path


def long_data(folder: Path, students: int, pool: int, workload: str, order: str) -> Path:
    """The long Parquet file (``id``, ``item``, ``answer``), made unless already there:
    every row's answer taken from the pools with numpy indexes, one row group at a time."""
    path = folder / f"long-{workload}-{students}x{LONG_ITEMS}-pool{pool}-{order}.parquet"
    if path.exists():
        return path
    rules = list(workloads.RULES)
    pools = pa.concat_arrays([pa.array(_answers(workload, name, pool, seed=100), pa.string()) for name in rules])
    offsets = np.array([rules.index(item_rule(k)) * pool for k in range(1, LONG_ITEMS + 1)], dtype=np.int64)
    names = pa.array([f"q{k}" for k in range(1, LONG_ITEMS + 1)], pa.string())
    rng = np.random.default_rng(34)
    schema = pa.schema([("id", pa.string()), ("item", pa.string()), ("answer", pa.string())])
    per_group = max(1, LONG_GROUP // LONG_ITEMS)   # students per row group
    partial = path.with_suffix(".partial")
    with pq.ParquetWriter(partial, schema) as writer:
        for first in range(0, students, per_group):
            n = min(per_group, students - first)
            ids = pa.array(np.arange(first + 1, first + n + 1)).cast(pa.string())
            student = np.repeat(np.arange(n), LONG_ITEMS)
            item = np.tile(np.arange(LONG_ITEMS), n)
            answer = (rng.integers(0, pool, size=(n, LONG_ITEMS)) + offsets).reshape(-1)
            if order == "shuffled":
                perm = rng.permutation(n * LONG_ITEMS)
                student, item, answer = student[perm], item[perm], answer[perm]
            table = pa.table({"id": ids.take(pa.array(student)), "item": names.take(pa.array(item)),
                              "answer": pools.take(pa.array(answer))}, schema=schema)
            writer.write_table(table, row_group_size=LONG_GROUP)
    partial.rename(path)
    return path


# -- running commands ----------------------------------------------------------------------

def _run(args: list[str], work: Path) -> dict:
    """One ``coscore ARGS`` in a new process: wall time (s), CPU time (s) and peak RSS (MB)."""
    cpu: list[float] = []
    wall, peak = _command(args, work, 1, cpu)
    return {"wall_s": wall, "cpu_s": cpu[0], "peak_rss_mb": peak}


def _watched(args: list[str], work: Path, limit_mb: float, time_limit: float) -> dict:
    """``coscore ARGS`` in a new process with its RSS sampled (psutil, every 50 ms): wall
    and CPU time, peak RSS (``VmHWM`` and the sampled peak) and a trace (s, MB) every
    2 s; stopped (only that process) past ``limit_mb`` or ``time_limit`` seconds."""
    import psutil

    hwm = work / "hwm.txt"
    hwm.unlink(missing_ok=True)
    env = dict(_environment(work), COSCORE_BENCH_HWM=str(hwm))
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    watch = psutil.Process(proc.pid)
    sampled, trace, aborted = 0, [], None
    while proc.poll() is None:
        try:
            rss = watch.memory_info().rss
        except psutil.Error:
            break
        sampled = max(sampled, rss)
        elapsed = time.perf_counter() - start
        if elapsed >= 2 * len(trace):
            trace.append((round(elapsed, 1), round(rss / MB)))
        if rss > limit_mb * MB or elapsed > time_limit:
            aborted = "memory" if rss > limit_mb * MB else "time"
            proc.kill()
            break
        time.sleep(0.05)
    stderr = proc.communicate()[1]
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode != 0 and aborted is None:
        raise SystemExit(f"coscore {' '.join(args)} failed ({proc.returncode}):\n{stderr}")
    text = hwm.read_text() if hwm.exists() else ""
    return {"wall_s": wall, "cpu_s": after.children_user + after.children_system - before.children_user
            - before.children_system, "peak_rss_mb": max(int(text or 0) / 1024, sampled / MB),
            "vmhwm_mb": int(text or 0) / 1024, "sampled_peak_mb": sampled / MB, "rss_trace": trace,
            "aborted": aborted}


# -- the wide figures ----------------------------------------------------------------------

def _commands(data: Path, exam: Path, folder: Path, work: Path) -> dict[str, list[list[str]]]:
    """Each contestant: its commands (B is eight)."""
    exam_args = ["score", str(exam), str(data), "--no-progress"]
    singles = [["score", str(folder / "rules" / f"{item_rule(k)}.rule.json"), str(data), "--blanks", f"q{k}",
                "-o", str(work / f"out-q{k}.parquet"), "--no-progress"] for k in range(1, WIDE_ITEMS + 1)]
    return {"A": [[*exam_args, "-o", str(work / "out-exam.parquet"), "--jobs", "1"]],
            "B": singles,
            "C": [[*exam_args, "-o", str(work / "out-exam-j2.parquet"), "--jobs", "2"]]}


def bench_wide(data: Path, exam: Path, folder: Path, work: Path, repeat: int) -> dict:
    """A, B and C in turns (``repeat`` rounds, the order rotating each round)."""
    commands = _commands(data, exam, folder, work)
    order = list(commands)
    runs: dict[str, list[dict]] = {name: [] for name in order}
    for r in range(repeat):
        turn = order[r % len(order):] + order[:r % len(order)]
        for name in turn:
            got = [_run(args, work) for args in commands[name]]
            runs[name].append({"wall_s": sum(g["wall_s"] for g in got), "cpu_s": sum(g["cpu_s"] for g in got),
                               "peak_rss_mb": max(g["peak_rss_mb"] for g in got),
                               **({"commands": got} if len(got) > 1 else {})})
        print(f"  round {r + 1}/{repeat}: " + ", ".join(f"{n} {runs[n][-1]['wall_s']:.2f} s" for n in order),
              flush=True)
    out: dict = {"runs": runs}
    for name in order:
        out[name] = {"median_s": statistics.median(g["wall_s"] for g in runs[name]),
                     "median_cpu_s": statistics.median(g["cpu_s"] for g in runs[name]),
                     "peak_rss_mb": max(g["peak_rss_mb"] for g in runs[name])}
    singles = [c for g in runs["B"] for c in g["commands"]]
    out["B"]["per_item"] = {f"q{k}": {"rule": item_rule(k),
                                      "median_s": statistics.median(g["commands"][k - 1]["wall_s"] for g in runs["B"]),
                                      "peak_rss_mb": max(g["commands"][k - 1]["peak_rss_mb"] for g in runs["B"])}
                            for k in range(1, WIDE_ITEMS + 1)}
    out["B"]["largest_single_peak_rss_mb"] = max(c["peak_rss_mb"] for c in singles)
    out["B"]["smallest_single_peak_rss_mb"] = min(c["peak_rss_mb"] for c in singles)
    out["exam_over_singles"] = out["A"]["median_s"] / out["B"]["median_s"]
    out["jobs2_speedup"] = out["A"]["median_s"] / out["C"]["median_s"]
    out["jobs2_speedup_per_round"] = [a["wall_s"] / c["wall_s"] for a, c in zip(runs["A"], runs["C"])]
    out["exam_over_singles_per_round"] = [a["wall_s"] / b["wall_s"] for a, b in zip(runs["A"], runs["B"])]
    out["rss_ratio"] = out["A"]["peak_rss_mb"] / out["B"]["largest_single_peak_rss_mb"]
    out["exact"] = check_wide(data, work)
    return out


def _floats(column) -> np.ndarray:
    """A float column as numpy, null as NaN."""
    return column.combine_chunks().to_numpy(zero_copy_only=False).astype(np.float64)


def check_wide(data: Path, work: Path) -> dict:
    """The exam's output (``--jobs 1`` and ``--jobs 2``) against the single-rule outputs."""
    exam = pq.read_table(work / "out-exam.parquet")
    source = pq.read_table(data)
    items: dict[str, dict] = {}
    total = np.zeros(exam.num_rows)
    for k in range(1, WIDE_ITEMS + 1):
        single = pq.read_table(work / f"out-q{k}.parquet", columns=["coscore_score", "coscore_error"])
        mine, theirs = _floats(exam.column(f"q{k}_score")), _floats(single.column("coscore_score"))
        items[f"q{k}"] = {
            "scores_equal": bool(np.array_equal(mine, theirs, equal_nan=True)),
            "errors_equal": exam.column(f"q{k}_error").to_pylist() == single.column("coscore_error").to_pylist(),
            "failed_answers": int(np.count_nonzero(exam.column(f"q{k}_error").is_valid())),
            "mean_score": float(np.nanmean(mine)) if len(mine) else 0.0}
        total = total + mine
    got = _floats(exam.column("total_score"))
    same_input = exam.select(source.column_names).equals(source)
    jobs2 = pq.read_table(work / "out-exam-j2.parquet").equals(exam)
    diff = np.abs(got - total)
    return {"items": items,
            "all_items_equal": all(i["scores_equal"] and i["errors_equal"] for i in items.values()),
            "total_is_sum": bool(np.array_equal(got, total, equal_nan=True)),
            "total_max_abs_diff": float(np.nanmax(diff)) if np.isfinite(diff).any() else 0.0,
            "input_carried": same_input, "jobs2_same_output": jobs2,
            "output_columns": exam.column_names}


# -- the long layout -----------------------------------------------------------------------

def bench_long(data: Path, exam: Path, work: Path, repeat: int, limit_mb: float, time_limit: float,
               check_rows: int) -> dict:
    out_file, totals = work / "out-long.parquet", work / "totals.parquet"
    args = ["score", str(exam), str(data), "-o", str(out_file), "--totals", str(totals), "--no-progress",
            "--jobs", "1"]
    runs = []
    for r in range(repeat):
        got = _watched(args, work, limit_mb, time_limit)
        runs.append(got)
        print(f"  long run {r + 1}/{repeat}: {got['wall_s']:.1f} s, peak RSS {got['peak_rss_mb']:.0f} MB"
              + (f" (stopped: {got['aborted']})" if got["aborted"] else ""), flush=True)
        if got["aborted"]:
            break
    rows = pq.ParquetFile(data).metadata.num_rows
    result = {"rows": rows, "runs": runs, "median_s": statistics.median(g["wall_s"] for g in runs),
              "median_cpu_s": statistics.median(g["cpu_s"] for g in runs),
              "peak_rss_mb": max(g["peak_rss_mb"] for g in runs), "aborted": runs[-1]["aborted"]}
    if result["aborted"] is None:
        result["check"] = check_long(data, exam, out_file, totals, check_rows)
    return result


def check_long(data: Path, exam_path: Path, out_file: Path, totals_file: Path, check_rows: int) -> dict:
    """The totals against the scored rows, and the first ``check_rows`` rows' scores
    against ``Rule.score_many``."""
    import pyarrow.compute as pc

    import coscore

    exam = coscore.load_exam(exam_path)
    scored = pq.read_table(out_file, columns=["id", "item", "coscore_score", "coscore_error"])
    totals = pq.read_table(totals_file)
    students = pq.read_table(data, columns=["id"]).column("id")
    n_students = len(pc.unique(students))
    del students
    out: dict = {"scored_rows": scored.num_rows, "failed_answers": int(pc.sum(pc.is_valid(scored["coscore_error"]))
                                                                        .as_py() or 0),
                 "totals_rows": totals.num_rows, "students": n_students}
    items = [f"q{k}" for k in range(1, LONG_ITEMS + 1)]
    total = _floats(totals.column("total_score"))
    row_sum = np.zeros(totals.num_rows)
    for name in items:
        row_sum = row_sum + _floats(totals.column(f"{name}_score"))
    out["total_is_sum_of_items"] = bool(np.allclose(total, row_sum, rtol=0, atol=1e-9, equal_nan=True))
    grouped = scored.group_by("id").aggregate([("coscore_score", "sum")])
    ids = {"id": grouped.column("id"), "sum": grouped.column("coscore_score_sum")}
    by_id = pa.table(ids).sort_by("id")
    mine = totals.select(["id", "total_score"]).sort_by("id")
    same_ids = by_id.column("id").equals(mine.column("id"))
    diff = np.abs(_floats(by_id.column("sum")) - _floats(mine.column("total_score"))) if same_ids else np.array([np.inf])
    out["total_is_sum_of_rows"] = bool(same_ids and np.nanmax(diff, initial=0.0) <= 1e-9)
    out["totals_errors"] = int(pc.sum(pc.is_valid(totals["total_error"])).as_py() or 0)
    del scored, grouped, by_id, mine
    head = pq.ParquetFile(out_file).iter_batches(batch_size=max(1, check_rows), columns=["item", "answer",
                                                                                          "coscore_score"])
    first = pa.Table.from_batches([next(head)]) if check_rows else None
    equal = True
    if first is not None:
        item_of = first.column("item").to_pylist()
        answers = first.column("answer").to_pylist()
        scores = _floats(first.column("coscore_score"))
        for item in exam.items:
            rows = [i for i, name in enumerate(item_of) if name == item.name]
            if rows:
                want = item.rule.score_many([[answers[i]] for i in rows]).scores
                equal &= bool(np.array_equal(scores[rows], np.asarray(want, dtype=np.float64), equal_nan=True))
    out["checked_rows"] = 0 if first is None else first.num_rows
    out["first_rows_equal_score_many"] = equal
    return out


# -- report --------------------------------------------------------------------------------

def _line(what: str, figure: str, target: str, ok: bool | None) -> None:
    verdict = "" if ok is None else _verdict(ok)
    print(f"  {what:<58} {figure:>16}  {target:<12} {verdict}".rstrip())


def summary(result: dict) -> list[bool]:
    """Print the summary table; the verdicts."""
    verdicts: list[bool] = []

    def line(what: str, figure: str, target: str, ok: bool | None = None) -> None:
        _line(what, figure, target, ok)
        if ok is not None:
            verdicts.append(ok)

    print("\nsummary")
    wide = result.get("wide")
    if wide:
        a, b, c = wide["A"], wide["B"], wide["C"]
        answers = result["config"]["rows"] * WIDE_ITEMS
        print(f"  {result['config']['rows']:,} wide rows x {WIDE_ITEMS} items, medians of {result['config']['repeat']} "
              f"rounds: A exam --jobs 1 {a['median_s']:.2f} s (CPU {a['median_cpu_s']:.2f} s, "
              f"{a['median_s'] / answers * 1e6:.2f} us/answer); B 8 single-rule commands {b['median_s']:.2f} s "
              f"(CPU {b['median_cpu_s']:.2f} s, {b['median_s'] / answers * 1e6:.2f} us/answer); "
              f"C exam --jobs 2 {c['median_s']:.2f} s (CPU {c['median_cpu_s']:.2f} s)")
        line("exam --jobs 1 / 8 single-rule commands (A / B)", f"{wide['exam_over_singles']:.3f}",
             f"<= {SPEED_TARGET}", wide["exam_over_singles"] <= SPEED_TARGET)
        line("exam --jobs 2 speed-up over --jobs 1 (A / C)", f"{wide['jobs2_speedup']:.2f}x", f">= {JOBS_TARGET}",
             wide["jobs2_speedup"] >= JOBS_TARGET)
        busy = a["median_cpu_s"] / a["median_s"]
        cores = result["machine"]["cpus"] or 1
        print(f"    (A keeps {busy:.2f} cores busy at --jobs 1, reading and writing on threads of their own: "
              f"on {cores} cores no --jobs can make it more than {cores / busy:.2f}x faster)")
        line(f"peak RSS exam {a['peak_rss_mb']:.0f} MB / largest single {b['largest_single_peak_rss_mb']:.0f} MB",
             f"{wide['rss_ratio']:.2f}x", f"<= {RSS_RATIO_TARGET}", wide["rss_ratio"] <= RSS_RATIO_TARGET)
        exact = wide["exact"]
        same = sum(i["scores_equal"] and i["errors_equal"] for i in exact["items"].values())
        line("each qK_score/qK_error == single-rule run K", f"{same}/{WIDE_ITEMS} items", "all",
             exact["all_items_equal"])
        line("total_score == q1_score + ... + q8_score", f"max diff {exact['total_max_abs_diff']:.3g}", "exact",
             exact["total_is_sum"])
        line("input columns carried through unchanged", "yes" if exact["input_carried"] else "no", "",
             exact["input_carried"])
        line("--jobs 2 output == --jobs 1 output", "yes" if exact["jobs2_same_output"] else "no", "",
             exact["jobs2_same_output"])
    long = result.get("long")
    if long:
        cfg = result["config"]
        print(f"  long: {long['rows']:,} rows ({cfg['students']:,} students x {LONG_ITEMS} items, "
              f"rows ordered: {cfg['long_order']}), --totals, --jobs 1: {long['median_s']:.1f} s "
              f"(CPU {long['median_cpu_s']:.1f} s, {long['median_s'] / max(long['rows'], 1) * 1e6:.2f} us/answer)")
        if long["aborted"]:
            line("long layout", f"stopped ({long['aborted']})", "", False)
        line("long layout --totals: time", f"{long['median_s']:.1f} s", "(reported)")
        line("long layout --totals: peak RSS", f"{long['peak_rss_mb']:.0f} MB", f"< {LONG_RSS_TARGET_MB} MB",
             long["peak_rss_mb"] < LONG_RSS_TARGET_MB and not long["aborted"])
        check = long.get("check")
        if check:
            ok = check["totals_rows"] == check["students"] and check["total_is_sum_of_items"] \
                and check["total_is_sum_of_rows"]
            line("totals: one row per student, total = its items = its rows",
                 f"{check['totals_rows']:,} rows", "", ok)
            line(f"first {check['checked_rows']:,} rows' scores == Rule.score_many", "yes" if
                 check["first_rows_equal_score_many"] else "no", "", check["first_rows_equal_score_many"])
    print(f"  {'all PASS' if all(verdicts) else 'some FAIL'} ({sum(verdicts)}/{len(verdicts)})")
    return verdicts


def _machine() -> dict:
    import coscore

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "coscore"],
                                    capture_output=True, text=True, check=False).stdout.strip())
    except OSError:
        commit, dirty = "", False
    return {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "coscore": getattr(coscore, "__version__", "?"), "commit": commit, "coscore_modified": dirty,
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="wide rows (default 200,000)")
    parser.add_argument("--students", type=int, default=1_000_000,
                        help=f"students of the long layout, {LONG_ITEMS} rows each (default 1,000,000)")
    parser.add_argument("--pool", type=int, default=250_000,
                        help="answers per rule the long layout draws from (default 250,000)")
    parser.add_argument("--workload", choices=("distinct", "real-duplicates"), default="distinct",
                        help="the answers (benchmarks/workloads.py; default distinct)")
    parser.add_argument("--long-order", choices=("student", "shuffled"), default="student",
                        help="the long file's rows: by student, or shuffled within each row group")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the wide commands (default 3)")
    parser.add_argument("--long-repeat", type=int, default=1, help="runs of the long layout (default 1)")
    parser.add_argument("--long-limit-mb", type=float, default=4096, help="stop the long run past this RSS")
    parser.add_argument("--long-time-limit", type=float, default=3600, help="stop the long run after this (s)")
    parser.add_argument("--long-check-rows", type=int, default=100_000,
                        help="rows of the long output checked against Rule.score_many (default 100,000)")
    parser.add_argument("--skip-wide", action="store_true", help="leave out the wide figures")
    parser.add_argument("--skip-long", action="store_true", help="leave out the long layout")
    parser.add_argument("--data-dir", type=Path, help="generate the data here, and reuse it if found (kept)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data (in the default folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results",
                        help="where exam.json goes (default benchmarks/results/)")
    args = parser.parse_args(argv)

    folder = args.data_dir or Path(tempfile.gettempdir()) / "coscore-bench-exam"
    folder.mkdir(parents=True, exist_ok=True)
    keep = args.keep or args.data_dir is not None
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    config["data_dir"] = str(folder)
    result: dict = {"config": config, "machine": _machine()}
    try:
        _write_rules(folder)
        exam, exam_long = _write_exams(folder)
        with tempfile.TemporaryDirectory(prefix="coscore-exam-") as tmp:
            work = Path(tmp)
            print(f"data in {folder}; start-up of a coscore process {startup(work, 1):.2f} s", flush=True)
            if not args.skip_wide:
                start = time.perf_counter()
                wide = wide_data(folder, args.rows, args.workload)
                result["wide_data_s"] = time.perf_counter() - start
                print(f"wide data: {wide.name} ({wide.stat().st_size / MB:.0f} MB, {result['wide_data_s']:.1f} s)",
                      flush=True)
                pq.read_table(wide)  # in the page cache before any run is timed
                for commands in _commands(wide, exam, folder, work).values():  # untimed: warms up the path
                    _run(commands[0], work)
                result["wide"] = bench_wide(wide, exam, folder, work, max(1, args.repeat))
                for name in [p for p in work.iterdir() if p.name.startswith("out-")]:
                    name.unlink()
            if not args.skip_long:
                start = time.perf_counter()
                long = long_data(folder, args.students, args.pool, args.workload, args.long_order)
                result["long_data_s"] = time.perf_counter() - start
                print(f"long data: {long.name} ({long.stat().st_size / MB:.0f} MB, {result['long_data_s']:.1f} s)",
                      flush=True)
                result["long"] = bench_long(long, exam_long, work, max(1, args.long_repeat), args.long_limit_mb,
                                            args.long_time_limit, args.long_check_rows)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    verdicts = summary(result)
    result["pass"] = all(verdicts)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "exam.json"
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
