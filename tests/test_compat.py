"""``coscore.compat.Rule``: byte-identical to the original CoScore engine on every conformance case."""
from __future__ import annotations

import builtins
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import coscore
from conftest import load_cases
from coscore import compat
from coscore.compat import Rule, RuleCache, rule_key

CASES = load_cases()


def _expected_exception(name: str) -> type[BaseException]:
    """The class named in ``expect.error`` ("NaN": a NaN total, which raises ValueError)."""
    if name == "NaN":
        return ValueError
    cls = getattr(builtins, name)
    assert isinstance(cls, type) and issubclass(cls, BaseException), name
    return cls


def test_corpus_is_complete():
    assert len(CASES) == 4433
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance_case_is_byte_identical(case):
    rule = Rule(case["rule"])
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(_expected_exception(expect["error"])) as info:
            rule.calculate(case["answers"])
        assert not isinstance(info.value, coscore.RuleError)
        return
    score, debug = rule.calculate(case["answers"])
    assert isinstance(debug.pop("calMemory"), dict)
    assert json.dumps((score, debug)) == json.dumps((expect["score"], expect["combos"]))
    assert json.dumps((score, debug), ensure_ascii=False) == json.dumps(
        (expect["score"], expect["combos"]), ensure_ascii=False
    )


def test_types_are_plain_python_numbers():
    seen = set()
    for case in CASES:
        if "error" in case["expect"]:
            continue
        score, debug = Rule(case["rule"]).calculate(case["answers"])
        del debug["calMemory"]
        for value in (score, *debug.values()):
            seen.add(type(value))
    assert seen <= {int, float, bool}
    assert {int, float} <= seen


def test_original_calling_pattern():
    rule = {
        "atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}, "1": {"type": "OP", "desc": "0.5:前进"}},
        "combos": {
            "A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
            "B": {"combo": "G(1, T(1))", "score": 1.5, "mode": "logic"},
            "C": {"combo": "Q(1)", "score": 3, "mode": "logic"},
        },
        "comboMode": "ADD",
    }
    score, debug = Rule(rule).calculate(["我爱祖国", "前进"])
    assert set(debug) == {"A", "B", "C", "calMemory"}
    del debug["calMemory"]
    assert list(debug) == ["A", "B", "C"]  # rule order
    assert json.dumps((score, debug)) == '[5.5, {"A": 4, "B": 1.5, "C": 0}]'
    # the original's attributes
    r = Rule(rule)
    assert r.atoms == rule["atoms"] and r.combos == rule["combos"] and r.comboMode == "ADD"


def test_clamping_keeps_the_original_types():
    def rule(expr, score, mode="value", combo_mode="ADD"):
        return Rule({"atoms": {}, "combos": {"A": {"combo": expr, "score": score, "mode": mode}}, "comboMode": combo_mode})

    assert rule("F(0)", 1).calculate(["-3.5"])[0] == 0 and type(rule("F(0)", 1).calculate(["-3.5"])[0]) is int
    assert json.dumps(rule("F(0)", 1).calculate(["12.5"])[0]) == "10"
    assert json.dumps(rule("F(0)", 1).calculate(["2.5"])[0]) == "2.5"
    assert json.dumps(rule("Q(0)", 3, "logic").calculate([""])) == (
        '[3, {"A": 3, "calMemory": {"T": {}, "L": {}, "Q": {}, "F": {}, "U": {}, "S": {}, "GandM": {}}}]')
    assert json.dumps(rule("Q(0)", 3, "logic", "MAX").calculate(["x"])[0]) == "0"


@pytest.mark.parametrize(
    "expr, answer, exc",
    [
        ("1 / Q(0)", ["x"], ZeroDivisionError),
        ("T(3) == 'a'", ["x"], IndexError),
        ("T(0) < 1", ["x"], TypeError),
        ("T(0)", ["x"], TypeError),  # a string in value mode
        ("F(0)", ["nan"], ValueError),  # a NaN total (the original returned NaN)
    ],
)
def test_the_original_exception_classes(expr, answer, exc):
    rule = Rule({"atoms": {}, "combos": {"A": {"combo": expr, "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    with pytest.raises(exc):
        rule.calculate(answer)


def test_a_string_answer_is_indexed_like_the_original():
    # the original indexes answer_list directly: a str gives its characters
    rule = Rule({"atoms": {}, "combos": {"A": {"combo": "T(1) == 'b'", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
    assert rule.calculate("abc")[0] == 1
    assert rule.calculate(("a", "b"))[0] == 1


def test_invalid_rule_raises_rule_error_with_paths():
    bad = {"atoms": {}, "combos": {"A": {"combo": "T(0).upper()", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    with pytest.raises(coscore.RuleError) as info:
        Rule(bad)
    assert any(d.path == "combos.A.combo" for d in info.value.diagnostics)
    with pytest.raises(ValueError):  # RuleError is a ValueError
        Rule(bad)
    with pytest.raises(coscore.RuleError):
        Rule(42)  # type: ignore[arg-type]


def test_json_text_is_accepted():
    text = '{"atoms": {}, "combos": {"A": {"combo": "Q(\'*\')", "score": 2, "mode": "value"}}, "comboMode": "ADD"}'
    assert Rule(text).calculate(["a", "", "null", "b"])[0] == 4


def test_compat_totals_with_the_interpreters_sum_and_the_engine_left_to_right():
    source = {"atoms": {}, "combos": {str(i): {"combo": "0.1", "score": 1, "mode": "value"} for i in range(10)}, "comboMode": "ADD"}
    score, debug = Rule(source).calculate(["x"])
    values = [debug[str(i)] for i in range(10)]
    assert score == sum(values)  # 1.0 from Python 3.12 on (compensated), 0.9999999999999999 before
    left_to_right = 0
    for value in values:
        left_to_right += value
    assert coscore.compile(source).score(["x"]).score == left_to_right == 0.9999999999999999


# -- the cache ---------------------------------------------------------------------------


def _rule(score=1, order=("A", "B")):
    combos = {"A": {"combo": "Q(0)", "score": score, "mode": "logic"}, "B": {"combo": "1", "score": 0.5, "mode": "value"}}
    return {"atoms": {}, "combos": {k: combos[k] for k in order}, "comboMode": "ADD"}


def test_rule_key_distinguishes_order_and_number_types():
    assert rule_key(_rule()) == rule_key(json.loads(json.dumps(_rule())))
    assert rule_key(_rule(1)) != rule_key(_rule(1.0))
    assert rule_key(_rule(order=("A", "B"))) != rule_key(_rule(order=("B", "A")))
    assert rule_key(object()) is None


def test_rules_are_compiled_once_per_content():
    compat.clear_cache()
    first = Rule(_rule())
    again = Rule(json.loads(json.dumps(_rule())))  # an equal dict, as a frontend rebuilds per request
    assert first._compiled is again._compiled
    info = compat.cache_info()
    assert info["misses"] == 1 and info["hits"] == 1
    # a different combo order is a different rule: different debugInfo order
    swapped = Rule(_rule(order=("B", "A")))
    assert swapped._compiled is not first._compiled
    assert list(swapped.calculate([""])[1])[:2] == ["B", "A"]


def test_cache_is_bounded_lru_and_remembers_errors():
    calls = []

    def compiler(source):
        calls.append(source)
        return coscore.compile(source)

    cache = RuleCache(2, compiler)
    a, b, c = _rule(1), _rule(2), _rule(3)
    cache.get(a)
    cache.get(b)
    cache.get(a)  # a is now the most recent
    cache.get(c)  # evicts b
    assert len(cache) == 2
    cache.get(a)
    assert len(calls) == 3
    cache.get(b)
    assert len(calls) == 4
    bad = {"atoms": {}, "combos": {}, "comboMode": "SUM"}
    for _ in range(3):
        with pytest.raises(coscore.RuleError):
            cache.get(bad)
    assert len(calls) == 5
    assert cache.info()["maxsize"] == 2


def test_cache_is_bounded_in_bytes():
    from coscore.compat import rule_nbytes

    size = rule_nbytes(coscore.compile(_rule(1)))
    assert size > 0
    cache = RuleCache(100, maxbytes=int(size * 2.5))
    for i in range(10):
        cache.get(_rule(i))
    info = cache.info()
    assert info["size"] == 2 and 0 < info["bytes"] <= info["maxbytes"]
    tiny = RuleCache(100, maxbytes=10)  # every rule is larger: compiled, returned, not kept
    assert tiny.get(_rule(1)).combo_ids == ["A", "B"]
    assert len(tiny) == 0 and tiny.info()["bytes"] == 0
    measured = RuleCache(100, maxbytes=2**30, measure=True)
    measured.get(_rule(1))
    assert measured.info()["bytes"] >= size


def test_cache_is_thread_safe():
    cache = RuleCache(8)
    rules = [_rule(i) for i in range(20)]

    def work() -> None:
        for _ in range(20):
            for r in rules:
                assert cache.get(r).combo_ids == ["A", "B"]

    with ThreadPoolExecutor(4) as pool:
        for done in [pool.submit(work) for _ in range(4)]:
            done.result()  # re-raises a worker's failure here
    assert len(cache) <= 8


def test_building_rule_per_request_is_fast():
    import time

    rule = max((c["rule"] for c in CASES), key=lambda r: len(json.dumps(r)))  # the biggest rule
    Rule(rule)
    start = time.perf_counter()
    for _ in range(1000):
        Rule(rule)
    assert (time.perf_counter() - start) / 1000 < 0.001  # a cache hit, not a compilation

