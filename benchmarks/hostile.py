"""Hostile requests against live ``coscore serve`` and ``coscore app`` servers: do the budgets hold?

    python benchmarks/hostile.py                  # the API, then servers it starts with the default budgets
    python benchmarks/hostile.py --url http://127.0.0.1:8000
    python benchmarks/hostile.py --api            # the in-process figures only (no server)
    python benchmarks/hostile.py --issue24        # only the attacks of issue 24, on both servers
    python benchmarks/hostile.py --issue37        # the attacks of issue 37, as a table (attack, count, held)

Sends requests built to hurt coscore and prints what they cost. First through the Python
API, each in a fresh interpreter (its peak resident memory and time): the 600-string
answer through ``score`` and ``score_many``, the freeze answers, and compiling the
large-table rules (refused by the ``max_table_bytes`` budget before any table is built).
Then against the service:

1. ``/healthz`` latency (worst of polls every 50 ms) while two freeze requests run (an SM
   atom of 20,000 ``~a`` options and a 1,000,000-character answer; OP with a
   1,000,000-character key and answer), and how long they take to be answered;
2. the growth of the service's resident memory (the server and all its worker
   processes), at its peak and afterwards, for three different large-table ``/v1/check``
   requests (~3.9 MB each, SM/OP/CS atoms whose characters span many 256-code-point
   blocks), and for the 600-string answer (600 calls of a 9,489-character combo on a
   9,999,000-character answer);
3. the size of the responses to small requests whose messages would embed huge values.

Then the attacks of issue 24 (:mod:`benchmarks.attacks`), each server started as the
README says under ``ulimit -n 1024``: the 9.6 MB rule of 1,000 long combos (both
servers), 45 heavy ``testRule`` requests at once, 1,100 connections that never finish
their headers, cross-site requests (``text/plain``, a form, a foreign ``Origin`` or
``Host``), a small task beside two large ones and deleting them, 20 bodies of 64 MiB
(the app) and 200 of 16 MiB (the service), the 545 KB ``/v1/score`` request whose
answer would be 64 MB, lone surrogates and ``/v1/check`` of ``T(0) > 3``, a ``SIGTERM``
right after a write, and a request without the token to a server on ``0.0.0.0``.

Needs ``psutil`` (``pip install 'coscore[bench]'``). Bounded: every request has a client
timeout of 60 s (a few of 120 to 300 s).
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from benchmarks import attacks  # noqa: E402
from benchmarks.attacks import Peak, service_rss  # noqa: E402
from benchmarks.load_server import start_server  # noqa: E402


def _rule(atoms: dict, combo: str) -> dict:
    return {"atoms": atoms, "combos": {"A": {"combo": combo, "score": 1, "mode": "value"}}, "comboMode": "ADD"}


def freeze_requests() -> list[tuple[str, str, dict]]:
    return [
        ("SM 20,000 ~a x 1 M", "/api/testRule",
         {"rule": _rule({"0": {"type": "SM", "desc": ",".join(["~a"] * 20000)}}, "G(0, T(0))"),
          "answer": ["a" * 1_000_000]}),
        ("OP 1 M key x 1 M", "/api/testRule",
         {"rule": _rule({"0": {"type": "OP", "desc": "0.5:" + "ab" * 500_000}}, "G(0, T(0))"),
          "answer": ["ba" * 500_000]}),
    ]


def wide_rule(kind: str, salt: int, target: int = 3_900_000) -> dict:
    """A rule of ~``target`` bytes of JSON: ``kind`` atoms whose characters span many blocks."""
    atoms: dict = {}
    i = 0
    size = 0
    while size < target:
        chars = "".join(chr(0x4E00 + 256 * k + (i + salt * 7) % 256) for k in range(60))
        desc = {"SM": chars + "," + chars[::-1], "OP": "0.5:" + chars, "CS": "0.5:" + chars}[kind]
        atoms[str(i)] = {"type": kind, "desc": desc}
        size += len(json.dumps(atoms[str(i)], ensure_ascii=False).encode()) + 10
        i += 1
    return _rule(atoms, "G(0, T(0))")


_API_CASE = """
import json, resource, sys, time
import coscore
case = json.loads(sys.stdin.read())
start = time.perf_counter()
try:
    rule = coscore.compile(case["rule"])
    if case["how"] == "score":
        outcome = rule.score(case["answer"])
    else:
        outcome = rule.score_many([case["answer"], ["x"]])[0]
    error = outcome.error
except coscore.RuleError as exc:
    error = "RuleError: " + str(exc)
print(json.dumps({"seconds": time.perf_counter() - start, "error": error,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def api_case(name: str, rule: dict, answer: list | None = None, how: str = "score") -> None:
    """Run one reproducer through the API in a fresh interpreter and print its figures."""
    import subprocess

    case = json.dumps({"rule": rule, "answer": answer or ["x"], "how": how}, ensure_ascii=False)
    done = subprocess.run([sys.executable, "-c", _API_CASE], input=case, capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    if done.returncode:
        print(f"0. {name:40} failed: {done.stderr.strip().splitlines()[-1:]}")
        return
    got = json.loads(done.stdout)
    error = (got["error"] or "-").split(": ", 1)[-1]
    print(f"0. {name:40} {got['seconds']:6.2f} s, peak {got['peak'] / 2**20:5.0f} MiB: {error[:110]}")


def api_figures() -> None:
    combo = "+".join(["M(0,T(0)+'<i>')"] * 600)
    six_hundred = _rule({"0": {"type": "EM", "desc": "x"}}, combo)
    api_case("600 calls, 9,999,000 chars, score", six_hundred, ["a" * 9_999_000])
    api_case("600 calls, 9,999,000 chars, score_many", six_hundred, ["a" * 9_999_000], how="many")
    for name, _, body in freeze_requests():
        api_case(name + ", score", body["rule"], body["answer"])
    groups = ",".join("|".join(chr(0x4E00 + (7 * g + k) % 20000) + chr(0x4E00 + (13 * g + k) % 20000)
                               for k in range(5)) for g in range(20000))
    api_case("SM 20,000 groups of 5 CJK x 1 M, score", _rule({"0": {"type": "SM", "desc": groups}}, "G(0, T(0))"),
             ["国" * 1_000_000])
    for salt, kind in enumerate(("SM", "OP", "CS")):
        api_case(f"compile {kind} large-table rule (3.9 MB)", wide_rule(kind, salt))
    astral = _rule({"0": {"type": "OP", "desc": "0.5:" + ",".join(chr(0x10000 + i % 60000) for i in range(300_000))}},
                   "G(0, T(0))")
    api_case("compile 300,000 astral OP keys", astral)
    api_case("compile 1,000 combos of 1+1+... (9.6 MB)", attacks._combos_rule())


def _post(client: httpx.Client, path: str, body: dict) -> tuple[int, int, float, str]:
    start = time.perf_counter()
    r = client.post(path, content=json.dumps(body, ensure_ascii=False).encode(),
                    headers={"content-type": "application/json"})
    budget = r.json().get("budget", "") if r.headers.get("content-type", "").startswith("application/json") else ""
    return r.status_code, len(r.content), time.perf_counter() - start, budget


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="an already running server on this machine (default: start one)")
    p.add_argument("--pid", type=int, help="the running server's process id (for memory figures)")
    p.add_argument("--api", action="store_true", help="only the in-process API figures (no server)")
    p.add_argument("--issue24", action="store_true", help="only the attacks of issue 24, on both servers")
    p.add_argument("--issue37", action="store_true", help="only the attacks of issue 37, on both servers, as a "
                   "table: attack, count, held")
    p.add_argument("--only", metavar="NAME,...", help="with --issue24: only these attacks (compile_bomb, heavy_tests, "
                   "amplification, surrogates_and_check, big_bodies, stalled_headers, cross_site, tasks, clean_stop, "
                   "tokens)")
    args = p.parse_args()
    if args.issue37:
        return issue37()
    if args.issue24:
        return issue24(set(args.only.split(",")) if args.only else None)
    api_figures()
    if args.api:
        return 0
    proc = None
    url, pid = args.url, args.pid
    if url is None:
        proc, url = start_server("--max-body", "64M")
        pid = proc.pid
    try:
        with httpx.Client(base_url=url, timeout=60) as c:
            time.sleep(1.0)  # let the workers finish starting
            print(f"service at {url}; resident memory {service_rss(pid) / 2**20:.0f} MiB" if pid else url)

            # 1. two freeze requests at once, /healthz polled meanwhile
            results: list = []
            threads = [threading.Thread(target=lambda n=n, path=path, body=body: results.append((n, *_post(
                httpx.Client(base_url=url, timeout=60), path, body)))) for n, path, body in freeze_requests()]
            start = time.perf_counter()
            for t in threads:
                t.start()
            worst, polls = 0.0, 0
            while any(t.is_alive() for t in threads):
                t0 = time.perf_counter()
                c.get("/healthz")
                worst, polls = max(worst, time.perf_counter() - t0), polls + 1
                time.sleep(0.05)
            ended = time.perf_counter() - start
            print(f"1. two freeze requests: both answered within {ended:.2f} s; /healthz worst "
                  f"{worst * 1000:.1f} ms over {polls} polls")
            for name, status, size, elapsed, budget in sorted(results):
                print(f"   {name:22} -> {status} budget={budget or '-'} in {elapsed:.2f} s ({size} bytes)")

            # 2. memory: three large-table rules, then the 600-string answer
            if pid:
                time.sleep(3.0)  # let the replaced workers finish starting
                before = service_rss(pid)
                with Peak(pid) as peak:
                    for salt, kind in enumerate(("SM", "OP", "CS")):
                        rule = wide_rule(kind, salt)
                        status, size, elapsed, budget = _post(c, "/v1/check", {"rule": rule})
                        print(f"2. /v1/check {kind} {len(rule['atoms']):,} atoms "
                              f"({len(json.dumps(rule, ensure_ascii=False).encode()) / 1e6:.1f} MB) -> {status} "
                              f"budget={budget or '-'} in {elapsed:.2f} s")
                time.sleep(0.5)
                after = service_rss(pid)
                print(f"   service resident memory: before {before / 2**20:.0f} MiB, peak +"
                      f"{(peak.peak - before) / 2**20:.0f} MiB, after +{(after - before) / 2**20:.0f} MiB")
                combo = "+".join(["M(0,T(0)+'<i>')"] * 600)
                body = {"rule": _rule({"0": {"type": "EM", "desc": "x"}}, combo), "answer": ["a" * 9_999_000]}
                before = service_rss(pid)
                with Peak(pid) as peak:
                    status, size, elapsed, budget = _post(c, "/api/testRule", body)
                print(f"   600 calls on a 9,999,000-character answer -> {status} budget={budget or '-'} in "
                      f"{elapsed:.2f} s, peak +{(peak.peak - before) / 2**20:.0f} MiB")

            # 3. response sizes from small requests
            small = [
                ("T(T(0)+...1,900 x) 5,000 chars", "/api/testRule",
                 {"rule": _rule({}, "T(" + "+".join(["T(0)"] * 1900) + ")"), "answer": ["x" * 5000]}),
                ("T(T(0)) 200,000 chars", "/api/testRule", {"rule": _rule({}, "T(T(0))"), "answer": ["y" * 200_000]}),
                ("same, /v1/score x 3", "/v1/score",
                 {"rule": _rule({}, "T(T(0))"), "answers": [["y" * 60_000]] * 3}),
                ("same, /v1/explain", "/v1/explain", {"rule": _rule({}, "T(T(0))"), "answer": ["y" * 200_000]}),
            ]
            for name, path, body in small:
                status, size, elapsed, budget = _post(c, path, body)
                request = len(json.dumps(body).encode())
                print(f"3. {name:30} request {request / 1e6:.2f} MB -> {status} budget={budget or '-'}, "
                      f"response {size:,} bytes, {elapsed:.2f} s")
            h = c.get("/healthz").json()
            print(f"workers: {h['workers']['size']}, restarts {h['workers']['restarts']}; cache {h['cache']}")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    return issue24() if args.url is None else 0


def issue37() -> int:
    """The attacks of issue 37 (:mod:`benchmarks.attacks_http`: JSON bombs, slow uploads, cross-site
    POSTs without Origin, one client's flood; :mod:`benchmarks.attacks_listings`: listings over full quotas,
    quota counts, a small task beside heavy ones, the first POST at a cold start; :mod:`benchmarks.attacks_proxy`;
    :mod:`benchmarks.attacks_files`: wide and empty files; :mod:`benchmarks.attacks_search`: tune and suggest
    past their budgets), as a table; 1 when one did not hold."""
    from benchmarks import attacks_http

    rows = attacks_http.issue37_http()
    from benchmarks import attacks_listings  # listings, quotas, tasks beside heavy ones, cold starts

    rows += attacks_listings.issue37_listings()
    from benchmarks import attacks_proxy  # behind a reverse proxy: nginx's headers, with and without the flags

    rows += attacks_proxy.issue37_proxy()
    from benchmarks import attacks_files  # empty .xlsx rows, wide CSV and JSON Lines

    rows += attacks_files.issue37_files()
    from benchmarks import attacks_search  # tune and suggest within their budgets; their options validated

    rows += attacks_search.issue37_search()
    attacks_http.print_table(rows)
    return 0 if all(held for _, _, held, _ in rows) else 1


def issue24(only: set[str] | None = None) -> int:
    """The attacks of issue 24 on servers started as documented (see the module's description)."""
    def wanted(name: str) -> bool:
        return only is None or name in only

    serve_attacks = [("compile_bomb", attacks.compile_bomb), ("heavy_tests", attacks.heavy_tests),
                     ("amplification", attacks.amplification), ("surrogates_and_check", attacks.surrogates_and_check),
                     ("big_bodies", lambda s: attacks.big_bodies(s, 200, 16 * attacks.MiB, "/v1/score")),
                     ("stalled_headers", attacks.stalled_headers)]
    app_attacks = [("compile_bomb", attacks.compile_bomb), ("heavy_tests", attacks.heavy_tests),
                   ("cross_site", attacks.cross_site), ("surrogates_and_check", attacks.surrogates_and_check),
                   ("tasks", attacks.tasks),
                   ("big_bodies", lambda s: attacks.big_bodies(s, 20, 64 * attacks.MiB - 1024, "/api/createData")),
                   ("big_bodies", lambda s: attacks.big_bodies(s, 20, 64 * attacks.MiB - 1024, "/api/testRule")),
                   ("stalled_headers", attacks.stalled_headers)]
    for title, command, chosen in (("4. coscore serve (defaults, ulimit -n 1024)", "serve", serve_attacks),
                                   ("5. coscore app (defaults, ulimit -n 1024, a copy of the original database)",
                                    "app", app_attacks)):
        chosen = [(name, attack) for name, attack in chosen if wanted(name)]
        if not chosen:
            continue
        print(title)
        server = attacks.Server(command)
        try:
            for _, attack in chosen:
                attack(server)
        finally:
            server.stop()
    if wanted("clean_stop") or wanted("tokens"):
        print("6. stopping and tokens")
    if wanted("clean_stop"):
        attacks.clean_stop()
    if wanted("tokens"):
        attacks.tokens()
    return 0


if __name__ == "__main__":
    sys.exit(main())
