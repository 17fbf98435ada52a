"""The report's figures from joint counts, a second teacher's marks (human–human agreement,
PRMSE) and subgroups, against values worked by hand and a plain reference; the text
confusion matrix with large counts."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coscore.report import agreement, consistency, group_stats, render_text, true_score
from coscore.report.counts import PAIR_FIGURES, PairColumns, Sample, TrueScoreColumns, centre, tally, tally_within

NAN = math.nan


# -- PRMSE and human–human agreement, worked by hand ----------------------------------------
#
#   row   h   h2   p     marks  mean of marks (hbar)
#   1     1   2    1     2      1.5
#   2     2   2    3     2      2.0
#   3     3   4    3     2      3.5
#   4     4   —    3     1      4.0
#
#   N = 4 rows, N2 = 3 marked twice, M = 7 marks, mu = (1+2+2+2+3+4+4) / 7 = 18/7
#   variance of rater errors: ((1-2)²/2 + (2-2)²/2 + (3-4)²/2) / 3 = 1/3
#   sum c (hbar - mu)² = 2(1.5-18/7)² + 2(2-18/7)² + 2(3.5-18/7)² + (4-18/7)² = 329/49
#   true-score variance = (329/49 - (4-1)/3) / (7 - (4+4+4+1)/7) = (280/49) / (36/7) = 10/9
#   sum c (hbar - p)² = 2(0.5)² + 2(1)² + 2(0.5)² + 1(1)² = 4
#   MSE against the true score = (4 - 4/3) / 7 = 8/21
#   PRMSE = 1 - (8/21) / (10/9) = 23/35
H = [1, 2, 3, 4]
H2 = [2, 2, 4, NAN]
P = [1, 3, 3, 3]


def test_prmse_worked_by_hand():
    mu = Fraction(18, 7)
    errors = (Fraction(1, 2) + 0 + Fraction(1, 2)) / 3
    spread = sum(c * (hbar - mu) ** 2 for c, hbar in
                 ((2, Fraction(3, 2)), (2, Fraction(2)), (2, Fraction(7, 2)), (1, Fraction(4))))
    assert spread == Fraction(329, 49)
    true_var = (spread - 3 * errors) / (7 - Fraction(13, 7))
    mse = (4 - 4 * errors) / 7
    assert (true_var, mse, 1 - mse / true_var) == (Fraction(10, 9), Fraction(8, 21), Fraction(23, 35))
    t = true_score(H, H2, P)
    assert (t.n, t.n_double, t.n_single) == (4, 3, 1)
    assert t.variance_of_errors == pytest.approx(1 / 3)
    assert t.true_score_variance == pytest.approx(10 / 9)
    assert t.mse_true == pytest.approx(8 / 21)
    assert t.prmse == pytest.approx(23 / 35)


def test_prmse_all_double_marked_is_the_simple_form():
    # Every row marked twice: true-score variance = var(hbar) - ve/2, MSE = mean((hbar - p)²) - ve/2.
    h, h2, p = [0, 2, 4, 6, 8], [1, 2, 5, 6, 9], [0, 3, 4, 7, 8]
    hbar = [(a + b) / 2 for a, b in zip(h, h2)]   # 0.5 2 4.5 6 8.5, mean 4.3
    ve = sum((a - b) ** 2 / 2 for a, b in zip(h, h2)) / 5   # (0.5+0+0.5+0+0.5)/5 = 0.3
    var_hbar = sum((x - 4.3) ** 2 for x in hbar) / 4        # (14.44+5.29+0.04+2.89+17.64)/4 = 10.075
    mse_hbar = sum((x - y) ** 2 for x, y in zip(hbar, p)) / 5   # (0.25+1+0.25+1+0.25)/5 = 0.55
    t = true_score(h, h2, p)
    assert t.true_score_variance == pytest.approx(var_hbar - ve / 2) == pytest.approx(9.925)
    assert t.mse_true == pytest.approx(mse_hbar - ve / 2) == pytest.approx(0.4)
    assert t.prmse == pytest.approx(1 - 0.4 / 9.925)


def test_prmse_undefined_without_second_marks():
    t = true_score([1, 2, 3], [NAN, NAN, NAN], [1, 2, 2])
    assert t.n_double == 0 and t.variance_of_errors is None and t.prmse is None


def test_human_human_agreement_worked_by_hand():
    # On rows 1-3 (marked twice): h 1 2 3, h2 2 2 4.
    #   exact 1/3 (row 2), adjacent 3/3; QWK: sum (h-h2)² = 2, expected sum (i-j)² h_i h2_j / n
    #   = [(1-2)²·2 + (1-4)² + (2-2)²·2 + (2-4)² + (3-2)²·2 + (3-4)²] / 3 = (2+9+0+4+2+1)/3 = 6; 1 - 2/6 = 2/3
    #   r: h centred -1 0 1, h2 centred -2/3 -2/3 4/3: cov = (2/3 + 0 + 4/3)/2 = 1, sd 1 and sqrt(4/3), r = sqrt(3)/2
    #   SMD (pooled) = (8/3 - 2) / sqrt((1 + 4/3) / 2)
    #   kappa: po = 1/3, pe = (1·0 + 1·2 + 1·0 + 0·1 ...)/9 = 2/9 (h2 = 2 twice meets h = 2 once), (1/3-2/9)/(7/9) = 1/7
    c = consistency(H, H2, P, "h2")
    hh = c.human_human
    assert hh.n == 3
    assert hh.exact_agreement == pytest.approx(1 / 3) and hh.adjacent_agreement == 1.0
    assert hh.qwk == pytest.approx(2 / 3)
    assert hh.kappa == pytest.approx(1 / 7)
    assert hh.pearson_r == pytest.approx(math.sqrt(3) / 2)
    assert hh.smd == pytest.approx((8 / 3 - 2) / math.sqrt((1 + 4 / 3) / 2))
    # human–machine on all four rows: h 1 2 3 4, p 1 3 3 3
    hm = c.human_machine
    assert hm.n == 4 and hm.exact_agreement == pytest.approx(0.5)
    assert c.degradation["exact_agreement"] == pytest.approx(0.5 - 1 / 3)
    assert c.degradation["qwk"] == pytest.approx(hm.qwk - 2 / 3)
    assert c.disattenuated_r == pytest.approx(hm.pearson_r / math.sqrt(math.sqrt(3) / 2))
    flags = c.flags
    assert flags["exact_agreement_ok"] is False and flags["adjacent_agreement_ok"] is True
    assert flags["qwk_ok"] is False and flags["pearson_r_ok"] is True
    d = c.to_dict()
    assert d["true_score"]["prmse"] == pytest.approx(23 / 35) and d["human_human"]["n"] == 3


# -- subgroups ------------------------------------------------------------------------------


def test_group_dsm_worked_by_hand():
    # All rows: h 0 2 4 6 (mean 3, sd sqrt(20/3)), p 2 4 4 6 (mean 4, sd sqrt(8/3)).
    # Group a = rows 1, 2: DSM = mean of ((p-4)/sd(p) - (h-3)/sd(h)) over them, about 0.162.
    marks = np.array([0, 2, 4, 6.0])
    scores = np.array([2, 4, 4, 6.0])
    a, b = group_stats(["a", "a", "b", "b"], marks, scores)
    sd_h, sd_p = math.sqrt(20 / 3), math.sqrt(8 / 3)
    want_a = ((2 - 4) / sd_p - (0 - 3) / sd_h + (4 - 4) / sd_p - (2 - 3) / sd_h) / 2
    assert want_a == pytest.approx(0.1623, abs=1e-4)
    assert (a.value, b.value) == ("a", "b")
    assert a.dsm == pytest.approx(want_a) and b.dsm == pytest.approx(-want_a)
    assert a.agreement.n == 2 and a.flags["dsm_ok"] is False
    d = a.to_dict()
    assert d["dsm"] == pytest.approx(want_a) and d["thresholds"]["dsm"] == 0.10 and "qwk" in d


def test_group_dsm_undefined_when_constant():
    (g,) = group_stats(["x"] * 3, np.array([2.0, 2, 2]), np.array([1.0, 2, 3]))
    assert g.dsm is None and g.flags["dsm_ok"] is None


# -- the confusion matrix in text -------------------------------------------------------------


def test_confusion_matrix_columns_fit_their_counts():
    marks = np.repeat([3.0, 3.0, 4.0], [31898, 18410, 60000])
    scores = np.repeat([3.0, 4.0, 4.0], [31898, 18410, 60000])
    text = render_text(agreement(marks, scores))
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("confusion matrix"))
    row3 = lines[header + 1 + 1 + 3].split()
    row4 = lines[header + 1 + 1 + 4].split()
    assert row3 == ["3", ".", ".", ".", "31898", "18410", ".", ".", ".", ".", ".", "."]
    assert row4[0] == "4" and row4[5] == "60000"
    widths = {len(line) for line in lines[header + 1:header + 13]}
    assert len(widths) == 1   # every row as wide as the header
    small = render_text(agreement([1, 2], [1, 2])).splitlines()
    assert small[-12] == "           0    1    2    3    4    5    6    7    8    9   10"


# -- figures from counts equal figures from rows -----------------------------------------------


def plain_figures(h: list[float], p: list[float]) -> dict[str, float | None]:
    """Every figure by its textbook formula, rows one by one (None where undefined)."""
    n = len(h)
    if not n:
        return dict.fromkeys(PAIR_FIGURES[1:])

    def rnd(x: float) -> int:
        return min(10, max(0, math.floor(x) + (x - math.floor(x) >= 0.5)))

    rh, rp = [rnd(x) for x in h], [rnd(x) for x in p]
    mh, mp = sum(h) / n, sum(p) / n
    const_h, const_p = len(set(h)) == 1, len(set(p)) == 1
    ssh = 0.0 if const_h else sum((x - mh) ** 2 for x in h)
    ssp = 0.0 if const_p else sum((x - mp) ** 2 for x in p)
    sd_h = math.sqrt(ssh / (n - 1)) if n > 1 else None
    sd_p = math.sqrt(ssp / (n - 1)) if n > 1 else None
    cov = sum((x - mh) * (y - mp) for x, y in zip(h, p))
    rows = [rh.count(k) for k in range(11)]
    cols = [rp.count(k) for k in range(11)]
    den = sum((i - j) ** 2 * rows[i] * cols[j] for i in range(11) for j in range(11)) / n
    po = sum(a == b for a, b in zip(rh, rp)) / n
    pe = sum(rows[k] * cols[k] for k in range(11)) / n**2
    sq = sum((y - x) ** 2 for x, y in zip(h, p))
    pooled = math.sqrt((sd_h**2 + sd_p**2) / 2) if n > 1 else 0
    return {
        "mean_human": mh, "mean_pred": mp, "sd_human": sd_h, "sd_pred": sd_p,
        "exact_agreement": po, "adjacent_agreement": sum(abs(a - b) <= 1 for a, b in zip(rh, rp)) / n,
        "qwk": None if den == 0 else 1 - sum((a - b) ** 2 for a, b in zip(rh, rp)) / den,
        "kappa": None if pe == 1 else (po - pe) / (1 - pe),
        "pearson_r": None if n < 2 or const_h or const_p else max(-1, min(1, cov / math.sqrt(ssh * ssp))),
        "rmse": math.sqrt(sq / n), "r2": None if const_h else 1 - sq / ssh,
        "smd": None if not pooled else (mp - mh) / pooled,
    }


def _same(got: float, want: float | None) -> bool:
    return math.isnan(got) if want is None else not math.isnan(got) and math.isclose(got, want, rel_tol=1e-9,
                                                                                        abs_tol=1e-9)


values = st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 7.0, 10.0, 10.6, -0.4, 0.1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=1, max_size=12),
       st.lists(st.lists(st.integers(0, 4), min_size=12, max_size=12), min_size=1, max_size=4))
def test_figures_of_weighted_tuples_equal_the_expanded_rows(rows, weights):
    h = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    t = tally([h, p])
    assert int(t.counts.sum()) == len(rows)
    w = np.array([ws[:len(t)] for ws in weights], dtype=np.float64)
    observed = t.counts.astype(np.float64)
    columns = PairColumns(t.values[:, 0], t.values[:, 1],
                          (centre(t.values[:, 0], observed), centre(t.values[:, 1], observed)))
    figures = columns.figures(Sample(w))
    for r in range(w.shape[0]):
        expanded_h = np.repeat(t.values[:, 0], w[r].astype(int)).tolist()
        expanded_p = np.repeat(t.values[:, 1], w[r].astype(int)).tolist()
        want = plain_figures(expanded_h, expanded_p)
        assert figures["n"][r] == len(expanded_h)
        for key, value in want.items():
            assert _same(float(figures[key][r]), value), (key, float(figures[key][r]), value)
    # the rows themselves (weights 1) give agreement()'s figures
    whole = agreement(h, p)
    for key, value in plain_figures(h.tolist(), p.tolist()).items():
        got = getattr(whole, key)
        assert _same(math.nan if got is None else got, value), key


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(values, st.one_of(st.just(NAN), values), values), min_size=2, max_size=10))
def test_true_score_of_weighted_tuples_equals_the_expanded_rows(rows):
    h, h2, p = (np.array([r[k] for r in rows]) for k in range(3))
    t = tally([h, h2, p])
    w = np.arange(len(t)) % 3 + 1.0
    columns = TrueScoreColumns(t.values[:, 0], t.values[:, 1], t.values[:, 2], 3.0)
    got = columns.figures(Sample(w[None, :]))
    want = true_score(*(np.repeat(t.values[:, k], w.astype(int)) for k in range(3)))
    for key in ("variance_of_errors", "true_score_variance", "mse_true", "prmse"):
        value = getattr(want, key)
        assert _same(float(got[key][0]), value) or (value is not None and math.isclose(
            float(got[key][0]), value, rel_tol=1e-7, abs_tol=1e-7)), key


def test_tally_counts_distinct_tuples_with_nan():
    t = tally([np.array([1.0, 1, 2, 1]), np.array([NAN, NAN, 3, 4])])
    assert len(t) == 3 and sorted(t.counts.tolist()) == [1, 1, 2]
    assert tally_within([np.arange(10.0)], 5) is None and len(tally_within([np.arange(10.0)], 10)) == 10


def test_the_docs_python_examples_run_and_print_what_they_say(capsys):
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "report.md").read_text(encoding="utf-8")
    for block in re.findall(r"```python\n(.*?)```", doc, flags=re.S):
        exec(compile(block, "docs/report.md", "exec"), {})  # noqa: S102 - the project's own docs
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        for line in block.splitlines():
            if line.startswith("print(") and "# " in line:
                assert line.split("# ", 1)[1].strip() in printed, (line, printed)


def test_full_report_with_second_marks_and_groups_in_text_json_and_html():
    from coscore.labelled import Rows, Table
    from coscore.report import Provenance, build_report, render_html, report_text

    n = 8
    columns = {}
    for name, values in (("score_col", [0, 1, 2, 6, 4, 5, 6, 9]), ("mark2", [0, 1, 3, 3, None, 5, 6, 7]),
                         ("school", ["a", "a", "a", "a", "b", "b", "b", "b"])):
        columns[name] = Rows()
        columns[name].add(values, n)
    table = Table("t.csv", columns, [["x"]] * n, [{"line": i + 2} for i in range(n)], "mark",
                  np.asarray([0, 1, 2, 3, 4, 5, 6, 7], dtype=float))
    report = build_report(table, "score_col", Provenance("r.json", None, "t.csv", "2026-01-01"), None, "school", 2,
                          "mark2")
    plain = report_text(report)
    assert "second marks: mark2 against mark on the 7 rows marked twice" in plain
    assert "PRMSE" in plain and "disattenuated r" in plain and "degradation" in plain
    assert "by school" in plain and "DSM" in plain
    d = report.to_dict()
    assert d["label2"] == "mark2" and d["consistency"]["true_score"]["n_double"] == 7
    assert [g["value"] for g in d["groups"]] == ["a", "b"] and d["groups"][0]["flags"]["dsm_ok"] is False
    pytest.importorskip("matplotlib")
    page = render_html(report.agreement, "t", "mark", "score_col", report)
    assert "Second marks (mark2)" in page and "PRMSE" in page and "By school" in page
    assert '<span class="low">' in page


def test_report_command_with_second_marks_and_groups(tmp_path):
    from test_cli import run, text

    scored = tmp_path / "s.csv"
    lines = ["id,answer,mark,mark2,school,coscore_score"] + [
        f"{i},x,{i % 6},{(i % 6) + (i % 3 == 0) if i % 5 else ''},{'ab'[i % 2]},{min(10, i % 6 + i % 2)}"
        for i in range(30)]
    scored.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["report", scored, "--label", "mark", "--label2", "mark2", "--by", "school"]
    proc = run(*args, "--json")
    out, err = text(proc)
    assert proc.returncode == 0, err
    d = json.loads(out)
    assert d["label2"] == "mark2" and d["consistency"]["human_human"]["n"] == 24
    assert d["consistency"]["true_score"]["prmse"] is not None and [g["value"] for g in d["groups"]] == ["a", "b"]
    plain, _ = text(run(*args))
    assert "second marks: mark2 against mark on the 24 rows marked twice" in plain and "PRMSE" in plain
