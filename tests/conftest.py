"""Shared fixtures: the conformance corpus (tests/data/*.jsonl) and the demo rules."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

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
