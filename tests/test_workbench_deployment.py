"""``coscore workbench`` takes the server options of ``coscore serve`` and ``coscore app``
(one :class:`ServerSettings`, built once by the command): behind nginx with
``--proxy-headers --forwarded-allow-ips --root-path`` its page, its scripts and its API
answer under the prefix; what stops it starting is one line and exit 2; the library's
``create_app`` takes the settings (docs/deployment.md, docs/workbench.md)."""
from __future__ import annotations

import argparse
import json
import re
import socket
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient

from coscore.cli import main
from coscore.cli.server_options import server_settings
from coscore.http.proxy import Proxy
from coscore.http.settings import ServerSettings
from coscore.workbench import create_app
from coscore.workbench.routes import STATIC

SITE = "scoring.school.edu"
PROXY_PEER = ("127.0.0.1", 41234)  # nginx on the same machine
#: What nginx sends with the recipe of docs/deployment.md, for the workbench's page at
#: https://scoring.school.edu/wb/ calling its API.
NGINX_HEADERS = {"Host": SITE, "X-Real-IP": "203.0.113.7", "X-Forwarded-For": "203.0.113.7",
                 "X-Forwarded-Proto": "https", "X-Forwarded-Host": SITE, "Origin": f"https://{SITE}",
                 "Content-Type": "application/json"}
PAGE = f"https://{SITE}/wb/"


def _settings(*flags: str) -> ServerSettings:
    """The settings ``coscore workbench FLAGS`` builds (on a free loopback port)."""
    from coscore.cli.workbench import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return server_settings("coscore workbench", parser.parse_args(["--port", "0", *flags]))


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    """The workbench behind nginx: started without the proxy flags, and with them."""
    folder = tmp_path_factory.mktemp("deployed")
    made = {
        "host": create_app(folder / "host", _settings("--allowed-host", SITE), workers=1),
        "proxy": create_app(folder / "proxy", _settings("--allowed-host", SITE, "--proxy-headers",
                                                        "--forwarded-allow-ips", "127.0.0.1", "--root-path", "/wb"),
                            workers=1),
    }
    yield made
    for app in made.values():
        app.state.pool.close()


def _client(app) -> TestClient:  # no lifespan: the fixture stops the pools
    return TestClient(app, base_url=f"http://{SITE}", client=PROXY_PEER, follow_redirects=False)


def _page_addresses() -> list[str]:
    """The addresses the page's HTML and scripts ask for: its styles and script, and the
    start of every ``fetch`` (a string literal)."""
    html = (STATIC / "index.html").read_text("utf-8")
    found = [a for a in re.findall(r'<(?:link|script)\b[^>]*?(?:href|src)="([^"]+)"', html) if not a.startswith("data:")]
    for script in STATIC.glob("*.js"):
        found += re.findall(r"""fetch\(\s*['"`]([^'"`]*)""", script.read_text("utf-8"))
    return found


def test_the_workbench_takes_the_server_options():
    settings = _settings("--proxy-headers", "--forwarded-allow-ips", "10.0.0.0/8,127.0.0.1", "--root-path", "/wb/",
                         "--allowed-host", SITE, "--workers", "3")
    assert settings.proxy == Proxy(("10.0.0.0/8", "127.0.0.1"), "/wb")
    assert SITE in settings.allowed_hosts and settings.workers == 3
    defaults = _settings()
    assert (defaults.max_body, defaults.memory, defaults.body_timeout) == (256 * 2**20, 4 * 2**30, 120.0)
    assert defaults.proxy == Proxy()
    with pytest.raises(SystemExit):
        _settings("--root-path", "wb")


def test_the_page_asks_for_relative_addresses_only():
    addresses = _page_addresses()
    assert "workbench/static/workbench.js" in addresses and "api/workbench/" in addresses
    assert not [a for a in addresses if a.startswith("/") or "//" in a]  # all below the page's own folder


def test_behind_nginx_the_page_its_scripts_and_its_api_answer_under_the_prefix(apps):
    client = _client(apps["proxy"])
    page = client.get("/wb/", headers={k: v for k, v in NGINX_HEADERS.items() if k != "Origin"})
    assert page.status_code == 200 and 'src="workbench/static/workbench.js"' in page.text
    for address in _page_addresses():  # as the browser resolves them against the page's address
        path = urlsplit(urljoin(PAGE, address)).path
        assert path.startswith("/wb/"), address
        if address.startswith("workbench/static/"):
            assert client.get(path, headers={"Host": SITE}).status_code == 200, path
    for path in (urlsplit(urljoin(PAGE, "api/workbench/catalog")).path, "/api/workbench/catalog"):  # kept, stripped
        answer = client.post(path, content=json.dumps({}), headers=NGINX_HEADERS)
        assert answer.status_code == 200, answer.text
        assert "rules" in answer.json()
    # the prefix without its slash is sent to the page's folder, so its relative addresses stay below it
    moved = client.get("/wb", headers=NGINX_HEADERS)
    assert moved.status_code in (307, 308) and moved.headers["location"] == PAGE


def test_behind_nginx_without_the_flags_the_refusal_names_them(apps):
    answer = _client(apps["host"]).post("/api/workbench/catalog", content=json.dumps({}), headers=NGINX_HEADERS)
    assert answer.status_code == 403 and "--proxy-headers --forwarded-allow-ips" in answer.json()["error"]
    # forwarded headers from a peer that is not a trusted proxy are ignored
    stranger = TestClient(apps["proxy"], base_url=f"http://{SITE}", client=("198.51.100.9", 5000))
    answer = stranger.post("/wb/api/workbench/catalog", content=json.dumps({}), headers=NGINX_HEADERS)
    assert answer.status_code == 403


def test_the_library_create_app_takes_settings(tmp_path):
    settings = ServerSettings(workers=1, allowed_hosts=frozenset({"testserver"}), proxy=Proxy(root_path="/wb"))
    app = create_app(tmp_path / "store", settings, timeout=2.0)
    try:
        assert app.state.settings == settings.replace(timeout=2.0)
        with TestClient(app) as client:
            assert client.get("/wb/healthz").status_code == 200
            assert client.get("/healthz").status_code == 200
    finally:
        app.state.pool.close()
    plain = create_app(tmp_path / "plain", workers=1)  # the workbench's own defaults, with the changes
    try:
        assert plain.state.settings.max_body == 256 * 2**20 and plain.state.settings.workers == 1
    finally:
        plain.state.pool.close()


def _one_line(capsys, *argv: str) -> str:
    assert main(["workbench", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith("coscore workbench: "), lines[0]
    return lines[0]


def test_what_stops_the_workbench_starting_is_one_line(capsys, tmp_path: Path):
    store = str(tmp_path / "store")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        line = _one_line(capsys, "--port", port, "--store", store)
    assert line.startswith(f"coscore workbench: cannot listen on 127.0.0.1:{port}: ")
    assert "unknown address" in _one_line(capsys, "--host", "no-such-host.invalid", "--store", store)
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("x")
    line = _one_line(capsys, "--port", "0", "--store", str(not_a_folder))
    assert f"{not_a_folder}: cannot use this folder as the store" in line
    missing = tmp_path / "missing.rule.json"
    line = _one_line(capsys, "--port", "0", "--store", store, "--workers", "1", "--rule", str(missing))
    assert line == f"coscore workbench: {missing}: cannot read the rule file (No such file or directory)"
    line = _one_line(capsys, "--port", "0", "--store", store, "--workers", "1", str(tmp_path / "nope.csv"))
    assert line == f"coscore workbench: {tmp_path / 'nope.csv'}: no such file"


def test_the_workers_help_says_each_servers_real_default(capsys):
    said = {}
    for command in (["serve"], ["app", "DIR"], ["workbench"]):
        assert main([*command, "--help"]) == 0
        said[command[0]] = " ".join(capsys.readouterr().out.split())
    assert "(default one per core, at least 2 and at most 8)" in said["serve"]
    assert "worker processes that compile and score (default 2)" in said["app"]
    assert "worker processes that compile and score (default 2)" in said["workbench"]
    assert "(default 4G; 0 for no limit)" in said["workbench"] and "(default 1G;" in said["serve"]
    for name in ("serve", "app", "workbench"):
        assert "--proxy-headers" in said[name] and "--root-path PREFIX" in said[name]
