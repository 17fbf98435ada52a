"""No HTML sent to ``coscore app`` runs as script in the original pages (headless Chromium)."""
from __future__ import annotations

import json

import pytest

from browser_support import needs_browser, start_chromium, wait
from webapp_support import LiveApp, copy_database

httpx = pytest.importorskip("httpx")
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

SCRIPT = '<img src=x onerror="window.pwned = (window.pwned || 0) + 1">'
RULE = json.dumps({"atoms": {"0": {"type": "EM", "desc": "a"}},
                   "combos": {"A": {"combo": "G(0, T(0))", "score": 2, "mode": "logic"}}, "comboMode": "ADD"})

pytestmark = needs_browser


def test_html_in_names_and_descriptions_never_runs(tmp_path):
    app = LiveApp(copy_database(tmp_path))
    driver = start_chromium(tmp_path / "profile")
    try:
        with httpx.Client(base_url=app.url, timeout=30) as http:
            refused = [
                http.post("/api/createData", json={"name": SCRIPT, "desc": "", "type": "unlabeled", "data": "text\na",
                                                   "ulength": 1}),
                http.post("/api/createData", json={"name": "cells", "desc": "", "type": "unlabeled",
                                                   "data": "text\n" + SCRIPT, "ulength": 1}),
                http.post("/api/saveRule", json={"name": SCRIPT, "prompt": "", "rule": RULE}),
                http.post("/api/createTask", json={"data_name": "test 1", "rule_name": "test 1", "task_name": SCRIPT}),
            ]
            assert [r.status_code for r in refused] == [400] * 4
            kept = [
                http.post("/api/createData", json={"name": "described", "desc": SCRIPT, "type": "unlabeled",
                                                   "data": "text\na", "ulength": 1}),
                http.post("/api/saveRule", json={"name": "prompted", "prompt": SCRIPT, "rule": RULE}),
                http.post("/api/createTask", json={"data_name": "described", "rule_name": "prompted",
                                                   "task_name": "plain"}),
            ]
            assert [r.status_code for r in kept] == [200] * 3
        for page, shown in (("data", SCRIPT), ("rules", SCRIPT[:20] + "..."), ("tasks", "plain")):
            driver.get(f"{app.url}/{page}")
            wait(driver, lambda d, shown=shown: shown in d.find_element(By.TAG_NAME, "body").text, timeout=30)
            assert driver.execute_script("return window.pwned") is None, page
    finally:
        driver.quit()
        app.stop()
