"""Peak memory (RSS) of scoring many answers -- run in its own process by ``run.py``.

    python benchmarks/memory.py --n 10000000 --mode stream   # one score_many call over a generator
    python benchmarks/memory.py --n 10000000 --mode chunks   # score_many per list of --chunk answers

The answers are generated on the fly (never held in a list, except one chunk in
``chunks`` mode): 100,000 distinct lane-change answers from the benchmark workload, and
from the second round on each gets a suffix of two characters of the dataset's alphabet
that names the round, so all 10 million are (nearly) distinct -- deduplication does not
shrink the work, and a global "seen" table would grow with the input.

A thread samples the process's RSS (psutil) every 20 ms; the peak reported is the larger of
that and the kernel's high-water mark ``VmHWM`` (/proc/self/status). Not ``ru_maxrss``:
Linux carries it over from the parent through fork and exec, so a child of a big process
would report the parent's size; ``rss_trace`` lists (answers read, RSS in MB) through the
run. The run is abandoned when RSS passes ``--limit-mb`` or the time passes
``--time-limit`` seconds; the answer then says so, with how many answers had been read.
Prints one JSON object.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

MB = 1024 * 1024


class Watch:
    """Samples RSS; ends the process (printing the partial result) past a memory or time limit."""

    def __init__(self, limit_bytes: int, time_limit: float, report: dict):
        self.proc = psutil.Process()
        self.peak = self.proc.memory_info().rss
        self.limit, self.time_limit, self.report = limit_bytes, time_limit, report
        self.start = time.perf_counter()
        self.read = 0  # answers taken from the generator so far
        self.trace: list[tuple[int, float]] = []  # (answers read, RSS MB), every 0.5 s
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            rss = self.proc.memory_info().rss
            self.peak = max(self.peak, rss)
            elapsed = time.perf_counter() - self.start
            if elapsed >= 0.5 * len(self.trace):
                self.trace.append((self.read, round(rss / MB, 1)))
            why = "memory" if rss > self.limit else "time" if elapsed > self.time_limit else None
            if why:
                self.report.update(aborted=why, answers_read=self.read, seconds=round(elapsed, 1),
                                   peak_rss_mb=round(self.peak / MB, 1), rss_trace=self.sampled())
                print(json.dumps(self.report), flush=True)
                os._exit(0)
            time.sleep(0.02)

    def sampled(self, points: int = 21) -> list:
        """At most ``points`` of the trace, evenly spaced."""
        trace = list(self.trace)
        if len(trace) <= points:
            return trace
        return [trace[round(i * (len(trace) - 1) / (points - 1))] for i in range(points)]


def high_water() -> int:
    """The process's peak RSS in bytes (VmHWM; 0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--mode", choices=("stream", "chunks"), default="stream")
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--rule", default="lane-change")
    parser.add_argument("--limit-mb", type=float, default=2048)
    parser.add_argument("--time-limit", type=float, default=300)
    args = parser.parse_args(argv)

    import coscore
    from benchmarks import workloads

    rule = coscore.compile(workloads.rule_source(args.rule))
    pool = [tuple(a) for a in workloads.distinct(args.rule, 100_000, seed=7)]
    chars = workloads.alphabet(args.rule)
    rule.score_many([list(a) for a in pool[:1000]])  # warm up (lazy tables)
    report = {"rule": args.rule, "n": args.n, "mode": args.mode, "chunk": args.chunk if args.mode == "chunks" else None,
              "setup_rss_mb": round(psutil.Process().memory_info().rss / MB, 1)}
    watch = Watch(int(args.limit_mb * MB), args.time_limit, report)

    def answers():
        size, width = len(pool), len(chars)
        for i in range(args.n):
            watch.read = i + 1
            rnd, j = divmod(i, size)
            blanks = pool[j]
            if rnd:
                tag = chars[(rnd - 1) % width] + chars[(rnd - 1) // width % width]
                yield [blanks[0] + tag, *blanks[1:]]
            else:
                yield list(blanks)

    start = time.perf_counter()
    scored = failed = 0
    total = 0.0
    if args.mode == "stream":
        batch = rule.score_many(answers())
        scored, failed = len(batch), sum(e is not None for e in batch.errors)
        total = float(batch.scores[~batch.failed].sum())
        del batch
    else:
        stream = answers()
        while True:
            chunk = list(itertools.islice(stream, args.chunk))
            if not chunk:
                break
            batch = rule.score_many(chunk)
            scored += len(batch)
            failed += sum(e is not None for e in batch.errors)
            total += float(batch.scores[~batch.failed].sum())
            del batch, chunk
    seconds = time.perf_counter() - start
    peak = max(watch.peak, high_water())
    report.update(aborted=None, answers_read=watch.read, scored=scored, failed=failed, mean_score=total / max(1, scored),
                  seconds=round(seconds, 1), ns_per_answer=round(seconds / max(1, scored) * 1e9, 1),
                  peak_rss_mb=round(peak / MB, 1), rss_trace=watch.sampled())
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
