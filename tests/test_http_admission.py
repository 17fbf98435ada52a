"""Admission by what arrives, not what is declared (issue 37, item 2), on a live ``coscore
serve``: connections that declare the largest body and trickle it hold next to nothing, so
a tiny POST is answered beside them; each client's open requests and bytes of bodies are
capped, and another client is not held up by them. Clients are told apart by address:
the tests connect from 127.0.0.2, 127.0.0.3, … (all this machine)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support import free_port, stop_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAX_BODY = 64 * 1024
RULE = {"atoms": {}, "combos": {"A": {"combo": "1", "score": 1, "mode": "value"}}, "comboMode": "ADD"}


@pytest.fixture(scope="module")
def server():
    """``coscore serve`` whose in-flight budget four declared bodies would fill."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    flags = ["--max-body", str(MAX_BODY), "--max-in-flight", str(4 * MAX_BODY), "--max-client-in-flight",
             str(100 * 1024), "--max-client-requests", "20", "--body-timeout", "60", "--workers", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "coscore", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--log-level", "warning", *flags], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(url + "/healthz", timeout=1).json()["workers"]["ready"] == 1:
                break
        except (httpx.HTTPError, ValueError, KeyError):
            time.sleep(0.1)
    if proc.poll() is not None:
        pytest.fail(f"coscore serve exited: {proc.stdout.read().decode(errors='replace')}")
    try:
        yield port
    finally:
        stop_process(proc)


def _connect(port: int, client: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(client, 0))


def _start_upload(port: int, client: str, sent: bytes = b'{"rule": "') -> socket.socket:
    """A POST declaring the largest body, of which only ``sent`` is sent (the rest trickles, or never comes)."""
    sock = _connect(port, client)
    sock.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(MAX_BODY).encode() + b"\r\n\r\n" + sent)
    return sock


def _answer(sock: socket.socket, limit: float = 10.0) -> bytes:
    """What the server answered on ``sock``: all of it when it closed the connection, else
    what came within ``limit`` seconds."""
    sock.settimeout(limit)
    data = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
            sock.settimeout(0.5)  # the rest of an answer comes at once
    except OSError:
        pass
    return data


def _tiny(port: int, client: str) -> httpx.Response:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=client), timeout=10) as c:
        return c.post(f"http://127.0.0.1:{port}/v1/check", json={"rule": RULE})


def test_a_tiny_post_is_answered_while_16_uploads_trickle(server):
    with ExitStack() as stack:
        uploads = [stack.enter_context(_start_upload(server, "127.0.0.2")) for _ in range(16)]
        for sock in uploads:  # a byte each: still arriving
            sock.sendall(b"x")
        start = time.monotonic()
        for client in ("127.0.0.2", "127.0.0.3"):  # the same client, and another
            r = _tiny(server, client)
            assert r.status_code == 200 and r.json()["valid"] is True, r.text[:200]
        assert time.monotonic() - start < 5


def test_each_clients_open_requests_are_capped(server):
    with ExitStack() as stack:
        for _ in range(20):
            stack.enter_context(_start_upload(server, "127.0.0.4"))
        for _attempt in range(100):  # until the server has them all open
            refused = _tiny(server, "127.0.0.4")
            if refused.status_code == 503:
                break
            time.sleep(0.05)
        assert refused.status_code == 503 and refused.json()["budget"] == "client_requests", refused.text[:200]
        assert refused.headers["retry-after"] == "1" and refused.json()["limit"] == 20
        assert _tiny(server, "127.0.0.5").status_code == 200
    # the client's requests closed: it is admitted again
    for _attempt in range(100):
        if _tiny(server, "127.0.0.4").status_code == 200:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the client was not admitted again after its requests closed")


def test_each_clients_bytes_in_flight_are_capped(server):
    sent = b'{"rule": "' + b"x" * 60_000
    with ExitStack() as stack:
        stack.enter_context(_start_upload(server, "127.0.0.6", sent))  # 60 KB held of the client's 100 KB
        for _attempt in range(20):  # until the server has counted the first one's bytes
            with _start_upload(server, "127.0.0.6", sent) as second:
                answer = _answer(second, 2.0)
            if answer:
                break
        assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
        assert b'"budget":"client_in_flight"' in answer and b"retry-after: 1" in answer.lower(), answer
        # another client's body of the same size is taken
        other = stack.enter_context(_start_upload(server, "127.0.0.7", sent))
        other.sendall(b'"}'.rjust(MAX_BODY - len(sent), b"x"))
        assert _answer(other).startswith(b"HTTP/1.1 200")
