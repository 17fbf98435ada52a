"""Deployment: the settings every server command builds once, a reverse proxy in front
(forwarded headers from trusted proxies only, a path prefix) and several processes by
uvicorn's factory (docs/deployment.md)."""
from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from coscore.cli import main  # noqa: E402
from coscore.cli.server_options import StartupError, server_settings  # noqa: E402
from coscore.http import client_of  # noqa: E402
from coscore.http.proxy import Proxy, ProxyHeaders  # noqa: E402
from coscore.http.settings import ServerSettings  # noqa: E402
from coscore.server import create_app  # noqa: E402
from support import coscore_env, stop_process, wait_until  # noqa: E402

RULE = {"rule": {"atoms": {"0": {"type": "SM", "desc": "cat"}},
                 "combos": {"A": {"combo": "M(0, T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"}}
SITE = "scoring.school.edu"
PROXY_PEER = ("127.0.0.1", 41234)  # nginx on the same machine
#: What nginx sends with the recipe of docs/deployment.md (proxy_set_header lines), for
#: a page of https://scoring.school.edu calling the service.
NGINX_HEADERS = {"Host": SITE, "X-Real-IP": "203.0.113.7", "X-Forwarded-For": "203.0.113.7",
                 "X-Forwarded-Proto": "https", "X-Forwarded-Host": SITE, "Origin": f"https://{SITE}",
                 "Content-Type": "application/json", "Connection": "close"}


def _settings(*flags: str) -> ServerSettings:
    """The settings ``coscore serve FLAGS`` builds (on a free loopback port)."""
    from coscore.cli.serve import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return server_settings("coscore serve", parser.parse_args(["--port", "0", *flags]))


@pytest.fixture(scope="module")
def apps():
    """One service per way of starting it behind nginx; each with one worker."""
    made = {
        "none": create_app(_settings().replace(workers=1)),
        "host": create_app(_settings("--allowed-host", SITE).replace(workers=1)),
        "proxy": create_app(_settings("--allowed-host", SITE, "--proxy-headers", "--forwarded-allow-ips",
                                      "127.0.0.1", "--root-path", "/coscore").replace(workers=1)),
    }
    yield made
    for app in made.values():
        app.state.pool.close()


def _post(app, path: str = "/v1/check", peer: tuple[str, int] = PROXY_PEER, **changes: str):
    headers = {**NGINX_HEADERS, **changes}
    client = TestClient(app, base_url=f"http://{SITE}", client=peer)  # no lifespan: the fixture stops the pools
    return client.post(path, content=json.dumps(RULE), headers=headers)


def test_settings_are_built_from_the_command_line_once():
    settings = _settings("--proxy-headers", "--forwarded-allow-ips", "10.0.0.0/8,127.0.0.1", "--root-path",
                         "/coscore/", "--allowed-host", SITE, "--workers", "3", "--memory", "0")
    assert settings.proxy == Proxy(("10.0.0.0/8", "127.0.0.1"), "/coscore")
    assert SITE in settings.allowed_hosts and settings.workers == 3 and settings.memory is None
    assert _settings("--forwarded-allow-ips", "10.0.0.1").proxy.trusted == ()  # only with --proxy-headers
    with pytest.raises(TypeError, match="unknown server setting 'wokers'"):
        settings.replace(wokers=1)
    with pytest.raises(SystemExit):
        _settings("--forwarded-allow-ips", "proxy.example")
    with pytest.raises(SystemExit):
        _settings("--root-path", "coscore")


def test_behind_nginx_without_the_flags_the_refusal_names_the_flag(apps):
    answer = _post(apps["none"])
    assert answer.status_code == 421 and f"--allowed-host {SITE}" in answer.json()["error"]
    answer = _post(apps["host"])
    assert answer.status_code == 403 and "--proxy-headers --forwarded-allow-ips" in answer.json()["error"]


def test_behind_nginx_with_the_flags_a_same_site_call_is_answered(apps):
    for path in ("/coscore/v1/check", "/v1/check"):  # a proxy that keeps the prefix, one that strips it
        answer = _post(apps["proxy"], path)
        assert answer.status_code == 200, answer.text
        assert answer.json()["valid"] is True
    assert _post(apps["proxy"], "/coscore/nothing").status_code == 404
    no_prefix = _post(apps["host"], "/coscore/v1/check", Origin=f"http://{SITE}")  # no --root-path: no prefix
    assert no_prefix.status_code == 404


def test_forwarded_headers_of_a_peer_not_trusted_are_ignored(apps):
    answer = _post(apps["proxy"], peer=("198.51.100.9", 5000))
    assert answer.status_code == 403 and "--proxy-headers" in answer.json()["error"]
    # a page of another site is refused through the proxy too
    answer = _post(apps["proxy"], Origin="https://evil.example")
    assert answer.status_code == 403 and "evil.example" in answer.json()["error"]


def _whoami(trusted: tuple[str, ...]) -> Starlette:
    async def who(request: Request) -> JSONResponse:
        return JSONResponse({"client": client_of(request), "scheme": request.url.scheme,
                             "host": request.headers["host"]})

    return Starlette(routes=[Route("/who", who)], middleware=[Middleware(ProxyHeaders, proxy=Proxy(trusted))])


@pytest.mark.parametrize("peer, forwarded, expected", [
    ("127.0.0.1", "203.0.113.7", "203.0.113.7"),
    ("127.0.0.1", "1.2.3.4, 203.0.113.7", "203.0.113.7"),  # what the client wrote itself does not count
    ("127.0.0.1", "203.0.113.7, 10.1.2.3", "203.0.113.7"),  # a second trusted proxy is skipped
    ("198.51.100.9", "203.0.113.7", "198.51.100.9"),  # not a trusted proxy: its own address
])
def test_the_client_of_a_request_is_the_address_a_trusted_proxy_forwarded(peer, forwarded, expected):
    with TestClient(_whoami(("127.0.0.1", "10.0.0.0/8")), client=(peer, 1)) as client:
        seen = client.get("/who", headers={"X-Forwarded-For": forwarded, "X-Forwarded-Proto": "https",
                                           "X-Forwarded-Host": SITE}).json()
    assert seen["client"] == expected
    trusted = peer == "127.0.0.1"
    assert (seen["scheme"], seen["host"]) == (("https", SITE) if trusted else ("http", "testserver"))


def test_a_server_that_cannot_start_says_why_on_one_line(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        assert main(["serve", "--port", port]) == 2
        assert main(["app", str(tmp_path), "--port", "0"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("coscore serve: cannot listen on 127.0.0.1:")
    assert lines[1].startswith("coscore app: ") and "templates/" in lines[1]
    with pytest.raises(StartupError):
        parser = argparse.ArgumentParser()
        from coscore.cli.serve import add_arguments

        add_arguments(parser)
        server_settings("coscore serve", parser.parse_args(["--host", "no-such-host.invalid"]))


def test_uvicorn_factory_with_two_processes(tmp_path):
    """``uvicorn --factory coscore.server:create_app --workers 2``, as docs/deployment.md says."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "coscore.server:create_app",
                             "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--log-level", "warning"],
                            cwd=tmp_path, env=coscore_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        assert proc.poll() is None, proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        try:
            return httpx.get(url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(ready, 60, "uvicorn's processes to answer")  # a request then waits for a warm pool
        answer = httpx.post(url + "/v1/check", json=RULE, timeout=30)
        assert answer.status_code == 200 and answer.json()["valid"] is True
    finally:
        stop_process(proc)


def test_the_app_behind_nginx(tmp_path):
    """``coscore app`` at the root of its own name, behind nginx: the pages and the API."""
    from coscore.webapp import create_app as create_web_app
    from webapp_support import APP_DIR, copy_database

    proxy = Proxy(trusted=("127.0.0.1",))
    hosts = frozenset({"127.0.0.1", "localhost", SITE})
    folders = [tmp_path / "plain", tmp_path / "proxied"]
    for folder in folders:
        folder.mkdir()
    apps = [create_web_app(APP_DIR, copy_database(folder), workers=1, allowed_hosts=hosts, proxy=given)
            for folder, given in zip(folders, (Proxy(), proxy))]
    try:
        statuses = []
        for app in apps:
            client = TestClient(app, base_url=f"http://{SITE}", client=PROXY_PEER)
            headers = {**NGINX_HEADERS, "Content-Type": "application/json"}
            statuses.append(client.post("/api/deleteRule", content=json.dumps({"name": "none"}),
                                        headers=headers).status_code)
            assert client.get("/", headers={k: v for k, v in headers.items() if k != "Origin"}).status_code == 200
        # without the flags the https page is refused; with them it reaches the API (no such rule: 404)
        assert statuses == [403, 404], statuses
    finally:
        for app in apps:
            app.state.pool.close()
