"""A SQLite database the servers keep their state in (the web app's ``database.db``, the
workbench's store): one connection per thread, write-ahead logging, write transactions
that commit or roll back as a block, and a checkpoint when the server stops."""
from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["SqliteDatabase", "connect"]


def connect(path: str, busy_timeout: float, *, any_thread: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode that waits up to ``busy_timeout`` seconds for a lock."""
    connection = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=not any_thread)
    connection.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    return connection


class SqliteDatabase:
    """The database at ``path``, its tables made by ``schema`` (``CREATE … IF NOT EXISTS``
    statements) when missing; a thread's connection is opened on its first use."""

    def __init__(self, path: str | os.PathLike[str], schema: Iterable[str], busy_timeout: float):
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._connection().execute("PRAGMA journal_mode=WAL")
        with self.write() as db:
            for statement in schema:
                db.execute(statement)

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = connect(self.path, self.busy_timeout, any_thread=True)
            self._local.connection = connection
        return connection

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back if it raises."""
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query."""
        return self._connection().execute(sql, params).fetchall()

    def checkpoint(self) -> None:
        """Copy every write from the write-ahead log into the database file and empty the
        log (``PRAGMA wal_checkpoint(TRUNCATE)``), so that the file alone holds them all:
        done when the server stops cleanly."""
        connection = connect(self.path, self.busy_timeout)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            connection.close()

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
