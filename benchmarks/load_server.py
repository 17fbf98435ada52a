"""Load test of ``coscore serve``: C concurrent clients x N requests, p50/p99 latency.

    python benchmarks/load_server.py                       # starts its own server
    python benchmarks/load_server.py --url http://127.0.0.1:8000 --clients 32 --requests 200

Requests mix ``POST /api/testRule`` (one answer) and ``POST /v1/score`` (a batch of
``--batch`` answers) over the bundled demo rules and datasets; every response is checked
against the library's own result.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import coscore  # noqa: E402
from coscore.compat import Rule  # noqa: E402

DEMO = ROOT / "coscore" / "data" / "demo"


def workload() -> list[tuple[dict, list[list[str]]]]:
    tasks = []
    for rule_path in sorted(DEMO.glob("*.rule.json")):
        data = DEMO / (rule_path.name.removesuffix(".rule.json") + ".csv")
        if not data.exists():
            continue
        with open(data, encoding="utf-8", newline="") as handle:
            answers = [row["text"].split("-") for row in csv.DictReader(handle)]
        tasks.append((json.loads(rule_path.read_text(encoding="utf-8")), answers))
    return tasks


def start_server(*flags: str) -> tuple[subprocess.Popen, str]:
    """``coscore serve FLAGS`` on a free loopback port: the process and its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "coscore", "serve", "--port", str(port), "--log-level", "warning",
                             *flags], cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):  # until every worker has started
        try:
            workers = httpx.get(url + "/healthz", timeout=1).json()["workers"]
            if workers["ready"] == workers["size"]:
                return proc, url
            time.sleep(0.05)
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.terminate()
    raise SystemExit("the server did not start")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="an already running server (default: start one)")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--requests", type=int, default=50, help="requests per client")
    p.add_argument("--batch", type=int, default=50, help="answers per /v1/score request")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    tasks = workload()
    rng = random.Random(args.seed)
    plans = []
    for _ in range(args.clients):
        plan = []
        for _ in range(args.requests):
            rule, answers = rng.choice(tasks)
            if rng.random() < 0.5:
                answer = rng.choice(answers)
                try:
                    score, debug = Rule(rule).calculate(answer)
                    debug.pop("calMemory")
                    expect = json.dumps({"score": score, "debugInfo": debug})
                except Exception:
                    expect = None
                plan.append(("/api/testRule", {"rule": rule, "answer": answer}, expect))
            else:
                batch = [rng.choice(answers) for _ in range(args.batch)]
                scores = coscore.compile(rule).score_many(batch).scores
                plan.append(("/v1/score", {"rule": rule, "answers": batch},
                             [None if s != s else s for s in scores.tolist()]))
        plans.append(plan)

    proc = None
    url = args.url
    if url is None:
        proc, url = start_server()
    latencies: dict[str, list[float]] = {"/api/testRule": [], "/v1/score": []}
    failures: list[str] = []
    lock = threading.Lock()

    def worker(plan):
        with httpx.Client(base_url=url, timeout=30) as c:
            for path, body, expect in plan:
                start = time.perf_counter()
                r = c.post(path, json=body)
                elapsed = time.perf_counter() - start
                if expect is None:
                    ok = r.status_code == 422
                elif path == "/api/testRule":
                    ok = r.status_code == 200 and json.dumps(r.json()) == expect
                else:
                    ok = r.status_code == 200 and r.json()["scores"] == expect
                with lock:
                    latencies[path].append(elapsed)
                    if not ok:
                        failures.append(f"{path}: {r.status_code} {r.text[:120]}")

    try:
        threads = [threading.Thread(target=worker, args=(plan,)) for plan in plans]
        wall = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - wall
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)

    every = sorted(x for xs in latencies.values() for x in xs)
    print(f"{args.clients} clients x {args.requests} requests: {len(every)} in {wall:.2f}s "
          f"({len(every) / wall:.0f} req/s), {len(failures)} wrong")
    for name, xs in [("all", every), *latencies.items()]:
        if xs:
            xs = sorted(xs)
            p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
            print(f"  {name:14} n={len(xs):5}  p50 {statistics.median(xs) * 1000:7.2f} ms  p99 {p99 * 1000:7.2f} ms")
    for failure in failures[:5]:
        print("  wrong:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
