"""``coscore serve``: the real server on a loopback port, talked to over HTTP with httpx."""
from __future__ import annotations

import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from coscore.compat import Rule  # noqa: E402
from support import coscore_env, stop_process, wait_until  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
FILES = ("generated.jsonl", "coscore-real.jsonl", "manual-examples.jsonl", "deviations.jsonl")
MAX_BODY = 64 * 1024

CASES = [json.loads(line) for name in FILES for line in (DATA / name).read_text(encoding="utf-8").splitlines()
         if line.strip()]

SM_RULE = {
    "atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}},
    "combos": {
        "A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
        "B": {"combo": "1 / Q('*')", "score": 1, "mode": "value"},
    },
    "comboMode": "ADD",
}
BAD_RULE = {"atoms": {}, "combos": {"A": {"combo": "T(0).upper()", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}


def _strict_json(text: str):
    """Parse JSON refusing NaN/Infinity (what browsers' JSON.parse accepts)."""
    def refuse(name):
        raise AssertionError(f"{name} in a response")

    return json.loads(text, parse_constant=refuse)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(*flags: str):
    """``coscore serve FLAGS`` in a subprocess on a free loopback port: yields its URL."""
    env = coscore_env()
    for _attempt in range(3):
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "coscore", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--log-level", "warning", *flags],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                # up once it answers: 200, or 401 when it was started with --token
                if httpx.get(url + "/healthz", timeout=1).status_code in (200, 401):
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        if proc.poll() is None:
            break
        output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
        if "address already in use" not in output.lower():
            pytest.fail(f"coscore serve exited with {proc.returncode}:\n{output}")
    else:  # pragma: no cover
        pytest.fail("could not start coscore serve")
    try:
        yield url
    finally:
        stop_process(proc, timeout=10)


@pytest.fixture(scope="module")
def base_url():
    """``coscore serve`` with the default budgets and a small body limit."""
    yield from _serve("--max-body", str(MAX_BODY))


@pytest.fixture()
def client(base_url):
    with httpx.Client(base_url=base_url, timeout=10) as c:
        yield c


def _expected_test_rule(case: dict) -> str:
    e = case["expect"]
    return json.dumps({"score": e["score"], "debugInfo": e["combos"]})


# -- endpoints ---------------------------------------------------------------------------


def test_healthz_and_openapi(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and "cache" in body
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    for path in ("/api/testRule", "/v1/score", "/v1/check", "/v1/explain", "/healthz"):
        assert path in spec["paths"]


def test_test_rule_is_the_original_api(client):
    r = client.post("/api/testRule", json={"rule": SM_RULE, "answer": ["我爱祖国", "", "x"]})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert json.dumps(r.json()) == '{"score": 4.5, "debugInfo": {"A": 4, "B": 0.5}}'
    assert "calMemory" not in r.json()["debugInfo"]


def test_test_rule_matches_conformance_cases(client):
    rng = random.Random(5)
    sample = rng.sample(CASES, 300) + [c for c in CASES if c["id"].startswith(("dev-", "manual"))]
    sample += [c for c in CASES if "error" in c["expect"]][:40]
    for case in sample:
        r = client.post("/api/testRule", json={"rule": case["rule"], "answer": case["answers"]})
        expect = case["expect"]
        if "error" in expect:
            assert r.status_code == 422, case["id"]
            name = "ValueError" if expect["error"] == "NaN" else expect["error"]
            assert r.json()["exception"] == name, case["id"]
            assert r.json()["error"]
        else:
            assert r.status_code == 200, (case["id"], r.text)
            assert json.dumps(_strict_json(r.text)) == _expected_test_rule(case), case["id"]


def test_score_batches_match_every_conformance_case(client):
    groups: dict[str, list[dict]] = defaultdict(list)
    for case in CASES:
        groups[json.dumps(case["rule"])].append(case)
    checked = 0
    for cases in groups.values():
        r = client.post("/v1/score", json={"rule": cases[0]["rule"], "answers": [c["answers"] for c in cases]})
        assert r.status_code == 200, r.text
        body = _strict_json(r.text)
        assert len(body["scores"]) == len(body["errors"]) == len(cases)
        for i, case in enumerate(cases):
            expect = case["expect"]
            if "error" in expect:
                assert body["scores"][i] is None and body["errors"][i], case["id"]
            else:
                assert body["errors"][i] is None, (case["id"], body["errors"][i])
                assert body["scores"][i] == expect["score"], case["id"]
                for cid, value in expect["combos"].items():
                    assert body["combos"][cid][i] == value, (case["id"], cid)
            checked += 1
    assert checked == len(CASES)


def test_score_reports_per_answer_errors(client):
    answers = [["我爱祖国", "a"], ["", "null"], "国家", 5, ["x", 7], []]
    r = client.post("/v1/score", json={"rule": SM_RULE, "answers": answers})
    assert r.status_code == 200
    body = r.json()
    assert body["scores"][0] == 4.5 and body["errors"][0] is None
    assert body["scores"][1] is None and "division by zero" in body["errors"][1]
    assert body["combos"]["A"][1] == 0.0 and body["combos"]["B"][1] is None
    assert body["scores"][2] == 3.0  # a string is a one-blank answer
    for i in (3, 4, 5):
        assert body["scores"][i] is None and body["errors"][i], i
    assert list(body["combos"]) == ["A", "B"]


def test_non_finite_numbers_are_null(client):
    rule = {"atoms": {}, "combos": {"A": {"combo": "F(0)", "score": 1, "mode": "value"},
                                    "B": {"combo": "F(1)", "score": 1, "mode": "value"}}, "comboMode": "MAX"}
    for path, key in (("/v1/score", "answers"), ("/api/testRule", "answer"), ("/v1/explain", "answer")):
        value = [["inf", "nan"], ["nan", "1"]] if key == "answers" else ["inf", "nan"]
        r = client.post(path, json={"rule": rule, key: value})
        assert r.status_code == 200, (path, r.text)
        body = _strict_json(r.text)
        if path == "/v1/score":
            assert body["scores"][0] == 10.0 and body["combos"]["A"][0] is None and body["combos"]["B"][0] is None
        elif path == "/api/testRule":
            assert body == {"score": 10, "debugInfo": {"A": None, "B": None}}


def test_check(client):
    r = client.post("/v1/check", json={"rule": SM_RULE})
    assert r.status_code == 200
    assert r.json() == {"valid": True, "diagnostics": [], "combos": ["A", "B"]}
    r = client.post("/v1/check", json={"rule": BAD_RULE})
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False
    assert any(d["path"] == "combos.A.combo" and d["severity"] == "error" for d in body["diagnostics"])
    r = client.post("/v1/check", json={"rule": {"atoms": {"0": {"type": "SM", "desc": "a,,b"}}, "combos": {
        "A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}})
    body = r.json()
    assert body["valid"] is True and body["diagnostics"][0]["severity"] == "warning"


def test_explain(client):
    r = client.post("/v1/explain", json={"rule": SM_RULE, "answer": ["我爱祖国", "a"]})
    assert r.status_code == 200
    body = r.json()
    assert body["score"] == 4.5 and body["error"] is None
    assert body["combos"] == {"A": 4.0, "B": 0.5}
    (call,) = body["calls"]
    assert call["combo"] == "A" and call["op"] == "M" and call["atom"] == "0" and call["kind"] == "SM"
    assert call["text"] == "我爱祖国" and call["hit"] is True and call["value"] == 2
    r = client.post("/v1/explain", json={"rule": SM_RULE, "answer": ["", ""]})
    assert r.status_code == 200 and r.json()["score"] is None and "division by zero" in r.json()["error"]


# -- bad requests ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/testRule", "/v1/score", "/v1/check", "/v1/explain"])
@pytest.mark.parametrize(
    "content",
    [b"{bad json", b"", b"   ", b"[1, 2]", b'"rule"', b'{"nothing": 1}', b"\xff\xfe{}",
     b'{"rule": NaN, "answers": [], "answer": []}'],
    ids=["bad-json", "empty", "blank", "array", "string", "no-keys", "not-utf8", "nan"],
)
def test_malformed_requests_are_400(client, path, content):
    r = client.post(path, content=content, headers={"content-type": "application/json"})
    assert r.status_code == 400, (path, content[:20], r.text)
    assert r.json()["error"]


@pytest.mark.parametrize("path", ["/api/testRule", "/v1/score", "/v1/check", "/v1/explain"])
def test_json_nested_too_deep_is_refused_naming_its_budget(client, path):
    r = client.post(path, content=b"[" * 50000, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["budget"] == "json_depth" and r.json()["limit"] == 64, r.text


def test_wrong_shapes_are_400(client):
    assert client.post("/v1/score", json={"rule": SM_RULE, "answers": "x"}).status_code == 400
    assert client.post("/api/testRule", json={"rule": SM_RULE, "answer": 5}).status_code == 400
    assert client.post("/v1/explain", json={"rule": SM_RULE, "answer": {"a": 1}}).status_code == 400


@pytest.mark.parametrize("path, key, value", [
    ("/api/testRule", "answer", ["x"]),
    ("/v1/score", "answers", [["x"]]),
    ("/v1/explain", "answer", ["x"]),
])
def test_invalid_rule_is_422_with_diagnostics(client, path, key, value):
    r = client.post(path, json={"rule": BAD_RULE, key: value})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid rule"
    (d,) = [d for d in body["diagnostics"] if d["severity"] == "error"]
    assert d["path"] == "combos.A.combo" and d["column"] and d["message"]
    r = client.post(path, json={"rule": {"atoms": {"0": {"type": "XX", "desc": ""}}, "combos": {}, "comboMode": "SUM"}, key: value})
    assert r.status_code == 422
    paths = {d["path"] for d in r.json()["diagnostics"]}
    assert {"atoms.0.type", "comboMode"} <= paths
    r = client.post(path, json={"rule": 42, key: value})
    assert r.status_code == 422 and r.json()["diagnostics"][0]["path"] == "rule"


def test_test_rule_scoring_failure_is_422_with_the_exception_class(client):
    r = client.post("/api/testRule", json={"rule": SM_RULE, "answer": ["", "null"]})
    assert r.status_code == 422
    assert r.json() == {"error": "combos.B: division by zero", "exception": "ZeroDivisionError"}
    r = client.post("/api/testRule", json={"rule": SM_RULE, "answer": ["x", 5]})
    assert r.status_code == 422 and r.json()["exception"] == "TypeError"


def test_body_over_the_limit_is_413_from_content_length(client):
    big = {"rule": SM_RULE, "answers": [["x" * 1000]] * (MAX_BODY // 1000 + 10)}
    r = client.post("/v1/score", json=big)
    assert r.status_code == 413
    assert r.json()["limit"] == MAX_BODY
    # just under the limit is fine
    fits = {"rule": SM_RULE, "answers": [["x" * 1000]] * (MAX_BODY // 1100)}
    assert client.post("/v1/score", json=fits).status_code == 200


def test_413_is_sent_without_reading_the_body(base_url):
    """A client announcing 1 GB gets 413 after sending a few bytes."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000000000\r\n\r\n{\"rule\": ")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 413"), data[:100]


def test_streamed_body_over_the_limit_is_413(client):
    def chunks():  # chunked transfer encoding: no Content-Length to check
        yield b'{"rule": {}, "answers": ["'
        for _ in range(MAX_BODY // 4096 + 4):
            yield b"x" * 4096
        yield b'"]}'

    r = client.post("/v1/score", content=chunks())
    assert r.status_code == 413


def test_unknown_path_and_method(client):
    assert client.get("/nope").status_code == 404
    r = client.get("/v1/score")
    assert r.status_code == 405 and r.json()["error"]


def test_still_healthy_after_bad_requests(client):
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.post("/api/testRule", json={"rule": SM_RULE, "answer": ["国家", "a"]}).status_code == 200


# -- load --------------------------------------------------------------------------------

CLIENTS, REQUESTS, DEADLINE = 8, 50, 25.0


def test_concurrent_load_is_correct(base_url):
    """8 clients x 50 requests (testRule and /v1/score batches), every response checked."""
    rng = random.Random(8)
    ok_cases = [c for c in CASES if "error" not in c["expect"]]
    real = [c for c in ok_cases if c["id"].startswith("real")] or ok_cases
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for case in real:
        by_rule[json.dumps(case["rule"])].append(case)
    batches = [cases[:40] for cases in by_rule.values()]

    plans = []
    for _ in range(CLIENTS):
        plan = []
        for _ in range(REQUESTS):
            if rng.random() < 0.5:
                case = rng.choice(ok_cases)
                plan.append(("/api/testRule", {"rule": case["rule"], "answer": case["answers"]}, _expected_test_rule(case)))
            else:
                cases = rng.choice(batches)
                expect = [c["expect"]["score"] for c in cases]
                plan.append(("/v1/score", {"rule": cases[0]["rule"], "answers": [c["answers"] for c in cases]}, expect))
        plans.append(plan)

    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + DEADLINE

    def worker(plan):
        with httpx.Client(base_url=base_url, timeout=10) as c:
            for path, body, expect in plan:
                if time.monotonic() > stop_at:
                    with lock:
                        failures.append("deadline passed")
                    return
                start = time.perf_counter()
                try:
                    r = c.post(path, json=body)
                except httpx.HTTPError as exc:
                    with lock:
                        failures.append(f"{path}: {exc!r}")
                    continue
                elapsed = time.perf_counter() - start
                problem = None
                if r.status_code != 200:
                    problem = f"{path}: {r.status_code} {r.text[:200]}"
                elif path == "/api/testRule":
                    if json.dumps(r.json()) != expect:
                        problem = f"{path}: {r.text[:200]} != {expect}"
                elif r.json()["scores"] != expect:
                    problem = f"{path}: scores differ"
                with lock:
                    latencies.append(elapsed)
                    if problem:
                        failures.append(problem)

    threads = [threading.Thread(target=worker, args=(plan,)) for plan in plans]
    wall = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE + 5)
    wall = time.perf_counter() - wall
    assert not any(t.is_alive() for t in threads), "load test did not finish in time"
    assert not failures, failures[:5]
    assert len(latencies) == CLIENTS * REQUESTS
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(f"\nload: {CLIENTS} clients x {REQUESTS} requests in {wall:.2f}s "
          f"({len(latencies) / wall:.0f} req/s): p50 {p50:.1f} ms, p99 {p99:.1f} ms")


# -- budgets: one hostile request costs the others nothing --------------------------------

TIMEOUT, MEMORY, CACHE_BYTES, BODY_TIMEOUT = 5.0, 150 * 2**20, 60 * 2**20, 1.0


def _one_combo(atoms: dict, combo: str) -> dict:
    return {"atoms": atoms, "combos": {"A": {"combo": combo, "score": 1, "mode": "value"}}, "comboMode": "ADD"}


def _wide_atoms(n: int, salt: int = 0) -> dict:
    """``n`` SM atoms whose options span many 256-code-point blocks (~200 KB of tables each)."""
    desc = ",".join("".join(chr(0x4E00 + 256 * k + j) for k in range(60)) for j in range(3))
    return {str(i): {"type": "SM", "desc": desc + chr(0x3400 + i) + chr(0xAC00 + salt)} for i in range(n)}


FREEZE = {"rule": _one_combo({"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}}, "G(0, T(0))"),
          "answer": ["a" * 1_000_000]}


@pytest.fixture(scope="module")
def budget_url():
    """``coscore serve`` with small budgets, so that each test is quick (the answers' work
    and the rules' tables unbounded, so that the pool's own budgets are what stops them)."""
    yield from _serve("--workers", "2", "--timeout", str(TIMEOUT), "--memory", str(MEMORY),
                      "--cache-bytes", str(CACHE_BYTES), "--body-timeout", str(BODY_TIMEOUT), "--max-body", "8M",
                      "--max-answer-work", str(10**15), "--max-rule-tables", str(2**40))


def test_a_freezing_request_is_stopped_while_healthz_answers(budget_url):
    results = []
    with httpx.Client(base_url=budget_url, timeout=30) as c:
        restarts = c.get("/healthz").json()["workers"]["restarts"]

        def freeze():
            start = time.monotonic()
            r = c.post("/api/testRule", json=FREEZE)
            results.append((r, time.monotonic() - start))

        thread = threading.Thread(target=freeze)
        thread.start()
        wait_until(lambda: c.get("/healthz").json()["workers"]["busy"] or not thread.is_alive(), 30,
                   "the request to take a worker")
        slowest = 0.0
        while thread.is_alive():
            start = time.monotonic()
            assert c.get("/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - start)
            time.sleep(0.05)
        thread.join()
        ((r, elapsed),) = results
        assert r.status_code == 503, r.text[:300]
        assert r.json()["budget"] == "time" and r.json()["limit"] == TIMEOUT
        assert elapsed < TIMEOUT + 5
        assert slowest < 1.0
        # the worker was replaced and the next request works
        ok = c.post("/api/testRule", json={"rule": SM_RULE, "answer": ["我爱祖国", "a"]})
        assert ok.status_code == 200 and ok.json()["score"] == 4.5
        assert c.get("/healthz").json()["workers"]["restarts"] > restarts


def test_a_memory_hungry_request_is_refused(budget_url):
    with httpx.Client(base_url=budget_url, timeout=30) as c:
        r = c.post("/v1/check", json={"rule": _one_combo(_wide_atoms(1500), "G(0, T(0))")})
        assert r.status_code == 422, r.text[:300]
        assert r.json()["budget"] == "memory" and r.json()["limit"] == MEMORY
        assert c.post("/v1/check", json={"rule": SM_RULE}).json()["valid"] is True


def test_the_rule_cache_is_bounded_in_bytes(budget_url):
    # ~20 MB of tables each, 60 MB of cache per worker: eight rules cannot all stay. Small
    # enough that a worker holding a full cache stays under the pool's memory budget (a worker
    # replaced for its memory would start with an empty cache and report nothing).
    with httpx.Client(base_url=budget_url, timeout=30) as c:
        restarts = c.get("/healthz").json()["workers"]["restarts"]
        for salt in range(8):
            r = c.post("/v1/check", json={"rule": _one_combo(_wide_atoms(100, 100 + salt), "G(0, T(0))")})
            assert r.status_code == 200 and r.json()["valid"] is True
        health = c.get("/healthz").json()
        cache = health["cache"]
        assert cache["maxbytes"] == CACHE_BYTES
        assert cache["bytes"] <= 2 * CACHE_BYTES  # two workers
        assert cache["size"] < 8
        if health["workers"]["restarts"] == restarts:  # nobody replaced: what was kept is counted
            assert cache["bytes"] > 0 and cache["size"] > 0


def test_a_slow_drip_body_is_timed_out(budget_url):
    host, port = budget_url.removeprefix("http://").split(":")
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n{")
        data = b""
        try:
            while b"\r\n\r\n" not in data and time.monotonic() - start < 8:
                s.sendall(b" ")
                time.sleep(0.2)
                s.settimeout(0.01)
                try:
                    data += s.recv(4096)
                except TimeoutError:
                    pass
        except OSError:  # the server closed the connection after answering
            pass
    assert data.startswith(b"HTTP/1.1 408"), data[:100]
    assert time.monotonic() - start < BODY_TIMEOUT + 3


@pytest.mark.parametrize("combo, answer", [
    ("T(T(0)+T(0)+T(0))", "x" * 5000),
    ("T(T(0))", "y" * 200_000),
])
def test_messages_and_responses_are_short(budget_url, combo, answer):
    rule = _one_combo({}, combo)
    with httpx.Client(base_url=budget_url, timeout=30) as c:
        for path, key, value in (("/api/testRule", "answer", [answer]), ("/v1/score", "answers", [[answer]] * 3),
                                 ("/v1/explain", "answer", [answer])):
            r = c.post(path, json={"rule": rule, key: value})
            assert r.status_code in (200, 422), r.text[:300]
            assert len(r.content) < 10_000, (path, len(r.content))
            body = r.json()
            message = body.get("error") or body["errors"][0]
            assert len(message) <= 1000 and "characters)" in message


def test_explain_lists_at_most_1000_calls(budget_url):
    combo = "+".join(f"G(0, T(0)+'{i}')" for i in range(100))
    rule = {"atoms": {"0": {"type": "EM", "desc": "a"}}, "comboMode": "ADD",
            "combos": {f"A{j}": {"combo": combo, "score": 1, "mode": "value"} for j in range(12)}}
    with httpx.Client(base_url=budget_url, timeout=30) as c:
        body = c.post("/v1/explain", json={"rule": rule, "answer": ["a"]}).json()
    assert len(body["calls"]) == 1000 and body["callsOmitted"] == 200


# -- in process: create_app options --------------------------------------------------------


def test_create_app_options():
    """create_app(max_body, cache_size, cors_origins), served by uvicorn in a thread."""
    import uvicorn

    from coscore.server import create_app

    app = create_app(max_body=100, cache_size=1, cors_origins=["http://localhost:5000"], workers=1, timeout=3,
                     memory=None, cache_bytes=2**20, body_timeout=2)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.started
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as c:
            assert c.post("/v1/check", json={"rule": SM_RULE}).status_code == 413
            r = c.post("/v1/check", json={"rule": {"atoms": {}, "combos": {}, "comboMode": "ADD"}},
                       headers={"Origin": "http://localhost:5000"})
            assert r.status_code == 200
            assert r.headers["access-control-allow-origin"] == "http://localhost:5000"
            health = c.get("/healthz").json()
            assert health["cache"]["maxsize"] == 1 and health["cache"]["maxbytes"] == 2**20
            assert health["workers"]["size"] == 1 and health["workers"]["timeout"] == 3
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        app.state.pool.close()


def test_serve_arguments():
    import argparse

    from coscore.cli.serve import add_arguments
    from coscore.server import parse_size

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.max_body) == ("127.0.0.1", 8000, 16 * 2**20)
    args = parser.parse_args(["--host", "0.0.0.0", "--port", "9000", "--max-body", "1M"])
    assert (args.host, args.port, args.max_body) == ("0.0.0.0", 9000, 2**20)
    assert parse_size("512k") == 512 * 1024 and parse_size("123") == 123
    args = parser.parse_args(["--workers", "3", "--timeout", "2.5", "--memory", "512M", "--cache-bytes", "64M",
                              "--body-timeout", "4"])
    assert (args.workers, args.timeout, args.memory, args.cache_bytes, args.body_timeout) == (
        3, 2.5, 512 * 2**20, 64 * 2**20, 4.0)
    for bad in (["--workers", "0"], ["--timeout", "-1"], ["--body-timeout", "nan"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
    with pytest.raises(SystemExit):
        parser.parse_args(["--port", "70000"])
    assert Rule  # the compat module loads alongside the server


def test_readyz_and_the_first_request_after_start_waits_for_the_workers():
    """Issue 37: the first request after a start got 503 while the worker pool warmed up
    (a 1 s wait for a worker is shorter than the workers take to start)."""
    for url in _serve("--workers", "1", "--timeout", "1"):
        with httpx.Client(base_url=url, timeout=60) as c:
            first = c.post("/v1/check", json={"rule": SM_RULE})  # at once, as /healthz first answers
            assert first.status_code == 200, first.text
            ready = c.get("/readyz")
            assert ready.status_code == 200 and ready.json() == {"status": "ready", "workers": {"ready": 1, "size": 1}}
            assert c.get("/healthz").json()["status"] == "ok"
