"""Statistics of ``coscore compare`` at scale: the bootstrap by counts against resampling rows.

    python benchmarks/stats.py                              # 200,000 rows, two rules, 1,000 resamples
    python benchmarks/stats.py --rows 50000 --resamples 200 # a quicker run
    python benchmarks/stats.py --skip before                # leave out the slow, large one

The data: ``--rows`` answers drawn (seeded) from the traffic-light marked dataset, half of
them with one random edit, each keeping its teacher's mark; scored once with the demo rule
and with the README's fix of it (combo C worth 1). Then each way of computing the figures
of ``compare`` (every figure with its 95 % interval and the paired QWK difference, same
seed) runs in its own process, timed from the scored arrays to the result, and reports
that process's peak RSS (VmHWM, as ``memory.py``; the start-up and the arrays included):

- ``counts``  -- ``compare()`` as it is: the distinct (mark, score, score) tuples resampled
  by counts (multinomial), since they are few;
- ``rows``    -- ``compare(method="rows")``: row indexes drawn and counted, in blocks;
- ``before``  -- the row bootstrap coscore had before: one ``(resamples, rows)`` array of
  row indexes, and ``agreement()`` on each resample of each scorer.

Last, ``coscore compare DATA --label mark RULE FIXED --json`` end to end on a CSV of the
same rows (reading and scoring included). Prints a table and one JSON object.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.memory import high_water  # noqa: E402

MB = 1024 * 1024
METHODS = ("counts", "rows", "before")
TASK = "traffic-light"


def make_data(rows: int, folder: Path) -> tuple[Path, Path, Path]:
    """Write the answers with their marks (``data.csv``) and the two rules; return their paths."""
    from benchmarks import workloads

    lines = (workloads.DEMO / f"{TASK}.csv").read_text(encoding="utf-8").splitlines()[1:]
    marked = [(line.split(",", 1)[0], line.rsplit(",", 1)[1]) for line in lines]
    chars = workloads.alphabet(TASK)
    rng = random.Random(f"stats-{rows}")
    data = folder / "data.csv"
    with open(data, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(["id", "answer", "mark"])
        for i in range(rows):
            text, mark = rng.choice(marked)
            out.writerow([i + 1, workloads.edit(text, rng, chars, 1) if rng.random() < 0.5 else text, mark])
    source = (workloads.DEMO / f"{TASK}.rule.json").read_text(encoding="utf-8")
    rule, fixed = folder / "rule.json", folder / "fixed.json"
    rule.write_text(source, encoding="utf-8")
    fixed.write_text(source.replace('"score": 2,', '"score": 1,'), encoding="utf-8")
    return data, rule, fixed


def score(data: Path, rules: list[Path], out: Path) -> None:
    """Save the marks and each rule's scores of ``data`` as ``out`` (.npz)."""
    import numpy as np

    import coscore
    from coscore.labelled import read_table

    table = read_table(data, label="mark")
    scores = [coscore.compile(r.read_text(encoding="utf-8")).score_many(table.answers).scores for r in rules]
    np.savez(out, marks=table.marks, **{f"s{k}": s for k, s in enumerate(scores)})


def child(method: str, arrays: Path, resamples: int) -> dict:
    """Compute the comparison's figures by ``method`` from the saved arrays, in this process."""
    import numpy as np

    from coscore.labelled import Table
    from coscore.report.compare import FIGURES, Scorer, compare

    saved = np.load(arrays)
    marks = saved["marks"]
    scores = {name: saved[key] for name, key in (("rule", "s0"), ("fixed", "s1"))}
    n = marks.size
    table = Table("data.csv", {}, [[""]] * n, [{"line": i + 2} for i in range(n)], "mark", marks)
    start = time.perf_counter()
    if method == "before":
        qwk, difference = _before(marks, scores, resamples, FIGURES)
        used = "rows, one index array"
    else:
        result = compare(table, [Scorer(name, s) for name, s in scores.items()], "now", resamples, top=0,
                         method=None if method == "counts" else method)
        qwk, difference = result.scorers[0].estimates["qwk"].ci, result.pairs[0].qwk_difference.ci
        used = result.method
    seconds = time.perf_counter() - start
    return {"method": method, "resampling": used, "rows": n, "resamples": resamples,
            "seconds": round(seconds, 2), "peak_rss_mb": round(high_water() / MB, 1),
            "qwk_ci_rule": qwk, "qwk_difference_ci": difference}


def _before(marks, scores: dict, resamples: int, figures: tuple[str, ...]):
    """The earlier bootstrap: every resample's row indexes at once, agreement() on each."""
    import numpy as np

    from coscore.report import agreement
    from coscore.report.bootstrap import SEED, interval
    from coscore.report.bootstrap import resamples as draw

    keep = ~np.isnan(marks)
    for s in scores.values():
        keep &= ~np.isnan(s)
    h = marks[keep]
    preds = {name: s[keep] for name, s in scores.items()}
    draws = draw(h.size, resamples, SEED)
    per_draw = {name: [agreement(h[i], p[i]) for i in draws] for name, p in preds.items()}
    cis = {name: {key: interval([getattr(a, key) for a in runs]) for key in figures} for name, runs in per_draw.items()}
    a, b = per_draw["rule"], per_draw["fixed"]
    spread = [None if x.qwk is None or y.qwk is None else x.qwk - y.qwk for x, y in zip(a, b)]
    return cis["rule"]["qwk"], interval(spread)


def cli_child(argv: list[str]) -> dict:
    """Run ``coscore`` with ``argv`` in this process (output discarded); time and peak RSS."""
    from coscore.cli import main

    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        stdout, sys.stdout = sys.stdout, sink
        try:
            status = main(argv)
        finally:
            sys.stdout = stdout
    return {"method": "coscore compare (end to end)", "status": status,
            "seconds": round(time.perf_counter() - start, 2), "peak_rss_mb": round(high_water() / MB, 1)}


def run_child(*args: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        raise SystemExit(f"{args[:2]} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--skip", action="append", default=[], choices=(*METHODS, "cli"))
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        print(json.dumps(cli_child(rest) if kind == "cli" else child(kind, Path(rest[0]), int(rest[1]))))
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        data, rule, fixed = make_data(args.rows, folder)
        arrays = folder / "scores.npz"
        score(data, [rule, fixed], arrays)
        results = [run_child("--child", m, str(arrays), str(args.resamples)) for m in METHODS if m not in args.skip]
        if "cli" not in args.skip:
            results.append(run_child("--child", "cli", "compare", str(data), "--label", "mark", str(rule), str(fixed),
                                     "--json", "--resamples", str(args.resamples)))
    print(f"{args.rows:,} rows, two rules, {args.resamples:,} resamples")
    print(f"{'method':<32}{'seconds':>9}{'peak RSS MB':>13}   QWK interval of the rule; of the difference")
    for r in results:
        cis = f"{r.get('qwk_ci_rule')}; {r.get('qwk_difference_ci')}" if "qwk_ci_rule" in r else ""
        name = r["method"] + (f" ({r['resampling']})" if "resampling" in r and r["method"] != "before" else "")
        print(f"{name:<32}{r['seconds']:>9.2f}{r['peak_rss_mb']:>13.1f}   {cis}")
    print(json.dumps({"rows": args.rows, "resamples": args.resamples, "results": results}))


if __name__ == "__main__":
    main()
