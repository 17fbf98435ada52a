"""``coscore app``: one scoring task over 100,000 lane-change answers, against the baseline.

    python benchmarks/webapp.py                  # 100,000 answers, baseline on a 5,000 sample
    python benchmarks/webapp.py --answers 20000 --sample 2000

Starts ``coscore app`` on a fresh database (a temporary app folder: the API needs no
pages), uploads the dataset with ``createData`` and the demo lane-change rule with
``saveRule`` (not timed), then times ``createTask`` until ``getTasks`` reports the task
``completed`` (polled every 20 ms; each timed task is deleted afterwards). The answers are :func:`workloads.distinct`'s: the
dataset's answers with 1-3 random edits, all distinct. The baseline is
``baseline.Rule(rule).score`` on each answer in a plain loop, timed on the first
``--sample`` answers and extrapolated to all of them (its cost per answer does not depend
on the batch size); its scores must equal the task's on the sample. Target: >= 100x.
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:  # run from a checkout without installing
        sys.path.insert(0, path)

import baseline  # noqa: E402
import children  # noqa: E402
import workloads  # noqa: E402

RULE = "lane-change"
TARGET = 100.0


def start_app(folder: Path, db: Path) -> tuple[subprocess.Popen, str]:
    """``coscore app`` in a subprocess; its process and URL once it accepts connections."""
    return children.serve("app", str(folder), "--db", str(db))


def dataset_text(answers: list[list[str]]) -> str:
    """The original's CSV layout: ``text,score``; blanks joined with ``-``."""
    return "text,score\n" + "\n".join("-".join(blanks) + ",0" for blanks in answers)


def run_task(url: str, name: str) -> tuple[float, dict]:
    """Seconds from ``createTask`` until ``getTasks`` shows the task finished; the task."""
    with httpx.Client(base_url=url, timeout=600) as http:
        start = time.perf_counter()
        response = http.post("/api/createTask", json={"data_name": "bench", "rule_name": RULE, "task_name": name})
        response.raise_for_status()
        while True:
            task = next(t for t in http.get("/api/getTasks").json() if t["task_name"] == name)
            if task["status"] != "running":
                seconds = time.perf_counter() - start
                http.post("/api/deleteTask", json={"task_name": name}).raise_for_status()  # keep getTasks small
                return seconds, task
            time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=100_000, help="answers in the task (default 100,000)")
    parser.add_argument("--sample", type=int, default=5_000, help="answers the baseline scores (default 5,000)")
    parser.add_argument("--repeats", type=int, default=3, help="tasks timed; the median counts (default 3)")
    args = parser.parse_args(argv)

    answers = [list(a) for a in workloads.distinct(RULE, args.answers)]
    text = dataset_text(answers)
    assert [line.split(",")[0].split("-") for line in text.split("\n")[1:]] == answers, "answers must round-trip"
    source = workloads.rule_source(RULE)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "app"
        (folder / "templates").mkdir(parents=True)
        (folder / "static").mkdir()
        process, url = start_app(folder, Path(tmp) / "database.db")
        try:
            with httpx.Client(base_url=url, timeout=600) as http:
                http.post("/api/createData", json={"name": "bench", "desc": "benchmark", "type": "labeled",
                                                   "data": text, "ulength": len(answers)}).raise_for_status()
                http.post("/api/saveRule", json={"name": RULE, "prompt": "", "rule": json.dumps(source)}
                          ).raise_for_status()
            times = []
            for repeat in range(args.repeats):
                seconds, task = run_task(url, f"bench {repeat}")
                if task["status"] != "completed":
                    raise SystemExit(f"the task failed: {task['result']}")
                times.append(seconds)
        finally:
            process.terminate()
            process.wait(30)

    scores = json.loads(task["result"])["scores"]
    sample = answers[: args.sample]
    reference = baseline.Rule(source)
    start = time.perf_counter()
    expected = [reference.score(blanks) for blanks in sample]
    base_sample = time.perf_counter() - start
    mismatches = [i for i, (score, _, error) in enumerate(expected)
                  if error is not None or not math.isclose(score, float(scores[i]), rel_tol=0, abs_tol=0)]
    base = base_sample * len(answers) / len(sample)
    ours = sorted(times)[len(times) // 2]
    ratio = base / ours
    print(f"coscore app, {RULE}, {len(answers):,} distinct answers")
    print(f"  task createTask -> completed (getTasks): median {ours:.3f} s of {[round(t, 3) for t in times]}")
    print(f"  baseline, one answer at a time: {base_sample:.2f} s for {len(sample):,} answers, "
          f"extrapolated {base:.1f} s for {len(answers):,}")
    print(f"  ratio {ratio:.0f}x (target >= {TARGET:.0f}x): {'PASS' if ratio >= TARGET else 'FAIL'}")
    if mismatches:
        print(f"  MISMATCH with the baseline on {len(mismatches)} sampled answers, e.g. {mismatches[:5]}")
        return 1
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
