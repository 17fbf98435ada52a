"""``coscore tune`` on the four demo tasks, and on larger marked data made from them.

    python benchmarks/tune.py                   # the demo tasks, then 20,000 rows per task
    python benchmarks/tune.py --rows 5000       # smaller made-up data
    python benchmarks/tune.py --rows 0          # the demo tasks only

For each demo task: ``coscore tune RULE DATA --format coscore --label score`` run as a
command (a new process, start-up included), the wall time of each of ``--repeats`` runs
and whether the outputs were the same. Then ``--rows`` answers drawn (seeded) from the
task's marked answers, most with one random character changed, each keeping its mark,
tuned in this process with ``--drop``: the time, the settings the search tried, and what
the engine scored for them (``answers_scored``) beside what scoring every distinct answer
for every setting would have been (``settings × distinct``). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEMO = ROOT / "coscore" / "data" / "demo"
TASKS = ("lab-tools", "lane-change", "shortest-path", "traffic-light")


def command(task: str, repeats: int) -> dict:
    """``coscore tune`` on a demo task: each run's seconds, and whether every run printed the same."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    args = [sys.executable, "-m", "coscore", "tune", str(DEMO / f"{task}.rule.json"), str(DEMO / f"{task}.csv"),
            "--format", "coscore", "--label", "score", "--json"]
    seconds, outputs = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
        seconds.append(round(time.perf_counter() - started, 3))
        data = json.loads(done.stdout)
        data.pop("seconds")
        outputs.append(data)
    first = outputs[0]
    return {"task": task, "seconds": seconds, "same_every_run": all(o == first for o in outputs),
            "accepted": first["accepted"], "changes": first["changes"], "reason": first["reason"],
            "before": first["before"]["value"], "after": (first["after"] or {}).get("value")}


def made_up(task: str, rows: int, seed: int = 5) -> tuple[list[list[str]], list[float]]:
    """``rows`` answers drawn from the task's marked answers, 80 % with one character of the
    first blank replaced by one from the answers' own characters, each with its mark."""
    from coscore.labelled import read_table

    table = read_table(DEMO / f"{task}.csv", "coscore", None, "score")
    source = list(zip(table.answers, table.marks.tolist()))
    chars = sorted({c for answer, _ in source for blank in answer for c in blank})
    rng = random.Random(seed)
    answers, marks = [], []
    for _ in range(rows):
        answer, mark = rng.choice(source)
        answer = list(answer)
        if answer[0] and rng.random() < 0.8:
            i = rng.randrange(len(answer[0]))
            answer[0] = answer[0][:i] + rng.choice(chars) + answer[0][i + 1:]
        answers.append(answer)
        marks.append(mark)
    return answers, marks


def larger(task: str, rows: int) -> dict:
    """:func:`coscore.tune.tune` with ``drop=True`` on :func:`made_up` data, timed."""
    from coscore.tune import tune

    answers, marks = made_up(task, rows)
    started = time.perf_counter()
    result = tune(DEMO / f"{task}.rule.json", answers, marks, drop=True)
    seconds = time.perf_counter() - started
    work = result.work
    return {"task": task, "rows": rows, "distinct": result.n_distinct, "seconds": round(seconds, 2),
            "accepted": result.accepted, "proposed": [str(c) for c in result.proposed], **work.to_dict(),
            "every_setting_scoring_every_answer": work.candidates * result.n_distinct}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20000, help="rows of made-up data per task (0: none)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the command per demo task")
    args = parser.parse_args(argv)
    out = {"demo": [command(task, args.repeats) for task in TASKS],
           "larger": [larger(task, args.rows) for task in TASKS] if args.rows else []}
    for row in out["demo"]:
        print(f"{row['task']:<14} {max(row['seconds']):6.2f} s (slowest of {len(row['seconds'])}), "
              f"same output every run: {row['same_every_run']}, accepted: {row['accepted']}", file=sys.stderr)
    for row in out["larger"]:
        print(f"{row['task']:<14} {row['rows']:,} rows ({row['distinct']:,} distinct): {row['seconds']} s, "
              f"{row['candidates']} settings, {row['answers_scored']:,} answers scored "
              f"(every setting scoring every answer: {row['every_setting_scoring_every_answer']:,})", file=sys.stderr)
    print(json.dumps(out, ensure_ascii=False, indent=2))
    return out


if __name__ == "__main__":
    main()
