"""A request that changes something and carries no ``Origin`` is judged by ``Referer`` and
``Sec-Fetch-Site`` (issue 37, item 6): the trial's ``POST /api/workbench/save`` with a
foreign ``Referer`` and ``Sec-Fetch-Site: cross-site`` was accepted."""
from __future__ import annotations

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from coscore.http.guard import Guard, GuardSettings
from webapp_support import APP_DIR, copy_database


def _client(**settings) -> TestClient:
    async def ok(request):
        return JSONResponse({"ok": True})

    routes = [Route("/api/x", ok, methods=["GET", "POST", "DELETE"]), Route("/page", ok)]
    guard = Middleware(Guard, settings=GuardSettings(json_prefix="/api/", **settings))
    return TestClient(Starlette(routes=routes, middleware=[guard]), base_url="http://127.0.0.1:5000")


CROSS = {"sec-fetch-site": "cross-site"}


def test_without_origin_a_cross_site_fetch_is_refused():
    client = _client()
    refused = client.post("/api/x", json={}, headers=CROSS)
    assert refused.status_code == 403 and "Sec-Fetch-Site: cross-site" in refused.json()["error"]
    assert client.post("/api/x", json={}, headers={"sec-fetch-site": "same-site"}).status_code == 403
    assert client.delete("/api/x", headers=CROSS).status_code == 403
    for fine in ("same-origin", "none"):  # the server's own page; typed by the user
        assert client.post("/api/x", json={}, headers={"sec-fetch-site": fine}).status_code == 200
    assert client.post("/api/x", json={}).status_code == 200  # curl, scripts: no browser headers
    # reading is not changing: a link from another site to a page still opens
    assert client.get("/page", headers={**CROSS, "referer": "http://evil.example/"}).status_code == 200
    # a service that allows every origin (CORS '*') allows them
    assert _client(origins=frozenset({"*"})).post("/api/x", json={}, headers=CROSS).status_code == 200


def test_without_origin_the_referer_is_judged_as_an_origin():
    client = _client(origins=frozenset({"http://allowed.example"}))
    refused = client.post("/api/x", json={}, headers={"referer": "http://evil.example/page?q=1"})
    assert refused.status_code == 403 and "http://evil.example" in refused.json()["error"]
    assert client.post("/api/x", json={}, headers={"referer": "not a url"}).status_code == 403
    assert client.post("/api/x", json={}, headers={"referer": "http://127.0.0.1:5000/workbench"}).status_code == 200
    assert client.post("/api/x", json={}, headers={"referer": "http://127.0.0.1:5001/"}).status_code == 403
    assert client.post("/api/x", json={}, headers={"referer": "http://allowed.example/x"}).status_code == 200
    # same-origin by its Referer, whatever Sec-Fetch-Site says, and Origin wins over both
    assert client.post("/api/x", json={}, headers={**CROSS, "referer": "http://127.0.0.1:5000/"}).status_code == 200
    both = {"origin": "http://127.0.0.1:5000", "referer": "http://evil.example/"}
    assert client.post("/api/x", json={}, headers=both).status_code == 200


def test_the_app_refuses_the_trials_save(tmp_path):
    from coscore.webapp import create_app

    with TestClient(create_app(APP_DIR, copy_database(tmp_path)), base_url="http://127.0.0.1:5000") as client:
        rule = '{"atoms": {}, "combos": {}, "comboMode": "ADD"}'
        r = client.post("/api/workbench/save", json={"name": "cross", "rule": rule},
                        headers={**CROSS, "referer": "http://evil.example/attack.html"})
        assert r.status_code == 403 and r.headers["content-type"] == "application/json"
        assert "cross" not in [rule["name"] for rule in client.get("/api/getRules").json()]
