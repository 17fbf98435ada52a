"""What the browser tests share: where headless Chromium is, how it starts, how to wait.

Selenium is imported only when a browser starts, so that a module importing this one
still collects (and skips) on a machine without it. Tests that need Chromium carry
``needs_browser``; the README's test command installs Chromium and its driver when
they are missing.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest


def _first_file(*candidates: str | None) -> str | None:
    return next((c for c in candidates if c and Path(c).is_file()), None)


CHROMIUM = _first_file(shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
CHROMEDRIVER = _first_file(shutil.which("chromedriver"), "/usr/bin/chromedriver")

needs_browser = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                   reason="chromium and chromedriver are not installed")

# the flags every test runs Chromium with: headless, and nothing reaching out on its own
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--no-first-run")


def start_chromium(profile: Path, *, window: str = "1400,1000", downloads: Path | None = None,
                   console: bool = False, page_load_timeout: float = 60):
    """A headless Chromium driver with its own ``profile`` folder.

    ``downloads``: where downloads land without asking (also kept as ``driver.downloads``);
    ``console``: keep the page's console messages for ``driver.get_log("browser")``.
    """
    pytest.importorskip("selenium.webdriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*_FLAGS, f"--user-data-dir={profile}", f"--window-size={window}"):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(page_load_timeout)
    driver.downloads = downloads
    return driver


def wait(driver, condition, timeout: float = 60, poll: float = 0.1):
    """The first true value of ``condition(driver)``, tried every ``poll`` seconds.

    Pages redraw their lists after a change, so an element may leave the page while the
    condition looks at it: that try counts as not yet. Chrome reports the race either as a
    stale element or as an "unhandled inspector error" naming a node that "does not belong
    to the document".
    """
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        WebDriverException,
    )
    from selenium.webdriver.support.ui import WebDriverWait

    def unless_redrawn(d):
        try:
            return condition(d)
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return False
            raise

    ignored = (StaleElementReferenceException, NoSuchElementException)
    return WebDriverWait(driver, timeout, poll_frequency=poll, ignored_exceptions=ignored).until(unless_redrawn)


def shown_text(driver, element_id: str) -> str:
    """The shown text of the element with this id ('' when there is none), read in one step
    in the page, so a redraw cannot pull the element away half-way."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';", element_id).strip()



def by_testid(driver: Any, name: str) -> Any:
    """The element of the page with ``data-testid=name``."""
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f"[data-testid='{name}']")
