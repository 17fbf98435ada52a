"""The HTML pages of ``report`` and ``compare`` in a real browser: headless Chromium loads
each page, every image decodes, and a screenshot is taken. Skips where Chromium,
chromedriver or Selenium is missing."""
from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import needs_browser, start_chromium
from test_cli import DEMO, run

pytestmark = needs_browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"), window="1200,900", page_load_timeout=120)
    yield driver
    driver.quit()


def _look(browser, page: Path, shot: Path) -> None:
    browser.get(page.resolve().as_uri())
    images = browser.find_elements("tag name", "img")
    assert images
    for image in images:
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
    # nothing wider than the window (long answers and explanations wrap)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_page(browser, tmp_path):
    pytest.importorskip("matplotlib")
    scored, page = tmp_path / "s.csv", tmp_path / "report.html"
    rule = DEMO / "lane-change.rule.json"
    assert run("score", rule, DEMO / "lane-change.csv", "--format", "coscore", "-o", scored).returncode == 0
    assert run("report", scored, "--label", "score", "--rule", rule, "--html", page).returncode == 0
    _look(browser, page, tmp_path / "report.png")
    body = browser.find_element("tag name", "body").text
    assert "Largest disagreements" in body and "lane-change.rule.json" in body and "By mark level" in body
    assert "R²" in body and "unweighted kappa" in body
    assert "M(0) OP" in body and "Combos" in body  # a disagreement's evidence and the combos' figures


def test_compare_page(browser, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "compare.html"
    rule = DEMO / "traffic-light.rule.json"
    proc = run("compare", DEMO / "traffic-light.csv", "--label", "score", rule, DEMO / "lane-change.rule.json",
               "--resamples", "100", "--html", page)
    assert proc.returncode == 0, proc.stderr
    _look(browser, page, tmp_path / "compare.png")
    body = browser.find_element("tag name", "body").text
    assert "Paired differences" in body and "Rows where the scorers disagree" in body
    assert "开始，前进" in body and "exact" in body  # an answer's text, and each scorer's table
