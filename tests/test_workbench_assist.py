"""Tune and suggest from the workbench (``POST /api/workbench/tune | suggest | job |
cancel``), the message catalog it loads (``messages``) and the catalog ids its
diagnostics and errors carry, on ``coscore workbench``'s app with the lane-change answers."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.catalog import render
from coscore.workbench import assists
from coscore.workbench.app import create_app

DEMO = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo"
LANE_TEXT = (DEMO / "lane-change.rule.json").read_text(encoding="utf-8")
LANE = json.loads(LANE_TEXT)
WRONG = json.loads(LANE_TEXT)
WRONG["combos"]["B"]["score"] = 1     # tune gives it back its 3
WRONG_TEXT = json.dumps(WRONG, ensure_ascii=False, indent=2) + "\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    app = create_app(store, workers=1)
    with TestClient(app) as client:
        upload = app.state.store.folder("uploads") / f"{os.urandom(8).hex()}.csv"
        shutil.copyfile(DEMO / "lane-change.csv", upload)
        reading = {"encoding": None, "sheet": None, "header_row": None, "max_cell_chars": None}
        columns = {"blanks": [], "label": "score", "label2": None, "group": None, "id": None}
        client.portal.call(app.state.library.import_dataset, {"upload": upload.stem, "file": "lane-change.csv",
                                                              "reading": reading, "columns": columns,
                                                              "rule": LANE_TEXT})
        yield client


def post(client, name: str, body: dict) -> tuple[int, dict]:
    response = client.post(f"/api/workbench/{name}", json=body)
    return response.status_code, response.json()


def finished(client, name: str, body: dict) -> tuple[int, dict]:
    """A run started and asked about until it ends."""
    status, data = post(client, name, body)
    deadline = time.monotonic() + 120
    while status == 202 and time.monotonic() < deadline:
        assert data["status"] == "running" and data["job"].startswith(name)
        status, data = post(client, "job", {"job": data["job"]})
    return status, data


def test_tune_proposes_the_score_back_with_intervals_and_a_diff(client):
    status, data = finished(client, "tune", {"dataset": "lane-change", "rule": WRONG_TEXT})
    assert status == 200, data
    assert data["status"] == "done" and data["accepted"] and data["reason"] is None
    assert {"path": "combos.B.score", "before": 1, "after": 3} in data["changes"]
    tuned = json.loads(data["text"])
    assert tuned["combos"]["B"]["score"] == 3
    assert data["text"].endswith("\n") and data["text"].startswith('{\n  "atoms"')   # laid out as the editor's
    assert {"op": "-", "line": '      "score": 1,'} in data["diff"]
    assert {"op": "+", "line": '      "score": 3,'} in data["diff"]
    for figure in ("before", "after", "improvement"):
        assert data[figure]["value"] is not None and len(data[figure]["ci"]) == 2
    assert data["after"]["value"] > data["before"]["value"]


def test_a_change_not_confirmed_is_proposed_with_its_reason_in_both_languages(client):
    status, data = finished(client, "tune", {"dataset": "lane-change", "rule": LANE_TEXT})
    assert status == 200 and not data["accepted"] and data["changes"] == []
    assert data["proposed"] and json.loads(data["text"]) != LANE      # the proposal, to apply anyway
    assert render(data["reason_said"], "en") == data["reason"]
    assert "没有可信的提高" in render(data["reason_said"], "zh")


def test_suggest_lists_phrases_missed_answers_and_the_atoms(client):
    status, data = finished(client, "suggest", {"dataset": "lane-change", "rule": LANE_TEXT})
    assert status == 200, data
    assert data["n"] == 100 and data["phrases"] and data["groups"]
    assert [a["id"] for a in data["atoms"]] == ["0", "1", "2"] and data["atoms"][1]["type"] == "SM"


def test_a_run_can_be_cancelled(client, monkeypatch):
    monkeypatch.setattr(assists, "WAIT", 0)   # answer at once: still running
    status, data = post(client, "tune", {"dataset": "lane-change", "rule": WRONG_TEXT, "folds": 7})
    assert status == 202 and data["status"] == "running"
    assert post(client, "cancel", {"job": data["job"]}) == (200, {"job": data["job"], "cancelled": True})
    status, gone = post(client, "job", {"job": data["job"]})
    assert status in (404, 409) and gone["said"]["id"] in ("bench.no_job", "pool.cancelled")


def test_refusals(client):
    assert post(client, "tune", {"dataset": "lane-change", "rule": LANE_TEXT, "metric": "f1"})[0] == 400
    assert post(client, "tune", {"dataset": "lane-change", "rule": LANE_TEXT, "folds": 1})[0] == 400
    assert post(client, "tune", {"rule": LANE_TEXT})[0] == 400
    status, data = finished(client, "tune", {"dataset": "lane-change", "rule": '{"atoms": {}'})
    assert status == 422 and data["said"]["id"] == "server.rule_not_compile" and data["diagnostics"]
    status, data = post(client, "job", {"job": "tune-999"})
    assert status == 404 and render(data["said"], "zh").startswith("没有任务")
    assert post(client, "cancel", {"job": "tune-999"}) == (200, {"job": "tune-999", "cancelled": False})


def test_the_catalog_and_the_ids_the_page_renders(client):
    status, data = post(client, "messages", {})
    assert status == 200 and data["languages"] == ["en", "zh"]
    assert data["messages"]["combo.score_outside_scale"] == {"en": "score {score} is outside the 0–10 scale",
                                                              "zh": "分值 {score} 超出 0–10 分的范围"}
    rule = json.dumps({**LANE, "combos": {**LANE["combos"], "C": {"combo": "M(2,T(0))", "score": 20,
                                                                  "mode": "value"}}})
    status, checked = post(client, "check", {"rule": rule})
    (diagnostic,) = checked["diagnostics"]
    assert diagnostic["said"] == {"id": "combo.score_outside_scale", "params": {"score": "20"}}
    assert checked["blank_need"] == {"count": 1, "any_number": False,
                                     "said": {"id": "need.exactly_one", "params": {}}}
    status, data = post(client, "dataset", {"dataset": "nope", "rule": LANE_TEXT})
    assert status == 404 and render(data["said"], "zh") == "没有名为 'nope' 的数据集"
