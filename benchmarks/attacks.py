"""Attacks on live ``coscore app`` and ``coscore serve`` servers, and what they cost (issue 24).

Used by ``benchmarks/hostile.py``; each attack prints its figures. The servers are
started as the README says (``coscore serve``; ``coscore app DIR --db FILE``), each under
``ulimit -n 1024``; their memory is the resident memory of the server and all its worker
processes (:func:`service_rss`); "pages" are ``GET /`` and ``GET /api/getRules`` for the
app and ``GET /healthz`` for the service, polled every 100 ms while an attack runs.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COSCORE_SHARED") or ROOT.parent / "shared")
APP_DIR = SHARED / "coscore-app" / "app"
DATABASE = SHARED / "coscore-app" / "database.db"
MiB = 2**20


# -- measuring -------------------------------------------------------------------------------


def service_rss(pid: int) -> int:
    """Resident bytes of process ``pid`` and all its descendants."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


class Peak:
    """Samples :func:`service_rss` every 20 ms in a thread; ``peak`` is the largest seen."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, service_rss(self.pid))
            time.sleep(0.02)

    def __enter__(self) -> Peak:
        self.peak = service_rss(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _poll(url: str, paths: tuple[str, ...], stop, results) -> None:
    """Poll ``paths`` of ``url`` every 100 ms until ``stop`` is set; put ``(worst, polls, failed)``."""
    worst, polls, failed = 0.0, 0, 0
    with httpx.Client(base_url=url, timeout=5) as client:
        while not stop.is_set():
            for path in paths:
                start = time.perf_counter()
                try:
                    ok = client.get(path).status_code == 200
                except httpx.HTTPError:
                    ok = False
                failed += not ok
                worst = max(worst, time.perf_counter() - start if ok else 5.0)
                polls += 1
            time.sleep(0.1)
    results.put((worst, polls, failed))


class Pages:
    """Polls ``paths`` of ``url`` every 100 ms from another process (so that the attack's
    own threads cannot slow the polls down); ``worst`` is the slowest answer (a failure or
    a 5 s timeout counts as 5 s), ``polls`` how many."""

    def __init__(self, url: str, paths: tuple[str, ...]):
        context = multiprocessing.get_context("spawn")
        self._stop, self._results = context.Event(), context.Queue()
        self._process = context.Process(target=_poll, args=(url, paths, self._stop, self._results), daemon=True)
        self.worst, self.polls, self.failed = 0.0, 0, 0

    def __enter__(self) -> Pages:
        self._process.start()
        time.sleep(1.0)  # it has started polling
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.worst, self.polls, self.failed = self._results.get(timeout=30)
        self._process.join(10)

    def __str__(self) -> str:
        return f"pages worst {self.worst:.2f} s over {self.polls} polls ({self.failed} failed)"


def cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by the worker processes of server ``pid``."""
    total = 0.0
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return 0.0
    for child in children:
        try:
            times = child.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def _post(client: httpx.Client, path: str, body: object, **headers: str) -> tuple[int, bytes, float]:
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    start = time.perf_counter()
    try:
        r = client.post(path, content=data, headers={"content-type": "application/json", **headers})
    except httpx.HTTPError as exc:
        return 0, str(exc).encode(), time.perf_counter() - start
    return r.status_code, r.content, time.perf_counter() - start


def _mib(n: float) -> str:
    return f"{n / MiB:,.0f} MiB"


# -- servers -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``coscore serve`` or ``coscore app`` started as documented under ``ulimit -n 1024``."""

    def __init__(self, command: str, *flags: str, folder: Path | None = None, host: str = "127.0.0.1"):
        self.port = free_port()
        self.folder = folder or Path(tempfile.mkdtemp(prefix="coscore-hostile-"))
        args = [sys.executable, "-m", "coscore", command]
        if command == "app":
            self.db = self.folder / "database.db"
            if not self.db.exists():
                shutil.copyfile(DATABASE, self.db)
                self.db.chmod(0o644)
            args += [str(APP_DIR), "--db", str(self.db)]
        args += ["--host", host, "--port", str(self.port), "--log-level", "warning", *flags]
        shell = "ulimit -n 1024 && exec " + " ".join(_quote(a) for a in args)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.log = open(self.folder / f"{command}.log", "w+b")  # noqa: SIM115 - the server's log, closed when it stops
        self.process = subprocess.Popen(["bash", "-c", shell], cwd=self.folder, env=env, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = command
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        time.sleep(3.0)  # let the workers finish starting

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"


# -- the attacks -------------------------------------------------------------------------------


def _combos_rule() -> dict:
    """1,000 combos of ``1+1+…`` (4,999 ones each): 9.6 MB of JSON that took 126 s to compile."""
    combo = "+".join(["1"] * 4999)
    return {"atoms": {}, "combos": {f"C{i}": {"combo": combo, "score": 1, "mode": "value"} for i in range(1000)},
            "comboMode": "ADD"}


def compile_bomb(server: Server) -> None:
    rule = _combos_rule()
    if server.command == "app":
        path, body = "/api/saveRule", {"name": "bomb", "prompt": "", "rule": json.dumps(rule)}
        pages = ("/", "/api/getRules")
    else:
        path, body, pages = "/v1/check", {"rule": rule}, ("/healthz",)
    size = len(json.dumps(body).encode())
    before = service_rss(server.pid)
    with Peak(server.pid) as peak, Pages(server.url, pages) as polled, httpx.Client(base_url=server.url,
                                                                                    timeout=120) as c:
        time.sleep(0.3)
        status, content, elapsed = _post(c, path, body)
        time.sleep(0.5)
    after = service_rss(server.pid)
    print(f"  {server.command}: {path} with the {size / 1e6:.1f} MB rule -> {status} in {elapsed:.2f} s, "
          f"memory peak +{_mib(peak.peak - before)}, after +{_mib(after - before)}; {polled}")
    print(f"    {content[:160].decode(errors='replace')}")


def heavy_tests(server: Server, clients: int = 45) -> None:
    rule = {"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}},
            "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    results: list = []

    def one(i: int) -> None:
        with httpx.Client(base_url=server.url, timeout=120) as c:
            results.append(_post(c, "/api/testRule", {"rule": rule, "answer": ["a" * 29_990 + f"{i:010d}"]}))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    pages = ("/", "/api/getRules") if server.command == "app" else ("/healthz",)
    with Pages(server.url, pages) as polled:
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        total = time.perf_counter() - start
    statuses = Counter(status for status, _, _ in results)
    slowest = max(elapsed for _, _, elapsed in results)
    print(f"  {server.command}: {clients} testRule requests at once (SM 20,000 '~a' on 30,000 characters, "
          f"~1.3 s of work each) -> {dict(statuses)}; slowest {slowest:.1f} s, all done in {total:.1f} s; {polled}")


def stalled_headers(server: Server, count: int = 1100) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 200)), hard))
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", server.port))
        except BlockingIOError:
            pass
        socks.append(s)
    time.sleep(0.5)
    for s in socks:
        try:
            s.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never the empty line that ends the headers
        except OSError:
            pass
    start = time.perf_counter()
    path = "/" if server.command == "app" else "/healthz"
    answered = None
    while time.perf_counter() - start < 60:
        try:
            if httpx.get(server.url + path, timeout=2).status_code == 200:
                answered = time.perf_counter() - start
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    closed = sum(1 for s in socks if _closed(s))
    for s in socks:
        s.close()
    shown = f"{answered:.1f} s" if answered is not None else "never within 60 s"
    print(f"  {server.command}: {count} connections that never finish their headers: {path} answers after "
          f"{shown}; {closed} of them closed by the server by then")


def _closed(s: socket.socket) -> bool:
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def cross_site(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        before = c.get("/api/getRules").text
        name = json.loads(before)[0]["name"]
        rule = json.dumps({"atoms": {}, "combos": {}, "comboMode": "ADD"})
        tries = [
            ("text/plain saveRule", c.post("/api/saveRule", content=json.dumps({"name": "x", "prompt": "", "rule": rule}),
                                           headers={"content-type": "text/plain"})),
            ("form deleteRule", c.post("/api/deleteRule", data={"name": name})),
            ("foreign Origin deleteRule", c.post("/api/deleteRule", json={"name": name},
                                                 headers={"origin": "http://evil.example"})),
            ("foreign Host deleteRule", c.post("/api/deleteRule", json={"name": name},
                                               headers={"host": f"evil.example:{server.port}"})),
            ("foreign Host getData", c.get("/api/getData", headers={"host": f"evil.example:{server.port}"})),
        ]
        after = c.get("/api/getRules").text
    shown = ", ".join(f"{what} -> {r.status_code}" for what, r in tries)
    print(f"  app: {shown}; rules unchanged: {before == after}")


def tasks(server: Server) -> None:
    heavy_rule = json.dumps({"atoms": {"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}},
                             "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}},
                             "comboMode": "ADD"})
    small_rule = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                             "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
    with httpx.Client(base_url=server.url, timeout=60) as c:
        heavy = "text\n" + "\n".join("a" * 19_990 + f"{i:010d}" for i in range(400))
        for name, data, count in (("heavy", heavy, 400), ("small", "text\na\nb\nc", 3)):
            assert _post(c, "/api/createData", {"name": name, "desc": "", "type": "unlabeled", "data": data,
                                                "ulength": count})[0] == 200
        for name, rule in (("heavy", heavy_rule), ("small", small_rule)):
            assert _post(c, "/api/saveRule", {"name": name, "prompt": "", "rule": rule})[0] == 200
        for name in ("heavy 1", "heavy 2"):
            _post(c, "/api/createTask", {"data_name": "heavy", "rule_name": "heavy", "task_name": name})
        time.sleep(3.0)
        busy_before = cpu_seconds(server.pid)
        time.sleep(5.0)
        busy = (cpu_seconds(server.pid) - busy_before) / 5.0
        start = time.perf_counter()
        _post(c, "/api/createTask", {"data_name": "small", "rule_name": "small", "task_name": "small"})
        small = None
        while time.perf_counter() - start < 120:
            task = next(t for t in c.get("/api/getTasks").json() if t["task_name"] == "small")
            if task["status"] != "running":
                small = (task["status"], time.perf_counter() - start)
                break
            time.sleep(0.1)
        heavy_status = [t["status"] for t in c.get("/api/getTasks").json() if t["task_name"].startswith("heavy")]
        for name in ("heavy 1", "heavy 2"):
            _post(c, "/api/deleteTask", {"task_name": name})
        time.sleep(4.0)  # the stopped workers' replacements start
        idle_before = cpu_seconds(server.pid)
        time.sleep(3.0)
        idle = (cpu_seconds(server.pid) - idle_before) / 3.0
    print(f"  app: a 3-answer task beside two running 400-answer tasks (~0.9 s an answer) -> "
          f"{small[0] if small else 'still running'} in {small[1] if small else 120:.1f} s (the large ones: "
          f"{heavy_status}); workers' CPU while they ran {busy:.2f} cores, after deleting them {idle:.2f} cores")


def big_bodies(server: Server, count: int, size: int, path: str) -> None:
    if path == "/api/createData":
        lines = (size - 300) // 3  # "a\\n" in JSON
        payloads = [json.dumps({"name": f"big {i}", "desc": "", "type": "unlabeled",
                                "data": "text\n" + "a\n" * lines, "ulength": lines}).encode() for i in range(count)]
    else:
        filler = "x" * (size - 200)
        key, value = ("answers", [[filler]]) if path == "/v1/score" else ("answer", [filler])
        payloads = [json.dumps({"rule": {"atoms": {}, "combos": {}, "comboMode": "ADD"}, key: value}).encode()
                    for _ in range(count)]
    results: list = []

    def one(body: bytes) -> None:
        with httpx.Client(base_url=server.url, timeout=300) as c:
            results.append(_post(c, path, body))

    before = service_rss(server.pid)
    with Peak(server.pid) as peak:
        threads = [threading.Thread(target=one, args=(b,)) for b in payloads]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(1.0)
    time.sleep(2.0)
    after = service_rss(server.pid)
    statuses = Counter(status for status, _, _ in results)
    print(f"  {server.command}: {count} x {size / MiB:.0f} MiB bodies to {path} -> {dict(statuses)}; memory peak "
          f"+{_mib(peak.peak - before)}, after +{_mib(after - before)}")


def amplification(server: Server) -> None:
    rule = {"atoms": {}, "combos": {f"C{i}": {"combo": "1", "score": 1, "mode": "value"} for i in range(10_000)},
            "comboMode": "ADD"}
    body = {"rule": rule, "answers": [["x"]] * 1600}
    with httpx.Client(base_url=server.url, timeout=60) as c:
        status, content, elapsed = _post(c, "/v1/score", body)
    print(f"  serve: a {len(json.dumps(body)) / 1e3:.0f} KB /v1/score request (10,000 combos, 1,600 answers) -> "
          f"{status}, response {len(content):,} bytes in {elapsed:.2f} s: {content[:140].decode(errors='replace')}")


def surrogates_and_check(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        if server.command == "app":
            r = c.post("/api/createData", content=b'{"name": "\\ud800", "desc": "", "type": "unlabeled", '
                       b'"data": "text\\na", "ulength": 1}', headers={"content-type": "application/json"})
            print(f"  app: a name holding \\ud800 -> {r.status_code}")
            return
        r = c.post("/api/testRule", content=b'{"rule": {"atoms": {}, "combos": {"A": {"combo": "T(0)", "score": 1, '
                   b'"mode": "logic"}}, "comboMode": "ADD"}, "answer": ["\\ud800"]}',
                   headers={"content-type": "application/json"})
        check = c.post("/v1/check", json={"rule": {"atoms": {}, "comboMode": "ADD", "combos": {
            "A": {"combo": "T(0) > 3", "score": 1, "mode": "logic"}}}}).json()
    errors = [d["message"] for d in check["diagnostics"] if d["severity"] == "error"]
    print(f"  serve: an answer holding \\ud800 -> {r.status_code}; /v1/check of 'T(0) > 3' -> valid "
          f"{check['valid']}: {errors}")


def clean_stop() -> None:
    server = Server("app")
    with httpx.Client(base_url=server.url, timeout=30) as c:
        status = _post(c, "/api/saveRule", {"name": "the last write", "prompt": "",
                                            "rule": json.dumps({"atoms": {}, "combos": {}, "comboMode": "ADD"})})[0]
    server.stop(signal.SIGTERM)
    alone = Path(tempfile.mkdtemp(prefix="coscore-alone-")) / "database.db"
    shutil.copyfile(server.db, alone)
    with sqlite3.connect(alone) as connection:
        found = connection.execute("SELECT count(*) FROM rules WHERE name = 'the last write'").fetchone()[0]
    wal = server.db.with_name("database.db-wal")
    print(f"  app: saveRule -> {status}, SIGTERM; database.db copied alone holds it: {found == 1} "
          f"(database.db-wal: {wal.stat().st_size if wal.exists() else 'gone'} bytes)")


def tokens() -> None:
    for command in ("serve", "app"):
        server = Server(command, host="0.0.0.0")
        path = "/healthz" if command == "serve" else "/api/getRules"
        try:
            without = httpx.get(server.url + path, timeout=10).status_code
            token = next(line.split("token=")[1].split()[0] for line in server.output().splitlines() if "token=" in line)
            with_token = httpx.get(f"{server.url}{path}?token={token}", timeout=10).status_code
        finally:
            server.stop()
        print(f"  {command} --host 0.0.0.0: {path} without the token -> {without}, with the printed token -> "
              f"{with_token}")
