"""Figures from confusion matrices and their bootstrap (coscore.report: confusion_figures,
confusion_resamples, confusion_intervals), as the workbench's dataset view uses them."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coscore.report import (
    agreement,
    cohen_kappa,
    confusion_figures,
    confusion_intervals,
    confusion_resamples,
    quadratic_weighted_kappa,
)

pairs = st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), max_size=80)


def same(a, b) -> bool:
    return (a is None and (b is None or math.isnan(b))) or a == b


@settings(max_examples=300, deadline=None)
@given(pairs)
def test_the_figures_of_one_matrix_are_the_report_figures(rows):
    human = [h for h, _ in rows]
    pred = [p for _, p in rows]
    found = agreement(human, pred)
    figures = confusion_figures(found.confusion)
    assert same(quadratic_weighted_kappa(human, pred), float(figures["qwk"]))
    assert same(cohen_kappa(human, pred), float(figures["kappa"]))
    assert same(found.qwk, float(figures["qwk"])) and same(found.kappa, float(figures["kappa"]))
    assert same(found.exact_agreement, float(figures["exact_agreement"]))
    assert same(found.adjacent_agreement, float(figures["adjacent_agreement"]))


@settings(max_examples=100, deadline=None)
@given(st.lists(pairs, min_size=1, max_size=5))
def test_a_stack_of_matrices_gives_each_ones_figures(samples):
    matrices = np.array([agreement([h for h, _ in rows], [p for _, p in rows]).confusion for rows in samples])
    stacked = confusion_figures(matrices)
    for i, matrix in enumerate(matrices):
        alone = confusion_figures(matrix)
        for name, values in stacked.items():
            assert np.allclose(values[i], alone[name], rtol=1e-12, atol=0, equal_nan=True)


def test_resamples_keep_the_number_of_rows_and_repeat_with_the_seed():
    confusion = np.diag([5, 0, 3] + [0] * 8)
    confusion[0, 2] = 2
    draws = confusion_resamples(confusion, count=50, seed=7)
    assert draws.shape == (50, 11, 11) and (draws.sum(axis=(1, 2)) == 10).all()
    assert (draws[:, confusion == 0] == 0).all()  # only cells that hold rows are drawn
    assert (confusion_resamples(confusion, count=50, seed=7) == draws).all()
    assert not confusion_resamples(np.zeros((11, 11), int), count=3).any()


def test_intervals_hold_the_estimate_and_are_none_where_undefined():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 11, 5000)
    pred = np.clip(human + rng.integers(-2, 3, 5000), 0, 10)
    found = agreement(human, pred)
    intervals = confusion_intervals(found.confusion)
    for name in ("qwk", "kappa", "exact_agreement", "adjacent_agreement"):
        lo, hi = intervals[name]
        assert lo <= getattr(found, name) <= hi and hi - lo < 0.05
    same_everywhere = confusion_intervals(agreement([4] * 20, [4] * 20).confusion)
    assert same_everywhere["qwk"] is None and same_everywhere["exact_agreement"] == (1.0, 1.0)
