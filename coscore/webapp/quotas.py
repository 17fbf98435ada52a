"""How much the web app stores: quotas on datasets and tasks, counted as the listings send them.

The app keeps at most :attr:`Quotas.datasets` datasets holding :attr:`Quotas.data_bytes`
bytes, and :attr:`Quotas.tasks` tasks whose stored results hold :attr:`Quotas.task_bytes`
bytes (``coscore app --max-datasets --max-data-bytes --max-tasks --max-task-bytes``). A
dataset's or a task's bytes are what its row takes in a listing's JSON
(:func:`coscore.http.jsonsize.json_size`: its texts UTF-8 encoded, with JSON's escapes
counted — a control character takes six bytes, ``"`` two), so no listing answer can grow
past its quota by escaping.

Past a quota a new dataset or task is refused with 507 naming the quota, its flag and
what to do; a task whose result would pass :attr:`Quotas.task_bytes` is stored ``failed``
saying so. What is stored is measured once per row and remembered (:class:`StoredSizes`):
rows written by another server on the same database file are measured when first seen.
"""
from __future__ import annotations

import argparse
import sqlite3
import threading
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ..http.jsonsize import json_size
from ..http.responses import ApiError

__all__ = [
    "DEFAULT_QUOTAS",
    "Keeper",
    "Quotas",
    "StoredSizes",
    "add_arguments",
    "from_arguments",
    "over_quota",
]

#: The status of a request refused because a store quota is full ("Insufficient Storage").
QUOTA_STATUS = 507


@dataclass(frozen=True)
class Quotas:
    """What the app may store: ``datasets`` datasets of ``data_bytes`` bytes in all, and
    ``tasks`` tasks whose results hold ``task_bytes`` bytes in all (``None``: no quota).
    Bytes are counted as the listings send them (:func:`~coscore.http.jsonsize.json_size`)."""

    datasets: int | None = 200
    data_bytes: int | None = 256 * 2**20
    tasks: int | None = 200
    task_bytes: int | None = 256 * 2**20

    def __post_init__(self) -> None:
        for name in ("datasets", "data_bytes", "tasks", "task_bytes"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ValueError(f"Quotas.{name} must be an integer >= 0 (or None), not {value!r}")


#: The quotas of ``coscore app`` unless flags say otherwise.
DEFAULT_QUOTAS = Quotas()
#: Each quota's command-line flag.
FLAGS = {"datasets": "--max-datasets", "data_bytes": "--max-data-bytes", "tasks": "--max-tasks",
         "task_bytes": "--max-task-bytes"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--max-datasets``, ``--max-data-bytes``, ``--max-tasks``, ``--max-task-bytes`` (0: no quota)."""
    from ..http.options import parse_size

    d = DEFAULT_QUOTAS
    group = parser.add_argument_group("store quotas (0: none)")
    group.add_argument("--max-datasets", type=_count, default=d.datasets, metavar="N",
                       help=f"datasets the database may hold (default {d.datasets})")
    group.add_argument("--max-data-bytes", type=parse_size, default=d.data_bytes, metavar="BYTES",
                       help=f"bytes the datasets may take, counted as JSON (default {(d.data_bytes or 0) // 2**20}M)")
    group.add_argument("--max-tasks", type=_count, default=d.tasks, metavar="N",
                       help=f"tasks the database may hold (default {d.tasks})")
    group.add_argument("--max-task-bytes", type=parse_size, default=d.task_bytes, metavar="BYTES",
                       help="bytes the tasks' results may take, counted as JSON "
                            f"(default {(d.task_bytes or 0) // 2**20}M)")


def from_arguments(args: argparse.Namespace) -> Quotas:
    """The :class:`Quotas` the flags of :func:`add_arguments` give."""
    return Quotas(args.max_datasets or None, args.max_data_bytes or None, args.max_tasks or None,
                  args.max_task_bytes or None)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a count (an integer >= 0): {text!r}")
    return value


def over_quota(quotas: Quotas, name: str, what: str, todo: str) -> ApiError:
    """The 507 error of a full quota ``name`` (``what``: what it holds now)."""
    limit = getattr(quotas, name)
    shown = f"{limit:,} bytes" if name.endswith("bytes") else f"{limit:,}"
    return ApiError(QUOTA_STATUS, f"the app's quota of {_NOUN[name]} is full ({what}; the limit is {shown}, set by "
                    f"{FLAGS[name]}): {todo}", budget=name, limit=limit)


_NOUN = {"datasets": "datasets", "data_bytes": "dataset bytes", "tasks": "tasks", "task_bytes": "task result bytes"}


class StoredSizes:
    """The bytes (:func:`~coscore.http.jsonsize.json_size`) of each row of one table, measured once per row.

    ``key`` is the SQL of the columns that say a row changed (with its ``rowid``),
    ``columns`` the SQL of the text columns that are measured.
    """

    def __init__(self, table: str, key: str, columns: str):
        self._table, self._key, self._columns = table, key, columns
        self._sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def total(self, db: sqlite3.Connection | Any) -> tuple[int, int]:
        """``(rows, bytes)`` of the table now, read on ``db`` (a connection, inside its
        transaction, or anything with ``read(sql, params)`` giving rows: the store)."""
        read = _reader(db)
        keys = [tuple(row) for row in read(f"SELECT rowid, {self._key} FROM {self._table}", ())]
        with self._lock:
            known = self._sizes
            fresh: dict[Hashable, int] = {key: known[key] for key in keys if key in known}
        for key in keys:
            if key not in fresh:
                rows = read(f"SELECT {self._columns} FROM {self._table} WHERE rowid = ?", (key[0],))
                fresh[key] = sum(json_size(v) for v in rows[0]) if rows else 0
                del rows
        with self._lock:
            self._sizes = fresh
        return len(keys), sum(fresh.values())


#: The columns a dataset's and a task's bytes are counted over (every text a listing sends).
DATA_COLUMNS = "name, description, type, data, length, create_time"
TASK_COLUMNS = "data_name, rule_name, task_name, status, create_time, executed_time, result"


class Keeper:
    """Holds the app's store to ``quotas``: each check runs inside the write transaction
    that adds the row, so requests at once cannot pass a quota together."""

    def __init__(self, quotas: Quotas = DEFAULT_QUOTAS):
        self.quotas = quotas
        self.data = StoredSizes("data", "name, create_time", DATA_COLUMNS)
        self.tasks = StoredSizes("tasks", "status, executed_time", TASK_COLUMNS)

    def check_dataset(self, db: sqlite3.Connection, size: int) -> None:
        """507 when one more dataset of ``size`` bytes would pass a quota."""
        q = self.quotas
        if q.datasets is None and q.data_bytes is None:
            return
        count, used = self.data.total(db)
        if q.datasets is not None and count + 1 > q.datasets:
            raise over_quota(q, "datasets", f"{count:,} datasets are stored", "delete a dataset first")
        if q.data_bytes is not None and used + size > q.data_bytes:
            raise over_quota(q, "data_bytes", f"the datasets stored take {used:,} bytes and this one {size:,}",
                             "delete a dataset first, or send a smaller one")

    def check_task(self, db: sqlite3.Connection) -> None:
        """507 when one more task would pass the count quota, or the results stored fill theirs."""
        q = self.quotas
        if q.tasks is None and q.task_bytes is None:
            return
        count, used = self.tasks.total(db)
        if q.tasks is not None and count + 1 > q.tasks:
            raise over_quota(q, "tasks", f"{count:,} tasks are stored", "delete a task first")
        if q.task_bytes is not None and used >= q.task_bytes:
            raise over_quota(q, "task_bytes", f"the tasks stored take {used:,} bytes", "delete a task first")

    def room(self, store: Any) -> int | None:
        """Bytes the tasks may still grow by (``None``: no quota), read on ``store``."""
        if self.quotas.task_bytes is None:
            return None
        return max(0, self.quotas.task_bytes - self.tasks.total(store)[1])

    def check_result(self, db: sqlite3.Connection, rowid: int, result: str) -> str | None:
        """Why the task at ``rowid`` may not store ``result`` (its bytes would pass the
        quota), or ``None``."""
        limit = self.quotas.task_bytes
        if limit is None:
            return None
        _, used = self.tasks.total(db)
        row = db.execute(f"SELECT {TASK_COLUMNS} FROM tasks WHERE rowid = ?", (rowid,)).fetchone()
        now = sum(json_size(v) for v in row) if row is not None else 0
        size = json_size(result)
        if used - now + size + 40 <= limit:
            return None
        return (f"the result ({size:,} bytes) would pass the app's quota of task result bytes ({limit:,} bytes, set "
                f"by {FLAGS['task_bytes']}; {used:,} are stored): delete tasks and create this one again")


def _reader(db: Any) -> Any:
    if isinstance(db, sqlite3.Connection):
        return lambda sql, params: db.execute(sql, params).fetchall()
    return db.read
