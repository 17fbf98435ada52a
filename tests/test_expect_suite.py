"""Loading suites and running them with a stand-in engine (coscore.expect.suite, .runner)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from coscore.expect import SuiteError, run
from coscore.expect.render import render
from coscore.expect.suite import Settings, load_cases, load_settings


def _fake_compiler(rule: dict[str, Any]) -> Any:
    """A stand-in for coscore.compile: the rule says how to 'score'."""
    kind = rule.get("fake")
    if kind not in ("echo", "error", "sleep", "constant"):
        raise ValueError(f"unknown fake rule {kind!r}")

    def score(answer: list[str]) -> SimpleNamespace:
        if kind == "error" or (kind == "echo" and answer[0] == "boom"):
            return SimpleNamespace(score=None, error="division by zero")
        if kind == "sleep":
            time.sleep(rule["seconds"])
        value = float(rule.get("value", 0)) if kind != "echo" else float(answer[0])
        return SimpleNamespace(score=value, error=None)

    return SimpleNamespace(score=score)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _suite(tmp_path: Path, registry: str, rules: dict[str, dict], suite_yaml: str = "", data: dict[str, str] | None = None) -> Path:
    files = {"expectations.yaml": registry, "suite.yaml": suite_yaml}
    files.update({f"rules/{name}": json.dumps(rule) for name, rule in rules.items()})
    files.update(data or {"data/sample/a.csv": "answer,mark\n1,1\n2,2\n", "data/secret/b.csv": "id,answer,mark\nx,3,3\ny,boom,4\n"})
    return _write(tmp_path, files)


# -- data ----------------------------------------------------------------------------


def test_csv_names_ids_marks_and_blank_order(tmp_path: Path) -> None:
    _write(tmp_path, {
        "data/secret/batch1.csv": "first,mark,second\na,1,b\nc,,d\n",
        "data/secret/mixed.csv": "mark,answer,id\n2,x,m02\n",
    })
    cases = {c.name: c for c in load_cases(tmp_path / "data")}
    assert list(cases) == ["secret/batch1/0001", "secret/batch1/0002", "secret/mixed/m02"]
    assert cases["secret/batch1/0001"].answer == ("a", "b") and cases["secret/batch1/0001"].mark == 1.0
    assert cases["secret/batch1/0002"].mark is None
    assert cases["secret/mixed/m02"].answer == ("x",) and cases["secret/mixed/m02"].mark == 2.0


def test_row_numbers_pad_to_at_least_four_digits(tmp_path: Path) -> None:
    _write(tmp_path, {"data/s.csv": "answer\n" + "".join(f"a{i}\n" for i in range(10001))})
    names = [c.name for c in load_cases(tmp_path / "data")]
    assert names[0] == "s/0001" and "s/9999" in names and "s/10001" in names


def test_jsonl(tmp_path: Path) -> None:
    _write(tmp_path, {"data/sample/j.jsonl": '{"answers": ["a", "b"], "mark": 3}\n\n{"answer": "c", "id": 7, "mark": null}\n'})
    cases = load_cases(tmp_path / "data")
    assert [(c.name, c.answer, c.mark) for c in cases] == [
        ("sample/j/0001", ("a", "b"), 3.0),
        ("sample/j/7", ("c",), None),
    ]


@pytest.mark.parametrize(
    ("files", "file", "key", "line"),
    [
        ({"data/a.csv": "answer,mark\nx,abc\n"}, "data/a.csv", "mark", 2),
        ({"data/a.csv": "id,mark\n1,2\n"}, "data/a.csv", "", 1),
        ({"data/a.csv": "answer,mark\nx\n"}, "data/a.csv", "row 1", 2),
        ({"data/a.csv": "id,answer\nq,x\nq,y\n"}, "data/a.csv", "id", 3),
        ({"data/a.jsonl": '{"answer": "x", "mrak": 2}\n'}, "data/a.jsonl", "mrak", 1),
        ({"data/a.jsonl": '{"answer": "x"}\n{oops\n'}, "data/a.jsonl", "", 2),
        ({"data/a.jsonl": '{"answers": "x"}\n'}, "data/a.jsonl", "answers", 1),
        ({"data/a.jsonl": '{"answer": "x", "mark": "2"}\n'}, "data/a.jsonl", "mark", 1),
        ({"data/a.jsonl": '{"mark": 2}\n'}, "data/a.jsonl", "answers", 1),
    ],
)
def test_bad_data_is_located(tmp_path: Path, files: dict[str, str], file: str, key: str, line: int) -> None:
    _write(tmp_path, files)
    with pytest.raises(SuiteError) as info:
        load_cases(tmp_path / "data")
    assert (info.value.file, info.value.key, info.value.line) == (file, key, line)


# -- suite.yaml ------------------------------------------------------------------------


def test_settings_defaults_and_values(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "suite.yaml") == Settings()
    _write(tmp_path, {"suite.yaml": "type: scoring\ntime_limit: 2\nac_margin: 3\ntle_margin: 1.2\ntolerance: 0.5\n"})
    assert load_settings(tmp_path / "suite.yaml") == Settings("scoring", 2.0, 3.0, 1.2, 0.5)


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("type: scoring\ntyp: x\n", "typ", 2),
        ("type: partial\n", "type", 1),
        ("time_limit: 0\n", "time_limit", 1),
        ("ac_margin: 1\n", "ac_margin", 1),
        ("tle_margin: fast\n", "tle_margin", 1),
        ("tolerance: -1\n", "tolerance", 1),
    ],
)
def test_bad_settings_are_located(tmp_path: Path, text: str, key: str, line: int) -> None:
    _write(tmp_path, {"suite.yaml": text})
    with pytest.raises(SuiteError) as info:
        load_settings(tmp_path / "suite.yaml")
    assert (info.value.file, info.value.key, info.value.line) == ("suite.yaml", key, line)


@pytest.mark.parametrize("missing", ["expectations.yaml", "rules", "data"])
def test_missing_parts(tmp_path: Path, missing: str) -> None:
    root = _suite(tmp_path, '"*": accepted\n', {"r.json": {"fake": "echo"}})
    target = root / missing
    if target.is_dir():
        for path in sorted(target.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        target.rmdir()
    else:
        target.unlink()
    with pytest.raises(SuiteError, match=missing):
        run(root, compiler=_fake_compiler)


def test_registry_checked_against_suite_type(tmp_path: Path) -> None:
    root = _suite(tmp_path, "r.json: {permitted_testcase_scores: [0, 1]}\n", {"r.json": {"fake": "echo"}}, "type: pass-fail\n")
    with pytest.raises(SuiteError) as info:
        run(root, compiler=_fake_compiler)
    assert info.value.file == "expectations.yaml" and info.value.key == "r.json › permitted_testcase_scores"


# -- running ---------------------------------------------------------------------------


def test_run_scores_and_checks(tmp_path: Path) -> None:
    registry = (
        '"*":\n  sample: accepted\n'
        "echo.json:\n  secret: {required_testcase_verdicts: [RTE], message: division}\n"
        "const.json: {permitted_testcase_verdicts: [AC]}\n"
    )
    root = _suite(tmp_path, registry, {"echo.json": {"fake": "echo"}, "lab/const.json": {"fake": "constant", "value": 1}})
    report = run(root, compiler=_fake_compiler)
    assert list(report.rules) == ["echo.json", "lab/const.json"]
    echo = report.rules["echo.json"]
    assert echo.ok and [r.verdict for r in echo.results] == ["AC", "AC", "AC", "RTE"]
    assert [r.name for r in echo.results] == ["sample/a/0001", "sample/a/0002", "secret/b/x", "secret/b/y"]
    const = report.rules["lab/const.json"]
    assert not const.ok
    assert const.failures == ["sample/a/0002: WA, expected 2, got 1 (permitted_testcase_verdicts; * › sample: accepted)"]
    assert report.warnings == ("expectations.yaml: rule pattern 'const.json' matches no rule",)
    data = report.to_dict()
    assert data["ok"] is False and data["rules"]["echo.json"]["ok"] is True
    assert data["rules"]["lab/const.json"]["failures"] == const.failures
    text = render(report)
    assert "FAILS   lab/const.json  * › sample: accepted" in text
    assert "permitted_testcase_verdicts: sample/a/0002: WA, expected 2, got 1" in text


def test_two_entries_both_apply(tmp_path: Path) -> None:
    registry = "r.json: {required_testcase_verdicts: [WA]}\n'*': {required_testcase_verdicts: [TLE]}\n"
    root = _suite(tmp_path, registry, {"r.json": {"fake": "constant", "value": 1}},
                  data={"data/secret/a.csv": "answer,mark\nx,2\n"})
    report = run(root, compiler=_fake_compiler)
    rule = report.rules["r.json"]
    assert [r.verdict for r in rule.results] == ["WA"]
    assert [e.ok for e in rule.expectations] == [True, False]
    assert not report.ok


def test_time_limit_gives_tle(tmp_path: Path) -> None:
    root = _suite(tmp_path, "slow.json: time limit exceeded\n", {"slow.json": {"fake": "sleep", "seconds": 0.06}},
                  "time_limit: 0.02\ntle_margin: 1.5\n", {"data/secret/a.csv": "answer\nx\n"})
    report = run(root, compiler=_fake_compiler)
    (result,) = report.rules["slow.json"].results
    assert result.verdict == "TLE" and result.time >= 0.06
    assert report.ok


def test_a_rule_that_does_not_compile_is_rte_everywhere(tmp_path: Path) -> None:
    root = _suite(tmp_path, "bad.json: {permitted_testcase_verdicts: [RTE], message: does not compile}\n",
                  {"bad.json": {"fake": "nonsense"}})
    report = run(root, compiler=_fake_compiler)
    rule = report.rules["bad.json"]
    assert rule.compile_error is not None and "unknown fake rule" in rule.compile_error
    assert {r.verdict for r in rule.results} == {"RTE"} and report.ok


def test_pattern_matching_no_test_case_warns(tmp_path: Path) -> None:
    root = _suite(tmp_path, "r.json:\n  secret/nothing: accepted\n", {"r.json": {"fake": "echo"}})
    report = run(root, compiler=_fake_compiler)
    assert "test case pattern 'secret/nothing' matches no test case" in report.warnings[0]
