"""Agreement statistics against values computed by hand, and the HTML report."""
from __future__ import annotations

import math

import numpy as np
import pytest

from coscore.io import InputError
from coscore.report import (
    agreement,
    quadratic_weighted_kappa,
    read_scored,
    render_html,
    render_text,
    round_half_up,
)

# A tiny dataset worked by hand:
#   human 0 1 2 3 4      mean 2.0, SD sqrt(10/4)
#   pred  0 2 2 3 6      mean 2.6, SD sqrt(19.2/4) = sqrt(4.8)
#   |d|   0 1 0 0 2      exact 3/5, adjacent 4/5
#   QWK: sum (i-j)^2 O = 0+1+0+0+4 = 5; expected sum (i-j)^2 h_i p_j / n = 155/5 = 31; 1 - 5/31 = 26/31
#   cov = (5.2+0.6+0+0.4+6.8)/4 = 3.25; r = 3.25 / sqrt(2.5*4.8)
#   SMD = (2.6-2.0) / sqrt((2.5+4.8)/2)
HUMAN = [0, 1, 2, 3, 4]
PRED = [0, 2, 2, 3, 6]


def test_hand_computed_statistics():
    s = agreement(HUMAN, PRED)
    assert s.n == 5
    assert s.mean_human == 2.0 and s.mean_pred == pytest.approx(2.6)
    assert s.sd_human == pytest.approx(math.sqrt(2.5))
    assert s.sd_pred == pytest.approx(math.sqrt(4.8))
    assert s.exact_agreement == pytest.approx(0.6)
    assert s.adjacent_agreement == pytest.approx(0.8)
    assert s.qwk == pytest.approx(26 / 31)
    assert s.pearson_r == pytest.approx(3.25 / math.sqrt(2.5 * 4.8))
    assert s.smd == pytest.approx(0.6 / math.sqrt(3.65))
    assert s.qwk_ok is True and s.smd_ok is False
    assert s.confusion[1][2] == 1 and s.confusion[4][6] == 1 and s.confusion[2][2] == 1
    assert sum(map(sum, s.confusion)) == 5


def test_rounding_is_half_up_and_raw_scores_feed_r_and_smd():
    assert round_half_up([0.5, 1.5, 2.5, 2.49999, -0.5, 0.49999999999999994]).tolist() == [1, 2, 3, 2, 0, 0]
    s = agreement([2.5, 4.0], [3.0, 4.4])  # rounded: 3=3 and 4=4, exact agreement 1
    assert s.exact_agreement == 1.0
    assert s.mean_human == 3.25 and s.mean_pred == pytest.approx(3.7)


def test_rounded_values_outside_the_scale_are_clipped_and_counted():
    s = agreement([10.6, 3], [10, 3])
    assert s.exact_agreement == 1.0 and s.n_clipped == 1


def test_rows_without_a_mark_or_a_score_are_left_out():
    s = agreement([1, None, 3, math.nan, 2], [1, 2, math.nan, 4, 2])
    assert s.n == 2 and s.n_rows == 5
    assert s.n_without_label == 2 and s.n_without_pred == 1
    assert "left out" in render_text(s)


def test_undefined_statistics_are_none():
    s = agreement([3, 3, 3], [3, 3, 3])
    assert s.exact_agreement == 1.0
    assert s.qwk is None and s.pearson_r is None and s.smd is None
    assert s.qwk_ok is None
    empty = agreement([], [])
    assert empty.n == 0 and empty.mean_human is None and empty.exact_agreement is None


def test_qwk_matches_a_direct_double_sum():
    rng = np.random.default_rng(7)
    h = rng.integers(0, 11, 200)
    p = np.clip(h + rng.integers(-2, 3, 200), 0, 10)
    n = len(h)
    num = sum((a - b) ** 2 for a, b in zip(h, p))
    hist_h = np.bincount(h, minlength=11)
    hist_p = np.bincount(p, minlength=11)
    den = sum((i - j) ** 2 * hist_h[i] * hist_p[j] for i in range(11) for j in range(11)) / n
    assert quadratic_weighted_kappa(h, p) == pytest.approx(1 - num / den)
    assert quadratic_weighted_kappa(h, h) == 1.0


def test_json_form_has_the_required_keys():
    d = agreement(HUMAN, PRED).to_dict()
    for key in ("n", "exact_agreement", "adjacent_agreement", "qwk", "pearson_r", "smd", "confusion"):
        assert key in d
    assert len(d["confusion"]) == 11 and all(len(row) == 11 for row in d["confusion"])
    assert d["thresholds"] == {"qwk": 0.7, "smd": 0.15}


def test_html_is_self_contained_with_two_figures():
    pytest.importorskip("matplotlib")
    page = render_html(agreement(HUMAN, PRED), "t <&>", "mark", "coscore_score")
    assert page.count("data:image/png;base64,") == 2
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "t &lt;&amp;&gt;" in page
    assert "meets QWK" in page and "below |SMD|" in page


def test_read_scored_csv(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("mark,coscore_score\n1,1.0\n,2.0\n3,\n4, 4.5 \n", encoding="utf-8")
    human, pred = read_scored(path, "mark")
    assert np.isnan(human[1]) and np.isnan(pred[2])
    assert human[3] == 4 and pred[3] == 4.5


def test_read_scored_errors(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("mark,coscore_score\n1,1.0\nabc,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected a number") as info:
        read_scored(path, "mark")
    assert info.value.line == 3 and info.value.column == "mark"
    with pytest.raises(InputError, match="no such column") as info:
        read_scored(path, "teacher")
    assert info.value.column == "teacher"
