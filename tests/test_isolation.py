"""Batch isolation: one answer never changes another's result, and ``score_many`` accepts
exactly the answers ``score`` accepts.

A batch is deduplicated; the key an answer is deduplicated on must not let a malformed
answer (a dict, an iterator, bytes, a ``str`` subclass…) pass for a well-formed one, nor
the other way round. A hypothesis fuzz test mixes malformed answers into batches and
checks every answer of ``score_many`` against ``score``, on demo and conformance rules.
"""
from __future__ import annotations

import collections
import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from conftest import DEMO, assert_batch_matches_score, load_cases
from support import examples

EM = {"atoms": {"0": {"type": "EM", "desc": "a"}}, "combos": {"A": {"combo": "G(0, T(0))", "score": 5, "mode": "logic"}},
      "comboMode": "ADD"}
#: the same rule on the reference path (string repetition keeps it off the columnar one)
EM_REFERENCE = {**EM, "combos": {"A": {"combo": "G(0, T(0) * 1)", "score": 5, "mode": "logic"}}}


def _check_batch(rule: coscore.Rule, answers: list, **options) -> coscore.Batch:
    """``score_many`` of ``answers`` equals ``score`` of each, exactly; returns the batch."""
    batch = rule.score_many(answers, **options)
    assert_batch_matches_score(rule, answers, batch)
    return batch


class Text(str):
    """A ``str`` subclass, equal to (and hashing as) its text."""


class Blanks(list):
    """A ``list`` subclass whose own iteration lies: the engine reads the list's items."""

    def __iter__(self):
        return iter(["a"])


class Pair(tuple):
    """A ``tuple`` subclass whose own iteration fails."""

    def __iter__(self):
        raise RuntimeError("never called")


class Unhashable:
    __hash__ = None  # type: ignore[assignment]


class _HostileMeta(type):
    def __hash__(cls):
        raise ValueError("no hash for the class")

    def __eq__(cls, other):
        raise ValueError("no equality for the class")


class Hostile(metaclass=_HostileMeta):
    """An object whose type cannot be hashed or compared."""


class HashFails:
    def __hash__(self):
        raise ValueError("no hash")

    def __eq__(self, other):
        raise ValueError("no equality")


# -- the reproducers --------------------------------------------------------------------


@pytest.mark.parametrize("source", [EM, EM_REFERENCE], ids=["columnar", "reference"])
@pytest.mark.parametrize("valid, malformed", [
    (["a"], {"a": 1}),
    (["a"], lambda: iter(["a"])),
    (["a"], lambda: np.str_("a")),
    ("a", lambda: Text("a")),
    ([], {}),
    ([], set()),
    ([97], b"a"),
    (["a"], bytearray(b"a")),
    (["a"], lambda: np.array(["a"])),
    (["a"], lambda: Blanks(["b"])),
    (["a", "b"], lambda: Pair(("a", "b"))),
    ([1], [1.0]),
    ([1], [True]),
    ([1.0], [True]),
    ([["a"]], [("a",)]),
], ids=lambda value: "made" if getattr(value, "__name__", "") == "<lambda>" else repr(value))  # stable ids
def test_a_malformed_answer_never_shares_a_valid_answers_result(source, valid, malformed):
    rule = coscore.compile(source)
    make = malformed if callable(malformed) else (lambda: malformed)
    for answers in ([valid, make()], [make(), valid], [valid, make(), valid, make()]):
        _check_batch(rule, answers)


def test_the_issue_reproducers():
    rule = coscore.compile(EM_REFERENCE)
    batch = rule.score_many([["a"], {"a": 1}])
    assert batch.scores[0] == 5.0 and batch.errors[0] is None
    assert batch.errors[1] == "answer: an answer is a list of blanks or a string, not dict"
    batch = rule.score_many([{"a": 1}, ["a"]])
    assert batch.errors[0] is not None and batch.scores[1] == 5.0 and batch.errors[1] is None


@pytest.mark.parametrize("source", [EM, EM_REFERENCE], ids=["columnar", "reference"])
def test_str_subclasses_are_refused_alike(source):
    """The contract: a blank is a Python ``str``. ``score`` refuses a blank of a ``str``
    subclass (``numpy.str_``) when a combo reads it, and so does ``score_many``."""
    rule = coscore.compile(source)
    for answer in (np.str_("a"), [np.str_("a")], Text("a"), (Text("a"),), ["a", np.str_("b")]):
        expected = rule.score(answer)
        batch = rule.score_many([answer, "a", answer])
        assert [batch.errors[0], batch.errors[2]] == [expected.error] * 2
        assert batch.errors[1] is None and batch.scores[1] == 5.0
    assert rule.score(np.str_("a")).error == "combos.A: blank 0 is str_, not a string"
    assert rule.score(str(np.str_("a"))).score == 5.0  # convert with str()


def test_a_blank_that_is_never_read_is_not_checked():
    """Blanks are checked where a combo reads them, in a batch as alone."""
    rule = coscore.compile({**EM, "combos": {"A": {"combo": "G(0, T(1))", "score": 5, "mode": "logic"}}})
    answers = [[None, "a"], [np.str_("x"), "a"], ["x", "a"], [{}, np.str_("a")]]
    batch = _check_batch(rule, answers)
    assert list(batch.scores[:3]) == [5.0] * 3 and batch.errors[3] == "combos.A: blank 1 is str_, not a string"


def test_answers_that_would_run_code_or_never_end_are_refused_at_once():
    rule = coscore.compile(EM_REFERENCE)
    answers = [itertools.count(), itertools.repeat("a"), (c for c in "a"), Unhashable(), HashFails(),
               [Unhashable(), "a"], [HashFails()], [Hostile()], Hostile(), [1, Hostile()], ["a"]]
    batch = rule.score_many(answers)
    assert batch.errors[-1] is None and batch.scores[-1] == 5.0
    assert all(e is not None for e in batch.errors[:-1])
    assert batch.errors[:5] == [rule.score(a).error for a in answers[:5]]


def test_list_and_tuple_subclasses_are_read_by_their_items():
    rule = coscore.compile(EM_REFERENCE)
    assert rule.score(Blanks(["b"])).score == 0.0  # its own __iter__ says ["a"]: not asked
    assert rule.score(Pair(("a",))).score == 5.0
    _check_batch(rule, [Blanks(["b"]), ["a"], Pair(("a",)), ("a",), "a"])


# -- the fuzz test ----------------------------------------------------------------------

CASES = load_cases()
_CONFORMANCE = list({json.dumps(c["rule"], sort_keys=True): c["rule"] for c in CASES}.values())


def _conformance_rules() -> dict[str, dict]:
    """Conformance rules of every kind of batch path: deduplicated on one blank, on the
    joined blanks, on whole answers, and the reference path."""
    picked: dict[str, dict] = {}
    wanted = collections.Counter()
    for i, source in enumerate(_CONFORMANCE):
        try:
            plan = coscore.compile(source).plan
        except coscore.RuleError:
            continue
        kind = "reference" if plan.columnar is None else f"key={plan.columnar.key!r}"
        if wanted[kind] < 2:
            wanted[kind] += 1
            picked[f"conformance-{i}-{kind}"] = source
    return picked


RULES = {
    **{path.name.removesuffix(".rule.json"): json.loads(path.read_text(encoding="utf-8"))
       for path in sorted(DEMO.glob("*.rule.json"))},
    **_conformance_rules(),
    "em": EM,
    "em-reference": EM_REFERENCE,
    "joined": {"atoms": {"0": {"type": "SM", "desc": "ab,c|😀"}},
               "combos": {"A": {"combo": "M(0, T('*'))", "score": 2, "mode": "value"},
                          "B": {"combo": "Q('*') >= 2", "score": 1, "mode": "logic"}}, "comboMode": "ADD"},
    "two-blanks": {"atoms": {"0": {"type": "OP", "desc": "0.5:abc"}, "1": {"type": "CS", "desc": "0.3:a😀"}},
                   "combos": {"A": {"combo": "G(0, T(0)) and G(1, T(1))", "score": 3, "mode": "logic"},
                              "B": {"combo": "10 / L(1)", "score": 1, "mode": "value"}}, "comboMode": "MAX"},
}
COMPILED = {name: coscore.compile(source) for name, source in RULES.items()}

_ALPHABET = st.sampled_from(["a", "b", "c", "ab", "abc", "null", "", " 7 ", "1", "😀", "\U00010000", "\ud800",
                             "\udfff", "\x00", "爱", "祖国", "国家", "回", "前进", "障碍", "nan"])
_TEXT = st.lists(_ALPHABET, max_size=4).map("".join)
_BLANKS = st.lists(_TEXT, max_size=4)
_ODD_BLANK = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True), st.none(), st.booleans(), st.binary(max_size=3),
                       _TEXT.map(Text), _TEXT.map(np.str_), st.lists(_TEXT, max_size=2), _TEXT.map(lambda s: (s,)),
                       st.dictionaries(_TEXT, st.integers(), max_size=2))
_MALFORMED = st.one_of(
    st.dictionaries(_TEXT, st.integers(), max_size=3),
    _BLANKS.map(iter),
    _BLANKS.map(frozenset),
    st.binary(max_size=4),
    _TEXT.map(lambda s: bytearray(s.encode("utf-8", "surrogatepass"))),
    st.integers(),
    st.floats(allow_nan=True),
    st.none(),
    st.booleans(),
    _TEXT.map(Text),
    _TEXT.map(np.str_),
    _BLANKS.map(lambda b: np.array(b, dtype=object)),
    _BLANKS.map(Blanks),
    _BLANKS.map(lambda b: Pair(tuple(b))),
    st.lists(st.one_of(_TEXT, _ODD_BLANK), min_size=1, max_size=4),
    st.lists(_BLANKS, max_size=3),
)
_VALID = st.one_of(_TEXT, _BLANKS, _BLANKS.map(tuple))
_ANSWER = st.one_of(_VALID, _VALID, _MALFORMED)


@st.composite
def _batches(draw):
    answers = draw(st.lists(_ANSWER, max_size=24))
    # repeat some answers and shuffle, so equal and look-alike answers meet in one chunk
    repeats = draw(st.lists(st.sampled_from(range(len(answers))), max_size=12)) if answers else []
    order = draw(st.permutations(list(range(len(answers))) + repeats))
    return [answers[i] for i in order]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(RULES)), batch=_batches(), chunk_size=st.sampled_from([None, None, 1, 3, 8]),
       jobs=st.sampled_from([1, 1, 2]))
def test_score_many_equals_score_answer_by_answer_with_malformed_answers(name, batch, chunk_size, jobs):
    _check_batch(COMPILED[name], batch, chunk_size=chunk_size, jobs=jobs)


# -- over HTTP --------------------------------------------------------------------------


def test_v1_score_gives_each_colliding_answer_its_own_result():
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from coscore.server import create_app

    rule = coscore.compile(EM_REFERENCE)
    answers = [["a"], {"a": 1}, [], {}, "a", ["a", 1], [97], [1], [1.0], [True], None, ["a"]]
    with TestClient(create_app(workers=1)) as client:
        for batch in (answers, answers[::-1]):
            response = client.post("/v1/score", json={"rule": EM_REFERENCE, "answers": batch})
            assert response.status_code == 200, response.text
            body = response.json()
            for i, answer in enumerate(batch):
                outcome = rule.score(answer)
                assert body["errors"][i] == outcome.error, (i, answer)
                assert body["scores"][i] == outcome.score, (i, answer)
