"""DataFrames against lists: ``Rule.score_many`` on the same answers as Python lists, an
Arrow table, pandas (its default text dtype, ``object``, ``category``) and polars.

    python benchmarks/dataframes.py               # 200,000 rows x 2 blanks, medians of 7
    python benchmarks/dataframes.py --rows 20000 --repeat 3

The answers are lane-change's on blank 0 and lab-tools' on blank 1 (both edited to be
distinct), scored by two rules: lane-change's, which reads blank 0 only, and one made of
both (as ``files.py --xlsx``), which reads both blanks. Each input is built before the
clock starts; the runs take turns (lists, then each frame, round after round), and each
figure is the median wall time of its runs. Issue 26's target: a DataFrame is at least as
fast as the lists (ratio <= 1), and gives exactly their results.

A rule that reads one text per answer gets that text's distinct values read from the
Arrow buffers in C, with no Python string; so does a rule that reads several blanks only
through SM, OP and CS atoms, one blank at a time (both rules here). polars' ``string_view``
and pandas' and polars' categories (dictionaries) are read in place; a pandas ``object``
column is read as the Python strings it holds; the columns a rule does not read are not
converted. Every answer here is distinct, so a category column's dictionary is as long as
the column, in sorted order: the worst case for it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:  # run from a checkout without installing
        sys.path.insert(0, path)

import coscore  # noqa: E402
import workloads  # noqa: E402
from files import two_blank_rule  # noqa: E402


def inputs(rows: int) -> dict[str, object]:
    """The same answers in every form measured (a form whose library is missing is left out)."""
    import pyarrow as pa

    lane, lab = workloads.distinct("lane-change", rows), workloads.distinct("lab-tools", rows)
    b0, b1 = [a[0] for a in lane], [a[0] for a in lab]
    forms: dict[str, object] = {"lists": [[x, y] for x, y in zip(b0, b1)],
                                "Arrow table": pa.table({"b0": b0, "b1": b1})}
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        forms["pandas (default text dtype)"] = pd.DataFrame({"b0": b0, "b1": b1})
        forms["pandas object"] = pd.DataFrame({"b0": pd.Series(b0, dtype=object), "b1": pd.Series(b1, dtype=object)})
        forms["pandas category"] = pd.DataFrame({"b0": pd.Categorical(b0), "b1": pd.Categorical(b1)})
    try:
        import polars as pl
    except ImportError:
        pl = None
    if pl is not None:
        forms["polars"] = pl.DataFrame({"b0": b0, "b1": b1})
    return forms


def same(a: coscore.Batch, b: coscore.Batch) -> bool:
    """Whether two batches hold the same scores, errors and combo values."""
    return (np.array_equal(a.scores, b.scores, equal_nan=True) and a.errors == b.errors
            and a.combos.keys() == b.combos.keys()
            and all(np.array_equal(a.combos[k], b.combos[k], equal_nan=True) for k in a.combos))


def measure(rule: coscore.Rule, forms: dict[str, object], repeat: int) -> tuple[dict[str, float], dict[str, bool]]:
    """Median seconds of ``rule.score_many`` on each form, and whether each gave the lists' results."""
    expected = rule.score_many(forms["lists"])
    exact = {name: same(rule.score_many(form), expected) for name, form in forms.items()}  # also a warm-up
    times: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(repeat):
        for name, form in forms.items():
            start = time.perf_counter()
            rule.score_many(form)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(runs) for name, runs in times.items()}, exact


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows of two blanks (default 200,000)")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each form (default 7)")
    args = parser.parse_args(argv)
    forms = inputs(args.rows)
    rules = {"lane-change's rule (reads blank 0)": coscore.compile(workloads.rule_source("lane-change")),
             "a rule reading both blanks": coscore.compile(two_blank_rule())}
    print(f"score_many on {args.rows:,} rows x 2 blanks, medians of {args.repeat} runs taking turns")
    ok = True
    for title, rule in rules.items():
        medians, exact = measure(rule, forms, args.repeat)
        ok = ok and all(exact.values())
        print(f"  {title}:")
        for name, median in medians.items():
            ratio = median / medians["lists"]
            verdict = "" if name in ("lists", "Arrow table") else f" (target <= 1: {'PASS' if ratio <= 1 else 'FAIL'})"
            print(f"    {name:28} {median * 1000:7.1f} ms  {ratio:5.2f} x lists{verdict}; "
                  f"same results as lists: {'yes' if exact[name] else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
