"""JSON bodies are counted against a budget (values, depth) as they arrive (issue 37, item 1):
a ``{}`` bomb posted to any POST route of ``coscore app`` (the workbench's too) is refused
413 naming the budget before anything parses it, and the server's memory stays put."""
from __future__ import annotations

import json
import random
import time

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

import httpx
from starlette.routing import Route
from starlette.testclient import TestClient

from coscore.http import jsonscan
from coscore.http.admission import Admission
from coscore.http.bodies import parse_json
from coscore.http.jsonscan import JsonBudget, JsonScan, check_json
from coscore.http.responses import ApiError
from webapp_support import APP_DIR, LiveApp, copy_database

SMALL = JsonBudget(max_values=65_536, max_depth=16)
#: 1 MB of ``{}``: 333,333 values, five times SMALL.
BOMB = b'{"name": [' + b"{}," * 333_333 + b"{}]}"


UNBOUNDED = JsonBudget(10**9, 10**9)


def _counted(data: bytes, budget: JsonBudget = UNBOUNDED, pieces: int = 1) -> JsonScan:
    scan = JsonScan(budget)
    step = max(1, len(data) // pieces)
    for start in range(0, len(data), step):
        scan.feed(data[start:start + step])
    scan.finish()
    return scan


def _reference(data: bytes) -> tuple[int, int]:
    """Values (1 + commas + openings) and depth outside strings, one byte at a time (a
    quote after an odd run of backslashes does not open or close a string)."""
    values, depth, deepest, in_string, escaped = 1, 0, 0, False, False
    for char in data.decode("latin-1"):
        if char == "\\":
            escaped = not escaped
            continue
        quoted, escaped = escaped, False
        if char == '"' and not quoted:
            in_string = not in_string
        elif not in_string and char in "[{":
            depth, values = depth + 1, values + 1
            deepest = max(deepest, depth)
        elif not in_string and char in "]}":
            depth -= 1
        elif not in_string and char == ",":
            values += 1
    return values, deepest


def test_values_and_depth_are_those_json_would_build(monkeypatch):
    monkeypatch.setattr(jsonscan, "SCAN_CHUNK", 5)  # pieces cut everywhere: in escapes, in strings
    rng = random.Random(37)
    for _ in range(3000):
        data = bytes(rng.choice(b'[]{},"\\a:') for _ in range(rng.randint(0, 50)))
        scan = _counted(data, pieces=rng.randint(1, 9))
        assert (scan.values, scan.deepest) == _reference(data), data
    document = {"a": [1, "x,[{", {"b": ["\\\"]", None]}], "c": "\\\\", "d": [[[]]]}
    text = json.dumps(document).encode()
    scan = _counted(text, pieces=7)
    assert (scan.values, scan.deepest) == _reference(text) == (13, 4)  # 12 values: never fewer counted


def test_a_bomb_is_refused_naming_the_budget():
    with pytest.raises(ApiError) as caught:
        check_json(BOMB, SMALL)
    assert caught.value.status == 413
    assert caught.value.extra == {"budget": "json_values", "limit": 65_536}
    assert "65,536 JSON values" in caught.value.message and "--max-json-values" in caught.value.message
    with pytest.raises(ApiError) as caught:
        parse_json(b"[" * 17 + b"]" * 17, SMALL)
    assert caught.value.status == 422 and caught.value.extra["budget"] == "json_depth"
    # brackets and commas inside strings cost nothing; what fits is parsed as before
    text = json.dumps({"data": "[{," * 300_000, "list": list(range(1000))}).encode()
    assert parse_json(text, SMALL)["list"][-1] == 999


@pytest.fixture()
def app_client(tmp_path):
    from coscore.webapp import create_app

    app = create_app(APP_DIR, copy_database(tmp_path), admission=Admission(SMALL))
    with TestClient(app) as client:
        yield client


def _post_routes(app) -> list[str]:
    paths = []
    for route in app.routes:
        if isinstance(route, Route) and "POST" in (route.methods or ()) and route.path.startswith("/api/"):
            paths.append(route.path)
    return paths


def test_every_post_route_of_the_app_refuses_a_bomb(app_client):
    paths = _post_routes(app_client.app)
    assert "/api/createData" in paths and "/api/workbench/save" in paths, paths
    for path in paths:
        r = app_client.post(path, content=BOMB, headers={"content-type": "application/json"})
        assert r.status_code == 413, (path, r.status_code, r.text[:200])
        assert r.json()["budget"] == "json_values", path
        deep = app_client.post(path, content=b'{"name": ' + b"[" * 40 + b"]" * 40 + b"}",
                               headers={"content-type": "application/json"})
        assert deep.status_code == 422 and deep.json()["budget"] == "json_depth", path
    # a body within the budget is answered as before
    assert app_client.post("/api/getDataByName", json={"name": "no such"}).status_code == 404


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as handle:
        return int(handle.read().split()[1]) * 4096


def test_a_live_app_refuses_a_bomb_fast_and_keeps_its_memory(tmp_path):
    """``coscore app --max-json-values 65536``: a 4 MB bomb (20 times the budget) is
    refused within 2 s, the server's memory grows by less than the bomb would build."""
    live = LiveApp(copy_database(tmp_path), "--max-json-values", "65536", "--workers", "1")
    try:
        bomb = b'{"name": "x", "desc": "", "type": "unlabeled", "ulength": 0, "data": [' + b"{}," * 1_333_333 + b"{}]}"
        with httpx.Client(base_url=live.url, timeout=30) as client:
            assert client.get("/api/getRules").status_code == 200
            before = _rss(live.process.pid)
            for path in ("/api/createData", "/api/workbench/check"):
                start = time.monotonic()
                r = client.post(path, content=bomb, headers={"content-type": "application/json"})
                assert time.monotonic() - start < 2.0
                assert r.status_code == 413 and r.json()["budget"] == "json_values", r.text[:200]
            assert _rss(live.process.pid) - before < 64 * 2**20  # 1.3 M dicts would be ~100 MB
            assert client.get("/api/getRules").status_code == 200
    finally:
        live.stop()
