"""The web app's SQLite database: the original CoScore server's three tables, unchanged.

``data (name, description, type, data, length, create_time)``,
``rules (name, prompt, description, rule, create_time, modify_time)``,
``tasks (data_name, rule_name, task_name, status, create_time, executed_time, result)``;
every column TEXT, times ``%Y-%m-%d %H:%M:%S`` in local time, as the original writes them,
so one database file serves either server. The listings are read a row at a time by
:mod:`.listings`, never whole. coscore opens it in WAL mode with a busy
timeout, gives each thread its own connection and makes every write one transaction
(``BEGIN IMMEDIATE``): concurrent requests and tasks wait for each other instead of
failing with ``database is locked``, and a crash never leaves half a write behind.
"""
from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from ..http.sqlite_db import SqliteDatabase

__all__ = ["Store", "now"]

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS data (name TEXT, description TEXT, type TEXT, data TEXT, length TEXT, "
    "create_time TEXT)",
    "CREATE TABLE IF NOT EXISTS rules (name TEXT, prompt TEXT, description TEXT, rule TEXT, create_time TEXT, "
    "modify_time TEXT)",
    "CREATE TABLE IF NOT EXISTS tasks (data_name TEXT, rule_name TEXT, task_name TEXT, status TEXT, "
    "create_time TEXT, executed_time TEXT, result TEXT)",
)
#: How long a connection waits for another writer before giving up (seconds).
BUSY_TIMEOUT = 60.0


def now() -> str:
    """The current local time as the original stores it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


class Store(SqliteDatabase):
    """The database at ``path`` (created with the three tables when missing)."""

    def __init__(self, path: str | os.PathLike[str]):
        super().__init__(path, SCHEMA, BUSY_TIMEOUT)

    # -- datasets ------------------------------------------------------------------------
    def dataset(self, name: str) -> dict | None:
        rows = self.read("SELECT name, description, type, data, length, create_time FROM data WHERE name = ?",
                         (name,))
        return _dataset(rows[0]) if rows else None

    def add_dataset(self, name: str, desc: str, kind: str, data: str, length: int,
                    check: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """Insert a dataset; ``check(db)`` first, in the same transaction (it may raise)."""
        with self.write() as db:
            if check is not None:
                check(db)
            db.execute("INSERT INTO data VALUES (?, ?, ?, ?, ?, ?)", (name, desc, kind, data, length, now()))

    def delete_dataset(self, name: str) -> int:
        with self.write() as db:
            return db.execute("DELETE FROM data WHERE name = ?", (name,)).rowcount

    # -- rules ---------------------------------------------------------------------------
    def rules(self) -> list[dict]:
        rows = self.read("SELECT name, prompt, description, rule, create_time, modify_time FROM rules")
        return [{"name": r[0], "prompt": r[1], "desc": r[2], "rule": r[3], "created": r[4], "modified": r[5]}
                for r in rows]

    def rule_text(self, name: str) -> str | None:
        rows = self.read("SELECT rule FROM rules WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    def save_rule(self, name: str, prompt: str, desc: str, rule: str) -> None:
        """Insert the rule, or update the one of that name (keeping its creation time)."""
        stamp = now()
        with self.write() as db:
            updated = db.execute("UPDATE rules SET prompt = ?, description = ?, rule = ?, modify_time = ? "
                                 "WHERE name = ?", (prompt, desc, rule, stamp, name)).rowcount
            if not updated:
                db.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?, ?)", (name, prompt, desc, rule, stamp, stamp))

    def delete_rule(self, name: str) -> int:
        with self.write() as db:
            return db.execute("DELETE FROM rules WHERE name = ?", (name,)).rowcount

    # -- tasks ---------------------------------------------------------------------------
    def task_exists(self, name: str) -> bool:
        return bool(self.read("SELECT 1 FROM tasks WHERE task_name = ? LIMIT 1", (name,)))

    def add_task(self, data_name: str, rule_name: str, task_name: str,
                 check: Callable[[sqlite3.Connection], None] | None = None) -> int:
        """Insert a ``running`` task; its row id. ``check(db)`` first, in the same transaction."""
        with self.write() as db:
            if check is not None:
                check(db)
            cursor = db.execute("INSERT INTO tasks VALUES (?, ?, ?, 'running', ?, NULL, NULL)",
                                (data_name, rule_name, task_name, now()))
            return int(cursor.lastrowid or 0)

    def running_tasks(self) -> list[tuple[int, str, str]]:
        """``(row id, data name, rule name)`` of every task left ``running``."""
        return [(int(r[0]), r[1], r[2]) for r in
                self.read("SELECT rowid, data_name, rule_name FROM tasks WHERE status = 'running'")]

    def finish_task(self, rowid: int, status: str, result: str,
                    check: Callable[[sqlite3.Connection, int, str], str | None] | None = None) -> None:
        """Store a task's outcome; when ``check(db, rowid, result)`` (in the same transaction)
        gives a reason, the task is stored ``failed`` with it instead."""
        with self.write() as db:
            problem = check(db, rowid, result) if check is not None else None
            if problem is not None:
                status, result = "failed", problem
            db.execute("UPDATE tasks SET status = ?, executed_time = ?, result = ? WHERE rowid = ?",
                       (status, now(), result, rowid))

    def delete_task(self, name: str) -> int:
        """Delete the tasks called ``name``; how many there were."""
        return len(self.delete_tasks(name))

    def delete_tasks(self, name: str) -> list[int]:
        """Delete the tasks called ``name``; their row ids."""
        with self.write() as db:
            rows = [int(r[0]) for r in db.execute("SELECT rowid FROM tasks WHERE task_name = ?", (name,))]
            db.execute("DELETE FROM tasks WHERE task_name = ?", (name,))
            return rows



def _dataset(row: tuple) -> dict[str, Any]:
    return {"name": row[0], "desc": row[1], "type": row[2], "data": row[3], "count": row[4], "created": row[5]}
