"""The original CoScore frontend, unchanged, in headless Chromium against ``coscore app``.

Uploads a labelled dataset on the data page, saves and tests a rule on the rules page,
creates a task on the tasks page, waits for it, opens its results (score table,
histogram, heat map), downloads the CSV and deletes the task — with no JavaScript error
in the browser console. Skips when Chromium or chromedriver is missing.
"""
from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest

from browser_support import needs_browser, shown_text, start_chromium, wait
from webapp_support import LiveApp, copy_database

pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ROOT = Path(__file__).resolve().parents[1]
LANE_RULE = json.dumps(json.loads((ROOT / "coscore" / "data" / "demo" / "lane-change.rule.json").read_text(
    encoding="utf-8")), ensure_ascii=False)
ANSWERS = ["前进，如果前方有障碍就变换车道，然后停车", "不知道", "开始前进，若有障碍物则避让车道，结束", "左转"]

pytestmark = needs_browser


@pytest.fixture()
def browser(tmp_path: Path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = start_chromium(tmp_path / "profile", downloads=downloads, console=True)
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


def _click_row(driver, selector: str, name: str, inner: str | None = None) -> bool:
    """Click the first ``selector`` element whose text holds ``name`` (or its ``inner`` part)."""
    for element in driver.find_elements(By.CSS_SELECTOR, selector):
        if name in element.text:
            (element.find_element(By.CSS_SELECTOR, inner) if inner else element).click()
            return True
    return False


def _accept_alert(driver, text: str | None = None) -> None:
    alert = wait(driver, lambda d: _alert(d))
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
    wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def test_the_original_frontend_works_end_to_end(browser, app, tmp_path):
    errors: list = []
    for page in ("", "manual"):  # the other pages load cleanly too
        _open(browser, app, page)
        errors += _errors(browser)

    # -- data: upload a labelled CSV file ----------------------------------------------
    csv = tmp_path / "lane answers.csv"
    csv.write_text("text,score\n" + "\n".join(f"{a},{i % 3 * 3}" for i, a in enumerate(ANSWERS)), encoding="utf-8")
    _open(browser, app, "data")
    wait(browser, lambda d: "test 1" in shown_text(d, "datasetCards"))
    browser.find_element(By.CSS_SELECTOR, "button[onclick='openNewDatasetModal()']").click()
    browser.find_element(By.ID, "datasetName").send_keys("browser data")
    browser.find_element(By.ID, "datasetDesc").send_keys("uploaded from the data page")
    Select(browser.find_element(By.ID, "datasetType")).select_by_value("labeled")
    browser.find_element(By.ID, "csvFile").send_keys(str(csv))
    wait(browser, lambda d: d.find_element(By.ID, "csvData").get_property("value").startswith("text,score"))
    browser.find_element(By.CSS_SELECTOR, "button[onclick='createDataset()']").click()
    wait(browser, lambda d: "browser data" in shown_text(d, "datasetCards"))
    assert f"{len(ANSWERS)} items" in shown_text(browser, "datasetCards")
    errors += _errors(browser)

    # -- rules: save a rule, then test it ------------------------------------------------
    _open(browser, app, "rules")
    wait(browser, lambda d: "test 1" in shown_text(d, "rulesList"))
    browser.find_element(By.CSS_SELECTOR, "button[onclick='newRule()']").click()
    browser.find_element(By.ID, "rulePrompt").send_keys("lane change")
    browser.find_element(By.ID, "generatedRule").send_keys(LANE_RULE)
    browser.find_element(By.ID, "saveBtn").click()
    _accept_alert(browser, "browser rule")
    wait(browser, lambda d: "browser rule" in shown_text(d, "rulesList"))
    wait(browser, lambda d: _click_row(d, ".rule-card", "browser rule"))
    wait(browser, lambda d: shown_text(d, "generatedRule").strip())
    assert json.loads(shown_text(browser, "generatedRule")) == json.loads(LANE_RULE)
    browser.find_element(By.ID, "testText").send_keys(ANSWERS[0])
    browser.find_element(By.ID, "testBtn").click()
    wait(browser, lambda d: "debugInfo" in shown_text(d, "testResult"))
    result = json.loads(shown_text(browser, "testResult").split(": ", 1)[1])
    assert set(result["debugInfo"]) == {"A", "B", "C"} and result["score"] > 0
    errors += _errors(browser)

    # -- tasks: create one, wait for it, open its results ----------------------------
    _open(browser, app, "tasks")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#taskRule option[value='browser rule']")) == 1)
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#taskDataset option[value='browser data']")) == 1)
    browser.find_element(By.CSS_SELECTOR, "button[onclick='openNewTaskModal()']").click()
    browser.find_element(By.ID, "taskName").send_keys("browser task")
    Select(browser.find_element(By.ID, "taskDataset")).select_by_value("browser data")
    Select(browser.find_element(By.ID, "taskRule")).select_by_value("browser rule")
    browser.find_element(By.CSS_SELECTOR, "button[onclick='createTask()']").click()
    wait(browser, lambda d: "browser task" in shown_text(d, "myTasks"))

    def completed(driver) -> bool:
        row = next(r for r in shown_text(driver, "myTasks").split("\n") if "browser task" in r)
        if "Completed" in row:
            return True
        _open(driver, app, "tasks")  # the page does not poll: reload it, as a user would
        wait(driver, lambda d: "browser task" in shown_text(d, "myTasks"))
        return False

    wait(browser, completed)
    wait(browser, lambda d: _click_row(d, "#myTasks tr", "browser task", "button.is-info"))
    wait(browser, lambda d: d.find_element(By.ID, "resultsModal").is_displayed())
    assert shown_text(browser, "resultsStatus") == "Completed"
    assert browser.find_element(By.ID, "resultsTable").is_displayed()
    wait(browser, lambda d: d.find_element(By.ID, "downloadCSV").get_attribute("href").startswith("data:"))
    for figure in ("fig-left", "fig-right"):  # the histogram and the heat map are drawn
        wait(browser, lambda d, figure=figure: d.find_elements(By.CSS_SELECTOR, f"#{figure} canvas"))
        assert browser.find_element(By.CSS_SELECTOR, f"#{figure} canvas").size["width"] > 0
    stats = [float(shown_text(browser, key)) for key in ("myAvg", "myMax", "myMin")]
    assert stats[2] <= stats[0] <= stats[1] and stats[1] > 0

    # -- download the CSV ------------------------------------------------------------------
    href = browser.find_element(By.ID, "downloadCSV").get_attribute("href")
    lines = urllib.parse.unquote(href.split(",", 1)[1]).strip().split("\n")
    assert lines[0] == "text,score" and [line.rsplit(",", 1)[0] for line in lines[1:]] == ANSWERS
    browser.find_element(By.ID, "downloadCSV").click()
    wait(browser, lambda d: [p for p in d.downloads.iterdir() if not p.name.endswith(".crdownload")])
    (downloaded,) = list(browser.downloads.iterdir())
    assert downloaded.read_text(encoding="utf-8").strip().split("\n") == lines
    errors += _errors(browser)

    # -- delete the task ---------------------------------------------------------------------
    _open(browser, app, "tasks")
    wait(browser, lambda d: "browser task" in shown_text(d, "myTasks"))
    wait(browser, lambda d: _click_row(d, "#myTasks tr", "browser task", "button.is-danger"))
    _accept_alert(browser)
    # the page lists the tasks again, the deleted one gone
    wait(browser, lambda d: d.execute_script("return document.readyState") == "complete"
         and "test 1" in (listed := shown_text(d, "myTasks")) and "browser task" not in listed)
    errors += _errors(browser)
    assert errors == []
