"""What scoring gives back: Outcome, Batch, AtomCall and the one-line failure message."""
from __future__ import annotations

import math

import numpy as np
import pytest

import coscore
from coscore.results import AtomCall, Batch, Outcome, failure_message


def test_the_public_names_are_the_results_modules():
    assert (coscore.Outcome, coscore.Batch, coscore.AtomCall) == (Outcome, Batch, AtomCall)
    assert coscore.rule.Outcome is Outcome and coscore.rule.Batch is Batch  # older imports still work


def test_outcome_ok_and_frozen():
    assert Outcome(3.0, {"A": 3.0}).ok
    failed = Outcome(None, {}, "combos.A: division by zero")
    assert not failed.ok
    with pytest.raises(AttributeError):
        failed.score = 1.0  # type: ignore[misc]


def test_batch_rows_are_outcomes_and_failed_is_a_mask():
    batch = Batch(np.array([2.0, math.nan, 0.5]), [None, "combos.B: division by zero", None],
                  {"A": np.array([2.0, 1.0, 0.5]), "B": np.array([0.0, math.nan, 0.0])})
    assert len(batch) == 3
    assert batch[0] == Outcome(2.0, {"A": 2.0, "B": 0.0})
    assert batch[1] == Outcome(None, {"A": 1.0}, "combos.B: division by zero")  # combos up to the failing one
    assert batch.failed.tolist() == [False, True, False]


@pytest.mark.parametrize(
    ("results", "exc", "message"),
    [
        ([], ZeroDivisionError("float division by zero"), "combos.A: division by zero"),
        ([1], KeyError("atom 9 does not exist"), "combos.B: atom 9 does not exist"),
        ([1, 2], TypeError("first line\nsecond line"), "score: first line"),
        ([1, 2], OverflowError(), "score: OverflowError"),
    ],
)
def test_failure_message_names_the_failing_combo(results, exc, message):
    assert failure_message(["A", "B"], results, exc) == message


def test_failure_message_of_a_rule_without_combos_blames_the_total():
    assert failure_message([], [], ValueError("max() arg is an empty sequence")) == "score: max() arg is an empty sequence"
