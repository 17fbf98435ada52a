"""Requests are admitted fairly between clients (issue 37, item 6): one client's flood of
heavy requests does not make another client's request wait behind all of it, and no client
may hold more than its share of requests or bytes of bodies."""
from __future__ import annotations

from itertools import pairwise

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from coscore.http.bodies import InFlight
from coscore.http.clients import CURRENT_CLIENT, ClientGate, client_of
from coscore.http.pool import WorkerPool
from http_support import sleeper


@pytest.fixture()
def pool():
    workers = WorkerPool(sleeper, size=2, timeout=10.0, memory=None)
    try:
        workers.submit("echo", 0).result(60)
        workers.submit("echo", 0).result(60)
        yield workers
    finally:
        workers.close()


def test_another_clients_request_goes_before_a_floods_rest(pool):
    flood = [pool.submit("sleep", 0.3, client="10.0.0.1") for _ in range(8)]
    token = CURRENT_CLIENT.set("10.0.0.2")  # what the client gate sets for a request
    try:
        mine = pool.submit("echo", "one answer")
    finally:
        CURRENT_CLIENT.reset(token)
    done = mine.result(30)[1][2]
    ended = sorted(f.result(30)[1][2] for f in flood)
    # first-come-first-served would run it after the eight (four rounds); fairly it runs
    # as soon as a worker comes free, before the flood's second round ends
    assert done < ended[2], (done, ended)


def test_while_another_client_is_active_a_flood_leaves_it_a_worker(pool):
    assert pool.submit("echo", "hello", client="10.0.0.2").result(30)[0] == 200  # 10.0.0.2 is active
    flood = [pool.submit("sleep", 0.3, client="10.0.0.1") for _ in range(4)]
    mine = pool.submit("echo", "one answer", client="10.0.0.2")
    done = mine.result(30)[1][2]
    ended = sorted(f.result(30)[1][2] for f in flood)
    assert done < ended[0], (done, ended)  # not even one of the flood's had to end first
    assert all(b - a > 0.25 for a, b in pairwise(ended))  # the flood ran one at a time


def test_one_client_runs_alone_at_full_speed(pool):
    jobs = [pool.submit("sleep", 0.2, client="10.0.0.1") for _ in range(4)]
    ended = sorted(f.result(30)[1][2] for f in jobs)
    assert ended[1] < ended[2] - 0.1  # two at a time: both workers used


def test_the_client_gate_caps_each_clients_open_requests():
    async def ok(request: Request) -> JSONResponse:
        return JSONResponse({"client": client_of(request), "current": CURRENT_CLIENT.get()})

    gate = ClientGate(Starlette(routes=[Route("/who", ok)]), limit=2)
    a = TestClient(gate, client=("10.0.0.1", 1234))
    assert a.get("/who").json() == {"client": "10.0.0.1", "current": "10.0.0.1"}
    gate.open["10.0.0.1"] = 2  # two requests of this client still open
    refused = a.get("/who")
    assert refused.status_code == 503 and refused.json()["budget"] == "client_requests"
    assert refused.headers["retry-after"] == "1" and "10.0.0.1" in refused.json()["error"]
    b = TestClient(gate, client=("10.0.0.2", 1234))
    assert b.get("/who").status_code == 200  # another client is not held up
    gate.open["10.0.0.1"] = 1
    assert a.get("/who").status_code == 200 and gate.open == {"10.0.0.1": 1}


def test_in_flight_bytes_are_capped_per_client():
    budget = InFlight(1000, per_client=400)
    assert budget.take(300, "a") is None
    assert budget.take(200, "a") == "client_in_flight"
    assert budget.take(400, "b") is None and budget.take(301, "c") == "in_flight"
    budget.give(300, "a")
    assert budget.take(400, "a") is None
    assert budget.by_client == {"a": 400, "b": 400} and budget.used == 800
    error = budget.refusal("client_in_flight", "a")
    assert error.status == 503 and error.extra == {"budget": "client_in_flight", "limit": 400}
