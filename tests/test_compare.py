"""``coscore compare``: bootstrap intervals against a plain-Python computation, and the
command end to end."""
from __future__ import annotations

import json
import math

import numpy as np

from coscore.labelled import Table
from coscore.report.bootstrap import interval, resamples
from coscore.report.compare import Scorer, compare
from test_cli import DEMO, run, text

HUMAN = [0, 1, 2, 3, 4, 5, 6, 2, 3, 8, 10, 7]
A = [0, 2, 2, 3, 6, 5, 5, 2, 4, 8, 9, 7]
B = [1, 1, 3, 3, 4, 4, 6, 0, 3, 6, 10, 9]


def plain_qwk(h: list[int], p: list[int]) -> float | None:
    """Quadratic weighted kappa on 0..10 with nothing but Python."""
    n = len(h)
    observed = [[0] * 11 for _ in range(11)]
    for x, y in zip(h, p):
        observed[x][y] += 1
    rows = [sum(r) for r in observed]
    cols = [sum(observed[i][j] for i in range(11)) for j in range(11)]
    num = sum((i - j) ** 2 * observed[i][j] for i in range(11) for j in range(11))
    den = sum((i - j) ** 2 * rows[i] * cols[j] / n for i in range(11) for j in range(11))
    return None if den == 0 else 1 - num / den


def plain_percentile(values: list[float], q: float) -> float:
    """The q-th percentile with linear interpolation between order statistics."""
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def test_resamples_are_seeded():
    assert (resamples(12, 50, 7) == resamples(12, 50, 7)).all()
    assert not (resamples(12, 50, 7) == resamples(12, 50, 8)).all()


def test_intervals_match_plain_python():
    table = Table("t", {}, [["x"]] * len(HUMAN), [{"line": i + 2} for i in range(len(HUMAN))], "mark",
                  np.asarray(HUMAN, dtype=float))
    scorers = [Scorer("a", np.asarray(A, dtype=float)), Scorer("b", np.asarray(B, dtype=float))]
    result = compare(table, scorers, "2026-01-01", count=200, seed=11)
    draws = resamples(len(HUMAN), 200, 11).tolist()
    qwk_a = [plain_qwk([HUMAN[i] for i in d], [A[i] for i in d]) for d in draws]
    qwk_b = [plain_qwk([HUMAN[i] for i in d], [B[i] for i in d]) for d in draws]
    kept = [x for x in qwk_a if x is not None]
    lo, hi = result.scorers[0].estimates["qwk"].ci
    assert math.isclose(lo, plain_percentile(kept, 2.5), abs_tol=1e-12)
    assert math.isclose(hi, plain_percentile(kept, 97.5), abs_tol=1e-12)
    assert math.isclose(result.scorers[0].estimates["qwk"].value, plain_qwk(HUMAN, A), abs_tol=1e-12)
    diffs = [x - y for x, y in zip(qwk_a, qwk_b) if x is not None and y is not None]
    lo, hi = result.pairs[0].qwk_difference.ci
    assert math.isclose(lo, plain_percentile(diffs, 2.5), abs_tol=1e-12)
    assert math.isclose(hi, plain_percentile(diffs, 97.5), abs_tol=1e-12)
    exact = [sum(HUMAN[i] == A[i] for i in d) / len(d) for d in draws]
    lo, hi = result.scorers[0].estimates["exact_agreement"].ci
    assert math.isclose(lo, plain_percentile(exact, 2.5)) and math.isclose(hi, plain_percentile(exact, 97.5))


def test_interval_drops_undefined_values():
    assert interval([None, float("nan")]) is None
    assert interval([1.0, None, 3.0]) == (1.05, 2.95)


def test_compare_command(tmp_path):
    data = tmp_path / "d.csv"
    rows = ["id,answer,mark,teacher2"] + [
        f"{i},{'开始前进结束' if i % 3 else '如果红灯'},{i % 5},{(i + 1) % 5}" for i in range(30)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rule = DEMO / "traffic-light.rule.json"
    proc = run("compare", data, "--label", "mark", rule, "teacher2", "--json", "--resamples", "100",
               "--html", tmp_path / "c.html")
    out, err = text(proc)
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert result["n"] == 30 and [s["name"] for s in result["scorers"]] == ["traffic-light.rule.json", "teacher2"]
    first = result["scorers"][0]
    assert set(first["qwk"]) == {"value", "ci"} and {"exact_agreement", "rmse", "r2", "kappa"} <= set(first)
    assert first["rule_sha256"] and result["date"]
    assert [level["mark"] for level in first["levels"]] == [0, 1, 2, 3, 4]
    assert sum(level["n"] for level in first["levels"]) == 30
    (pair,) = result["pairs"]
    assert pair["a"] == "traffic-light.rule.json" and pair["b"] == "teacher2"
    assert set(pair["qwk_difference"]) == {"value", "ci"}
    assert result["disagreements"] and "combos:" in result["disagreements"][0]["explanations"]["traffic-light.rule.json"][0]
    again = json.loads(text(run("compare", data, "--label", "mark", rule, "teacher2", "--json",
                                "--resamples", "100"))[0])
    assert again["scorers"] == result["scorers"] and again["pairs"] == result["pairs"]
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 3 and "<script" not in page
    plain, _ = text(run("compare", data, "--label", "mark", rule, "teacher2", "--resamples", "50"))
    assert "paired QWK difference" in plain and "rows where the scorers disagree" in plain
    assert "by mark level: n, then each scorer's mean score / exact agreement" in plain


def test_compare_errors(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("answer,mark\na,1\n", encoding="utf-8")
    proc = run("compare", data, "--label", "mark", "nothing")
    out, err = text(proc)
    assert proc.returncode == 2 and "neither a rule file nor a column" in err and "Traceback" not in err
    proc = run("compare", data, "--label", "teacher", "answer")
    assert proc.returncode == 2 and "teacher" in text(proc)[1]
