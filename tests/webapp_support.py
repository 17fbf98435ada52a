"""What the web app tests share: the original app folder and database, and a live server.

The original CoScore app is in ``../shared/coscore-app`` next to the repository (or where
``COSCORE_SHARED`` points); tests that need it skip when it is missing.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support import LiveServer, wait_until

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COSCORE_SHARED") or ROOT.parent / "shared")
COSCORE_APP = SHARED / "coscore-app"
APP_DIR = COSCORE_APP / "app"
DATABASE = COSCORE_APP / "database.db"

#: How every skip for want of ``../shared`` begins: tests/conftest.py counts the tests skipped
#: with it and says so in one line at the end of the run.
NEEDS_SHARED = "needs ../shared"


def require_app() -> None:
    """Skip the calling test when the original app is not next to the repository."""
    if not (APP_DIR / "templates").is_dir() or not DATABASE.is_file():
        pytest.skip(f"{NEEDS_SHARED}: the original CoScore app is not in {COSCORE_APP}")


def copy_database(directory: Path) -> Path:
    """A writable copy of the app's database in ``directory``."""
    require_app()
    target = directory / "database.db"
    shutil.copyfile(DATABASE, target)
    target.chmod(0o644)
    return target


def wait_for_task(client, name: str, timeout: float = 60) -> dict:
    """Task ``name`` of the web app behind ``client`` (a TestClient or an httpx client), once
    it is no longer running; fails the test after ``timeout`` seconds."""
    def finished() -> dict | None:
        task = next(t for t in client.get("/api/getTasks").json() if t["task_name"] == name)
        return task if task["status"] != "running" else None

    return wait_until(finished, timeout, f"task {name!r} to finish")


class LiveApp(LiveServer):
    """``coscore app APP_DIR --db DB`` running in a subprocess on a free loopback port."""

    def __init__(self, db: Path, *extra: str):
        super().__init__("app", str(APP_DIR), "--db", str(db), *extra)
