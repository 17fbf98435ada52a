#!/usr/bin/env python
"""coscore's benchmark suite: one command, every performance figure with its baseline.

    python benchmarks/run.py            # the full run (about 5-10 minutes on 2 cores)
    python benchmarks/run.py --quick    # a smoke run (under a minute)
    python benchmarks/run.py --out DIR  # where results.json and scaling.png go

Everything is measured in the same run, through coscore's public API, on deterministic
workloads (benchmarks/workloads.py); every time is the median of several repeats (the
machine may be shared). Prints one table per section, then every figure with its
baseline, ratio, target and PASS/FAIL. See benchmarks/README.md for the method.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import coscore  # noqa: E402
from benchmarks import baseline, workloads  # noqa: E402
from coscore._fast import LcsScorer, SubstringScanner  # noqa: E402

FULL = dict(
    n=100_000,                     # answers per rule and workload
    repeats=7,                     # coscore timings
    baseline_repeats=3,
    # the pure-Python baseline runs on the first answers of each workload (its cost per
    # answer does not depend on the batch size): about one second per repeat
    baseline_n={"lab-tools": 50_000, "lane-change": 2_000, "shortest-path": 100_000, "traffic-light": 20_000},
    kernel_repeats=9,
    jobs_n=200_000,
    batch_sizes=[1, 10, 100, 1_000, 10_000, 100_000, 1_000_000],
    lengths=[10, 30, 100, 300, 1_000, 3_000, 10_000],
    length_chars=1_000_000,        # code points per answer-length point
    scale_repeats=5,
    memory_n=10_000_000,
    memory_time_limit=300,
)
QUICK = dict(
    FULL,
    n=10_000,
    repeats=3,
    baseline_n={k: v // 10 for k, v in FULL["baseline_n"].items()},
    kernel_repeats=3,
    jobs_n=50_000,
    batch_sizes=[1, 10, 100, 1_000, 10_000, 100_000],
    length_chars=100_000,
    scale_repeats=3,
    memory_n=200_000,
    memory_time_limit=60,
)

TARGETS = {
    "end_to_end": 300.0,    # geometric mean of baseline / coscore, distinct workloads
    "op_kernel": 3.0,       # rapidfuzz cdist time / LcsScorer time
    "sm_scan": 1.0,         # pyahocorasick time / SubstringScanner time
    "jobs": 1.5,            # jobs=1 time / jobs=2 time
    "linear": 1.10,         # fitted exponent of time in batch size / answer length, at most
    "memory_mb": 1024.0,    # peak RSS for 10 M answers
}


# ------------------------------------------------------------------------- helpers

def say(*args) -> None:
    print(*args, flush=True)


def median_time(fn, repeats: int, calls: int = 1):
    """(median seconds per call, all repeat times, the last result). GC stays on (as in use)."""
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        for _ in range(calls):
            result = fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times), times, result


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def exponent(xs, ys) -> float:
    """The slope of log(y) against log(x): y ~ x**slope."""
    lx, ly = np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float))
    return float(np.polyfit(lx, ly, 1)[0])


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def head(batch, m: int):
    """The first ``m`` results of a Batch (scores, errors, combos)."""
    return SimpleNamespace(scores=batch.scores[:m], errors=batch.errors[:m],
                           combos={cid: v[:m] for cid, v in batch.combos.items()})


def same_arrays(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def atom_calls(source: dict) -> list[tuple[str, object]]:
    """The (atom id, T argument) pairs the rule's combos call atoms with, e.g. ('0', '*')."""
    calls = []
    for combo in source["combos"].values():
        for atom, arg in re.findall(r"[GM]\(\s*'?(\d+)'?\s*,\s*T\(\s*([^)]*?)\s*\)\s*\)", combo["combo"]):
            pair = (atom, "*" if arg.strip("'\"") == "*" else int(arg))
            if pair not in calls:
                calls.append(pair)
    return calls


def environment() -> dict:
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:  # noqa: BLE001 - no git is fine
            return ""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except Exception:  # noqa: BLE001
        pass
    import rapidfuzz
    return {
        "python": platform.python_version(), "platform": platform.platform(), "cpu": cpu,
        "cores": os.cpu_count(), "coscore": coscore.__version__, "numpy": np.__version__,
        "rapidfuzz": rapidfuzz.__version__, "git": git("rev-parse", "--short", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "loadavg_start": os.getloadavg(),
    }


# ------------------------------------------------------------------------- 1. end to end

def bench_end_to_end(cfg: dict, data: dict) -> dict:
    say("\n1. End to end: coscore Rule.score_many(jobs=1) vs the pure-Python baseline (benchmarks/baseline.py)")
    say(f"   µs per answer (medians); coscore on {cfg['n']:,} answers x {cfg['repeats']}, "
        f"baseline on the first N of them x {cfg['baseline_repeats']}; same = baseline's scores, errors and combos")
    say(f"   {'rule':<15}{'workload':<17}{'dup':>6}{'coscore':>10}{'baseline':>10}{'ratio':>10}   same (N)")
    rows = []
    for name in workloads.RULES:
        source = workloads.rule_source(name)
        start = time.perf_counter()
        rule = coscore.compile(source)
        compile_ms = (time.perf_counter() - start) * 1e3
        base = baseline.Rule(source)
        for variant in ("distinct", "real-duplicates"):
            answers = data[(name, variant)]
            rule.score_many(answers[:1000])  # warm up
            t, times, batch = median_time(lambda: rule.score_many(answers), cfg["repeats"])
            m = min(cfg["baseline_n"][name], len(answers))
            sub = answers[:m]
            tb, btimes, expected = median_time(lambda: base.score_many(sub), cfg["baseline_repeats"])
            problems = baseline.compare(head(batch, m), expected)
            us, bus = t / len(answers) * 1e6, tb / m * 1e6
            row = dict(rule=name, workload=variant, n=len(answers), duplicate_rate=workloads.duplicate_rate(answers),
                       coscore_us=us, baseline_us=bus, ratio=bus / us, baseline_n=m, same=not problems,
                       problems=problems[:5], compile_ms=compile_ms, coscore_times=times, baseline_times=btimes)
            rows.append(row)
            say(f"   {name:<15}{variant:<17}{row['duplicate_rate']:>6.1%}{us:>10.3f}{bus:>10.1f}{row['ratio']:>9.0f}x"
                f"   {'yes' if row['same'] else 'NO'} ({m:,})")
            for p in problems[:3]:
                say(f"      differs: {p}")
    gm = {v: geomean(r["ratio"] for r in rows if r["workload"] == v) for v in ("distinct", "real-duplicates")}
    ok = gm["distinct"] >= TARGETS["end_to_end"] and all(r["same"] for r in rows)
    say(f"   geometric mean, distinct workloads: {gm['distinct']:.0f}x (target >= {TARGETS['end_to_end']:.0f}x) "
        f"{verdict(ok)};  real-duplicate workloads: {gm['real-duplicates']:.0f}x")
    return dict(rows=rows, geomean=gm, all_same=all(r["same"] for r in rows), passed=ok)


# ------------------------------------------------------------------------- 2. OP kernel

def bench_op_kernel(cfg: dict, data: dict) -> dict:
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import cdist

    say("\n2. OP kernel: LcsScorer.best_many vs rapidfuzz.process.cdist(LCSseq.similarity, workers=1) / len(key), max")
    source = workloads.rule_source("lane-change")
    desc = source["atoms"]["0"]["desc"]
    keys = desc.split(":", 1)[1].split(",")
    texts = workloads.blank_texts(data[("lane-change", "distinct")], 0)
    lengths = np.array([len(k) for k in keys], dtype=np.float64)
    scorer = LcsScorer(keys)

    def peer():
        return (cdist(texts, keys, scorer=LCSseq.similarity, workers=1) / lengths).max(axis=1)

    scorer.best_many(texts[:100]), peer()  # warm up
    reps = cfg["kernel_repeats"]
    t, times, ours = median_time(lambda: scorer.best_many(texts), reps)
    tp, ptimes, theirs = median_time(peer, reps)
    tc, _, _ = median_time(lambda: cdist(texts, keys, scorer=LCSseq.similarity, workers=1), reps)
    same = bool(np.array_equal(ours, theirs))
    n = len(texts)
    ratio = tp / t
    ok = same and ratio >= TARGETS["op_kernel"]
    say(f"   lane-change atom 0: {len(keys)} keys of {min(map(len, keys))}-{max(map(len, keys))} code points, "
        f"{n:,} answers of {statistics.mean(map(len, texts)):.1f} code points on average")
    say(f"   LcsScorer {t / n * 1e9:.0f} ns/answer; rapidfuzz {tp / n * 1e9:.0f} ns/answer "
        f"(cdist alone {tc / n * 1e9:.0f}); ratio {ratio:.2f}x (target >= {TARGETS['op_kernel']:.0f}x); "
        f"same values: {'yes' if same else 'NO'}  {verdict(ok)}")
    return dict(keys=len(keys), n=n, coscore_ns=t / n * 1e9, rapidfuzz_ns=tp / n * 1e9, cdist_only_ns=tc / n * 1e9,
                ratio=ratio, same=same, passed=ok, coscore_times=times, rapidfuzz_times=ptimes)


# ------------------------------------------------------------------------- 3. SM scanning

class AhoWalk:
    """SM with pyahocorasick: one automaton over every option text finds which occur in the
    text, then the same ordered walk looks them up (``in`` only after a ``~`` rewrote it)."""

    def __init__(self, groups: list[list[str]]):
        import ahocorasick

        self.auto = ahocorasick.Automaton()
        ids: dict[str, int] = {}
        self.groups = []
        for options in groups:
            ops = []
            for o in options:
                if not o:
                    continue
                needle = o[1:] if o[0] in "!~" else o
                for s in (needle, o):
                    if s and s not in ids:
                        ids[s] = len(ids)
                        self.auto.add_word(s, ids[s])
                ops.append((o[0] if o[0] in "!~" else "", ids.get(needle, -1), needle, ids[o], o))
            self.groups.append(ops)
        self.empty = not ids
        if not self.empty:
            self.auto.make_automaton()

    def count(self, s: str) -> int:
        found = set() if self.empty else {v for _, v in self.auto.iter(s)}
        count = 0
        for ops in self.groups:
            t, fresh = s, True
            for kind, nid, needle, oid, option in ops:
                if kind == "!" and (nid in found if fresh else needle in t):
                    break
                if kind == "~" and (nid in found if fresh else needle in t):
                    t, fresh = t.replace(needle, ""), False
                if oid in found if fresh else option in t:
                    count += 1
                    break
        return count


def bench_sm(cfg: dict, data: dict) -> dict:
    say("\n3. SM scanning: SubstringScanner.count_many vs the option walk with Python's `in`, and vs pyahocorasick")
    say("   (automaton over every option, then the same walk); ns per answer, summed over each rule's SM atoms")
    say(f"   {'rule':<15}{'atoms':>6}{'options':>8}{'coscore':>10}{'`in`':>10}{'aho':>10}{'vs in':>9}{'vs aho':>9}  same")
    rows = []
    reps = cfg["kernel_repeats"]
    for name in workloads.RULES:
        source = workloads.rule_source(name)
        answers = data[(name, "distinct")]
        tot = dict(ours=0.0, walk=0.0, aho=0.0)
        same, atoms, options = True, 0, 0
        for atom_id, arg in atom_calls(source):
            atom = source["atoms"][atom_id]
            if atom["type"] != "SM":
                continue
            atoms += 1
            groups = [g.split("|") for g in atom["desc"].split(",")]
            options += sum(map(len, groups))
            texts = workloads.blank_texts(answers, arg)
            scanner, aho = SubstringScanner(groups), AhoWalk(groups)
            walk = baseline.sm_count
            scanner.count_many(texts[:100])
            t, _, ours = median_time(lambda: scanner.count_many(texts), reps)
            tw, _, by_in = median_time(lambda: [walk(groups, s) for s in texts], reps)
            ta, _, by_aho = median_time(lambda: [aho.count(s) for s in texts], reps)
            same &= bool(np.array_equal(ours, np.array(by_in)) and np.array_equal(ours, np.array(by_aho)))
            tot["ours"] += t
            tot["walk"] += tw
            tot["aho"] += ta
        n = len(answers)
        row = dict(rule=name, atoms=atoms, options=options, n=n, coscore_ns=tot["ours"] / n * 1e9,
                   in_ns=tot["walk"] / n * 1e9, aho_ns=tot["aho"] / n * 1e9, same=same)
        row["vs_in"], row["vs_aho"] = row["in_ns"] / row["coscore_ns"], row["aho_ns"] / row["coscore_ns"]
        rows.append(row)
        say(f"   {name:<15}{atoms:>6}{options:>8}{row['coscore_ns']:>10.0f}{row['in_ns']:>10.0f}{row['aho_ns']:>10.0f}"
            f"{row['vs_in']:>8.1f}x{row['vs_aho']:>8.1f}x  {'yes' if same else 'NO'}")
    total = {k: sum(r[k] for r in rows) for k in ("coscore_ns", "in_ns", "aho_ns")}
    vs_aho, vs_in = total["aho_ns"] / total["coscore_ns"], total["in_ns"] / total["coscore_ns"]
    ok = (vs_aho >= TARGETS["sm_scan"] and all(r["vs_aho"] >= TARGETS["sm_scan"] for r in rows)
          and all(r["same"] for r in rows))
    say(f"   all four rules: {total['coscore_ns']:.0f} vs {total['in_ns']:.0f} (`in`) vs {total['aho_ns']:.0f} (aho) ns/answer: "
        f"{vs_in:.1f}x `in`, {vs_aho:.2f}x pyahocorasick (target >= {TARGETS['sm_scan']:.0f}x, and per rule) "
        f"{verdict(ok)}")
    return dict(rows=rows, total=total, vs_in=vs_in, vs_aho=vs_aho, min_vs_aho=min(r["vs_aho"] for r in rows),
                all_same=all(r["same"] for r in rows), passed=ok)


# ------------------------------------------------------------------------- 4. jobs and scaling

def bench_jobs(cfg: dict, big: list) -> dict:
    n = min(cfg["jobs_n"], len(big))
    answers = big[:n]
    say(f"\n4a. jobs=2 vs jobs=1: lane-change, {n:,} distinct answers, {cfg['repeats']} alternating repeats each")
    rule = coscore.compile(workloads.rule_source("lane-change"))
    rule.score_many(answers[:2000], jobs=2)  # warm up
    one, two = [], []
    b1 = b2 = None
    for _ in range(cfg["repeats"]):
        t, _, b1 = median_time(lambda: rule.score_many(answers, jobs=1), 1)
        one.append(t)
        t, _, b2 = median_time(lambda: rule.score_many(answers, jobs=2), 1)
        two.append(t)
    t1, t2 = statistics.median(one), statistics.median(two)
    same = same_arrays(b1.scores, b2.scores) and b1.errors == b2.errors
    ratio = t1 / t2
    ok = ratio >= TARGETS["jobs"] and same
    say(f"   jobs=1 {t1 / n * 1e9:.0f} ns/answer, jobs=2 {t2 / n * 1e9:.0f} ns/answer: {ratio:.2f}x "
        f"(target >= {TARGETS['jobs']}x); same results: {'yes' if same else 'NO'}  {verdict(ok)}")
    return dict(n=n, jobs1_ns=t1 / n * 1e9, jobs2_ns=t2 / n * 1e9, ratio=ratio, same=same, passed=ok,
                jobs1_times=one, jobs2_times=two, cores=os.cpu_count())


def bench_batch_size(cfg: dict, big: list) -> dict:
    say("\n4b. Throughput vs batch size: lane-change, distinct answers, jobs=1 "
        "(small batches: many calls on consecutive slices)")
    rule = coscore.compile(workloads.rule_source("lane-change"))
    rule.score_many(big[:1000])
    points = []
    for size in cfg["batch_sizes"]:
        calls = max(1, 20_000 // size)
        slices = [big[i * size:(i + 1) * size] for i in range(calls)]

        def run():
            for chunk in slices:
                rule.score_many(chunk)

        t, times, _ = median_time(run, cfg["scale_repeats"])
        ns = t / (calls * size) * 1e9
        points.append(dict(batch=size, calls=calls, ns_per_answer=ns, answers_per_s=1e9 / ns, times=times))
        say(f"   batch {size:>9,}: {ns:>9.0f} ns/answer  ({1e9 / ns:>12,.0f} answers/s)")
    tail = [p for p in points if p["batch"] >= 1_000]
    k = exponent([p["batch"] for p in tail], [p["ns_per_answer"] * p["batch"] for p in tail])
    spread = max(p["ns_per_answer"] for p in tail) / min(p["ns_per_answer"] for p in tail)
    ok = k <= TARGETS["linear"]
    say(f"   time ~ batch^{k:.3f} for batches >= 1,000 (target exponent <= {TARGETS['linear']}); "
        f"ns/answer varies {spread:.2f}x over those sizes  {verdict(ok)}")
    return dict(points=points, exponent=k, spread=spread, passed=ok)


def bench_length(cfg: dict) -> dict:
    say("\n4c. Throughput vs answer length: lane-change, one-blank answers of exactly L code points "
        "(edited dataset answers end to end), jobs=1")
    rule = coscore.compile(workloads.rule_source("lane-change"))
    points = []
    for length in cfg["lengths"]:
        n = max(20, cfg["length_chars"] // length)
        answers = workloads.long_answers("lane-change", length, n)
        rule.score_many(answers[:10])
        t, times, _ = median_time(lambda: rule.score_many(answers), cfg["scale_repeats"])
        per = t / n
        points.append(dict(length=length, n=n, us_per_answer=per * 1e6, ns_per_char=per / length * 1e9, times=times))
        say(f"   length {length:>6,}: {n:>7,} answers, {per * 1e6:>10.2f} µs/answer, {per / length * 1e9:>8.1f} ns/char")
    tail = [p for p in points if p["length"] >= 100]
    k = exponent([p["length"] for p in tail], [p["us_per_answer"] for p in tail])
    ok = k <= TARGETS["linear"]
    say(f"   time per answer ~ length^{k:.3f} for lengths >= 100 (target exponent <= {TARGETS['linear']})  {verdict(ok)}")
    return dict(points=points, exponent=k, passed=ok)


# ------------------------------------------------------------------------- 5. memory

def run_memory(n: int, mode: str, time_limit: float) -> dict:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "memory.py"), "--n", str(n), "--mode", mode,
           "--limit-mb", "2048", "--time-limit", str(time_limit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit + 120)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return dict(mode=mode, n=n, aborted="crash", error=(proc.stderr or proc.stdout)[-2000:], peak_rss_mb=math.nan)
    return json.loads(lines[-1])


def bench_memory(cfg: dict) -> dict:
    n = cfg["memory_n"]
    say(f"\n5. Peak memory (RSS) for {n:,} distinct lane-change answers, in a subprocess (psutil samples + VmHWM), jobs=1")
    say("   (the figure is the generator run; the 100k-chunk run, whose results are dropped chunk by chunk, is for comparison)")
    runs = [run_memory(n, "stream", cfg["memory_time_limit"]), run_memory(n, "chunks", cfg["memory_time_limit"])]
    for r in runs:
        how = ("a generator fed to one score_many call" if r["mode"] == "stream"
               else f"score_many on lists of {r.get('chunk') or 100_000:,}, results dropped")
        if r.get("aborted"):
            say(f"   {how}: ABANDONED ({r['aborted']}) after {r.get('answers_read', 0):,} answers, "
                f"peak {r['peak_rss_mb']:.0f} MB" + (f": {r['error'].splitlines()[-1]}" if r.get("error") else ""))
        else:
            say(f"   {how}: peak {r['peak_rss_mb']:.0f} MB (after setup {r['setup_rss_mb']:.0f} MB), "
                f"{r['seconds']:.1f} s, {r['ns_per_answer']:.0f} ns/answer, {r['failed']} failed")
    stream = runs[0]
    streams = stream.get("aborted") is None and stream["peak_rss_mb"] < TARGETS["memory_mb"]
    best = stream if streams else runs[1]
    ok = best.get("aborted") is None and best["peak_rss_mb"] < TARGETS["memory_mb"]
    say(f"   measured with {'the generator (score_many streams)' if streams else '100k chunks: score_many does not stream within 1 GB'}: "
        f"{best['peak_rss_mb']:.0f} MB (target < {TARGETS['memory_mb']:.0f} MB)  {verdict(ok)}")
    return dict(runs=runs, streams=streams, peak_rss_mb=best["peak_rss_mb"], mode=best["mode"], passed=ok)


# ------------------------------------------------------------------------- output

def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.6))
    pts = results["batch_size"]["points"]
    x = [p["batch"] for p in pts]
    a.plot(x, [p["answers_per_s"] for p in pts], "o-")
    for p in pts:
        a.annotate(f"{p['ns_per_answer']:,.0f} ns", (p["batch"], p["answers_per_s"]), textcoords="offset points",
                   xytext=(0, -14), ha="center", fontsize=8)
    a.set(xscale="log", yscale="log", xlabel="batch size (answers per score_many call)", ylabel="answers per second",
          title=f"lane-change, jobs=1: throughput vs batch size\n(time ~ n^{results['batch_size']['exponent']:.2f} for n >= 1,000)")
    a.grid(True, which="both", alpha=0.3)
    pts = results["length"]["points"]
    x = [p["length"] for p in pts]
    b.plot(x, [p["us_per_answer"] for p in pts], "o-", label="µs per answer")
    ref = pts[-1]["us_per_answer"] / pts[-1]["length"]
    b.plot(x, [ref * v for v in x], "--", color="grey", label="linear (through the last point)")
    b2 = b.twinx()
    b2.plot(x, [p["ns_per_char"] for p in pts], "s:", color="tab:orange", label="ns per code point")
    b2.set_ylabel("ns per code point", color="tab:orange")
    b2.set_yscale("log")
    b.set(xscale="log", yscale="log", xlabel="answer length (code points)", ylabel="µs per answer",
          title=f"lane-change, jobs=1: cost vs answer length\n(time ~ L^{results['length']['exponent']:.2f} for L >= 100)")
    b.grid(True, which="both", alpha=0.3)
    handles = b.get_legend_handles_labels()
    more = b2.get_legend_handles_labels()
    b.legend(handles[0] + more[0], handles[1] + more[1], loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _rows_end_to_end(e2e: dict) -> list[dict]:
    rows = [dict(figure=f"end-to-end {r['rule']} ({r['workload']})", value=f"{r['coscore_us']:.3f} µs/ans",
                 baseline=f"pure Python {r['baseline_us']:.1f} µs/ans", ratio=f"{r['ratio']:.0f}x",
                 target="", result="" if r["same"] else "DIFF") for r in e2e["rows"]]
    rows.append(dict(figure="end-to-end geomean (distinct)", value="", baseline="pure Python",
                     ratio=f"{e2e['geomean']['distinct']:.0f}x", target=f">= {TARGETS['end_to_end']:.0f}x",
                     result=verdict(e2e["passed"])))
    rows.append(dict(figure="end-to-end geomean (real dups)", value="", baseline="pure Python",
                     ratio=f"{e2e['geomean']['real-duplicates']:.0f}x", target="", result=""))
    return rows


def _rows_op(op: dict) -> list[dict]:
    return [dict(figure=f"OP kernel, lane-change {op['keys']} keys", value=f"{op['coscore_ns']:.0f} ns/ans",
                 baseline=f"rapidfuzz cdist {op['rapidfuzz_ns']:.0f} ns/ans", ratio=f"{op['ratio']:.2f}x",
                 target=f">= {TARGETS['op_kernel']:.0f}x, same", result=verdict(op["passed"]))]


def _rows_sm(sm: dict) -> list[dict]:
    return [dict(figure="SM scan, 4 rules' SM atoms", value=f"{sm['total']['coscore_ns']:.0f} ns/ans",
                 baseline=f"pyahocorasick {sm['total']['aho_ns']:.0f} ns/ans",
                 ratio=f"{sm['vs_aho']:.2f}x", target=">= 1x (each rule too)", result=verdict(sm["passed"])),
            dict(figure="SM scan, 4 rules' SM atoms", value=f"{sm['total']['coscore_ns']:.0f} ns/ans",
                 baseline=f"Python `in` walk {sm['total']['in_ns']:.0f} ns/ans", ratio=f"{sm['vs_in']:.1f}x",
                 target="", result="")]


def _rows_jobs(jobs: dict) -> list[dict]:
    return [dict(figure=f"jobs=2, lane-change {jobs['n']:,}", value=f"{jobs['jobs2_ns']:.0f} ns/ans",
                 baseline=f"jobs=1 {jobs['jobs1_ns']:.0f} ns/ans", ratio=f"{jobs['ratio']:.2f}x",
                 target=f">= {TARGETS['jobs']}x", result=verdict(jobs["passed"]))]


def _rows_batch(bs: dict) -> list[dict]:
    big = bs["points"][-1]
    return [dict(figure=f"batch size 1 .. {big['batch']:,}", value=f"{big['ns_per_answer']:.0f} ns/ans at max",
                 baseline=f"batch 1: {bs['points'][0]['ns_per_answer']:.0f} ns/ans",
                 ratio=f"n^{bs['exponent']:.2f}", target=f"exp <= {TARGETS['linear']}", result=verdict(bs["passed"]))]


def _rows_length(ln: dict) -> list[dict]:
    last = ln["points"][-1]
    return [dict(figure=f"answer length 10 .. {last['length']:,}", value=f"{last['ns_per_char']:.1f} ns/char at max",
                 baseline=f"L=10: {ln['points'][0]['ns_per_char']:.1f} ns/char", ratio=f"L^{ln['exponent']:.2f}",
                 target=f"exp <= {TARGETS['linear']}", result=verdict(ln["passed"]))]


def _rows_memory(mem: dict) -> list[dict]:
    rows = []
    for r in mem["runs"]:
        headline = r["mode"] == mem["mode"]
        how = "generator" if r["mode"] == "stream" else "100k chunks"
        val = f"{r['peak_rss_mb']:.0f} MB" + (f" (abandoned: {r['aborted']})" if r.get("aborted") else "")
        rows.append(dict(figure=f"peak RSS, {r['n']:,} answers, {how}", value=val, baseline="",
                         ratio="", target=f"< {TARGETS['memory_mb']:.0f} MB" if headline else "",
                         result=verdict(mem["passed"]) if headline else ""))
    return rows


SECTIONS = {  # name: (the summary rows of its result)
    "end_to_end": _rows_end_to_end, "op_kernel": _rows_op, "sm": _rows_sm, "jobs": _rows_jobs,
    "batch_size": _rows_batch, "length": _rows_length, "memory": _rows_memory,
}


def summary(results: dict) -> list[dict]:
    rows = []
    for name, build in SECTIONS.items():
        section = results.get(name)
        if section is None or "error" in section:
            why = (section or {}).get("error", "not run").strip().splitlines()[-1]
            rows.append(dict(figure=name, value=why[:60], baseline="", ratio="", target="", result="ERROR"))
        else:
            rows.extend(build(section))
    return rows


def guarded(name: str, fn, *args) -> dict:
    """Run one section; an exception (e.g. coscore mid-rewrite) is recorded, not fatal."""
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001 - reported in the table and the JSON
        error = traceback.format_exc()
        say(f"   {name}: ERROR\n" + "\n".join("   " + line for line in error.strip().splitlines()[-6:]))
        return dict(error=error, passed=False)


def print_summary(rows: list[dict]) -> None:
    cols = ("figure", "value", "baseline", "ratio", "target", "result")
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    say("\nSummary (coscore vs each named baseline; medians)")
    say("  " + "  ".join(c.ljust(widths[c]) for c in cols))
    say("  " + "  ".join("-" * widths[c] for c in cols))
    for r in rows:
        say("  " + "  ".join(r[c].ljust(widths[c]) for c in cols))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="coscore benchmark suite: every performance figure with its baseline")
    parser.add_argument("--quick", action="store_true", help="a small smoke run (under a minute)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results", help="output folder")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    env = environment()
    say(f"coscore benchmarks ({'quick' if args.quick else 'full'} run): coscore {env['coscore']} (git {env['git']}"
        f"{'+dirty' if env['git_dirty'] else ''}), Python {env['python']}, {env['cores']} cores, {env['cpu']}; "
        f"load average {env['loadavg_start'][0]:.2f}")

    t0 = time.perf_counter()
    data = {}
    for name in workloads.RULES:
        data[(name, "distinct")] = workloads.distinct(name, cfg["n"])
        data[(name, "real-duplicates")] = workloads.real_duplicates(name, cfg["n"])
    big = workloads.distinct("lane-change", max(cfg["batch_sizes"][-1], cfg["jobs_n"]))
    say(f"workloads: {len(workloads.RULES)} rules x {cfg['n']:,} answers x 2 variants, "
        f"plus {len(big):,} lane-change answers ({time.perf_counter() - t0:.1f} s to build)")

    results = dict(config={k: v for k, v in cfg.items()}, environment=env, targets=TARGETS, quick=args.quick)
    results["end_to_end"] = guarded("end_to_end", bench_end_to_end, cfg, data)
    results["op_kernel"] = guarded("op_kernel", bench_op_kernel, cfg, data)
    results["sm"] = guarded("sm", bench_sm, cfg, data)
    results["jobs"] = guarded("jobs", bench_jobs, cfg, big)
    results["batch_size"] = guarded("batch_size", bench_batch_size, cfg, big)
    del big
    results["length"] = guarded("length", bench_length, cfg)
    del data
    gc.collect()
    results["memory"] = guarded("memory", bench_memory, cfg)

    rows = summary(results)
    results["summary"] = rows
    results["environment"]["loadavg_end"] = os.getloadavg()
    results["seconds"] = time.perf_counter() - started
    print_summary(rows)
    if "points" in results["batch_size"] and "points" in results["length"]:
        plot(results, args.out / "scaling.png")
    (args.out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False, default=float), encoding="utf-8")
    failed = [r["figure"] for r in rows if r["result"] in ("FAIL", "DIFF", "ERROR")]
    say(f"\n{len(failed)} of {sum(r['result'] in ('PASS', 'FAIL') for r in rows)} targets failed"
        + (f" ({'; '.join(failed)})" if failed else "") + f"; wrote {args.out / 'results.json'} and "
        f"{args.out / 'scaling.png'} in {results['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
