"""End to end: ``coscore expect`` on the example suite (examples/lab-tools-suite)."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coscore.cli import expect as command
from coscore.expect import run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lab-tools-suite"


def _coscore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coscore", "expect", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def _direct(suite: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    status = command.run(parser.parse_args([str(suite), *flags]))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "suite"))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_example_suite_holds() -> None:
    report = run(EXAMPLE)
    assert report.ok, report.to_dict()
    assert list(report.rules) == ["lab-tools/draft.json", "lab-tools/strict.json"]
    draft = report.rules["lab-tools/draft.json"]
    # The draft is meant to fail: it does get wrong answers, which its expectation requires.
    assert draft.verdict_counts()["WA"] > 0
    assert {r.verdict for r in report.rules["lab-tools/strict.json"].results} == {"AC"}
    assert report.warnings == ()


def test_command_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _direct(EXAMPLE, capsys=capsys)
    assert status == 0
    assert "holds   lab-tools/draft.json   secret/mixed:" in out
    assert out.rstrip().endswith("OK: 2 rules: 2 hold every expectation")


def test_cli_example_suite() -> None:
    done = _coscore(str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert "FAILS" not in done.stdout
    assert "lab-tools/strict.json  secret: accepted" in done.stdout


def test_cli_json() -> None:
    done = _coscore(str(EXAMPLE), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] is True
    assert set(data["rules"]) == {"lab-tools/draft.json", "lab-tools/strict.json"}
    assert all(rule["ok"] and rule["failures"] == [] for rule in data["rules"].values())


def test_cli_rule_meant_to_fail_expected_to_pass(suite_copy: Path) -> None:
    """Claim the draft is accepted: the suite fails and names the answers that broke it."""
    _replace(
        suite_copy / "expectations.yaml",
        "    permitted_testcase_verdicts: [AC, WA]\n    required_testcase_verdicts: [WA]\n",
        "    permitted_testcase_verdicts: [AC]\n",
    )
    done = _coscore(str(suite_copy))
    assert done.returncode == 1, done.stderr
    assert "FAILS   lab-tools/draft.json   secret/mixed:" in done.stdout
    assert "permitted_testcase_verdicts: secret/mixed/m009: WA, expected 0, got 2" in done.stdout
    assert "FAILED: 2 rules: 1 holds every expectation, 1 fails (lab-tools/draft.json)" in done.stdout
    data = json.loads(_coscore(str(suite_copy), "--json").stdout)
    assert data["ok"] is False and data["rules"]["lab-tools/strict.json"]["ok"] is True
    failures = data["rules"]["lab-tools/draft.json"]["failures"]
    assert failures[0].startswith("secret/mixed/m009: WA, expected 0, got 2 (permitted_testcase_verdicts; ")


@pytest.mark.parametrize(
    ("addition", "key", "words"),
    [
        ("  secret/full-marks: {permitted_aggregate_verdict: [AC]}\n",
         "lab-tools/strict.json › secret/full-marks › permitted_aggregate_verdict", "only allowed in pass-fail"),
        ("  sample: {permited_testcase_verdicts: [AC]}\n",
         "lab-tools/strict.json › sample › permited_testcase_verdicts", "unknown key"),
    ],
)
def test_cli_malformed_registry(suite_copy: Path, addition: str, key: str, words: str) -> None:
    _replace(suite_copy / "expectations.yaml", "  min_qwk: 0.95\n", "  min_qwk: 0.95\n" + addition)
    done = _coscore(str(suite_copy))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "expectations.yaml:" in done.stderr and key in done.stderr and words in done.stderr


def test_malformed_suite_yaml_in_process(suite_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _replace(suite_copy / "suite.yaml", "type: scoring", "type: graded")
    status, out, err = _direct(suite_copy, capsys=capsys)
    assert status == 2 and out == ""
    assert "suite.yaml:2: type: must be one of pass-fail, scoring" in err


def test_real_engine_errors_are_rte_with_their_message(suite_copy: Path) -> None:
    rules = suite_copy / "rules"
    strict = json.loads((rules / "lab-tools" / "strict.json").read_text(encoding="utf-8"))
    strict["combos"]["C"]["combo"] = "10 / (6 - M(0,T(0)))"  # divides by zero when all six tools are named
    (rules / "lab-tools" / "ratio.json").write_text(json.dumps(strict), encoding="utf-8")
    (rules / "broken.json").write_text('{"atoms": {}, "combos": {"A": {"combo": "x.y", "score": 1, "mode": "value"}}, '
                                       '"comboMode": "ADD"}', encoding="utf-8")
    (suite_copy / "expectations.yaml").write_text(
        "lab-tools/ratio.json:\n  secret/full-marks: runtime exception\n"
        "  secret/full-marks/f1: {message: division by zero}\n"
        "broken.json: {permitted_testcase_verdicts: [RTE], message: does not compile}\n",
        encoding="utf-8",
    )
    report = run(suite_copy)
    assert report.rules["lab-tools/ratio.json"].ok and report.rules["broken.json"].ok
    assert not report.rules["lab-tools/strict.json"].expectations  # no entry applies: a warning, not a failure
    assert "no expectation applies to rule lab-tools/strict.json" in report.warnings
    broken = report.rules["broken.json"]
    assert broken.compile_error and all("\n" not in r.message for r in broken.results)
