"""Cross-site requests, rebinding and the token (:mod:`coscore.http.guard`, :mod:`coscore.http.options`)."""
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
from coscore.http.options import access, is_loopback

HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _app(**settings) -> Starlette:
    async def ok(request):
        return JSONResponse({"ok": True})

    routes = [Route("/api/x", ok, methods=["GET", "POST"]), Route("/page", ok)]
    return Starlette(routes=routes, middleware=[Middleware(Guard, settings=GuardSettings(json_prefix="/api/",
                                                                                          **settings))])


def test_json_endpoints_take_json_only():
    client = TestClient(_app())
    assert client.post("/api/x", content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
    assert client.post("/api/x", data={"a": "b"}).status_code == 415
    assert client.post("/api/x", json={}).status_code == 200
    assert client.post("/api/x", content=b"{}").status_code == 200  # no type declared: not a form


def test_pages_of_other_origins_are_refused():
    client = TestClient(_app(origins=frozenset({"http://allowed.example"})))
    assert client.post("/api/x", json={}, headers={"origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/x", json={}, headers={"origin": "null"}).status_code == 403
    assert client.post("/api/x", json={}, headers={"origin": "http://testserver"}).status_code == 200
    assert client.post("/api/x", json={}, headers={"origin": "http://allowed.example"}).status_code == 200


def test_foreign_host_names_are_refused():
    client = TestClient(_app(hosts=HOSTS), base_url="http://127.0.0.1:5000")
    assert client.get("/api/x").status_code == 200
    refused = client.get("/api/x", headers={"host": "evil.example:5000"})
    assert refused.status_code == 421 and "evil.example" in refused.json()["error"]
    page = client.get("/page", headers={"host": "<b>evil</b>"})
    assert page.status_code == 421 and "<b>" not in page.text
    browser_only = TestClient(_app(hosts=HOSTS, check_host="browser"), base_url="http://x")
    assert browser_only.get("/api/x").status_code == 200
    assert browser_only.post("/api/x", json={}, headers={"origin": "http://x"}).status_code == 421


def test_the_token_comes_by_url_then_by_cookie():
    client = TestClient(_app(token="s3cret"), base_url="http://127.0.0.1:5000")
    assert client.get("/page").status_code == 401 and client.get("/api/x").status_code == 401
    assert client.get("/page?token=wrong").status_code == 401
    first = client.get("/page?token=s3cret")
    assert first.status_code == 200 and "HttpOnly" in first.headers["set-cookie"]
    assert client.get("/api/x").status_code == 200  # the cookie now
    other = TestClient(_app(token="s3cret"))
    assert other.get("/api/x", headers={"authorization": "Bearer s3cret"}).status_code == 200


def test_who_may_connect_depends_on_the_address():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and not is_loopback("0.0.0.0")
    local = access("coscore app", "127.0.0.1", 5000, None, False, None)
    assert local.token is None and "127.0.0.1" in local.hosts and not local.notes
    public = access("coscore app", "0.0.0.0", 5000, None, False, None)
    assert public.hosts is None and len(public.token) >= 30 and f"?token={public.token}" in public.notes[0]
    opted_out = access("coscore app", "0.0.0.0", 5000, None, True, None)
    assert opted_out.token is None and "warning" in opted_out.notes[0]
    assert access("coscore app", "0.0.0.0", 5000, "given", False, ["school.example"]).hosts >= {"school.example"}
