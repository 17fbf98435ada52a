"""``coscore app``: readiness, and tasks queued beside heavy ones (issue 37).

The attack trial: the first request after a start got 503 while the worker pool warmed
up (3.8 s against a 5 s budget); with two tasks of a heavy rule running, creating a
third, small task was refused with 503 "every worker stayed busy for the 5 s budget".
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from support import wait_until

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.webapp import api as webapp_api
from coscore.webapp import create_app
from webapp_support import APP_DIR, require_app

SMALL_RULE = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                         "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
#: About 0.4 s an answer of 10,000 characters (an SM atom of 10,000 '~a' options).
HEAVY_RULE = json.dumps({"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 10_000)}},
                         "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})


def _task(client: TestClient, name: str) -> dict:
    return next(t for t in client.get("/api/getTasks").json() if t["task_name"] == name)


def _wait(client: TestClient, name: str, timeout: float) -> tuple[dict, float]:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        task = _task(client, name)
        if task["status"] != "running":
            return task, time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"task {name!r} still running after {timeout} s")


def test_readyz_and_the_first_request_waits_for_the_workers(tmp_path: Path):
    require_app()
    # a 1 s wait for a worker is shorter than the workers take to start: the first request
    # used to be answered 503 ("every worker stayed busy") while they started
    with TestClient(create_app(APP_DIR, tmp_path / "db.sqlite", workers=1, timeout=1.0)) as client:
        cold = client.get("/readyz")
        assert cold.status_code == 503 and cold.json()["status"] == "starting"
        assert cold.headers["retry-after"] == "1"
        tested = client.post("/api/testRule", json={"rule": json.loads(SMALL_RULE), "answer": ["a"]})
        assert tested.status_code == 200, tested.text
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json() == {"status": "ready", "workers": {"ready": 1, "size": 1}}


def test_a_small_task_beside_two_heavy_ones_is_queued_and_done_in_seconds(tmp_path: Path, monkeypatch):
    require_app()
    monkeypatch.setattr(webapp_api, "COMPILE_WAIT", 0.01)  # the worker is always busy when a task is created
    heavy = "text\n" + "\n".join("a" * 10_000 + f"{i:04d}" for i in range(40))
    with TestClient(create_app(APP_DIR, tmp_path / "db.sqlite", workers=1)) as client:
        for name, rule in (("heavy", HEAVY_RULE), ("small", SMALL_RULE), ("broken", "{not a rule")):
            if name != "broken":
                assert client.post("/api/saveRule", json={"name": name, "prompt": "", "rule": rule}).status_code == 200
        client.app.state.store.save_rule("broken", "", "", "{not a rule")  # as the original server may store it
        for name, data, count in (("heavy", heavy, 40), ("small", "text\na\nb\nc", 3)):
            assert client.post("/api/createData", json={"name": name, "desc": "", "type": "unlabeled", "data": data,
                                                        "ulength": count}).status_code == 200
        for name in ("heavy 1", "heavy 2"):
            created = client.post("/api/createTask", json={"data_name": "heavy", "rule_name": "heavy",
                                                           "task_name": name})
            assert created.status_code == 200, created.text
        wait_until(lambda: client.app.state.pool.busy, 30, "the heavy tasks to hold the worker")
        start = time.monotonic()
        created = client.post("/api/createTask", json={"data_name": "small", "rule_name": "small",
                                                       "task_name": "small"})
        assert created.status_code == 200, created.text  # queued, never 503 for busy workers
        small, _ = _wait(client, "small", 30)
        took = time.monotonic() - start
        assert small["status"] == "completed" and json.loads(small["result"])["scores"] == [1.0, 0.0, 0.0]
        assert _task(client, "heavy 1")["status"] == "running" and _task(client, "heavy 2")["status"] == "running"
        assert took < 15, f"the small task took {took:.1f} s beside the heavy ones"
        # a rule that does not compile, its task queued while the worker is busy: failed, saying why
        assert client.post("/api/createTask", json={"data_name": "small", "rule_name": "broken",
                                                    "task_name": "broken"}).status_code == 200
        broken, _ = _wait(client, "broken", 30)
        assert broken["status"] == "failed" and "does not compile" in broken["result"]
        for name in ("heavy 1", "heavy 2"):
            assert client.post("/api/deleteTask", json={"task_name": name}).status_code == 200


def test_the_workbench_alone_reports_ready_and_its_first_request_waits(tmp_path: Path):
    from coscore.workbench import create_app as workbench_app

    app = workbench_app(tmp_path / "store", workers=1, timeout=1.0, allowed_hosts=frozenset({"testserver"}))
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 503
        checked = client.post("/api/workbench/check", json={"rule": json.loads(SMALL_RULE)})
        assert checked.status_code == 200, checked.text
        assert client.get("/readyz").json() == {"status": "ready", "workers": {"ready": 1, "size": 1}}
