"""Budgets: each answer's and each rule's, on every path; compile raises only RuleError."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from coscore import atoms as atoms_module
from coscore.diagnostics import MESSAGE_LIMIT
from coscore.limits import DEFAULT_LIMITS, BudgetExceeded, Limits
from coscore.reading import read
from support import examples


def rule(atoms: dict, *combos: str, mode: str = "value") -> dict:
    return {"atoms": atoms, "comboMode": "ADD",
            "combos": {f"C{i}": {"combo": c, "score": 1, "mode": mode} for i, c in enumerate(combos)}}


def same_outcomes(r: coscore.Rule, answers: list) -> None:
    """``score_many`` (columnar where it can) gives what ``score`` gives, answer by answer."""
    batch = r.score_many(answers)
    for i, answer in enumerate(answers):
        one, many = r.score(answer), batch[i]
        assert many.error == one.error, (answer if len(str(answer)) < 200 else len(str(answer)), i)
        assert many.combos == one.combos
        assert (many.score == one.score) or (many.score is None and one.score is None)


# -- the Limits object ---------------------------------------------------------------------


def test_limits_are_exported_frozen_and_checked():
    assert coscore.Limits is Limits and coscore.BudgetExceeded is BudgetExceeded
    assert Limits() == DEFAULT_LIMITS and hash(Limits()) == hash(DEFAULT_LIMITS)
    with pytest.raises(AttributeError):
        DEFAULT_LIMITS.max_work = 1  # type: ignore[misc]
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="max_work"):
            Limits(max_work=bad)
    with pytest.raises(TypeError, match="Limits"):
        coscore.compile(rule({}, "1"), limits={"max_work": 5})
    r = coscore.compile(rule({}, "1"), limits=Limits(max_work=5))
    assert r.limits == Limits(max_work=5) and coscore.compile(rule({}, "1")).limits == DEFAULT_LIMITS


# -- answer budgets --------------------------------------------------------------------------


def test_600_joins_on_a_huge_answer_stop_at_the_built_characters_budget():
    combo = "+".join(["M(0,T(0)+'<i>')"] * 600)
    r = coscore.compile(rule({"0": {"type": "EM", "desc": "x"}}, combo))
    answer = ["a" * 9_999_000]
    expected = ("combos.C0: answer budget exceeded: combos built more than 10,000,000 characters "
                "(limit max_built_chars)")
    assert r.score(answer).error == expected
    assert r.score_many([answer, ["x"]]).errors == [expected, None]
    assert r.score_many([answer, ["x"]])[1].score == 600 * 0  # "x<i>" is not "x"
    raised = coscore.compile(r.spec.source, limits=Limits(max_built_chars=10_000_000 * 601))
    assert raised.score(["ab"]).score == 0.0 and raised.score(["ab"]).error is None
    with pytest.raises(BudgetExceeded) as info:
        r.evaluate(answer, [])
    assert info.value.budget == "max_built_chars" and info.value.limit == 10_000_000


def test_the_built_budget_counts_every_join_and_repetition():
    small = Limits(max_built_chars=10)
    r = coscore.compile(rule({}, "T(0) + T(0) == 'x'", mode="logic"), limits=small)
    assert r.score(["abcde"]).error is None      # 10 characters
    assert "max_built_chars" in r.score(["abcdef"]).error
    r = coscore.compile(rule({}, "T(0) * 2 == 'x'", "T(0) + 'y' == 'x'", mode="logic"), limits=small)
    assert r.score(["abc"]).error is None        # 6 + 4
    assert "max_built_chars" in r.score(["abcd"]).error  # 8 + 5, stopped in the second combo
    assert r.score(["abcd"]).error.startswith("combos.C1:")
    # an operand that never runs builds nothing
    r = coscore.compile(rule({}, "Q(0) or T(0) * 3 == 'x'", mode="logic"), limits=Limits(max_built_chars=3))
    assert r.score([""]).error is None and "max_built_chars" in r.score(["ab"]).error


@pytest.mark.parametrize("combos", [
    ("G(0, T(0) + T(1))", "M(0, 'x' + T(0) + 'y')"),
    ("G(0, (T(0) or 'zz') + T(1))", "T(0) + T(1) == 'ab'"),
    ("G(0, T(0) + T(1) if Q(1) else T(1) + 'q')",),
    ("M(0, T(0) + T(0))", "M(1, T(0) + T(0))", "M(0, T(1) + 'abc')"),
])
def test_score_many_agrees_with_score_at_the_built_budget(combos):
    atoms = {"0": {"type": "SM", "desc": "ab,ba"}, "1": {"type": "OP", "desc": "0.5:abcab"}}
    answers = [[a, b] for a in ("", "a", "ab" * 3, "ab" * 5, "null") for b in ("", "b", "ba" * 4, "x" * 9)]
    for limit in (1, 5, 9, 12, 15, 20, 30, 10**6):
        r = coscore.compile(rule(atoms, *combos), limits=Limits(max_built_chars=limit))
        same_outcomes(r, answers * 2)


def test_the_freeze_rule_stops_at_the_work_budget_before_the_work():
    r = coscore.compile(rule({"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}}, "G(0, T(0))"))
    assert r.atoms["0"].work == 60_000
    answer = ["a" * 1_000_000]
    expected = ("combos.C0: answer budget exceeded: atom calls needed more than 2,000,000,000 units of "
                "kernel work (limit max_work)")
    assert r.score(answer).error == expected
    assert r.score_many([answer, ["a"]]).errors == [expected, None]
    op = coscore.compile(rule({"0": {"type": "OP", "desc": "0.5:" + "ab" * 500_000}}, "G(0, T(0))"))
    assert "max_work" in op.score(["ba" * 500_000]).error
    assert op.score(["ba" * 50]).error is None


def test_work_is_the_text_length_times_the_atoms_work_per_character():
    spec = rule({"0": {"type": "SM", "desc": "ab|cd,~x|ef,!q|g"}, "1": {"type": "EM", "desc": "a"},
                 "2": {"type": "OP", "desc": "0.1:" + ",".join(["k" * 9] * 17 + ["k" * 70])},
                 "3": {"type": "CS", "desc": "0.1:" + ",".join(["k"] * 33)}}, "1")
    r = coscore.compile(spec)
    # SM: one pass for the leading options, then ~x (3) and its plain ef (1), !q (2) and g (1)
    assert [r.atoms[i].work for i in "0123"] == [1 + 3 + 1 + 2 + 1, 1, 1 + 1 + 2, 1 + 3]
    # M(1, T(0)) on "abc" costs (3 + 1) * 1; twice the same call counts once
    r = coscore.compile(rule({"0": {"type": "EM", "desc": "a"}}, "M(0, T(0)) + M(0, T(0)) + M(0, T(1))"),
                        limits=Limits(max_work=8))
    assert r.score(["abc", "abc"]).error is None  # 4 + 4
    assert "max_work" in r.score(["abc", "abcd"]).error


@pytest.mark.parametrize("combos", [
    ("G(0, T(0))", "M(1, T(0))"),
    ("G(0, T(0)) or G(1, T(1))", "M(2, T(0) + T(1))"),
    ("G(0, T(0)) and G(1, T(0))", "G('0', T(0))", "G(0, T(1)) if Q(0) else M(2, T(0))"),
    ("M(0, T(0)) + M(0, T(1)) + M(1, T(0))",),
])
def test_score_many_agrees_with_score_at_the_work_budget(combos):
    atoms = {"0": {"type": "SM", "desc": "ab,~b|c,!x|d"}, "1": {"type": "OP", "desc": "0.3:abcab,xy"},
             "2": {"type": "CS", "desc": "0.2:abc"}}
    answers = [[a, b] for a in ("", "ab", "abc" * 3, "x" * 20) for b in ("", "cd", "d" * 15)]
    for limit in (1, 5, 10, 20, 40, 80, 160, 10**6):
        r = coscore.compile(rule(atoms, *combos), limits=Limits(max_work=limit))
        same_outcomes(r, answers)
        same_outcomes(r, [a[0] for a in answers])  # one-blank answers: the columnar view path


def test_the_atom_call_budget():
    combo = " + ".join(f"M(0, T(0) + '{i}')" for i in range(5))
    r = coscore.compile(rule({"0": {"type": "EM", "desc": "a0"}}, combo), limits=Limits(max_atom_calls=4))
    expected = "combos.C0: answer budget exceeded: more than 4 distinct atom calls (limit max_atom_calls)"
    assert r.score(["a"]).error == expected
    assert r.score_many([["a"], ["b"]]).errors == [expected, expected]
    r = coscore.compile(rule({"0": {"type": "EM", "desc": "a"}}, "M(0, T(0)) + M(0, T(0)) + M(0, T(0))"),
                        limits=Limits(max_atom_calls=1))
    assert r.score(["a"]).score == 3.0  # the same call, cached
    same_outcomes(r, [["a"], ["b"], ["a"]])


def test_explain_and_the_compatible_evaluate_keep_the_budgets():
    from coscore.explain import explain

    r = coscore.compile(rule({}, "T(0) + T(0) == 'x'", mode="logic"), limits=Limits(max_built_chars=4))
    e = explain(r, ["abc"])
    assert "max_built_chars" in e.combos[0].expression_error
    with pytest.raises(BudgetExceeded):
        r.evaluate(["abc"], [])


# -- rule budgets ------------------------------------------------------------------------------


def wide_atoms(kind: str, count: int) -> dict:
    """``count`` atoms whose characters span 60 blocks of 256 code points each (~70 KB of tables)."""
    out = {}
    for i in range(count):
        chars = "".join(chr(0x4E00 + 256 * k + i % 256) for k in range(60))
        out[str(i)] = {"type": kind, "desc": {"SM": chars + "," + chars[::-1]}.get(kind, "0.5:" + chars)}
    return out


@pytest.mark.parametrize("kind", ["SM", "OP", "CS"])
def test_large_tables_are_refused_before_they_are_built(kind):
    spec = rule(wide_atoms(kind, 40), "G(0, T(0))")
    estimates = [atoms_module.table_bytes(a) for a in read(spec).atoms.values()]
    estimate = sum(kept for kept, _ in estimates) + max(building for _, building in estimates)
    assert 40 * 60_000 < estimate < 40 * 90_000
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(spec, limits=Limits(max_table_bytes=1_000_000))
    (d,) = info.value.diagnostics
    assert d.path == "atoms" and "(limit max_table_bytes)" in d.message and "atoms.0 " in d.message
    assert d.message.startswith(f"rule budget exceeded: {estimate:,} bytes of match tables (estimated), "
                                "more than 1,000,000")
    assert coscore.compile(spec, limits=Limits(max_table_bytes=estimate)).score(["x"]).error is None


def test_the_tables_of_huge_rules_are_refused_by_default():
    many = rule({str(i): {"type": "OP", "desc": "0.5:" + chr(0x10000 + i)} for i in range(4)}, "G(0, T(0))")
    many["atoms"]["0"]["desc"] = "0.5:" + ",".join(chr(0x10000 + i * 3 % 60000) for i in range(150_000))
    with pytest.raises(coscore.RuleError, match=r"limit max_table_bytes"):
        coscore.compile(many)


@pytest.mark.parametrize("budget, spec", [
    ("max_atoms", rule({str(i): {"type": "EM", "desc": "a"} for i in range(4)}, "1")),
    ("max_combos", rule({}, "1", "2", "3", "4")),
    ("max_keys", rule({"0": {"type": "EM", "desc": "a"}, "1": {"type": "OP", "desc": "0.1:a,b,c"}}, "1")),
    ("max_options", rule({"0": {"type": "SM", "desc": "a|b,c"}, "1": {"type": "SM", "desc": "d"}}, "1")),
])
def test_rule_counts(budget, spec):
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(spec, limits=Limits(**{budget: 3}))
    message = str(info.value)
    assert f"more than 3 (limit {budget})" in message and message.count("\n") == 0
    assert coscore.compile(spec, limits=Limits(**{budget: 4})).combo_ids


def test_default_rule_budgets():
    assert Limits().max_atoms == 10_000 and Limits().max_table_bytes == 256 * 2**20
    spec = rule({str(i): {"type": "EM", "desc": "a"} for i in range(10_001)}, "1")
    with pytest.raises(coscore.RuleError, match=r"10,001 atoms, more than 10,000 \(limit max_atoms\)"):
        coscore.compile(spec)


# -- compile raises RuleError only ----------------------------------------------------------------


@pytest.mark.parametrize("source", [
    rule({}, "'\\N{\ud800}' == T(0)"),
    '{"atoms":{},"combos":{"A":{"combo":"T(0)","score":1' + "0" * 5000 + ',"mode":"logic"}},"comboMode":"ADD"}',
    rule({}, "T(0)") | {"combos": {"A": {"combo": "T(0)", "score": 10**400, "mode": "logic"}}},
    rule({}, "T(0)") | {"combos": {"A": {"combo": "T(0)", "score": 10**5000, "mode": "logic"}}},
    rule({"0": {"type": "OP", "desc": "0.5:" + ",".join(chr(0x10000 + i % 60000) for i in range(300_000))}},
         "G(0, T(0))"),
    "[" * 100_000 + "]" * 100_000,
    '{"atoms":' + "[" * 100_000 + "]" * 100_000 + "}",
    rule({"\ud800": {"type": "XX", "desc": "a"}}, "G('\ud800', T(0))"),
    12, ["atoms"], None, b"\xff\xfe", b'{"atoms": {}}',
])
def test_compile_raises_only_rule_errors(source):
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(source)
    for d in info.value.diagnostics:
        assert len(d.message) <= MESSAGE_LIMIT
        str(d).encode("utf-8")   # printable, lone surrogates and all
        json.dumps(d.to_dict(), ensure_ascii=False).encode("utf-8")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)
_PIECES = ["T(", "G(", "M(", "U(", "X(", "A(", "L(", "Q(", "F(", "S(", "0", "1", "'*'", ")", ",", "+", "*",
           "-", "/", " and ", " or ", "not ", " if ", " else ", "==", "<", "'a'", "'\\N{", "}", "\\", "\ud800",
           "1e999", "9" * 30, "(", "#", "\n", "ｎｏｔ ", "Ｔ(", "True", "'''", '"', "\r", "\x00", "lambda", ".x"]
_COMBO = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join) | st.text(max_size=20)
_DESC = st.text(alphabet=st.sampled_from(list("ab:,|~!0.5 \u4e00\U00010000\ud800")), max_size=16)
_ATOM = st.fixed_dictionaries({"type": st.sampled_from(["EM", "SM", "OP", "CS", "XX", 1]), "desc": _DESC | _JSON})
_RULE = st.fixed_dictionaries({
    "atoms": st.dictionaries(st.sampled_from(["0", "1", "2", "\ud800", ""]), _ATOM | _JSON, max_size=3) | _JSON,
    "combos": st.dictionaries(st.text(max_size=2), st.fixed_dictionaries({
        "combo": _COMBO | _JSON,
        "score": st.integers() | st.floats(allow_nan=True) | st.just(10**400) | _JSON,
        "mode": st.sampled_from(["logic", "value", "x"]) | _JSON,
    }) | _JSON, max_size=3) | _JSON,
    "comboMode": st.sampled_from(["ADD", "MAX", "add"]) | _JSON,
}, optional={"dialect": st.sampled_from(["coscore", "manual", "x"]) | _JSON})


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=_RULE | _JSON | st.text(max_size=40), as_text=st.booleans())
def test_fuzzed_rules_compile_or_raise_rule_error(source, as_text):
    if as_text and not isinstance(source, str):
        try:
            source = json.dumps(source, ensure_ascii=False)
        except ValueError:
            pass
    try:
        r = coscore.compile(source, limits=Limits(max_table_bytes=2**22))
    except coscore.RuleError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert len(d.message) <= MESSAGE_LIMIT
            str(d).encode("utf-8")
        return
    outcome = r.score(["ab", "a"])   # a compiled rule scores; a failure is the answer's
    assert outcome.error is None or len(outcome.error) <= 10 * MESSAGE_LIMIT


# -- front ends ---------------------------------------------------------------------------------


def test_command_line_flags(tmp_path):
    import argparse

    from coscore.limits import add_arguments, from_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--max-answer-chars", "1_000", "--max-answer-work", "7", "--max-rule-tables", "99"])
    assert from_arguments(args) == Limits(max_built_chars=1000, max_work=7, max_table_bytes=99)
    assert from_arguments(parser.parse_args([])) == DEFAULT_LIMITS
    with pytest.raises(SystemExit):
        parser.parse_args(["--max-answer-work", "0"])


def test_score_command_takes_the_answer_budgets(tmp_path, capsys):
    from coscore.cli import main

    (tmp_path / "rule.json").write_text(json.dumps(rule({}, "T(0) + T(0) == 'x'", mode="logic")), "utf-8")
    (tmp_path / "data.csv").write_text("b\nab\nabcdef\n", "utf-8")
    out = tmp_path / "out.csv"
    assert main(["score", str(tmp_path / "rule.json"), str(tmp_path / "data.csv"), "-o", str(out),
                 "--max-answer-chars", "10", "--no-progress"]) == 0
    text = out.read_text("utf-8")
    assert text.count("max_built_chars") == 1 and "abcdef" in text
    assert main(["score", str(tmp_path / "rule.json"), str(tmp_path / "data.csv"), "-o", str(out),
                 "--no-progress"]) == 0
    assert "max_built_chars" not in out.read_text("utf-8")


def test_the_service_compiles_with_its_limits():
    pytest.importorskip("starlette")
    from coscore.cli.serve import add_arguments
    from coscore.server import Service

    service = Service(limits=Limits(max_built_chars=4))
    body = json.dumps({"rule": rule({}, "T(0) + T(0) == 'x'", mode="logic"), "answer": ["abc"]}).encode()
    status, payload, _ = service.handle("testRule", body)
    answer = json.loads(payload)
    assert status == 422 and "max_built_chars" in answer["error"]
    assert answer["budget"] == "max_built_chars" and answer["limit"] == 4
    body = json.dumps({"rule": rule({}, "T(0) + T(0) == 'x'", mode="logic"), "answers": [["abc"], ["a"]]}).encode()
    status, payload, _ = service.handle("score", body)
    assert status == 200 and json.loads(payload)["errors"][0].endswith("(limit max_built_chars)")
    body = json.dumps({"rule": rule({str(i): {"type": "EM", "desc": "a"} for i in range(3)}, "1")}).encode()
    status, payload, _ = Service(limits=Limits(max_atoms=2)).handle("check", body)
    assert status == 200 and "max_atoms" in json.loads(payload)["diagnostics"][0]["message"]
    import argparse

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--max-answer-work", "5"]).limit_max_work == 5


def test_dask_workers_compile_with_the_rules_limits():
    pytest.importorskip("dask")
    from coscore import dask as cdask

    limits = Limits(max_built_chars=4)
    compiled = coscore.compile(rule({}, "T(0) + T(0) == 'x'", mode="logic"), limits=limits)
    text, dialect, again = cdask.rule_payload(compiled)
    assert again.limits == limits
    assert cdask._worker_rule(text, dialect, limits).limits == limits
    assert cdask._worker_rule(text, dialect).limits == DEFAULT_LIMITS
    assert math.isnan(cdask._worker_rule(text, dialect, limits).score_many([["abc"]]).scores[0])
