"""The rule workbench (``/workbench`` of ``coscore app``) walked in headless Chromium.

Types a rule with ``T(0) > 3`` and sees that diagnostic with its column and its place in
the text, fixes it and sees the score range, saves it, tests an answer and sees the SM
keys it holds inside ``<mark>``, picks the lane-change dataset (``test 2`` in the
original database: 100 answers) and sees the QWK and the disagreements, opens one in
the tester, then picks a 100,000-answer dataset and times how long the agreement takes
to show. No console errors. Screenshots are saved in the folder the test prints
(``COSCORE_ARTEFACTS`` chooses it). Skips when Chromium or chromedriver is missing.
"""
from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

import pytest

from browser_support import by_testid, needs_browser, wait
from webapp_support import LiveApp, copy_database

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import coscore
from coscore.report import agreement

DEMO = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo"
LANE = json.loads((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"))
BROKEN = json.loads(json.dumps(LANE))
BROKEN["combos"]["C"]["combo"] = "T(0) > 3"
ANSWER = "开始前进，若有障碍物则避让车道，结束"
BIG = "lane-change 100k"

pytestmark = needs_browser


def big_dataset(count: int = 100_000) -> str:
    """``count`` labelled answers made from the lane-change ones (the start of one and the
    end of another, with the first one's mark): mostly distinct, as real answers are."""
    rows = [line.rsplit(",", 1) for line in (DEMO / "lane-change.csv").read_text(encoding="utf-8").split("\n")[1:]
            if line]
    pick = random.Random(28)
    lines = []
    for _ in range(count):
        (a, mark), (b, _) = pick.choice(rows), pick.choice(rows)
        lines.append(f"{a}{b[pick.randint(0, len(b)):]},{mark}")
    return "text,score\n" + "\n".join(lines)


@pytest.fixture()
def app(tmp_path: Path):
    db = copy_database(tmp_path)
    with sqlite3.connect(db) as connection:  # as the original's createData stores a dataset
        connection.execute("INSERT INTO data VALUES (?, ?, 'labeled', ?, '100000', '2025-06-01 12:00:00')",
                           (BIG, "100,000 lane-change answers", big_dataset()))
    live = LiveApp(db)
    live.db = db
    try:
        yield live
    finally:
        live.stop()





def _type_rule(driver, rule: dict) -> None:
    editor = by_testid(driver, "rule-editor")
    editor.clear()
    editor.send_keys(json.dumps(rule, ensure_ascii=False))


def test_the_workbench_walk(browser, app, artefacts):
    browser.get(f"{app.url}/workbench")
    wait(browser, lambda d: len(Select(by_testid(d, "dataset-select")).options) > 5)
    assert browser.find_element(By.ID, "editor-title").text == "规则编辑器"  # Chinese first, as the original pages
    browser.save_screenshot(str(artefacts / "0-chinese.png"))
    by_testid(browser, "language").click()  # English: the words below are the English ones
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    browser.save_screenshot(str(artefacts / "1-open.png"))

    # -- a rule with T(0) > 3: the diagnostic, its column and its place in the text ----------
    by_testid(browser, "rule-name").send_keys("workbench rule")
    _type_rule(browser, BROKEN)
    item = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid='diagnostics'] li.error"))
    assert item.get_attribute("data-path") == "combos.C.combo"
    assert "column 6" in item.text and "orders text against a number" in item.text
    mark = browser.find_element(By.CSS_SELECTOR, "#editor-backdrop mark.error")
    assert mark.get_attribute("textContent") == ">"
    item.click()  # the caret place is selected in the editor
    assert browser.execute_script("const e = arguments[0]; return e.value.slice(e.selectionStart, e.selectionEnd)",
                                  by_testid(browser, "rule-editor")) == ">"
    assert "every answer fails" in by_testid(browser, "score-range").text
    assert not by_testid(browser, "save-rule").is_enabled()  # refused while it has an error
    browser.save_screenshot(str(artefacts / "2-diagnostic.png"))

    # -- fixed: the score range and what each combo can contribute; saved ---------------------
    _type_rule(browser, LANE)
    wait(browser, lambda d: "scores exactly 0–10" in by_testid(d, "score-range").text)
    assert "combo C (value × 1): number, contributes 0, 1 or 2" in by_testid(browser, "score-range").text
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid='diagnostics'] li")
    wait(browser, lambda d: by_testid(d, "save-rule").is_enabled())
    by_testid(browser, "save-rule").click()
    wait(browser, lambda d: "Saved" in by_testid(d, "save-status").text)
    with sqlite3.connect(app.db) as connection:
        (stored,) = connection.execute("SELECT rule FROM rules WHERE name = 'workbench rule'").fetchone()
    assert json.loads(stored) == LANE
    browser.save_screenshot(str(artefacts / "3-saved.png"))

    # -- an answer: the SM keys it holds are marked ---------------------------------------------
    by_testid(browser, "answer-input").send_keys(ANSWER)
    wait(browser, lambda d: by_testid(d, "score").text == "9")
    explanation = by_testid(browser, "explanation")
    marks = [m.text for m in explanation.find_elements(By.CSS_SELECTOR, ".call[data-atom='2'] .text mark")]
    assert marks == ["开始", "结束"]
    assert [m.text for m in explanation.find_elements(By.CSS_SELECTOR, ".call[data-atom='1'] .text mark")] == ["若"]
    browser.save_screenshot(str(artefacts / "4-tester.png"))

    # -- the lane-change dataset: QWK and the disagreements; one opened in the tester ----------
    Select(by_testid(browser, "dataset-select")).select_by_visible_text("test 2")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='agreement'] [data-figure='qwk']"))
    lines = [line.split(",") for line in (DEMO / "lane-change.csv").read_text(encoding="utf-8").split("\n")[1:] if line]
    batch = coscore.compile(LANE).score_many([text.split("-") for text, _ in lines])
    qwk = agreement([float(mark) for _, mark in lines], batch.scores).qwk
    shown = browser.find_element(By.CSS_SELECTOR, "[data-figure='qwk'] .value").text
    assert shown == f"{qwk:.3f}".rstrip("0")
    rows = by_testid(browser, "disagreements").find_elements(By.TAG_NAME, "tr")
    assert len(rows) == 20
    first = rows[0].find_elements(By.TAG_NAME, "td")
    answer_text, score = first[1].text, first[3].text
    browser.save_screenshot(str(artefacts / "5-dataset.png"))
    rows[0].click()
    wait(browser, lambda d: by_testid(d, "answer-input").get_property("value") == answer_text)
    wait(browser, lambda d: by_testid(d, "score").text == score)
    browser.save_screenshot(str(artefacts / "6-opened.png"))

    # -- 100,000 answers: the agreement shown, paged from the kept scoring ---------------------
    began = time.monotonic()
    Select(by_testid(browser, "dataset-select")).select_by_visible_text(BIG)
    wait(browser, lambda d: by_testid(d, "agreement").get_attribute("data-ms"))
    seconds = time.monotonic() - began
    page_ms = int(by_testid(browser, "agreement").get_attribute("data-ms"))
    assert by_testid(browser, "dataset-status").text.startswith("100,000 answers")
    print(f"100,000 answers: agreement shown {seconds:.2f} s after choosing the dataset (page: {page_ms} ms)")
    browser.save_screenshot(str(artefacts / "7-100k.png"))
    # the 2 s target is measured by benchmarks/workbench.py, not by a timed test
    next_page = by_testid(browser, "disagreements-pager").find_elements(By.TAG_NAME, "button")[1]
    first_row = by_testid(browser, "disagreements").find_element(By.TAG_NAME, "tr").get_attribute("data-row")
    next_page.click()  # pages come from the kept scoring
    wait(browser, lambda d: by_testid(d, "disagreements").find_element(By.TAG_NAME, "tr").get_attribute("data-row")
          != first_row, timeout=10)

    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
