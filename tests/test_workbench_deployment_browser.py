"""``coscore workbench --root-path /wb`` walked in headless Chromium at ``/wb/``: the page's
styles, scripts and API calls all stay under the prefix (its stored rule is listed, a rule
typed is checked live), with no console error. Skips when Chromium is missing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser_support import needs_browser, start_chromium, wait
from workbench_files import RULE, RULE_TEXT, LiveWorkbench

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By

pytestmark = needs_browser


def test_the_workbench_under_a_root_path(tmp_path: Path):
    rule = tmp_path / "q5.rule.json"
    rule.write_text(RULE_TEXT, encoding="utf-8")
    live = LiveWorkbench(tmp_path, "--rule", str(rule), "--root-path", "/wb", "--workers", "1")
    driver = start_chromium(tmp_path / "profile", console=True)
    try:
        driver.get(live.url + "/wb/")
        wait(driver, lambda d: "q5.rule" in [o.get_attribute("value") for o in
                                        d.find_elements(By.CSS_SELECTOR, "[data-testid='rule-select'] option")])
        editor = driver.find_element(By.CSS_SELECTOR, "[data-testid='rule-editor']")
        # scores 0–9 (4 + 5), checked through /wb/api/workbench/check
        changed = {**RULE, "combos": {**RULE["combos"], "B": {**RULE["combos"]["B"], "score": 5}}}
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                              editor, json.dumps(changed))
        wait(driver, lambda d: "0–9" in d.find_element(By.CSS_SELECTOR, "[data-testid='score-range']").text)
        asked = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert asked and all(url.startswith(live.url + "/wb/") for url in asked), asked
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        driver.quit()
        live.stop()
