"""The listing, quota, task-queue and readiness attacks of issue 37 on live servers.

Used by ``benchmarks/hostile.py --issue37`` (rows of its table: ``(attack, count, held,
figures)``):

- ``data_listing``: datasets of control characters (six bytes each in JSON) stored until
  the quota refuses one, then ``GET /api/getData`` three times at once: held when the
  quota refuses with 507 by 256 MB counted as JSON, each answer is at most the quota, the
  server's memory grows by less than 300 MB and a page (``/data``) answers meanwhile in
  under 1 s; ``?size=`` over the maximum is refused 400;
- ``quota_counts``: 201 small datasets and 201 small tasks: held when the 201st of each is
  refused 507 naming its flag;
- ``task_listing``: 12 tasks over a 200,000-row dataset, then ``GET /api/getTasks`` three
  times at once: held when the memory grows by less than 300 MB;
- ``workbench_page``: a 10 MB dataset of control characters scored in the workbench,
  ``/api/workbench/dataset`` with ``size=500``: held when the answer is under 2.2 MB;
- ``tasks_beside_heavy``: two tasks of a heavy rule (400 answers of ~1 s each) running, a
  third, small one created: held when it is accepted (never 503) and done within 10 s;
- ``cold_start``: each server started, one ``POST`` sent the moment its port opens: held
  when it is answered 200 (not 503), ``/readyz`` saying 503 then 200.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from benchmarks.attacks import APP_DIR, MiB, Peak, Server, free_port, service_rss

Row = tuple[str, int, bool, str]
ROOT = Path(__file__).resolve().parents[1]
EM_RULE = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                      "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
HEAVY_RULE = json.dumps({"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}},
                         "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})


def _post(c: httpx.Client, path: str, body: dict) -> httpx.Response:
    return c.post(path, content=json.dumps(body, ensure_ascii=False).encode(),
                  headers={"content-type": "application/json"})


def _dataset(name: str, data: str, count: int) -> dict:
    return {"name": name, "desc": "", "type": "unlabeled", "data": data, "ulength": count}


def _wait_task(c: httpx.Client, name: str, timeout: float) -> tuple[str, float]:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        task = next((t for t in c.get("/api/getTasks").json() if t["task_name"] == name), None)
        if task is not None and task["status"] != "running":
            return task["status"], time.perf_counter() - start
        time.sleep(0.2)
    return "running", timeout


def _at_once(url: str, path: str, count: int) -> list[int]:
    sizes: list[int] = []

    def one() -> None:
        with httpx.Client(base_url=url, timeout=300) as c, c.stream("GET", path) as r:
            sizes.append(sum(len(chunk) for chunk in r.iter_raw()))

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sizes


def data_listing(server: Server) -> list[Row]:
    rows: list[Row] = []
    with httpx.Client(base_url=server.url, timeout=300) as c:
        line = "\x01" * 999
        data = "text\n" + "\n".join([line] * 10_000)  # 10 MB stored, 60 MB as JSON
        statuses = [_post(c, "/api/createData", _dataset(f"controls {i}", data, 10_000)).status_code
                    for i in range(6)]
        refused = statuses.count(507)
        rows.append(("app: 10 MB datasets of control characters until the quota", len(statuses),
                     refused >= 1 and statuses[:4] == [200] * 4,
                     f"statuses {statuses} (each 60 MB as JSON; quota 256 MB)"))
        before = service_rss(server.pid)
        worst = 0.0
        done = threading.Event()

        def poll() -> None:
            nonlocal worst
            with httpx.Client(base_url=server.url, timeout=60) as p:
                while not done.is_set():
                    t0 = time.perf_counter()
                    p.get("/data")
                    worst = max(worst, time.perf_counter() - t0)
                    time.sleep(0.1)

        poller = threading.Thread(target=poll)
        with Peak(server.pid) as peak:
            poller.start()
            start = time.perf_counter()
            sizes = _at_once(server.url, "/api/getData", 3)
            took = time.perf_counter() - start
            done.set()
            poller.join()
        grew = (peak.peak - before) / MiB
        rows.append(("app: GET /api/getData x3 at once over the full quota", 3,
                     grew < 300 and max(sizes) <= 256 * MiB + 10_000 and worst < 1.0,
                     f"answers {max(sizes) / 1e6:.0f} MB each in {took:.1f} s; memory peak +{grew:.0f} MiB; "
                     f"/data worst {worst:.2f} s"))
        big = c.get("/api/getData?size=100000")
        rows.append(("app: GET /api/getData?size=100000", 1, big.status_code == 400, f"{big.status_code}"))
        for i in range(6):
            _post(c, "/api/deleteData", {"name": f"controls {i}"})
    return rows


def quota_counts(server: Server) -> list[Row]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        existing = len(c.get("/api/getData").json())
        data = [_post(c, "/api/createData", _dataset(f"small {i}", "text\na", 1)).status_code
                for i in range(201 - existing)]
        _post(c, "/api/saveRule", {"name": "em", "prompt": "", "rule": EM_RULE})
        existing_tasks = len(c.get("/api/getTasks").json())
        tasks = [_post(c, "/api/createTask", {"data_name": "small 0", "rule_name": "em",
                                              "task_name": f"small {i}"}) for i in range(201 - existing_tasks)]
        last_data = data[-1]
        last_task = tasks[-1]
        rows = [("app: 201 datasets stored", len(data), last_data == 507 and data[:-1].count(200) == len(data) - 1,
                 f"the 201st: {last_data}"),
                ("app: 201 tasks stored", len(tasks),
                 last_task.status_code == 507 and "--max-tasks" in last_task.text,
                 f"the 201st: {last_task.status_code} {last_task.json().get('budget')}")]
        for i in range(201):
            _post(c, "/api/deleteTask", {"task_name": f"small {i}"})
            _post(c, "/api/deleteData", {"name": f"small {i}"})
    return rows


def task_listing(server: Server) -> list[Row]:
    with httpx.Client(base_url=server.url, timeout=300) as c:
        data = "text\n" + "\n".join("a" if i % 2 else "b" for i in range(200_000))
        _post(c, "/api/createData", _dataset("rows", data, 200_000))
        _post(c, "/api/saveRule", {"name": "em", "prompt": "", "rule": EM_RULE})
        for i in range(12):
            _post(c, "/api/createTask", {"data_name": "rows", "rule_name": "em", "task_name": f"rows {i}"})
        statuses = [_wait_task(c, f"rows {i}", 300)[0] for i in range(12)]
        before = service_rss(server.pid)
        with Peak(server.pid) as peak:
            sizes = _at_once(server.url, "/api/getTasks", 3)
        grew = (peak.peak - before) / MiB
        for i in range(12):
            _post(c, "/api/deleteTask", {"task_name": f"rows {i}"})
        _post(c, "/api/deleteData", {"name": "rows"})
    return [("app: GET /api/getTasks x3 at once, 12 tasks of 200,000 answers", 3, grew < 300,
             f"answers {max(sizes) / 1e6:.0f} MB each; memory peak +{grew:.0f} MiB; tasks {sorted(set(statuses))}")]


def workbench_page(server: Server) -> list[Row]:
    with httpx.Client(base_url=server.url, timeout=300) as c:
        answers = ["\x01" * 19_990 + f"{i:010d}" for i in range(500)]  # 10 MB, 60 MB as JSON
        _post(c, "/api/createData", _dataset("wide", "text\n" + "\n".join(answers), 500))
        body = {"dataset": "wide", "rule": json.loads(EM_RULE), "size": 500}
        start = time.perf_counter()
        while True:
            r = _post(c, "/api/workbench/dataset", body)
            if r.status_code != 202 or time.perf_counter() - start > 120:
                break
            time.sleep(0.2)
        _post(c, "/api/deleteData", {"name": "wide"})
    return [("app: /api/workbench/dataset size=500 of a 10 MB control-character dataset", 1,
             r.status_code == 200 and len(r.content) < 2.2e6, f"{r.status_code}, {len(r.content) / 1e6:.2f} MB")]


def tasks_beside_heavy(server: Server) -> list[Row]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        heavy = "text\n" + "\n".join("a" * 19_990 + f"{i:010d}" for i in range(400))
        _post(c, "/api/createData", _dataset("heavy", heavy, 400))
        _post(c, "/api/createData", _dataset("small", "text\na\nb\nc", 3))
        _post(c, "/api/saveRule", {"name": "heavy", "prompt": "", "rule": HEAVY_RULE})
        _post(c, "/api/saveRule", {"name": "em", "prompt": "", "rule": EM_RULE})
        for name in ("heavy 1", "heavy 2"):
            _post(c, "/api/createTask", {"data_name": "heavy", "rule_name": "heavy", "task_name": name})
        time.sleep(5.0)
        start = time.perf_counter()
        created = _post(c, "/api/createTask", {"data_name": "small", "rule_name": "em", "task_name": "small"})
        status, _ = _wait_task(c, "small", 60)
        took = time.perf_counter() - start
        for name in ("heavy 1", "heavy 2", "small"):
            _post(c, "/api/deleteTask", {"task_name": name})
        for name in ("heavy", "small"):
            _post(c, "/api/deleteData", {"name": name})
    return [("app: a small task beside two heavy ones (400 answers of ~1 s)", 1,
             created.status_code == 200 and status == "completed" and took < 10,
             f"created {created.status_code}, {status} in {took:.1f} s")]


def cold_start(command: str) -> list[Row]:
    port = free_port()
    args = [sys.executable, "-m", "coscore", command]
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"coscore-cold-{port}"
    folder.mkdir(exist_ok=True)
    if command == "app":
        args += [str(APP_DIR), "--db", str(folder / "database.db")]
        path, body = "/api/testRule", {"rule": json.loads(EM_RULE), "answer": ["a"]}
    else:
        path, body = "/v1/check", {"rule": json.loads(EM_RULE)}
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen([*args, "--port", str(port), "--log-level", "warning"], cwd=folder, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        first = None
        while time.monotonic() < deadline and first is None:
            try:
                first = httpx.get(url + "/readyz", timeout=5).status_code
            except httpx.HTTPError:
                time.sleep(0.02)
        start = time.perf_counter()
        answer = httpx.post(url + path, json=body, timeout=120)
        took = time.perf_counter() - start
        ready = httpx.get(url + "/readyz", timeout=5).status_code
    finally:
        process.terminate()
        process.wait(20)
    return [(f"{command}: the first POST the moment the port opens", 1, answer.status_code == 200 and ready == 200,
             f"{answer.status_code} in {took:.1f} s; /readyz {first} at first, {ready} after")]


def issue37_listings() -> list[Row]:
    """Every attack above, on servers started with their defaults."""
    rows: list[Row] = []
    rows += cold_start("app")
    rows += cold_start("serve")
    app = Server("app")
    try:
        rows += data_listing(app)
        rows += quota_counts(app)
        rows += task_listing(app)
        rows += workbench_page(app)
        rows += tasks_beside_heavy(app)
    finally:
        app.stop()
    return rows
