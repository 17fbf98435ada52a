"""The workbench's own store (``coscore workbench``): a folder holding a SQLite database of
rules with every saved version, datasets imported from files and exams, and the files
themselves.

::

    STORE/workbench.sqlite3   rules, versions, datasets, exams
    STORE/files/              each imported data file, as uploaded (read again for an exam's items)
    STORE/views/              each dataset's answers and marks as chosen (Arrow IPC, memory-mapped)
    STORE/uploads/            files uploaded and not imported yet (cleared when the server starts)
    STORE/exams/              exam files opened in the page

The folder is ``--store DIR``, else the user's data folder (:func:`default_store`). Writes
are one transaction each (``BEGIN IMMEDIATE``) in WAL mode, each thread with its own
connection, as the original app's database (:mod:`coscore.webapp.store`) does.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from ..http.sqlite_db import SqliteDatabase

__all__ = ["FOLDERS", "WorkbenchStore", "default_store", "now"]

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rules (name TEXT PRIMARY KEY, prompt TEXT NOT NULL DEFAULT '', created TEXT, "
    "modified TEXT)",
    "CREATE TABLE IF NOT EXISTS versions (rule TEXT NOT NULL, number INTEGER NOT NULL, text TEXT NOT NULL, "
    "saved TEXT, note TEXT, PRIMARY KEY (rule, number))",
    "CREATE TABLE IF NOT EXISTS datasets (name TEXT PRIMARY KEY, file TEXT, original TEXT, format TEXT, "
    "reading TEXT, columns TEXT, rows INTEGER, view TEXT, created TEXT)",
    "CREATE TABLE IF NOT EXISTS exams (name TEXT PRIMARY KEY, path TEXT, files INTEGER, dataset TEXT, created TEXT)",
)
#: The store's subfolders.
FOLDERS = ("files", "views", "uploads", "exams")
#: How long a connection waits for another writer (seconds).
BUSY_TIMEOUT = 30.0


def now() -> str:
    """The current local time, as the store writes it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


def default_store() -> Path:
    """The user's data folder for the workbench (as ``platformdirs.user_data_dir`` places
    it): ``$XDG_DATA_HOME/coscore/workbench`` (default ``~/.local/share/…``) on Linux,
    ``~/Library/Application Support/coscore/workbench`` on macOS,
    ``%LOCALAPPDATA%\\coscore\\workbench`` on Windows."""
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "coscore" / "workbench"


class WorkbenchStore(SqliteDatabase):
    """The store in folder ``root`` (created, with its database, when missing)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        for folder in FOLDERS:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        super().__init__(self.root / "workbench.sqlite3", SCHEMA, BUSY_TIMEOUT)
        shutil.rmtree(self.root / "uploads", ignore_errors=True)  # what a past server left half-done
        (self.root / "uploads").mkdir(exist_ok=True)

    def folder(self, name: str) -> Path:
        """One of :data:`FOLDERS`."""
        return self.root / name


    # -- rules and their versions -----------------------------------------------------------
    def rules(self) -> list[dict[str, Any]]:
        """Every rule with its latest version's text and number."""
        rows = self.read("SELECT r.name, r.prompt, v.text, r.created, r.modified, v.number "
                         "FROM rules r JOIN versions v "
                         "ON v.rule = r.name AND v.number = (SELECT MAX(number) FROM versions WHERE rule = r.name) "
                         "ORDER BY r.name")
        return [{"name": r[0], "prompt": r[1], "rule": r[2], "created": r[3], "modified": r[4], "version": r[5]}
                for r in rows]

    def save_rule(self, name: str, prompt: str | None, text: str, note: str | None = None) -> int:
        """Save ``text`` as the next version of rule ``name`` (created when new; ``prompt``
        ``None`` keeps the stored one); the version's number. The same text as the latest
        version is not saved again (its number is given)."""
        stamp = now()
        with self.write() as db:
            found = db.execute("SELECT prompt FROM rules WHERE name = ?", (name,)).fetchone()
            if found is None:
                db.execute("INSERT INTO rules VALUES (?, ?, ?, ?)", (name, prompt or "", stamp, stamp))
            elif prompt is not None and prompt != found[0]:
                db.execute("UPDATE rules SET prompt = ?, modified = ? WHERE name = ?", (prompt, stamp, name))
            last = db.execute("SELECT number, text FROM versions WHERE rule = ? ORDER BY number DESC LIMIT 1",
                              (name,)).fetchone()
            if last is not None and last[1] == text:
                return int(last[0])
            number = (last[0] if last else 0) + 1
            db.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?)", (name, number, text, stamp, note))
            db.execute("UPDATE rules SET modified = ? WHERE name = ?", (stamp, name))
            return number

    def versions(self, name: str) -> list[dict[str, Any]]:
        """The versions of rule ``name``, the latest first (with their text)."""
        rows = self.read("SELECT number, text, saved, note FROM versions WHERE rule = ? ORDER BY number DESC", (name,))
        return [{"number": r[0], "rule": r[1], "saved": r[2], "note": r[3]} for r in rows]

    def version(self, name: str, number: int) -> str | None:
        rows = self.read("SELECT text FROM versions WHERE rule = ? AND number = ?", (name, number))
        return rows[0][0] if rows else None

    # -- datasets ---------------------------------------------------------------------------
    def datasets(self) -> list[dict[str, Any]]:
        rows = self.read("SELECT name, original, format, columns, rows, created FROM datasets ORDER BY created, name")
        return [{"name": r[0], "desc": r[1], "file": r[1], "format": r[2], "columns": json.loads(r[3] or "{}"),
                 "count": r[4], "created": r[5], "type": "labeled" if json.loads(r[3] or "{}").get("label")
                 else "unlabeled"} for r in rows]

    def dataset(self, name: str) -> dict[str, Any] | None:
        rows = self.read("SELECT name, file, original, format, reading, columns, rows, view, created FROM datasets "
                         "WHERE name = ?", (name,))
        if not rows:
            return None
        r = rows[0]
        return {"name": r[0], "file": r[1], "original": r[2], "format": r[3], "reading": json.loads(r[4] or "{}"),
                "columns": json.loads(r[5] or "{}"), "rows": r[6], "view": r[7], "created": r[8]}

    def add_dataset(self, name: str, file: str, original: str, fmt: str, reading: dict[str, Any],
                    columns: dict[str, Any], rows: int,
                    view: str) -> None:
        """Store a dataset (replacing one of that name)."""
        with self.write() as db:
            db.execute("INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (name, file, original, fmt, json.dumps(reading), json.dumps(columns, ensure_ascii=False), rows,
                        view, now()))

    # -- exams --------------------------------------------------------------------------------
    def exams(self) -> list[dict[str, Any]]:
        rows = self.read("SELECT name, path, files, dataset, created FROM exams ORDER BY created DESC, name")
        return [{"name": r[0], "path": r[1], "files": bool(r[2]), "dataset": r[3], "created": r[4]} for r in rows]

    def add_exam(self, name: str, path: str, files: bool, dataset: str | None) -> None:
        with self.write() as db:
            db.execute("INSERT OR REPLACE INTO exams VALUES (?, ?, ?, ?, ?)", (name, path, int(files), dataset, now()))

