"""The search's shared scoring (coscore.tune.outcomes) equals scoring each setting's own
rule, whatever the moves: thresholds (only the answers a move can reach are scored
again), combos left out and put back, scores (arithmetic on the unit columns)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from coscore.tune.outcomes import Outcomes
from coscore.tune.space import SCORES, THRESHOLDS, Space, State

KEYS = ["红灯停车", "绿灯前进", "左转", "abc"]
COMBOS = [
    "M(0, T(0))",
    "G(0, T(0)) or G(1, T(1))",          # the second call runs only when the first misses
    "G(1, T('*')) and not G(0, T(1))",
    "1 / M(0, T(0)) if G(2, T(0)) else 0",   # fails when atom 0 misses and atom 2 hits
    "M(1, T(0) + T(1)) * 2",
    "G(2, T(1))",
]
ALPHABET = "红灯停车绿前进左转abc ，"


def _rule(kinds: list[str], thresholds: list[float], combos: list[int], mode: str, scores: list[int]) -> dict:
    atoms = {
        "0": {"type": kinds[0], "desc": f"{thresholds[0]}:{KEYS[0]},{KEYS[1]}"},
        "1": {"type": kinds[1], "desc": f"{thresholds[1]}:{KEYS[2]},{KEYS[3]}"},
        "2": {"type": "SM", "desc": "红,绿|左"},
    }
    chosen = {chr(65 + k): {"combo": COMBOS[c], "score": s, "mode": "logic" if c in (1, 2, 5) else "value"}
              for k, (c, s) in enumerate(zip(combos, scores))}
    return {"atoms": atoms, "combos": chosen, "comboMode": mode}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)] + 0.0, b[~np.isnan(b)] + 0.0))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(st.sampled_from(["OP", "CS"]), min_size=2, max_size=2),
    thresholds=st.lists(st.sampled_from(THRESHOLDS), min_size=2, max_size=2),
    combos=st.lists(st.integers(0, len(COMBOS) - 1), min_size=1, max_size=4),
    mode=st.sampled_from(["ADD", "MAX"]),
    answers=st.lists(st.lists(st.text(ALPHABET, max_size=8), min_size=2, max_size=2), min_size=1, max_size=25),
    moves=st.lists(st.tuples(st.sampled_from(["threshold", "score", "drop"]), st.integers(0, 3),
                             st.integers(0, 20)), max_size=8),
)
def test_shared_scoring_equals_each_rules_own(kinds, thresholds, combos, mode, answers, moves):
    source = _rule(kinds, thresholds, combos, mode, [3] * len(combos))
    rule = coscore.compile(source)
    space = Space(source, rule, drop=True)
    outcomes = Outcomes(space, answers)
    everything = np.arange(len(answers))
    state = space.original
    outcomes.pin(state)
    assert _same(outcomes.scores(state), outcomes.exact(state, everything))
    for kind, which, value in moves:
        if kind == "threshold":
            i = which % len(space.atoms)
            values = list(state.thresholds)
            values[i] = THRESHOLDS[value % len(THRESHOLDS)]
            after = State(tuple(values), state.scores, state.dropped)
        elif kind == "score":
            j = which % len(space.combos)
            values = list(state.scores)
            values[j] = SCORES[value % len(SCORES)]
            after = State(state.thresholds, tuple(values), state.dropped)
        else:
            name = space.combos[which % len(space.combos)]
            dropped = state.dropped ^ {name}
            if len(dropped) == len(space.combos):
                continue
            after = State(state.thresholds, state.scores, frozenset(dropped))
        assert _same(outcomes.scores(after, state), outcomes.exact(after, everything)), (kind, after)
        state = after
        outcomes.pin(state)


def test_a_threshold_move_scores_only_the_answers_it_reaches():
    source = {"atoms": {"0": {"type": "OP", "desc": "0.5:红灯停车"}},
              "combos": {"A": {"combo": "M(0, T(0))", "score": 4, "mode": "value"}}, "comboMode": "ADD"}
    space = Space(source, coscore.compile(source))
    answers = [["红灯"], ["红灯停"], ["停车"], ["绿灯"], ["红灯停车"]]   # best 0.5, 0.75, 0.5, 0.25, 1
    outcomes = Outcomes(space, answers)
    state = space.original
    outcomes.pin(state)
    outcomes.scores(state)
    before = outcomes.work.answers_scored
    outcomes.scores(State((0.8,), state.scores), state)       # reaches 0.5 and 0.75: three answers
    assert outcomes.work.answers_scored - before == 3
    outcomes.scores(State((0.55,), state.scores), state)      # reaches 0.5 twice
    assert outcomes.work.answers_scored - before == 5
    outcomes.scores(State((0.5,), (7,)), state)               # a score: no scoring at all
    assert outcomes.work.answers_scored - before == 5
    assert outcomes.work.probed == 5                          # each text's best similarity once
