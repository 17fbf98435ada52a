"""Tune, suggest, the page's language and the editing helps of the workbench (issue #36,
parts 4, 6 and 7), walked in headless Chromium on ``coscore workbench`` serving the
lane-change answers.

Chinese first: broken rules' diagnostics, the statuses and the refusals are all in Chinese
(none left in Latin letters only); the line numbers, each diagnostic's line marked and its
place underlined; the results marked stale and Save saying why while the rule has errors;
a rule reading a blank the data does not have says the columns do not fit. English
after the switch, and kept after a reload. Tune on a rule with a wrong score proposes the
score back, shows the figures with intervals and the diff, and applies it in the editor;
suggest lists phrases and adds one to an atom in the editor. No console errors;
screenshots in the folder the test prints (``COSCORE_ARTEFACTS`` chooses it).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from browser_support import by_testid, needs_browser, shown_text, wait
from support import LiveServer

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "coscore" / "data" / "demo"
LANE = json.loads((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"))
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
#: Broken rules whose diagnostics must all be in Chinese: JSON, a part, the expression
#: language, the type pass, the range analysis.
BROKEN = [
    '{"atoms": {}, "combos": {} "comboMode": "ADD"}',
    json.dumps({**LANE, "comboMode": "SUM", "extra": 1}, ensure_ascii=False, indent=2),
    json.dumps({**LANE, "combos": {**LANE["combos"], "C": {"combo": "T(0) > 3", "score": 20, "mode": "value"}}},
               ensure_ascii=False, indent=2),
    json.dumps({**LANE, "combos": {**LANE["combos"], "D": {"combo": "M(9, T(0)) +", "score": 1, "mode": "sum"}}},
               ensure_ascii=False, indent=2),
]

pytestmark = needs_browser


@pytest.fixture()
def server(tmp_path: Path):
    """``coscore workbench`` on the lane-change answers (their marks: ``score``) and rule."""
    live = LiveServer("workbench", str(DEMO / "lane-change.csv"), "--label", "score", "--rule",
                      str(DEMO / "lane-change.rule.json"), "--store", str(tmp_path / "store"))
    try:
        yield live.url
    finally:
        live.stop()





def _set_rule(driver, text: str) -> None:
    """The editor's text set as typing would (its ``input`` event), at once."""
    driver.execute_script("const e = arguments[0]; e.value = arguments[1]; e.dispatchEvent(new Event('input'));",
                          by_testid(driver, "rule-editor"), text)


def _checked(driver) -> None:
    wait(driver, lambda d: d.execute_script(
        "return !/…|\\.\\.\\./.test(document.getElementById('check-status').innerText)"
        " && document.getElementById('check-status').innerText.length > 0"))


def _diagnostics(driver) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll(\"[data-testid='diagnostics'] li\"))"
                                 ".map(function (li) { return li.innerText; })")


def _editor(driver) -> str:
    return by_testid(driver, "rule-editor").get_property("value")


def test_tune_suggest_languages_and_editing(browser, server, artefacts):
    browser.get(f"{server}/workbench")
    wait(browser, lambda d: "lane-change" in [o.get_attribute("value") for o in
                                              Select(by_testid(d, "dataset-select")).options])
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN"
    _set_rule(browser, json.dumps(LANE, ensure_ascii=False, indent=2))
    _checked(browser)
    Select(by_testid(browser, "dataset-select")).select_by_value("lane-change")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='agreement'] [data-figure='qwk']"))
    lines = len(_editor(browser).split("\n"))
    assert browser.execute_script("return document.querySelectorAll(\"[data-testid='line-numbers'] div\").length") \
        == lines
    assert not by_testid(browser, "stale").is_displayed()

    # -- Chinese: every diagnostic of broken rules, the statuses and Save's reason -------------
    for number, text in enumerate(BROKEN):
        _set_rule(browser, text)
        wait(browser, lambda d: _diagnostics(d))
        _checked(browser)
        found = _diagnostics(browser)
        latin = [m for m in found if not CJK.search(m.split(": ", 1)[-1].split("：", 1)[-1])]
        assert not latin, f"diagnostics left in English: {latin}"
        assert CJK.search(shown_text(browser, "check-status"))
        browser.save_screenshot(str(artefacts / f"assist-1-zh-diagnostics-{number}.png"))
    # the place underlined, its line marked in the gutter
    assert browser.find_elements(By.CSS_SELECTOR, "#editor-backdrop mark.error")
    assert browser.find_elements(By.CSS_SELECTOR, "[data-testid='line-numbers'] .error")
    # the results are stale while the rule has errors; Save says why it is disabled
    wait(browser, lambda d: by_testid(d, "stale").is_displayed())
    assert CJK.search(by_testid(browser, "stale").text)
    save = by_testid(browser, "save-rule")
    assert not save.is_enabled() and save.get_attribute("title")
    assert CJK.search(by_testid(browser, "save-why").text)
    assert CJK.search(shown_text(browser, "dataset-status"))

    # -- English after the switch (the dataset status too), kept after a reload ----------------
    by_testid(browser, "lang-toggle").click()
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    english = _diagnostics(browser)
    assert english and all(not CJK.search(m) for m in english), english
    assert not CJK.search(shown_text(browser, "dataset-status").replace("lane-change", ""))
    browser.save_screenshot(str(artefacts / "assist-2-english.png"))
    browser.refresh()
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    by_testid(browser, "lang-toggle").click()  # back to Chinese for the rest
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN")
    Select(by_testid(browser, "dataset-select")).select_by_value("lane-change")

    # -- a rule reading a blank the data does not have: the columns do not fit -----------------
    two = json.loads(json.dumps(LANE))
    two["combos"]["C"]["combo"] = "M(2,T(1))"
    _set_rule(browser, json.dumps(two, ensure_ascii=False, indent=2))
    misfit = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='misfit']"))[0]
    assert "1" in misfit.text and CJK.search(misfit.text)
    browser.execute_script("arguments[0].scrollIntoView()", misfit)
    browser.save_screenshot(str(artefacts / "assist-3-misfit.png"))

    # -- tune: a wrong score is proposed back, shown with intervals and a diff, applied --------
    wrong = json.loads(json.dumps(LANE))
    wrong["combos"]["B"]["score"] = 1
    _set_rule(browser, json.dumps(wrong, ensure_ascii=False, indent=2))
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='agreement'] [data-figure='qwk']")
         and not by_testid(d, "stale").is_displayed() and not d.find_elements(By.CSS_SELECTOR, "[data-testid='misfit']"))
    by_testid(browser, "tune-run").click()
    apply = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='tune-apply']"))[0]
    result = by_testid(browser, "tune-result")
    assert "combos.B.score: 1 → 3" in result.text
    assert result.find_elements(By.CSS_SELECTOR, ".figure .ci")  # the intervals
    assert result.find_elements(By.CSS_SELECTOR, "[data-testid='tune-diff'] .add")
    assert CJK.search(by_testid(browser, "tune-verdict").text)
    browser.execute_script("arguments[0].scrollIntoView()", by_testid(browser, "tune-run"))
    browser.save_screenshot(str(artefacts / "assist-4-tune.png"))
    apply.click()
    wait(browser, lambda d: json.loads(_editor(d))["combos"]["B"]["score"] == 3)
    assert json.loads(_editor(browser))["atoms"]["0"]["desc"].startswith("0.1:")
    assert CJK.search(by_testid(browser, "save-status").text)   # a new version, not saved yet
    _checked(browser)

    # -- suggest: a phrase added to an atom, as an edit in the editor ---------------------------
    by_testid(browser, "suggest-run").click()
    add = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='suggest-add']"))[0]
    phrase = add.get_attribute("data-phrase")
    assert by_testid(browser, "suggest-missed").find_elements(By.CSS_SELECTOR, "li.answer")
    target = Select(by_testid(browser, "suggest-target"))
    target.select_by_value("1#0")                 # atom 1 (SM), its first group
    before = json.loads(_editor(browser))["atoms"]["1"]["desc"]
    add.click()
    wait(browser, lambda d: json.loads(_editor(d))["atoms"]["1"]["desc"] == before.split(",")[0] + "|" + phrase
         + before[len(before.split(",")[0]):])
    browser.execute_script("arguments[0].scrollIntoView()", by_testid(browser, "suggest-run"))
    browser.save_screenshot(str(artefacts / "assist-5-suggest.png"))

    # the page's own words: every one in both languages
    unmatched = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const files = ['./workbench/static/words.js', './workbench/static/assist-words.js'];
        Promise.all(files.map(function (f) { return import(f); })).then(function (m) {
            const out = [];
            [m[0].WORDS, m[1].MORE_WORDS].forEach(function (w) {
                Object.keys(w.zh).forEach(function (k) { if (!(k in w.en)) out.push('en ' + k); });
                Object.keys(w.en).forEach(function (k) { if (!(k in w.zh)) out.push('zh ' + k); });
            });
            done(out);
        }, function (e) { done(['import failed: ' + e]); });""")
    assert unmatched == []
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
