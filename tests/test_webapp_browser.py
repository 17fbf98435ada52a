"""The original CoScore frontend, unchanged, in headless Chromium against ``coscore app``.

Uploads a labelled dataset on the data page, saves and tests a rule on the rules page,
creates a task on the tasks page, waits for it, opens its results (score table,
histogram, heat map), downloads the CSV and deletes the task — with no JavaScript error
in the browser console. Skips when Chromium or chromedriver is missing.
"""
from __future__ import annotations

import json
import shutil
import time
import urllib.parse
from pathlib import Path

import pytest

from webapp_support import LiveApp, copy_database

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (  # noqa: E402
    NoAlertPresentException,
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service as ChromeService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[1]
LANE_RULE = json.dumps(json.loads((ROOT / "coscore" / "data" / "demo" / "lane-change.rule.json").read_text(
    encoding="utf-8")), ensure_ascii=False)
ANSWERS = ["前进，如果前方有障碍就变换车道，然后停车", "不知道", "开始前进，若有障碍物则避让车道，结束", "左转"]


def _have_browser() -> bool:
    return Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()


pytestmark = pytest.mark.skipif(not _have_browser(), reason="chromium and chromedriver are not installed")


@pytest.fixture()
def browser(tmp_path: Path):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000"):
        options.add_argument(flag)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=ChromeService(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.downloads = downloads
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture()
def app(tmp_path: Path):
    live = LiveApp(copy_database(tmp_path))
    try:
        yield live
    finally:
        live.stop()


def _errors(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def _wait(driver, condition, timeout: float = 60):
    # pages reload themselves after a change: an element may go stale while we look at it
    ignored = (StaleElementReferenceException, NoSuchElementException)
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=ignored).until(condition)


def _accept_alert(driver, text: str | None = None) -> None:
    alert = _wait(driver, lambda d: _alert(d))
    if text is not None:
        alert.send_keys(text)
    alert.accept()


def _alert(driver):
    try:
        return driver.switch_to.alert
    except NoAlertPresentException:
        return False


def _open(driver, app, page: str) -> None:
    driver.get(f"{app.url}/{page}")
    _wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def test_the_original_frontend_works_end_to_end(browser, app, tmp_path):
    errors: list = []
    for page in ("", "manual"):  # the other pages load cleanly too
        _open(browser, app, page)
        errors += _errors(browser)

    # -- data: upload a labelled CSV file ----------------------------------------------
    csv = tmp_path / "lane answers.csv"
    csv.write_text("text,score\n" + "\n".join(f"{a},{i % 3 * 3}" for i, a in enumerate(ANSWERS)), encoding="utf-8")
    _open(browser, app, "data")
    _wait(browser, lambda d: "test 1" in d.find_element(By.ID, "datasetCards").text)
    browser.find_element(By.CSS_SELECTOR, "button[onclick='openNewDatasetModal()']").click()
    browser.find_element(By.ID, "datasetName").send_keys("browser data")
    browser.find_element(By.ID, "datasetDesc").send_keys("uploaded from the data page")
    Select(browser.find_element(By.ID, "datasetType")).select_by_value("labeled")
    browser.find_element(By.ID, "csvFile").send_keys(str(csv))
    _wait(browser, lambda d: d.find_element(By.ID, "csvData").get_property("value").startswith("text,score"))
    browser.find_element(By.CSS_SELECTOR, "button[onclick='createDataset()']").click()
    _wait(browser, lambda d: "browser data" in d.find_element(By.ID, "datasetCards").text)
    assert f"{len(ANSWERS)} items" in browser.find_element(By.ID, "datasetCards").text
    errors += _errors(browser)

    # -- rules: save a rule, then test it ------------------------------------------------
    _open(browser, app, "rules")
    _wait(browser, lambda d: "test 1" in d.find_element(By.ID, "rulesList").text)
    browser.find_element(By.CSS_SELECTOR, "button[onclick='newRule()']").click()
    browser.find_element(By.ID, "rulePrompt").send_keys("lane change")
    browser.find_element(By.ID, "generatedRule").send_keys(LANE_RULE)
    browser.find_element(By.ID, "saveBtn").click()
    _accept_alert(browser, "browser rule")
    _wait(browser, lambda d: "browser rule" in d.find_element(By.ID, "rulesList").text)
    card = next(c for c in browser.find_elements(By.CSS_SELECTOR, ".rule-card") if "browser rule" in c.text)
    card.click()
    assert json.loads(browser.find_element(By.ID, "generatedRule").text) == json.loads(LANE_RULE)
    browser.find_element(By.ID, "testText").send_keys(ANSWERS[0])
    browser.find_element(By.ID, "testBtn").click()
    _wait(browser, lambda d: "debugInfo" in d.find_element(By.ID, "testResult").text)
    result = json.loads(browser.find_element(By.ID, "testResult").text.split(": ", 1)[1])
    assert set(result["debugInfo"]) == {"A", "B", "C"} and result["score"] > 0
    errors += _errors(browser)

    # -- tasks: create one, wait for it, open its results ----------------------------
    _open(browser, app, "tasks")
    _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#taskRule option[value='browser rule']")) == 1)
    _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#taskDataset option[value='browser data']")) == 1)
    browser.find_element(By.CSS_SELECTOR, "button[onclick='openNewTaskModal()']").click()
    browser.find_element(By.ID, "taskName").send_keys("browser task")
    Select(browser.find_element(By.ID, "taskDataset")).select_by_value("browser data")
    Select(browser.find_element(By.ID, "taskRule")).select_by_value("browser rule")
    browser.find_element(By.CSS_SELECTOR, "button[onclick='createTask()']").click()
    _wait(browser, lambda d: "browser task" in d.find_element(By.ID, "myTasks").text)

    def completed(driver) -> bool:
        row = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#myTasks tr") if "browser task" in r.text)
        if "Completed" in row.text:
            return True
        _open(driver, app, "tasks")  # the page does not poll: reload it, as a user would
        _wait(driver, lambda d: "browser task" in d.find_element(By.ID, "myTasks").text)
        return False

    _wait(browser, completed)
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#myTasks tr") if "browser task" in r.text)
    row.find_element(By.CSS_SELECTOR, "button.is-info").click()
    _wait(browser, lambda d: d.find_element(By.ID, "resultsModal").is_displayed())
    assert browser.find_element(By.ID, "resultsStatus").text == "Completed"
    assert browser.find_element(By.ID, "resultsTable").is_displayed()
    _wait(browser, lambda d: d.find_element(By.ID, "downloadCSV").get_attribute("href").startswith("data:"))
    for figure in ("fig-left", "fig-right"):  # the histogram and the heat map are drawn
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#{figure} canvas"))
        assert browser.find_element(By.CSS_SELECTOR, f"#{figure} canvas").size["width"] > 0
    stats = [float(browser.find_element(By.ID, key).text) for key in ("myAvg", "myMax", "myMin")]
    assert stats[2] <= stats[0] <= stats[1] and stats[1] > 0

    # -- download the CSV ------------------------------------------------------------------
    href = browser.find_element(By.ID, "downloadCSV").get_attribute("href")
    lines = urllib.parse.unquote(href.split(",", 1)[1]).strip().split("\n")
    assert lines[0] == "text,score" and [line.rsplit(",", 1)[0] for line in lines[1:]] == ANSWERS
    browser.find_element(By.ID, "downloadCSV").click()
    _wait(browser, lambda d: [p for p in d.downloads.iterdir() if not p.name.endswith(".crdownload")])
    (downloaded,) = list(browser.downloads.iterdir())
    assert downloaded.read_text(encoding="utf-8").strip().split("\n") == lines
    errors += _errors(browser)

    # -- delete the task ---------------------------------------------------------------------
    _open(browser, app, "tasks")
    _wait(browser, lambda d: "browser task" in d.find_element(By.ID, "myTasks").text)
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#myTasks tr") if "browser task" in r.text)
    row.find_element(By.CSS_SELECTOR, "button.is-danger").click()
    _accept_alert(browser)
    time.sleep(0.5)
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    _wait(browser, lambda d: "test 1" in d.find_element(By.ID, "myTasks").text)
    assert "browser task" not in browser.find_element(By.ID, "myTasks").text
    errors += _errors(browser)
    assert errors == []
