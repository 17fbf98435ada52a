"""The HTTP-layer attacks of issue 37 on live ``coscore app`` and ``coscore serve`` servers.

Used by ``benchmarks/hostile.py --issue37``; each attack returns rows of the table it
prints, ``(attack, count, held, figures)``:

- ``json_bomb``: 60 MB of ``{}`` (20 million objects, under the app's 64 MiB body cap)
  posted to every POST route: held when each is refused 413/422 naming a JSON budget in
  under 2 s, the server's memory (with its workers) peaks under +300 MB and ends near
  where it began;
- ``slow_uploads``: 16 connections declaring the largest body and sending a byte a
  second; meanwhile tiny POSTs from the same client and another: held when all answer 200;
- ``cross_site_no_origin``: POSTs without ``Origin`` but with a foreign ``Referer`` and
  ``Sec-Fetch-Site: cross-site`` (the trial's ``/api/workbench/save``): held when refused
  and nothing is stored;
- ``client_flood``: 24 heavy ``testRule`` requests from one client (127.0.0.2) while
  another (127.0.0.3) sends one-answer requests: held when none of the latter waits 2 s.

Clients are told apart by address (127.0.0.2, 127.0.0.3, … are all this machine).
"""
from __future__ import annotations

import json
import select
import socket
import threading
import time

import httpx

from benchmarks.attacks import MiB, Peak, Server, service_rss

Row = tuple[str, int, bool, str]

#: The POST routes of each server a bomb is sent to.
APP_ROUTES = ("/api/createData", "/api/getDataByName", "/api/deleteData", "/api/saveRule", "/api/deleteRule",
              "/api/testRule", "/api/createTask", "/api/deleteTask", "/api/workbench/catalog",
              "/api/workbench/check", "/api/workbench/explain", "/api/workbench/save", "/api/workbench/dataset",
              "/api/workbench/rows")
SERVE_ROUTES = ("/api/testRule", "/v1/score", "/v1/check", "/v1/explain", "/v1/exam/score")


def raw_post(port: int, path: str, body: bytes, client: str = "127.0.0.1", timeout: float = 60.0) -> tuple[int, bytes]:
    """POST ``body`` to ``path`` from address ``client``, sending until the server answers
    (it may answer before the body is all sent): ``(status, response)``, 0 if none came."""
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    data, sent, answer = memoryview(head + body), 0, b""
    deadline = time.monotonic() + timeout
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(client, 0)) as sock:
        sock.setblocking(False)
        while time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock] if sent < len(data) else [], [], 0.5)
            if readable:
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                answer += chunk
                continue
            if writable:
                try:
                    sent += sock.send(data[sent:sent + (1 << 20)])
                except OSError:  # the server closed it after answering
                    continue
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, answer


def _budget(answer: bytes) -> str:
    try:
        return json.loads(answer.split(b"\r\n\r\n", 1)[1]).get("budget", "-")
    except (IndexError, ValueError, AttributeError):
        return "-"


def json_bomb(server: Server, routes: tuple[str, ...], size: int = 60_000_000) -> list[Row]:
    """The 60 MB ``{}`` bomb to each of ``routes``."""
    bomb = b'{"name": "bomb", "rule": [' + b"{}," * ((size - 40) // 3) + b"{}]}"
    time.sleep(1.0)
    before = service_rss(server.pid)
    slowest, refused, budgets = 0.0, 0, set()
    with Peak(server.pid) as peak:
        for path in routes:
            start = time.perf_counter()
            status, answer = raw_post(server.port, path, bomb)
            slowest = max(slowest, time.perf_counter() - start)
            refused += status in (413, 422) and _budget(answer).startswith("json_")
            budgets.add(f"{status} {_budget(answer)}")
    time.sleep(1.0)
    after = service_rss(server.pid)
    grew, kept = (peak.peak - before) / MiB, (after - before) / MiB
    held = refused == len(routes) and slowest < 2.0 and grew < 300 and kept < 50
    return [(f"{server.command}: {len(bomb) / 1e6:.0f} MB {{}} bomb to each POST route", len(routes), held,
             f"{refused} refused ({', '.join(sorted(budgets))}); slowest {slowest:.2f} s; memory peak "
             f"+{grew:.0f} MiB, after +{kept:.0f} MiB")]


def _trickle(port: int, declared: int, stop: threading.Event, client: str) -> None:
    """A POST declaring ``declared`` bytes and sending one a second until ``stop``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(client, 0)) as sock:
            sock.sendall(f"POST /api/testRule HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                         f"\r\nContent-Length: {declared}\r\n\r\n{{\"rule\": \"".encode())
            while not stop.wait(1.0):
                sock.sendall(b"x")
    except OSError:
        pass  # timed out by the server (408) or refused


def slow_uploads(server: Server, declared: int, connections: int = 16, seconds: float = 12.0) -> list[Row]:
    """``connections`` uploads declaring ``declared`` bytes, a byte a second; tiny POSTs meanwhile."""
    stop = threading.Event()
    threads = [threading.Thread(target=_trickle, args=(server.port, declared, stop, "127.0.0.2"), daemon=True)
               for _ in range(connections)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)
    tiny = json.dumps({"rule": {"atoms": {}, "combos": {"A": {"combo": "1", "score": 1, "mode": "value"}},
                                "comboMode": "ADD"}, "answer": ["x"]}).encode()
    statuses: list[int] = []
    slowest = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for client in ("127.0.0.2", "127.0.0.3"):
            start = time.perf_counter()
            statuses.append(raw_post(server.port, "/api/testRule", tiny, client, timeout=10)[0])
            slowest = max(slowest, time.perf_counter() - start)
        time.sleep(0.5)
    stop.set()
    ok = statuses.count(200)
    return [(f"{server.command}: tiny POSTs while {connections} uploads of {declared / MiB:.0f} MiB trickle",
             len(statuses), ok == len(statuses), f"{ok} answered 200 (others {sorted(set(statuses) - {200})}); "
             f"slowest {slowest:.2f} s")]


def cross_site_no_origin(server: Server) -> list[Row]:
    """POSTs without ``Origin``, from another site by ``Referer`` and ``Sec-Fetch-Site``."""
    rule = json.dumps({"atoms": {}, "combos": {}, "comboMode": "ADD"})
    foreign = {"content-type": "application/json", "referer": "http://evil.example/attack.html",
               "sec-fetch-site": "cross-site"}
    tries = [("/api/workbench/save", {"name": "cross site", "rule": rule}, foreign),
             ("/api/saveRule", {"name": "cross site", "prompt": "", "rule": rule}, foreign),
             ("/api/saveRule", {"name": "cross site", "prompt": "", "rule": rule}, {"sec-fetch-site": "cross-site"}),
             ("/api/deleteRule", {"name": "cross site"}, {"referer": "http://evil.example/"})]
    with httpx.Client(base_url=server.url, timeout=30) as client:
        statuses = [client.post(path, content=json.dumps(body), headers={"content-type": "application/json",
                                                                         **headers}).status_code
                    for path, body, headers in tries]
        stored = "cross site" in [r["name"] for r in client.get("/api/getRules").json()]
    refused = statuses.count(403)
    return [("app: POST without Origin, foreign Referer / Sec-Fetch-Site: cross-site", len(tries),
             refused == len(tries) and not stored, f"statuses {statuses}; stored: {stored}")]


def client_flood(server: Server, heavy: int = 24) -> list[Row]:
    """``heavy`` slow ``testRule`` requests from one client; one-answer requests from another."""
    rule = {"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}},
            "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    bodies = [json.dumps({"rule": rule, "answer": ["a" * 29_990 + f"{i:010d}"]}).encode() for i in range(heavy)]
    light = json.dumps({"rule": {"atoms": {}, "combos": {"A": {"combo": "1", "score": 1, "mode": "value"}},
                                 "comboMode": "ADD"}, "answer": ["x"]}).encode()
    flood = [threading.Thread(target=raw_post, args=(server.port, "/api/testRule", body, "127.0.0.2", 120))
             for body in bodies]
    for thread in flood:
        thread.start()
    time.sleep(0.5)
    waits: list[float] = []
    statuses: list[int] = []
    while any(t.is_alive() for t in flood) and len(waits) < 40:
        start = time.perf_counter()
        statuses.append(raw_post(server.port, "/api/testRule", light, "127.0.0.3", 30)[0])
        waits.append(time.perf_counter() - start)
        time.sleep(0.2)
    for thread in flood:
        thread.join()
    worst = max(waits) if waits else 0.0
    median = sorted(waits)[len(waits) // 2] if waits else 0.0
    return [(f"{server.command}: one-answer requests beside {heavy} heavy ones of another client", len(waits),
             bool(waits) and worst < 2.0 and statuses.count(200) == len(statuses),
             f"median {median:.2f} s, worst {worst:.2f} s; statuses {sorted(set(statuses))}")]


def issue37_http() -> list[Row]:
    """Every attack above on both servers started with their defaults."""
    rows: list[Row] = []
    app = Server("app")
    try:
        rows += json_bomb(app, APP_ROUTES)
        rows += slow_uploads(app, 64 * MiB)
        rows += cross_site_no_origin(app)
        rows += client_flood(app)
    finally:
        app.stop()
    serve = Server("serve")
    try:
        rows += json_bomb(serve, SERVE_ROUTES, size=16_000_000)
        rows += slow_uploads(serve, 16 * MiB)
        rows += client_flood(serve)
    finally:
        serve.stop()
    return rows


def print_table(rows: list[Row]) -> None:
    """The rows as a table: attack, count, held, figures."""
    width = max(len(row[0]) for row in rows)
    print(f"{'attack':{width}}  {'count':>5}  held  figures")
    for attack, count, held, figures in rows:
        print(f"{attack:{width}}  {count:5d}  {'yes' if held else 'NO':4}  {figures}")
