"""``coscore app`` safe to leave running: stored script, surrogates, tasks with budgets that
stop when deleted and take turns, and a clean stop that leaves every write in the file."""
from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.webapp import create_app
from support import wait_until
from webapp_support import APP_DIR, LiveApp, copy_database, wait_for_task

SLOW_RULE = json.dumps({"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}},
                        "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
QUICK_RULE = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                         "combos": {"A": {"combo": "G(0, T(0))", "score": 2, "mode": "logic"}}, "comboMode": "ADD"})


def _dataset(client, name: str, answers: list[str]) -> None:
    data = "text\n" + "\n".join(answers)
    r = client.post("/api/createData", json={"name": name, "desc": "", "type": "unlabeled", "data": data,
                                             "ulength": len(answers)})
    assert r.status_code == 200, r.text


def _task(client, name: str) -> dict:
    return next(t for t in client.get("/api/getTasks").json() if t["task_name"] == name)


@pytest.fixture()
def client(tmp_path: Path):
    with TestClient(create_app(APP_DIR, copy_database(tmp_path), workers=1, timeout=5)) as client:
        yield client


@pytest.mark.parametrize("path, body, field", [
    ("/api/createData", {"name": "<img src=x onerror=alert(1)>", "desc": "", "type": "unlabeled", "data": "text\na",
                         "ulength": 1}, "'name'"),
    ("/api/createData", {"name": "ok", "desc": "", "type": "unlabeled", "data": "text\n<script>x</script>",
                         "ulength": 1}, "'data' holds '<' (line 2)"),
    ("/api/saveRule", {"name": "a'b", "prompt": "", "rule": QUICK_RULE}, "'name'"),
    ("/api/saveRule", {"name": "r", "prompt": "", "rule": QUICK_RULE.replace('"A"', '"<b>A</b>"')}, "combo id"),
    ("/api/saveRule", {"name": "r", "prompt": "", "rule": QUICK_RULE.replace('G(0, T(0))', "'<img src=x>'").replace(
        '"logic"', '"value"')}, "holds '<' in a string"),
    ("/api/createTask", {"data_name": "test 1", "rule_name": "test 1", "task_name": 'x" onclick="y'}, "'task_name'"),
    ("/api/deleteRule", b'{"name": "\\ud800"}', "lone surrogate"),
])
def test_what_the_pages_show_as_html_cannot_hold_script(client, path, body, field):
    r = client.post(path, content=body) if isinstance(body, bytes) else client.post(path, json=body)
    assert r.status_code == 400 and field in r.json()["error"], r.text


def test_descriptions_are_stored_escaped(client):
    _dataset(client, "plain", ["x"])
    assert client.post("/api/createData", json={"name": "d", "desc": "a < b & <img src=x>", "type": "unlabeled",
                                                "data": "text\nx", "ulength": 1}).status_code == 200
    assert next(d for d in client.get("/api/getData").json() if d["name"] == "d")["desc"] == \
        "a &lt; b &amp; &lt;img src=x&gt;"
    assert client.post("/api/saveRule", json={"name": "r", "prompt": "<b>bold</b>", "rule": QUICK_RULE}).status_code == 200
    assert next(r for r in client.get("/api/getRules").json() if r["name"] == "r")["desc"] == "&lt;b&gt;bold&lt;/b&gt;"


def test_deleting_a_running_task_stops_it(client):
    _dataset(client, "slow", ["a" * 9999 + str(i % 10) for i in range(200)])
    client.post("/api/saveRule", json={"name": "slow", "prompt": "", "rule": SLOW_RULE})
    assert client.post("/api/createTask", json={"data_name": "slow", "rule_name": "slow",
                                                "task_name": "long"}).status_code == 200
    pool = client.app.state.pool
    wait_until(lambda: pool.busy, 30, "the task to run")
    restarts = pool.restarts
    assert client.post("/api/deleteTask", json={"task_name": "long"}).status_code == 200
    # its worker was stopped, nothing else runs
    wait_until(lambda: not pool.busy and pool.restarts != restarts, 10, "the task's worker to be stopped")
    assert all(t["task_name"] != "long" for t in client.get("/api/getTasks").json())


def test_a_small_task_is_not_stuck_behind_large_ones(tmp_path):
    with TestClient(create_app(APP_DIR, copy_database(tmp_path), workers=1, timeout=5)) as client:
        _dataset(client, "slow", ["a" * 9999 + str(i % 10) for i in range(100)])
        _dataset(client, "small", ["a", "b"])
        client.post("/api/saveRule", json={"name": "slow", "prompt": "", "rule": SLOW_RULE})
        client.post("/api/saveRule", json={"name": "quick", "prompt": "", "rule": QUICK_RULE})
        for name in ("big 1", "big 2"):
            client.post("/api/createTask", json={"data_name": "slow", "rule_name": "slow", "task_name": name})
        wait_until(lambda: client.app.state.pool.busy, 30, "the large tasks to take the worker")
        start = time.monotonic()
        client.post("/api/createTask", json={"data_name": "small", "rule_name": "quick", "task_name": "small"})
        task = wait_for_task(client, "small", 30)
        assert task["status"] == "completed" and time.monotonic() - start < 10
        assert task["result"] == '{"scores": [2, 0], "logs": [{"A": 2}, {"A": 0}]}'
        assert _task(client, "big 1")["status"] == "running"
        for name in ("big 1", "big 2"):
            client.post("/api/deleteTask", json={"task_name": name})


def test_a_task_over_its_time_fails_naming_the_budget(tmp_path):
    with TestClient(create_app(APP_DIR, copy_database(tmp_path), task_time=1.0)) as client:
        _dataset(client, "slow", ["a" * 9999 + str(i % 10) for i in range(40)])
        client.post("/api/saveRule", json={"name": "slow", "prompt": "", "rule": SLOW_RULE})
        client.post("/api/createTask", json={"data_name": "slow", "rule_name": "slow", "task_name": "t"})
        task = wait_for_task(client, "t", 60)
    assert task["status"] == "failed" and "(limit task_time)" in task["result"], task["result"]


def test_a_clean_stop_leaves_every_write_in_the_database_file(tmp_path):
    db = copy_database(tmp_path)
    app = LiveApp(db)
    try:
        import httpx

        r = httpx.post(app.url + "/api/saveRule", json={"name": "last", "prompt": "", "rule": QUICK_RULE}, timeout=30)
        assert r.status_code == 200
    finally:
        app.stop()  # SIGTERM
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(db, alone / "database.db")  # the file alone, without its -wal
    with sqlite3.connect(alone / "database.db") as connection:
        assert connection.execute("SELECT count(*) FROM rules WHERE name = 'last'").fetchone() == (1,)


def test_a_task_does_not_compile_again_the_rule_its_request_compiled(client):
    _dataset(client, "few", ["a", "b", "c"])
    assert client.post("/api/saveRule", json={"name": "quick", "prompt": "", "rule": QUICK_RULE}).status_code == 200
    assert client.post("/api/createTask", json={"data_name": "few", "rule_name": "quick",
                                                "task_name": "t"}).status_code == 200
    assert wait_for_task(client, "t")["status"] == "completed"
    caches = [stats["cache"] for stats in client.app.state.pool.info()["stats"] if stats]
    assert sum(c["misses"] for c in caches) == 1 and sum(c["hits"] for c in caches) >= 2, caches


def test_a_new_task_in_the_row_of_a_deleted_one_runs(client):
    """SQLite gives a new row the id of the last one deleted: the new task must not count as deleted."""
    _dataset(client, "few", ["a", "b"])
    client.post("/api/saveRule", json={"name": "quick", "prompt": "", "rule": QUICK_RULE})
    for name in ("first", "second", "third"):
        assert client.post("/api/createTask", json={"data_name": "few", "rule_name": "quick",
                                                    "task_name": name}).status_code == 200
        assert wait_for_task(client, name)["status"] == "completed"
        assert client.post("/api/deleteTask", json={"task_name": name}).status_code == 200
