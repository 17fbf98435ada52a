"""``coscore compare``: bootstrap intervals against a plain-Python computation (resampling
rows and resampling counts), the two methods against each other within Monte-Carlo
error on the demo data, second marks and groups, and the command end to end."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import coscore
from coscore.labelled import Rows, Table, read_table
from coscore.report.bootstrap import BLOCK_CELLS, Resampling, interval, resamples
from coscore.report.compare import FIGURES, Scorer, agreement_intervals, compare
from coscore.report.render import comparison_html, comparison_text
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
    result = compare(table, scorers, "2026-01-01", count=200, seed=11, method="rows")
    assert result.method == "rows"
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


def _table(marks, columns=None) -> Table:
    n = len(marks)
    kept = {}
    for name, values in (columns or {}).items():
        kept[name] = Rows()
        kept[name].add(list(values), n)
    return Table("t", kept, [["x"]] * n, [{"line": i + 2} for i in range(n)], "mark", np.asarray(marks, dtype=float))


def test_counts_intervals_match_plain_python():
    """Resampling counts: each resample's counts, expanded back into rows, give the same
    figures in plain Python, and the intervals are their percentiles."""
    human, a, b = HUMAN * 3, A * 3, B * 3   # 36 rows, 12 distinct tuples: counts are chosen
    scorers = [Scorer("a", np.asarray(a, dtype=float)), Scorer("b", np.asarray(b, dtype=float))]
    result = compare(_table(human), scorers, "2026-01-01", count=300, seed=5)
    assert result.method == "counts"
    resampling = Resampling([np.asarray(x, dtype=float) for x in (human, a, b)])
    assert resampling.method == "counts" and len(resampling.counts) == 12
    weights = np.vstack([s.weights for s in resampling.samples(300, 5)]).astype(int)
    assert weights.shape == (300, 12) and (weights.sum(axis=1) == 36).all()
    rows = [np.repeat(np.arange(12), w) for w in weights]
    values = resampling.values.astype(int)
    qwk_a = [plain_qwk(values[r, 0].tolist(), values[r, 1].tolist()) for r in rows]
    qwk_b = [plain_qwk(values[r, 0].tolist(), values[r, 2].tolist()) for r in rows]
    lo, hi = result.scorers[0].estimates["qwk"].ci
    kept = [x for x in qwk_a if x is not None]
    assert math.isclose(lo, plain_percentile(kept, 2.5), abs_tol=1e-12)
    assert math.isclose(hi, plain_percentile(kept, 97.5), abs_tol=1e-12)
    diffs = [x - y for x, y in zip(qwk_a, qwk_b) if x is not None and y is not None]
    lo, hi = result.pairs[0].qwk_difference.ci
    assert math.isclose(lo, plain_percentile(diffs, 2.5), abs_tol=1e-12)
    assert math.isclose(hi, plain_percentile(diffs, 97.5), abs_tol=1e-12)
    again = compare(_table(human), scorers, "2026-01-01", count=300, seed=5)
    assert again.to_dict()["scorers"] == result.to_dict()["scorers"]


def test_row_resamples_come_in_bounded_blocks():
    n = 3 * BLOCK_CELLS // 1000   # a block holds 333 resamples of n rows
    resampling = Resampling([np.arange(n, dtype=float)])
    assert resampling.method == "rows"
    blocks = [s.weights.shape for s in resampling.samples(1000, 1)]
    assert all(b * k <= BLOCK_CELLS for b, k in blocks) and sum(b for b, _ in blocks) == 1000
    assert len(blocks) == 4


def _demo_scorers():
    table = read_table(DEMO / "traffic-light.csv")
    source = (DEMO / "traffic-light.rule.json").read_text(encoding="utf-8")
    rules = {"rule": coscore.compile(source), "fixed": coscore.compile(source.replace('"score": 2,', '"score": 1,'))}
    return table, [Scorer(name, rule.score_many(table.answers).scores) for name, rule in rules.items()]


def test_counts_and_rows_agree_within_monte_carlo_error():
    """Both ways of resampling draw from the same distribution: on the demo data, with a
    fixed seed and B resamples each, every interval end differs by less than four standard
    errors of the difference of two independent B-resample percentiles. The standard error
    of the q-th percentile is sqrt(q (1 - q) / B) / f(x_q), f taken as the normal density
    with the spread the interval shows (SD = width / 3.92); the shares (exact and adjacent
    agreement) move on a lattice of step 1/n, so one step more is allowed for them."""
    table, scorers = _demo_scorers()
    count = 2000
    by_counts = compare(table, scorers, "d", count, seed=7, top=0, method="counts")
    by_rows = compare(table, scorers, "d", count, seed=7, top=0, method="rows")
    assert (by_counts.method, by_rows.method) == ("counts", "rows")
    q, density = 0.025, math.exp(-1.959964**2 / 2) / math.sqrt(2 * math.pi)
    pairs = [(x.estimates[key], y.estimates[key], key) for x, y in zip(by_counts.scorers, by_rows.scorers)
             for key in FIGURES]
    pairs.append((by_counts.pairs[0].qwk_difference, by_rows.pairs[0].qwk_difference, "qwk_difference"))
    for x, y, key in pairs:
        assert x.value == y.value and (x.ci is None) == (y.ci is None)
        if x.ci is None:
            continue
        sd = ((x.ci[1] - x.ci[0]) + (y.ci[1] - y.ci[0])) / 2 / 3.92
        tolerance = 4 * math.sqrt(2) * sd * math.sqrt(q * (1 - q) / count) / density
        tolerance += 1 / by_counts.n if key in ("exact_agreement", "adjacent_agreement") else 0
        assert abs(x.ci[0] - y.ci[0]) <= tolerance and abs(x.ci[1] - y.ci[1]) <= tolerance, (x, y, tolerance)
    other = compare(table, scorers, "d", count, seed=8, top=0, method="counts")
    assert other.scorers[0].estimates["qwk"].ci != by_counts.scorers[0].estimates["qwk"].ci


def test_second_marks_and_groups():
    marks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 5] * 4
    second = [0, 2, 2, 3, 5, 5, 6, 7, 8, 8, 10, None] * 4
    school = ["n", "s"] * 24
    scores = np.asarray([0, 1, 3, 3, 4, 6, 6, 7, 8, 9, 9, 5] * 4, dtype=float)
    table = _table(marks, {"mark2": second, "school": school})
    result = compare(table, [Scorer("rule", scores), Scorer("copy", np.asarray(marks, dtype=float))], "d",
                     300, 3, top=2, label2="mark2", by="school")
    d = result.to_dict()
    assert d["label2"] == "mark2" and d["by"] == "school" and d["bootstrap"]["method"] in ("counts", "rows")
    hh = d["human_human"]
    assert hh["kind"] == "human" and hh["n"] == 44 and set(hh["qwk"]) == {"value", "ci"}
    rule = d["scorers"][0]
    assert set(rule["prmse"]) == {"value", "ci"} and 0 < rule["prmse"]["value"] < 1
    assert rule["prmse"]["ci"][0] <= rule["prmse"]["value"] <= rule["prmse"]["ci"][1]
    assert [g["value"] for g in rule["groups"]] == ["n", "s"] and {"dsm", "flags", "qwk"} <= set(rule["groups"][0])
    plain = comparison_text(result)
    assert "mark2 (H–H)" in plain and "PRMSE" in plain and "rule by school" in plain and "DSM" in plain
    pytest.importorskip("matplotlib")
    page = comparison_html(result, "t")
    assert "mark2 (H–H)" in page and "PRMSE" in page and "rule by school" in page


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


def test_compare_command_with_second_marks_and_groups(tmp_path):
    data = tmp_path / "d.csv"
    rows = ["id,answer,mark,teacher2,school"] + [
        f"{i},{'开始前进结束' if i % 3 else '如果红灯'},{i % 5},{(i + i // 7) % 5 if i % 4 else ''},{'ns'[i % 2]}"
        for i in range(40)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rule = DEMO / "traffic-light.rule.json"
    args = ["compare", data, "--label", "mark", "--label2", "teacher2", "--by", "school", rule, "--resamples", "100"]
    proc = run(*args, "--json", "--html", tmp_path / "c.html")
    out, err = text(proc)
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert result["label2"] == "teacher2" and result["by"] == "school"
    assert [s["name"] for s in result["scorers"]] == ["traffic-light.rule.json"]   # teacher2 and school: no blanks
    assert result["human_human"]["n"] == 30 and set(result["scorers"][0]["prmse"]) == {"value", "ci"}
    assert [g["value"] for g in result["scorers"][0]["groups"]] == ["n", "s"]
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "teacher2 (H–H)" in page and "by school" in page
    plain, _ = text(run(*args))
    assert "teacher2 (H–H)" in plain and "PRMSE" in plain and "traffic-light.rule.json by school" in plain
    proc = run("compare", data, "--label", "mark", "--label2", "nobody", rule)
    assert proc.returncode == 2 and "nobody" in text(proc)[1] and "Traceback" not in text(proc)[1]


def test_compare_errors(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("answer,mark\na,1\n", encoding="utf-8")
    proc = run("compare", data, "--label", "mark", "nothing")
    _out, err = text(proc)
    assert proc.returncode == 2 and "neither a rule file nor a column" in err and "Traceback" not in err
    proc = run("compare", data, "--label", "teacher", "answer")
    assert proc.returncode == 2 and "teacher" in text(proc)[1]


def test_agreement_intervals_are_compare_s_for_one_scorer():
    """The workbench's intervals: one scorer's, drawn as compare draws them (same seed, same numbers)."""
    rng = np.random.default_rng(3)
    human = rng.integers(0, 11, 500).astype(float)
    human[::17] = np.nan
    pred = np.clip(human + rng.integers(-2, 3, 500), 0, 10)
    result = compare(_table(human), [Scorer("a", pred)], "2026-01-01", count=300, seed=5)
    got = agreement_intervals(human, pred, count=300, seed=5)
    want = {key: estimate.ci for key, estimate in result.scorers[0].estimates.items()}
    assert got == {key: want[key] for key in got}
