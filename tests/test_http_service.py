"""``coscore serve`` safe to leave running: headers and bodies that never finish, answers
too large to send, rules too large to compile, surrogates, and the check's type pass."""
from __future__ import annotations

import json
import socket
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

import coscore  # noqa: E402
from coscore.server import create_app  # noqa: E402
from test_server import _serve  # noqa: E402


def _rule(combos: dict) -> dict:
    return {"atoms": {}, "combos": {k: {"combo": c, "score": 1, "mode": "value"} for k, c in combos.items()},
            "comboMode": "ADD"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=1, max_response=100_000)) as client:
        yield client


def test_check_runs_the_type_pass_of_coscore_check(client):
    body = client.post("/v1/check", json={"rule": {"atoms": {}, "comboMode": "ADD", "combos": {
        "A": {"combo": "T(0) > 3", "score": 1, "mode": "logic"}}}}).json()
    assert body["valid"] is False and body["combos"] == ["A"]
    (error,) = [d for d in body["diagnostics"] if d["severity"] == "error"]
    assert error["path"] == "combos.A.combo" and "orders text" in error["message"]


def test_an_answer_over_the_response_budget_is_refused_before_scoring(client):
    rule = _rule({f"C{i}": "1" for i in range(1000)})
    r = client.post("/v1/score", json={"rule": rule, "answers": [["x"]] * 100})
    assert r.status_code == 422 and r.json()["budget"] == "response" and r.json()["limit"] == 100_000
    assert client.post("/v1/score", json={"rule": rule, "answers": [["x"]] * 10}).status_code == 200


def test_rules_too_large_to_compile_are_refused_from_their_size():
    rule = _rule({f"C{i}": "+".join(["1"] * 4999) for i in range(1000)})  # 10 MB of combo text
    start = time.perf_counter()
    with pytest.raises(coscore.RuleError, match=r"limit max_combo_chars"):
        coscore.compile(rule)
    assert time.perf_counter() - start < 5
    keys = {"atoms": {"0": {"type": "EM", "desc": "," * 1_000_000}}, "combos": {}, "comboMode": "ADD"}
    with pytest.raises(coscore.RuleError, match=r"1,000,001 EM/OP/CS keys"):
        coscore.compile(keys)


def test_lone_surrogates_are_400(client):
    r = client.post("/api/testRule", content=b'{"rule": {"atoms": {}, "combos": {}, "comboMode": "ADD"}, '
                    b'"answer": ["\\ud800"]}', headers={"content-type": "application/json"})
    assert r.status_code == 400 and "surrogate" in r.json()["error"] and "answer[0]" in r.json()["error"]
    pair = b'{"rule": {"atoms": {}, "combos": {}, "comboMode": "ADD"}, "answer": ["\\ud83d\\ude00"]}'
    assert client.post("/api/testRule", content=pair, headers={"content-type": "application/json"}).status_code == 200


@pytest.fixture(scope="module")
def url():
    yield from _serve("--header-timeout", "1", "--workers", "1", "--token", "tok")


def test_a_connection_that_never_finishes_its_headers_is_closed(url):
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        start = time.monotonic()
        assert s.recv(100) == b""  # closed by the server
        assert time.monotonic() - start < 4


def test_a_token_is_needed_when_given(url):
    assert httpx.get(url + "/healthz?token=tok").status_code == 200
    assert httpx.get(url + "/healthz").status_code == 401
    assert httpx.get(url + "/healthz", headers={"authorization": "Bearer tok"}).json()["status"] == "ok"
    r = httpx.post(url + "/v1/check", content=json.dumps({"rule": _rule({"A": "1"})}),
                   headers={"content-type": "text/plain", "authorization": "Bearer tok"})
    assert r.status_code == 415
