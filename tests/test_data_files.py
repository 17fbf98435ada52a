"""The test data (tests/data) says where it comes from: every file is named in its README,
and the conformance corpus is the project contract's, unchanged."""
from __future__ import annotations

from pathlib import Path

import pytest

from webapp_support import NEEDS_SHARED, SHARED

DATA = Path(__file__).parent / "data"
CORPUS = ("generated.jsonl", "coscore-real.jsonl", "manual-examples.jsonl", "deviations.jsonl")


def test_every_data_file_is_described_in_the_readme():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in DATA.iterdir() if p.is_file() and p.name != "README.md" and p.suffix != ".py")
    assert files and set(CORPUS) <= set(files)
    assert [name for name in files if f"`{name}`" not in readme] == []


@pytest.mark.parametrize("name", CORPUS)
def test_the_conformance_corpus_is_the_contracts(name):
    contract = SHARED / "conformance" / name
    if not contract.is_file():
        pytest.skip(f"{NEEDS_SHARED}: the contract's conformance set is not in {contract.parent}")
    assert (DATA / name).read_bytes() == contract.read_bytes()
