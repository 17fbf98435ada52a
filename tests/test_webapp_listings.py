"""``coscore app``'s listings are streamed (whole or by page) and its store has quotas (issue 37).

The attack trial: ``GET /api/getData`` built 365 MB in memory from 62 MB stored (control
characters escaped six-fold), ``GET /api/getTasks`` died of MemoryError mid-send, and the
number of datasets stored had no limit.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.http.jsonsize import fit_text, json_size
from coscore.webapp import (
    create_app,
    listings,
)
from coscore.webapp.quotas import Quotas
from coscore.webapp.store import Store
from webapp_support import APP_DIR, require_app

EM_RULE = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                      "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})


def _client(tmp_path: Path, **quotas: int | None) -> TestClient:
    require_app()
    return TestClient(create_app(APP_DIR, tmp_path / "db.sqlite", workers=1, quotas=Quotas(**quotas)))


def _dataset(name: str, data: str, count: int) -> dict:
    return {"name": name, "desc": "", "type": "unlabeled", "data": data, "ulength": count}


def test_json_size_counts_the_escapes():
    for text in ["", "plain", "a\nb\t\"q\"\\", "\x01\x1f\x7f", "爱国 \u2028 😀", "x" * 3000]:
        assert json_size(text) == len(json.dumps(text, ensure_ascii=False).encode())
        for budget in (0, 2, 7, 50, 10_000):
            cut = fit_text(text, budget)
            assert text.startswith(cut) and (json_size(cut) <= budget or cut == "")
            assert cut == text or json_size(text[:len(cut) + 1]) > budget


def test_get_data_streams_what_is_stored_and_pages(tmp_path):
    rows = [("plain", "text\na\nb", 2), ("controls", "text\n\x01\x02a\x1f\n\"q\"\\", 2), ("中文", "text\n爱国", 1)]
    with _client(tmp_path) as client:
        for name, data, count in rows:
            assert client.post("/api/createData", json=_dataset(name, data, count)).status_code == 200
        response = client.get("/api/getData")
        assert response.status_code == 200 and "content-length" not in response.headers  # streamed
        listed = response.json()
        assert [(d["name"], d["data"], int(d["count"])) for d in listed] == rows  # count is TEXT, as stored
        assert [list(d) for d in listed] == [["name", "desc", "type", "data", "count", "created"]] * 3
        page = client.get("/api/getData?page=1&size=2").json()
        assert {k: page[k] for k in ("page", "size", "total", "pages")} == {"page": 1, "size": 2, "total": 3,
                                                                              "pages": 2}
        assert page["items"] == listed[2:]
        assert client.get("/api/getData?size=1").json()["items"] == listed[:1]
        assert client.get("/api/getRules?page=0").json()["items"] == []
        for query in ("size=0", f"size={listings.MAX_PAGE_SIZE + 1}", "page=-1", "page=x"):
            response = client.get(f"/api/getData?{query}")
            assert response.status_code == 400 and "must be an integer" in response.json()["error"], query
        one = client.post("/api/getDataByName", json={"name": "controls"})
        assert one.json() == listed[1]


@pytest.mark.parametrize("blobs", [True, False])  # False: Python 3.10, a text read whole, escaped in slices
def test_a_listing_is_written_piece_by_piece(tmp_path, monkeypatch, blobs):
    if blobs and not listings.BLOBS:
        pytest.skip("this Python's sqlite3 has no blob handles")
    monkeypatch.setattr(listings, "BLOBS", blobs)
    monkeypatch.setattr(listings, "FLUSH", 4096)
    monkeypatch.setattr(listings, "BLOB_CHUNK", 1000)  # bytes of a stored text read at once
    monkeypatch.setattr("coscore.http.jsonsize.SLICE", 1000)  # characters escaped at once (Python 3.10)
    store = Store(tmp_path / "db.sqlite")
    big = "text\n" + "\x01" * 50_000 + "爱国" * 3000  # control characters escaped six-fold: 300,000 bytes
    store.add_dataset("big", "", "unlabeled", big, 1)
    store.add_dataset("small", "", "unlabeled", "text\na", 1)
    pieces = listings.stream(store, listings.DATASETS)
    store.delete_dataset("small")  # after the listing began: it is sent as it was then
    pieces = list(pieces)
    assert len(pieces) > 50 and max(map(len, pieces)) <= 4096 + 6 * 1000  # one read past the flush at most
    assert [d["data"] for d in json.loads(b"".join(pieces))] == [big, "text\na"]
    one = listings.one_row(store, listings.DATASETS, "name = ?", ("big",))
    assert json.loads(b"".join(one))["data"] == big


def test_dataset_quotas_count_and_escaped_bytes(tmp_path):
    with _client(tmp_path, datasets=2, data_bytes=20_000) as client:
        # 4,000 control characters are 4,000 bytes stored but 24,000 in a listing: refused
        refused = client.post("/api/createData", json=_dataset("controls", "text\n" + "\x01" * 4000, 1))
        assert refused.status_code == 507
        body = refused.json()
        assert body["budget"] == "data_bytes" and body["limit"] == 20_000 and "--max-data-bytes" in body["error"]
        assert client.post("/api/createData", json=_dataset("a", "text\n" + "a" * 4000, 1)).status_code == 200
        assert client.post("/api/createData", json=_dataset("b", "text\nb", 1)).status_code == 200
        third = client.post("/api/createData", json=_dataset("c", "text\nc", 1))
        assert third.status_code == 507 and third.json()["budget"] == "datasets"
        assert "--max-datasets" in third.json()["error"] and "delete a dataset" in third.json()["error"]
        listing = client.get("/api/getData")
        assert len(listing.content) <= 20_000 and [d["name"] for d in listing.json()] == ["a", "b"]
        assert client.post("/api/deleteData", json={"name": "b"}).status_code == 200
        assert client.post("/api/createData", json=_dataset("c", "text\nc", 1)).status_code == 200


def _wait(client: TestClient, name: str, timeout: float = 60) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = next(t for t in client.get("/api/getTasks").json() if t["task_name"] == name)
        if task["status"] != "running":
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {name!r} still running after {timeout} s")


def test_task_quotas_count_and_result_bytes(tmp_path):
    with _client(tmp_path, tasks=2, task_bytes=3000) as client:
        client.post("/api/saveRule", json={"name": "em", "prompt": "", "rule": EM_RULE})
        client.post("/api/createData", json=_dataset("few", "text\na\nb", 2))
        client.post("/api/createData", json=_dataset("many", "text\n" + "\n".join(["a"] * 300), 300))
        task = {"data_name": "few", "rule_name": "em", "task_name": "small"}
        assert client.post("/api/createTask", json=task).status_code == 200
        assert _wait(client, "small")["status"] == "completed"
        # 300 answers make a result of about 4,500 bytes as JSON: past the 3,000 of the quota
        large_task = {**task, "data_name": "many", "task_name": "large"}
        assert client.post("/api/createTask", json=large_task).status_code == 200
        large = _wait(client, "large")
        assert large["status"] == "failed" and "--max-task-bytes" in large["result"], large["result"]
        third = client.post("/api/createTask", json={**task, "task_name": "third"})
        assert third.status_code == 507 and third.json()["budget"] == "tasks" and "--max-tasks" in third.json()["error"]
        assert len(client.get("/api/getTasks").content) <= 3000
