"""Issue 37, behind a reverse proxy: ``coscore serve`` sent what nginx sends (the recipe of
docs/deployment.md), with and without the proxy flags, and the same forwarded headers
from a peer that is not the proxy (a client claiming the site's name and scheme, or
another address).

Run by ``python benchmarks/hostile.py --issue37`` (rows of its table).
"""
from __future__ import annotations

import json

import httpx

from benchmarks.attacks import Server

Row = tuple[str, int, bool, str]

SITE = "scoring.school.edu"
#: The headers nginx sends with docs/deployment.md's recipe, for a page of https://SITE.
NGINX = {"host": SITE, "x-forwarded-proto": "https", "x-forwarded-host": SITE, "x-forwarded-for": "203.0.113.7",
         "x-real-ip": "203.0.113.7", "origin": f"https://{SITE}", "content-type": "application/json"}
RULE = {"rule": {"atoms": {}, "combos": {"A": {"combo": "1", "score": 1, "mode": "value"}}, "comboMode": "ADD"}}
FLAGS = ("--allowed-host", SITE, "--proxy-headers", "--forwarded-allow-ips", "127.0.0.1", "--root-path", "/coscore")


def _post(server: Server, path: str, peer: str) -> tuple[int, str]:
    """POST the rule to ``path`` from local address ``peer`` with nginx's headers."""
    transport = httpx.HTTPTransport(local_address=peer)
    with httpx.Client(transport=transport, timeout=60) as client:
        answer = client.post(server.url + path, content=json.dumps(RULE), headers=NGINX)
    try:
        return answer.status_code, str(answer.json().get("error", ""))
    except ValueError:
        return answer.status_code, answer.text


def issue37_proxy() -> list[Row]:
    """The proxy's requests to ``coscore serve`` with the flags (200 with and without the
    prefix), from a peer that is not the proxy (403), and without the flags (421 naming
    ``--allowed-host``)."""
    rows: list[Row] = []
    server = Server("serve", *FLAGS)
    try:
        answered = [_post(server, path, "127.0.0.1")[0] for path in ("/coscore/v1/check", "/v1/check")]
        rows.append(("serve behind nginx with the flags: same-site POST, prefix kept / stripped", 2,
                     answered == [200, 200], f"statuses {answered}"))
        status, message = _post(server, "/coscore/v1/check", "127.0.0.5")
        rows.append(("serve: X-Forwarded-* sent by a peer that is not the proxy", 1, status == 403,
                     f"{status} {message[:70]}"))
    finally:
        server.stop()
    plain = Server("serve")
    try:
        status, message = _post(plain, "/v1/check", "127.0.0.1")
        rows.append(("serve behind nginx without the flags: refusal names the flag", 1,
                     status == 421 and "--allowed-host" in message, f"{status} ...{message[-60:]}"))
    finally:
        plain.stop()
    return rows


if __name__ == "__main__":
    from benchmarks.attacks_http import print_table

    print_table(issue37_proxy())
