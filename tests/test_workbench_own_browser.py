"""``coscore workbench`` alone, walked in headless Chromium: started in an empty folder,
a rule saved twice (its versions listed and compared), the teacher's .xlsx of issue 35
uploaded, mapped (学号 never a blank) and shown with the agreement ``coscore report``
gives, an exam of three items listed worst first and one opened (its rule in the editor,
the dataset view on its columns). No console errors. Screenshots are saved in the folder
the test prints (``COSCORE_ARTEFACTS`` chooses it). Skips when Chromium is missing."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from browser_support import by_testid, needs_browser, wait
from workbench_files import RULE, LiveWorkbench, exam_files, teacher_sheet

pytest.importorskip("selenium.webdriver")
pytest.importorskip("xlsxwriter")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

pytestmark = needs_browser


@pytest.fixture()
def bench(tmp_path: Path):
    folder = tmp_path / "empty"
    folder.mkdir()
    live = LiveWorkbench(folder)
    try:
        yield live
    finally:
        live.stop()




def _type_rule(driver, rule: dict) -> None:
    editor = by_testid(driver, "rule-editor")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                          editor, json.dumps(rule, ensure_ascii=False, indent=2))


def _pick(driver, testid: str, *names: str) -> None:
    select = Select(by_testid(driver, testid))
    if select.is_multiple:
        select.deselect_all()
    for name in names:
        select.select_by_value(name)


def _expected_qwk(book: Path) -> float:
    import coscore
    from coscore.labelled import read_table
    from coscore.report import agreement

    table = read_table(book, None, ["第1空", "第2空"], "教师A", missing_marks="skip")
    return agreement(table.marks, table.score(coscore.compile(RULE)).scores).qwk


def test_the_workbench_alone(bench, browser, tmp_path):
    shots = Path(os.environ.get("COSCORE_ARTEFACTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nworkbench screenshots: {shots}")
    browser.get(bench.url + "/")
    wait(browser, lambda d: d.find_element(By.ID, "library-panel").is_displayed())
    assert not browser.find_element(By.ID, "app-pages").is_displayed()   # no original app beside it

    # -- a rule saved twice: two versions, their diff ---------------------------------------------
    by_testid(browser, "rule-name").send_keys("第5题")
    _type_rule(browser, RULE)
    wait(browser, lambda d: by_testid(d, "save-rule").is_enabled())
    by_testid(browser, "save-rule").click()
    wait(browser, lambda d: len(by_testid(d, "rule-versions").find_elements(By.CSS_SELECTOR, "li[data-version]")) == 1)
    changed = json.loads(json.dumps(RULE))
    changed["combos"]["A"]["score"] = 3
    _type_rule(browser, changed)
    wait(browser, lambda d: by_testid(d, "save-rule").is_enabled())
    by_testid(browser, "save-rule").click()
    wait(browser, lambda d: len(by_testid(d, "rule-versions").find_elements(By.CSS_SELECTOR, "li[data-version]")) == 2)
    by_testid(browser, "rule-versions").find_element(By.CSS_SELECTOR, "button[data-action='diff']").click()
    wait(browser, lambda d: '"score": 3' in by_testid(d, "version-diff").text)
    browser.save_screenshot(str(shots / "1-versions.png"))
    _type_rule(browser, RULE)   # back to the first version's text for the data

    # -- the teacher's sheet: uploaded, mapped, its agreement ------------------------------------------
    book = teacher_sheet(tmp_path / "期中.xlsx")
    by_testid(browser, "dataset-file").send_keys(str(book))
    wait(browser, lambda d: d.find_element(By.ID, "mapping").is_displayed())
    said = by_testid(browser, "file-status").text   # the reader's note, in the page's language
    assert "第 1 行是标题（'2026 期中 第5题'），已跳过" in said and "title row" not in said
    blanks = [o.get_attribute("value") for o in Select(by_testid(browser, "column-blanks")).all_selected_options]
    assert "学号" not in blanks
    assert Select(by_testid(browser, "column-group")).first_selected_option.get_attribute("value") == "班级"
    _pick(browser, "column-blanks", "第1空", "第2空")
    _pick(browser, "column-label", "教师A")
    _pick(browser, "column-label2", "教师B")
    browser.save_screenshot(str(shots / "2-mapping.png"))
    by_testid(browser, "dataset-import").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='agreement'] [data-figure='qwk']"))
    shown = browser.find_element(By.CSS_SELECTOR, "[data-figure='qwk'] .value").text
    assert shown == f"{_expected_qwk(book):.3f}".rstrip("0")
    assert "300 行" in by_testid(browser, "dataset-list").text
    browser.save_screenshot(str(shots / "3-dataset.png"))
    browser.find_element(By.ID, "language").click()   # English: the list and the statuses too
    wait(browser, lambda d: "300 rows" in by_testid(d, "dataset-list").text
         and by_testid(d, "file-status").text.startswith("Imported"))
    browser.find_element(By.ID, "language").click()
    wait(browser, lambda d: "300 行" in by_testid(d, "dataset-list").text)

    # -- the versions on this dataset -----------------------------------------------------------------------
    by_testid(browser, "versions-agreement").click()
    wait(browser, lambda d: all("QWK" in c.text for c in
                                d.find_elements(By.CSS_SELECTOR, "[data-testid='version-agreement']")))

    # -- an exam: its items worst first; one opened ----------------------------------------------------------
    exam, data = exam_files(tmp_path)
    by_testid(browser, "dataset-file").send_keys(str(data))
    wait(browser, lambda d: d.find_element(By.ID, "mapping").is_displayed())
    said = by_testid(browser, "file-status").text   # the rule's two blanks do not fit: said in Chinese
    assert "规则读取 2 个空（T(0)…T(1)），但数据中有 6 个可以作为空的列" in said and "could be blanks" not in said
    _pick(browser, "column-blanks", "q1_a")
    _pick(browser, "column-label", "m1")
    by_testid(browser, "dataset-import").click()
    wait(browser, lambda d: Select(by_testid(d, "dataset-select")).first_selected_option.get_attribute("value") == "exam")
    by_testid(browser, "exam-file").send_keys(str(exam))
    wait(browser, lambda d: len(by_testid(d, "exam-items").find_elements(By.TAG_NAME, "li")) == 3)
    items = by_testid(browser, "exam-items").find_elements(By.TAG_NAME, "li")
    assert items[0].get_attribute("data-item") == "q2" and "QWK" in items[0].text
    browser.save_screenshot(str(shots / "4-exam.png"))
    qwk = items[0].text.split("QWK ", 1)[1].split(" ", 1)[0]
    items[0].click()
    wait(browser, lambda d: "蒸发" in by_testid(d, "rule-editor").get_property("value"))
    wait(browser, lambda d: by_testid(d, "rule-name").get_property("value") == "期中 · q2")
    figure = "[data-figure='qwk'] .value"
    wait(browser, lambda d: "蒸发" in by_testid(d, "distinct").text and d.find_elements(By.CSS_SELECTOR, figure)
         and d.find_element(By.CSS_SELECTOR, figure).text == qwk)
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid='agreement'] .failed")   # the item's own rule
    browser.save_screenshot(str(shots / "5-item.png"))

    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
