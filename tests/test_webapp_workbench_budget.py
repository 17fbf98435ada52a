"""The workbench's dataset pages are held to a budget of bytes (issue 37).

The attack trial: ``/api/workbench/dataset`` with ``size=500`` answered 61 MB for a 10 MB
dataset, its answers' control characters escaped six-fold.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.http.jsonsize import json_size
from coscore.webapp import create_app
from coscore.workbench import page_budget
from coscore.workbench.page_budget import fit_answer
from webapp_support import APP_DIR, require_app

RULE = {"atoms": {"0": {"type": "EM", "desc": "a"}},
        "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}


def test_an_answer_is_cut_to_its_budget_blank_by_blank():
    blanks = ["\x01" * 1000, "abc", "x" * 100]
    kept, cut = fit_answer(blanks, 300)
    assert cut and len(kept) == 3 and all(b.startswith(k) for b, k in zip(blanks, kept))
    assert len(json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode()) <= 300
    assert fit_answer(["a", "b"], 100) == (["a", "b"], False)


def _page(client: TestClient, body: dict) -> tuple[dict, int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        response = client.post("/api/workbench/dataset", json=body)
        if response.status_code != 202:
            assert response.status_code == 200, response.text
            return response.json(), len(response.content)
        time.sleep(0.05)
    raise AssertionError("still scoring after 60 s")


def test_a_page_of_control_characters_stays_within_its_budget(tmp_path: Path, monkeypatch):
    require_app()
    monkeypatch.setattr(page_budget, "PAGE_BYTES", 64 * 2**10)
    answers = ["\x01" * 3000 + f"{i:03d}" for i in range(40)]  # each 18,000 bytes as JSON
    with TestClient(create_app(APP_DIR, tmp_path / "db.sqlite", workers=1)) as client:
        created = client.post("/api/createData", json={"name": "controls", "desc": "", "type": "unlabeled",
                                                       "data": "text\n" + "\n".join(answers), "ulength": 40})
        assert created.status_code == 200, created.text
        for size in (20, 500):
            data, length = _page(client, {"dataset": "controls", "rule": RULE, "size": size})
            rows = data["distinct"]["rows"]
            assert len(rows) == min(size, 40)
            assert sum(json_size(b) for r in rows for b in r["answer"]) <= 64 * 2**10
            assert length < 2 * 64 * 2**10 + 20_000  # two lists' pages and the figures
            assert all(r["cut"] and r["answer_chars"] == 3003 for r in rows)
        row = rows[7]
        assert row["position"] == 7 and answers[row["row"] - 1].startswith(row["answer"][0])
        whole = client.post("/api/workbench/rows", json={"dataset": "controls", "rule": RULE, "list": "distinct",
                                                         "page": row["position"], "size": 1}).json()
        assert whole["rows"][0]["answer"] == [answers[row["row"] - 1]] and "cut" not in whole["rows"][0]
