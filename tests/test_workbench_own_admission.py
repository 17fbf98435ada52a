"""``coscore workbench`` admits as ``coscore serve`` and ``coscore app`` do
(:mod:`coscore.http.admission`): each JSON body counted against the JSON budget as it
arrives, each client's bytes of bodies and open requests capped, the client gate first in
its middleware; and the command builds the admission from its options."""
from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import httpx
from starlette.testclient import TestClient

from coscore.http.admission import Admission
from coscore.http.clients import ClientGate
from coscore.http.jsonscan import JsonBudget
from coscore.workbench import create_app
from workbench_files import LiveWorkbench


def test_the_app_counts_json_and_caps_each_clients_bodies(tmp_path: Path):
    admission = Admission(JsonBudget(max_values=200, max_depth=6), client_requests=4, client_in_flight=4096)
    app = create_app(tmp_path / "store", workers=1, admission=admission,
                     allowed_hosts=frozenset({"127.0.0.1", "localhost"}))
    first = app.user_middleware[0]
    assert first.cls is ClientGate and first.kwargs == {"limit": 4}   # before the guard and the warm-up gate
    with TestClient(app, base_url="http://127.0.0.1") as client:
        deep = client.post("/api/workbench/check", content=b'{"rule": ' + b"[" * 20 + b"]" * 20 + b"}",
                           headers={"content-type": "application/json"})
        assert deep.status_code == 422 and deep.json()["budget"] == "json_depth"
        many = client.post("/api/workbench/check", json={"rule": list(range(500))})
        assert many.status_code == 413 and many.json()["budget"] == "json_values"
        big = client.post("/workbench/upload?name=a.csv", content=b"text,score\n" + b"x,1\n" * 2000,
                          headers={"content-type": "application/octet-stream"})
        assert big.status_code == 503 and big.json()["budget"] == "client_in_flight"
        small = client.post("/workbench/upload?name=a.csv", content=b"text,score\nx,1\ny,0\n",
                            headers={"content-type": "application/octet-stream"})
        assert small.status_code == 200, small.text


def _held_upload(port: int) -> socket.socket:
    """An upload from 127.0.0.1 that declares its body and never sends it: a request held open."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.1", 0))
    sock.sendall(f"POST /workbench/upload?name=a.csv HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Content-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n".encode())
    return sock


def _healthz(url: str, client: str) -> httpx.Response:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=client), timeout=10) as http:
        return http.get(url + "/healthz")


def test_the_command_caps_each_clients_open_requests(tmp_path: Path):
    live = LiveWorkbench(tmp_path, "--store", str(tmp_path / "store"), "--workers", "1",
                         "--max-client-requests", "1")
    try:
        held = _held_upload(live.port)
        try:
            deadline = time.monotonic() + 30
            while (answer := _healthz(live.url, "127.0.0.1")).status_code == 200 and time.monotonic() < deadline:
                time.sleep(0.05)   # until the server has the held request open
            assert answer.status_code == 503 and answer.json()["budget"] == "client_requests"
            assert _healthz(live.url, "127.0.0.2").status_code == 200   # another client is not held up
        finally:
            held.close()
        deadline = time.monotonic() + 30
        while (answer := _healthz(live.url, "127.0.0.1")).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.05)   # the held request ends with its connection
        assert answer.status_code == 200
    finally:
        live.stop()
