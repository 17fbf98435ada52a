"""The search attacks of issue 37 (item 5): ``coscore tune`` and ``coscore suggest`` on a rule
built to make the search long, each run as a child process with its default budgets.

Used by ``benchmarks/hostile.py --issue37``; each returns rows ``(attack, count, held,
figures)``:

- ``tune_drop``: a rule of 40 OP/CS atoms and 40 combos on 20,000 marked rows with
  ``--drop`` (the trial: past 400 s at 1.2 GB and growing): held when it ends with one
  line naming the budget and the best so far (exit 1), within the 120 s default plus
  15 s, under 1 GB of added memory, writing no rule;
- ``suggest``: the same rule and rows: held when it ends (exit 0, or 1 at the budget)
  within the default budget;
- ``options``: ``--resamples 100000000``, ``--folds 1000``, ``--min-z nan`` and a mark of
  ``inf``: held when each is refused in one line (exit 2) within 10 s.
"""
from __future__ import annotations

import csv
import json
import random
import sys
import tempfile
from pathlib import Path

from benchmarks import children

Row = tuple[str, int, bool, str]

ROOT = Path(__file__).resolve().parent.parent
LETTERS = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉"


def _inputs(folder: Path, rows: int = 20_000) -> tuple[Path, Path]:
    """The attack's rule (40 OP/CS atoms, 40 combos) and ``rows`` random marked answers."""
    rng = random.Random(1)
    atoms = {str(i): {"type": "OP" if i % 2 else "CS", "desc": "0.5:" + "".join(rng.choices(LETTERS[:14], k=6))}
             for i in range(40)}
    combos = {f"C{i}": {"combo": f"G({i}, T(0))", "score": 1, "mode": "value"} for i in range(40)}
    rule = folder / "r40.json"
    rule.write_text(json.dumps({"atoms": atoms, "combos": combos, "comboMode": "ADD"}, ensure_ascii=False),
                    encoding="utf-8")
    data = folder / "d40.csv"
    with open(data, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["answer", "mark"])
        for _ in range(rows):
            answer = "".join(rng.choices(LETTERS, k=rng.randint(5, 30)))
            writer.writerow([answer, min(10, sum(ch in answer for ch in "甲乙丙丁戊"))])
    return rule, data


def _run(*args: str) -> tuple[int, float, float, str, str]:
    """``coscore ARGS``: exit code, seconds, peak MB of the child alone, stdout, stderr."""
    return children.run([sys.executable, "-m", "coscore", *args], cwd=ROOT, timeout=900)


def tune_drop(rule: Path, data: Path) -> list[Row]:
    out = rule.with_name("tuned.json")
    code, seconds, peak, _, err = _run("tune", str(rule), str(data), "--label", "mark", "--drop", "-o", str(out))
    lines = err.strip().splitlines()
    held = (code == 1 and len(lines) == 1 and "budget" in lines[0] and seconds < 135 and peak < 1024 + 300
            and not out.exists())
    return [("tune --drop: 40 OP/CS atoms, 40 combos, 20,000 rows", 1, held,
             f"exit {code}, {seconds:.1f} s, {peak:.0f} MB: {lines[-1][:160] if lines else ''}")]


def suggest(rule: Path, data: Path) -> list[Row]:
    code, seconds, peak, _, err = _run("suggest", str(rule), str(data), "--label", "mark")
    held = code in (0, 1) and seconds < 135 and "Traceback" not in err
    return [("suggest: the same rule and rows", 1, held, f"exit {code}, {seconds:.1f} s, {peak:.0f} MB")]


def options(rule: Path, data: Path) -> list[Row]:
    infinite = data.with_name("inf.csv")
    infinite.write_text("answer,mark\n甲乙,3\n丙丁,inf\n", encoding="utf-8")
    cases = [("tune --resamples 100000000", ["tune", str(rule), str(data), "--label", "mark", "--resamples",
                                             "100000000"]),
             ("tune --folds 1000", ["tune", str(rule), str(data), "--label", "mark", "--folds", "1000"]),
             ("suggest --min-z nan", ["suggest", str(rule), str(data), "--label", "mark", "--min-z", "nan"]),
             ("tune: a mark of inf", ["tune", str(rule), str(infinite), "--label", "mark"])]
    rows: list[Row] = []
    for name, args in cases:
        code, seconds, _, _, err = _run(*args)
        last = err.strip().splitlines()[-1] if err.strip() else ""
        rows.append((name, 1, code == 2 and seconds < 10 and "Traceback" not in err,
                     f"exit {code}, {seconds:.1f} s: {last[:140]}"))
    return rows


def issue37_search() -> list[Row]:
    """Every search attack's rows."""
    with tempfile.TemporaryDirectory(prefix="coscore-search-") as name:
        rule, data = _inputs(Path(name))
        return options(rule, data) + suggest(rule, data) + tune_drop(rule, data)


if __name__ == "__main__":
    from benchmarks.attacks_http import print_table

    print_table(issue37_search())
