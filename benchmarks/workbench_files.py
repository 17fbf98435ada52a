"""``coscore workbench`` on large files: a 1,000,000-answer dataset's agreement and a
200,000-row teacher's ``.xlsx`` uploaded, mapped and scored.

    python benchmarks/workbench_files.py                       # 1,000,000 answers, 200,000 rows
    python benchmarks/workbench_files.py --answers 100000 --rows 20000 --repeats 3

Starts ``coscore workbench`` on a fresh store in a subprocess (2 workers) and times, as the
page does it (every request through HTTP, asked again every 20 ms while it answers 202):

- **1,000,000 answers**: a Parquet file of :func:`workloads.distinct`'s lane-change answers
  (all distinct: no scoring saved by duplicates) with marks 0–10, uploaded and imported
  (timed, not a target), then ``POST /api/workbench/dataset`` for a rule version not scored
  before (the demo rule with one more space each repeat), until the figures come back.
  Target: < 3 s (median).
- **200,000-row .xlsx**: the teacher's sheet of issue 35 (a title row, 学号, 班级, two
  blanks, two raters, 缺考 among the marks), from the upload's first byte to the figures:
  upload (the preview), import with the mapping, the dataset scored. Target: < 10 s.
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE), str(ROOT / "tests")):
    if path not in sys.path:  # run from a checkout without installing
        sys.path.insert(0, path)

import children  # noqa: E402
import workloads  # noqa: E402
from workbench import dataset  # noqa: E402
from workbench_files import RULE_TEXT, teacher_sheet  # noqa: E402

RULE = "lane-change"
TARGET_AGREEMENT = 3.0
TARGET_XLSX = 10.0


def start(store: Path) -> tuple[subprocess.Popen, str]:
    """``coscore workbench`` in a subprocess; its process and URL once it accepts connections."""
    return children.serve("workbench", "--store", str(store))


def upload(http: httpx.Client, path: Path) -> dict:
    response = http.post(f"/workbench/upload?name={path.name}", content=path.read_bytes(),
                         headers={"content-type": "application/octet-stream"})
    response.raise_for_status()
    return response.json()


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1_000_000,
                        help="answers of the large dataset (default 1,000,000)")
    parser.add_argument("--rows", type=int, default=200_000, help="rows of the .xlsx (default 200,000)")
    parser.add_argument("--repeats", type=int, default=5, help="times the agreement is measured (default 5)")
    args = parser.parse_args(argv)

    import pyarrow as pa
    import pyarrow.parquet as pq

    source = (ROOT / "coscore" / "data" / "demo" / f"{RULE}.rule.json").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        marks = random.Random(28)
        answers = workloads.distinct(RULE, args.answers)
        big = folder / "big.parquet"
        pq.write_table(pa.table({"answer": ["-".join(a) for a in answers],
                                 "mark": [marks.randint(0, 10) for _ in answers]}), big)
        del answers
        book = teacher_sheet(folder / "teacher.xlsx", args.rows)
        process, url = start(folder / "store")
        try:
            with httpx.Client(base_url=url, timeout=600) as http:
                time.sleep(2)   # the workers start with the server, as a user opens the page
                began = time.perf_counter()
                found = upload(http, big)
                http.post("/api/workbench/import", json={"upload": found["upload"], "file": big.name, "columns": {
                    "blanks": ["answer"], "label": "mark"}}).raise_for_status()
                imported = time.perf_counter() - began
                times, worker = [], []
                for repeat in range(args.repeats):
                    seconds, shown = dataset(http, {"dataset": "big", "rule": source + " " * (repeat + 1), "size": 20})
                    times.append(seconds)
                    worker.append(shown["seconds"])
                qwk = shown["agreement"]["qwk"]["value"]

                began = time.perf_counter()
                found = upload(http, book)
                http.post("/api/workbench/import", json={"upload": found["upload"], "file": book.name, "columns": {
                    "blanks": ["第1空", "第2空"], "label": "教师A", "label2": "教师B", "group": "班级", "id": "学号"}}
                          ).raise_for_status()
                seconds, sheet = dataset(http, {"dataset": "teacher", "rule": RULE_TEXT})
                xlsx = time.perf_counter() - began
        finally:
            process.terminate()
            process.wait(30)

    ours = median(times)
    print(f"coscore workbench, {args.answers:,} distinct lane-change answers (Parquet; QWK {qwk:.3f})")
    print(f"  upload + import: {imported:.2f} s")
    print(f"  new rule version -> figures: median {ours:.3f} s of {[round(t, 3) for t in times]} "
          f"(target < {TARGET_AGREEMENT:g} s: {'PASS' if ours < TARGET_AGREEMENT else 'FAIL'}); in the worker: median "
          f"{median(worker):.3f} s")
    a = sheet["agreement"]
    print(f"{args.rows:,}-row teacher's .xlsx (n {a['n']:,}, QWK {a['qwk']['value']:.3f})")
    print(f"  upload + import + figures: {xlsx:.2f} s (scoring {seconds:.2f} s; target < {TARGET_XLSX:g} s: "
          f"{'PASS' if xlsx < TARGET_XLSX else 'FAIL'})")
    return 0 if ours < TARGET_AGREEMENT and xlsx < TARGET_XLSX else 1


if __name__ == "__main__":
    raise SystemExit(main())
