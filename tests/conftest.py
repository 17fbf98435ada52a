"""Shared fixtures and checks: the conformance corpus (tests/data/*.jsonl), the demo rules,
the web app's ``db`` and ``client``, and "``score_many`` equals ``score`` answer by answer";
a headless ``browser`` and the ``artefacts`` folder of the workbench's browser tests; the
hypothesis profile of the run (what else the test files share is in support.py)."""
from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import coscore
from support import HYPOTHESIS_PROFILE
from webapp_support import APP_DIR, NEEDS_SHARED, copy_database

# Hypothesis: the same examples on every CI run (a failure there is reproduced by running
# again), and a third of a slow property's (support.examples); elsewhere random ones, all of
# them. HYPOTHESIS_PROFILE chooses a profile, else CI being set does (.ci/run sets it).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(HYPOTHESIS_PROFILE)

DATA = Path(__file__).parent / "data"
DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
CONFORMANCE_FILES = ("generated.jsonl", "coscore-real.jsonl", "manual-examples.jsonl", "deviations.jsonl")


def load_cases() -> list[dict]:
    """Every conformance case, in file order."""
    cases = []
    for name in CONFORMANCE_FILES:
        with open(DATA / name, encoding="utf-8") as handle:
            cases.extend(json.loads(line) for line in handle if line.strip())
    return cases


@pytest.fixture(scope="session")
def conformance_cases() -> list[dict]:
    return load_cases()


@pytest.fixture(scope="session")
def demo_rules() -> dict[str, dict]:
    """The four demo rules by name (``lab-tools``, ``lane-change``, …)."""
    return {
        path.name.removesuffix(".rule.json"): json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(DEMO.glob("*.rule.json"))
    }


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """A writable copy of the original app's database (the test skips without ``../shared``)."""
    return copy_database(tmp_path)


@pytest.fixture()
def client(db: Path) -> Iterator[Any]:
    """The web app (:func:`coscore.webapp.create_app`) on the original app's folder and ``db``,
    through Starlette's TestClient, with one worker process (each costs a Python start and
    coscore's import; a test of work done side by side makes its own app). The tests of the
    other services define their own ``client``."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from coscore.webapp import create_app

    with TestClient(create_app(APP_DIR, db, workers=1)) as test_client:
        yield test_client


def exactly(outcome: coscore.Outcome) -> tuple:
    """An outcome with its floats spelled out: ``-0.0`` differs from ``0.0``, NaN equals NaN."""
    return repr(outcome.score), {cid: repr(v) for cid, v in outcome.combos.items()}, outcome.error


def assert_batch_matches_score(rule: coscore.Rule, answers: list, batch: coscore.Batch) -> None:
    """``batch`` (``rule.score_many(answers)``) holds exactly what ``rule.score`` gives for
    each answer: score, combos (signs of zeros included), error."""
    assert len(batch) == len(answers)
    for i, answer in enumerate(answers):
        outcome = rule.score(answer)
        assert exactly(batch[i]) == exactly(outcome), (answer, batch[i], outcome)
        assert (outcome.error is None) == (batch.errors[i] is None), (answer, outcome, batch.errors[i])
        if outcome.error is None:
            assert outcome.score == batch.scores[i], (answer, outcome)
            for cid in rule.combo_ids:
                got = batch.combos[cid][i]
                assert got == outcome.combos[cid] or (math.isnan(got) and math.isnan(outcome.combos[cid])), (answer, cid)
        else:
            assert outcome.error == batch.errors[i]
            assert math.isnan(batch.scores[i])


def read_columns(path) -> dict[str, list]:
    """Every column of a data file (any format coscore reads), as Python lists."""
    from coscore.io import open_reader

    columns: dict[str, list] = {}
    with open_reader(path) as reader:
        for chunk in reader.chunks():
            for name in chunk.columns:
                columns.setdefault(name, []).extend(chunk.pylist(name))
    return columns


def floats(values: list):
    """Cells as a float array, NaN where empty."""
    import numpy as np

    return np.array([math.nan if v in (None, "") else float(v) for v in values])


def _skip_reason(report: pytest.TestReport) -> str:
    """Why a skipped test was skipped (its longrepr is (file, line, reason); a list once it
    has come from a pytest-xdist worker)."""
    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """One line at the end (after the short summary, before the counts) for the tests skipped
    because ``../shared`` is missing (each says so in its reason, ``webapp_support.NEEDS_SHARED``):
    counted from the reports, which under pytest-xdist the workers send to this process."""
    yield
    needing = {report.nodeid for report in terminalreporter.stats.get("skipped", ())
               if NEEDS_SHARED in _skip_reason(report)}
    if needing:
        terminalreporter.write_line(
            f"{len(needing)} tests need ../shared (the original CoScore app): skipped — "
            "set COSCORE_SHARED to its path to run them", yellow=True)


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium for the workbench's page (1400 × 1600, its console kept); a test
    file may define its own ``browser`` (the original app's, the report's)."""
    from browser_support import start_chromium

    driver = start_chromium(tmp_path / "profile", window="1400,1600", console=True)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture()
def artefacts(tmp_path: Path) -> Path:
    """Where a browser test leaves its screenshots: ``COSCORE_ARTEFACTS``, else a temporary folder."""
    folder = Path(os.environ.get("COSCORE_ARTEFACTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser screenshots: {folder}")
    return folder
