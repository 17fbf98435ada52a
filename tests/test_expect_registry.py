"""Parsing expectations.yaml (coscore.expect.registry)."""

from __future__ import annotations

import pytest

from coscore.expect.errors import SuiteError
from coscore.expect.registry import ABBREVIATIONS, Registry, parse_registry


def _only(text: str, suite_type: str = "pass-fail") -> dict:
    registry = parse_registry(text, suite_type)  # type: ignore[arg-type]
    assert len(registry.entries) == 1
    return dict(registry.entries[0].expectation.checks)


def _error(text: str, suite_type: str = "pass-fail") -> SuiteError:
    with pytest.raises(SuiteError) as info:
        parse_registry(text, suite_type)  # type: ignore[arg-type]
    return info.value


@pytest.mark.parametrize(
    ("abbreviation", "expected"),
    [
        ("accepted", {"permitted_testcase_verdicts": ("AC",), "with_margin": True}),
        ("wrong answer", {"permitted_testcase_verdicts": ("AC", "WA"), "required_testcase_verdicts": ("WA",)}),
        ("runtime exception", {"permitted_testcase_verdicts": ("AC", "RTE"), "required_testcase_verdicts": ("RTE",)}),
        (
            "time limit exceeded",
            {"permitted_testcase_verdicts": ("AC", "TLE"), "required_testcase_verdicts": ("TLE",), "with_margin": True},
        ),
        (
            "does not terminate",
            {"permitted_testcase_verdicts": ("AC", "RTE", "TLE"), "required_testcase_verdicts": ("RTE", "TLE")},
        ),
        ("not accepted", {"required_testcase_verdicts": ("RTE", "TLE", "WA")}),
    ],
)
def test_abbreviations(abbreviation: str, expected: dict) -> None:
    assert _only(f"x: {abbreviation}") == expected
    assert ABBREVIATIONS[abbreviation] == expected


def test_both_spellings_of_verdict_keys_are_one_key() -> None:
    a = _only("x: {permitted_testgroup_verdicts: [AC], required_testgroup_verdicts: [WA]}")
    b = _only("x: {permitted_testcase_verdicts: [AC], required_testcase_verdicts: [WA]}")
    assert a == b == {"permitted_testcase_verdicts": ("AC",), "required_testcase_verdicts": ("WA",)}


def test_both_spellings_at_once_is_an_error() -> None:
    err = _error("x: {permitted_testgroup_verdicts: [AC], permitted_testcase_verdicts: [WA]}")
    assert "twice" in str(err)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("5", (5.0, 5.0)), ("[0, 10]", (0.0, 10.0)), ("[2.5, 2.5]", (2.5, 2.5)), ("[-1, .inf]", (-1.0, float("inf")))],
)
def test_ranges(text: str, expected: tuple[float, float]) -> None:
    assert _only(f"x: {{permitted_testcase_scores: {text}}}", "scoring") == {"permitted_testcase_scores": expected}
    assert _only(f"x: {{permitted_aggregate_score: {text}}}", "scoring") == {"permitted_aggregate_score": expected}


def test_a_bare_range_is_the_aggregate_score() -> None:
    assert _only("x: [60, 80]", "scoring") == {"permitted_aggregate_score": (60.0, 80.0)}
    assert _only("x: 7", "scoring") == {"permitted_aggregate_score": (7.0, 7.0)}


@pytest.mark.parametrize("text", ["[3, 1]", "[1]", "[1, 2, 3]", "[a, 2]", "true", ".nan", "{}", "'5'"])
def test_bad_ranges(text: str) -> None:
    err = _error(f"x:\n  permitted_testcase_scores: {text}\n", "scoring")
    assert err.file == "expectations.yaml" and err.key == "x › permitted_testcase_scores" and err.line == 2


@pytest.mark.parametrize("key", ["permitted_testcase_scores: 1", "permitted_aggregate_score: [0, 1]"])
def test_score_keys_are_for_scoring_suites_only(key: str) -> None:
    err = _error(f"x: {{{key}}}", "pass-fail")
    assert "only allowed in scoring suites" in str(err)
    assert err.key == f"x › {key.split(':')[0]}"
    _only(f"x: {{{key}}}", "scoring")


def test_aggregate_verdict_is_for_pass_fail_only() -> None:
    err = _error("x: {permitted_aggregate_verdict: [AC]}", "scoring")
    assert "only allowed in pass-fail suites" in str(err)
    assert _only("x: {permitted_aggregate_verdict: [AC, WA]}") == {"permitted_aggregate_verdict": ("AC", "WA")}


def test_bare_range_is_for_scoring_only() -> None:
    assert "only allowed in scoring suites" in str(_error("x: [0, 1]", "pass-fail"))


def test_agreement_keys_work_in_both_types() -> None:
    for suite_type in ("pass-fail", "scoring"):
        checks = _only("x: {min_exact_agreement: 0.8, min_qwk: 0.7}", suite_type)
        assert checks == {"min_exact_agreement": 0.8, "min_qwk": 0.7}


@pytest.mark.parametrize(
    ("text", "key", "line", "words"),
    [
        ("a: accepted\nb:\n  sample:\n    colour: red\n", "b › sample › colour", 4, "unknown key"),
        ("b:\n  permitted_testcase_verdicts: [AC, OK]\n", "b › permitted_testcase_verdicts", 2, "unknown verdict 'OK'"),
        ("b:\n  permitted_testcase_verdicts: AC\n", "b › permitted_testcase_verdicts", 2, "list of verdicts"),
        ("b: acepted\n", "b", 1, "unknown abbreviation"),
        ("b:\n  secret/{a: accepted\n", "b › secret/{a", 2, "bad pattern"),
        ("'x{': accepted\n", "x{", 1, "bad pattern"),
        ("b:\n  with_margin: false\n", "b › with_margin", 2, "must be true"),
        ("b:\n  message: 3\n", "b › message", 2, "must be a string"),
        ("b:\n  min_qwk: 2\n", "b › min_qwk", 2, "from -1 to 1"),
        ("b:\n  min_exact_agreement: -0.1\n", "b › min_exact_agreement", 2, "from 0 to 1"),
        ("b:\n  sample:\n    secret: accepted\n", "b › sample › secret", 3, "directly under a rule pattern"),
        ("b: accepted\nb: wrong answer\n", "b", 2, "duplicate key"),
        ("b:\n", "b", 1, "empty expectation"),
        ("1: accepted\n", "1", 1, "keys must be strings"),
    ],
)
def test_errors_name_file_line_and_key(text: str, key: str, line: int, words: str) -> None:
    err = _error(text)
    assert (err.file, err.key, err.line) == ("expectations.yaml", key, line)
    assert words in str(err)
    assert str(err).startswith(f"expectations.yaml:{line}: {key}: ")


def test_yaml_syntax_error_is_located() -> None:
    err = _error("a: accepted\n*: accepted\n")
    assert err.line == 2 and "quote" in str(err)


def test_empty_registry() -> None:
    assert parse_registry("", "pass-fail") == Registry(())
    assert parse_registry("# nothing yet\n", "pass-fail") == Registry(())


def test_root_mixes_own_keys_and_test_case_keys() -> None:
    registry = parse_registry(
        "lab/*:\n  with_margin: true\n  sample: accepted\n  secret/x: {message: oops}\n", "pass-fail"
    )
    labels = [entry.label for entry in registry.entries]
    assert labels == ["lab/*: {with_margin: true}", "lab/* › sample: accepted", "lab/* › secret/x: {message: oops}"]
    assert [e.scope.text if e.scope else None for e in registry.entries] == [None, "sample", "secret/x"]


def test_for_rule_collects_every_matching_entry() -> None:
    registry = parse_registry('"*": accepted\nlab: not accepted\nlab/b.json: wrong answer\nother: accepted\n', "pass-fail")
    assert [e.rules.text for e in registry.for_rule("lab/b.json")] == ["*", "lab", "lab/b.json"]
    assert [e.rules.text for e in registry.for_rule("final.json")] == ["*"]
