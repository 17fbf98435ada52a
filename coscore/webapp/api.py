"""The original CoScore server's ``/api/*`` handlers, on the app's database and workers.

Requests and successful answers are the original Flask server's. The synchronous
handlers do database work and run in threads; the ``async`` ones run on the event loop
and send compiling and testing rules to the worker pool, so neither a slow rule nor a
large request holds up pages and listings.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from ..diagnostics import json_type
from ..http.app import run_job
from ..http.bodies import Body, json_object
from ..http.jsonsize import json_size
from ..http.pool import WorkerPool
from ..http.responses import ApiError
from ..rulecache import rule_key
from .listings import DATASETS, one_row
from .markup import check_data, escaped, plain
from .quotas import DEFAULT_QUOTAS, Keeper
from .store import Store
from .tasks import TaskRunner

__all__ = ["Api", "COMPILE_WAIT"]

#: Seconds ``createTask`` waits for a worker to compile the task's rule before it queues
#: the task all the same (its first slice compiles the rule).
COMPILE_WAIT = 1.0

_OK = {
    "createData": "Dataset created successfully", "deleteData": "Dataset deleted successfully",
    "saveRule": "Rule saved successfully", "deleteRule": "Rule deleted successfully",
    "createTask": "Task created successfully", "deleteTask": "Task deleted successfully",
}


def _fields(body: bytes, **types: type | tuple[type, ...]) -> dict:
    """The request's JSON object with ``types``' keys checked: 400 naming what is wrong."""
    data = json_object(body, tuple(types))
    for key, expected in types.items():
        value = data[key]
        if not isinstance(value, expected) or isinstance(value, bool):
            names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
            wanted = {"str": "a string", "int": "an integer"}.get(names, names)
            raise ApiError(400, f"{key!r} must be {wanted}, not {json_type(value)}")
    return data


def _read_fields(body: Body, **types: type | tuple[type, ...]) -> dict:
    """:func:`_fields` of a body read whole (in a thread: it may be spooled to a file)."""
    return _fields(body.read(), **types)


def _rule_text(text: str) -> str:
    """The rule as the original stores it: ```` ```json ```` fences removed, stripped."""
    return text.replace("```json", "").replace("```", "").strip()


def _delete(name: str, delete: Callable[[str], int], what: str, done: str) -> dict:
    """Delete the ``what`` called ``name`` (``delete`` returns how many it deleted): 404 when
    there is none, else the original's message."""
    if not delete(name):
        raise ApiError(404, f"no {what} named {name!r}")
    return {"message": _OK[done]}


class Api:
    """The ``/api/*`` handlers: the synchronous ones run in threads (database work), the
    ``async`` ones on the event loop, sending compiling and testing to the worker pool."""

    def __init__(self, store: Store, runner: TaskRunner, pool: WorkerPool, keeper: Keeper | None = None):
        self.store = store
        self.runner = runner
        self.pool = pool
        self.keeper = keeper if keeper is not None else Keeper(DEFAULT_QUOTAS)  # what the store may hold
        # a new task may get the row id of one just deleted: deleting and cancelling, or
        # adding and starting, happen as one
        self._tasks = threading.Lock()

    async def check_compiles(self, text: str, what: str, markup: bool = False, wait: float | None = None) -> None:
        """422 with the diagnostics when ``text`` is not a rule that compiles (in a worker);
        with ``markup``, 400 when a test of it could show markup (:func:`.markup.rule_markup`).
        ``wait``: the most seconds to wait for a worker (default: the pool's)."""
        status, reply = await run_job(self.pool, "compile", (text, what, markup), affinity=rule_key(text),
                                      wait=wait)
        if status != 200:
            raise ApiError(status, reply.pop("error"), **reply)

    # -- datasets (the listings, ``GET /api/get*``, are :mod:`.listings`) ----------------
    def get_data_by_name(self, body: bytes) -> Any:
        """``POST /api/getDataByName {name}``: one dataset, streamed; 404 when there is none."""
        name = _fields(body, name=str)["name"]
        pieces = one_row(self.store, DATASETS, "name = ?", (name,))
        if pieces is None:
            raise ApiError(404, f"no dataset named {name!r}")
        return StreamingResponse(pieces, media_type="application/json")

    def create_data(self, body: bytes) -> Any:
        """``POST /api/createData {name, desc, type, data, ulength}``."""
        data = _fields(body, name=str, desc=str, type=str, data=str, ulength=(int, str))
        name, kind, text = plain(data["name"], "name"), data["type"], data["data"]
        if not name.strip():
            raise ApiError(400, "'name' must not be empty")
        check_data(text)
        if kind not in ("labeled", "unlabeled"):
            raise ApiError(400, f"'type' must be 'labeled' or 'unlabeled', not {kind!r}")
        try:
            length = int(data["ulength"])
        except ValueError:
            raise ApiError(400, f"'ulength' must be an integer, not {data['ulength']!r}") from None
        lines = text.count("\n")
        if not 0 <= length <= lines:
            raise ApiError(400, f"'ulength' is {length} but the data has {lines} lines after its header")
        if self.store.read("SELECT 1 FROM data WHERE name = ? LIMIT 1", (name,)):
            raise ApiError(409, f"a dataset named {name!r} already exists")
        desc = escaped(data["desc"])
        size = sum(map(json_size, (name, desc, kind, text, str(length)))) + 100  # + its keys and creation time
        self.store.add_dataset(name, desc, kind, text, length,
                               check=lambda db: self.keeper.check_dataset(db, size))
        return {"message": _OK["createData"]}

    def delete_data(self, body: bytes) -> Any:
        """``POST /api/deleteData {name}``."""
        return _delete(_fields(body, name=str)["name"], self.store.delete_dataset, "dataset", "deleteData")

    # -- rules ---------------------------------------------------------------------------
    async def save_rule(self, body: Body) -> Any:
        """``POST /api/saveRule {name, prompt, rule}``: insert or update; 422 when it does not compile."""
        data = await run_in_threadpool(_read_fields, body, name=str, prompt=str, rule=str)
        name, prompt = plain(data["name"], "name"), data["prompt"]
        if not name.strip():
            raise ApiError(400, "'name' must not be empty")
        rule = _rule_text(data["rule"])
        await self.check_compiles(rule, "the rule", markup=True)
        desc = escaped(prompt[:20] + "..." if len(prompt) > 20 else prompt)
        await run_in_threadpool(self.store.save_rule, name, prompt, desc, rule)
        return {"message": _OK["saveRule"]}

    def delete_rule(self, body: bytes) -> Any:
        """``POST /api/deleteRule {name}``."""
        return _delete(_fields(body, name=str)["name"], self.store.delete_rule, "rule", "deleteRule")

    async def test_rule(self, body: Body) -> Response:
        """``POST /api/testRule {rule, answer}``: the original's rule test, answered by a worker."""
        status, payload = await run_job(self.pool, "testRule", body.payload())
        return Response(payload, status, media_type="application/json")

    # -- tasks ---------------------------------------------------------------------------
    async def create_task(self, body: Body) -> Any:
        """``POST /api/createTask {data_name, rule_name, task_name}``: store the task
        ``running`` and score it in the background. The rule is compiled first (422 when it
        does not compile) when a worker comes free within :data:`COMPILE_WAIT`; when every
        worker stays busy the task is queued all the same (never refused for busy workers): its
        first slice compiles the rule, and a rule that does not compile fails the task,
        saying why. 507 when the tasks' quota is full (:mod:`.quotas`)."""
        data = await run_in_threadpool(_read_fields, body, data_name=str, rule_name=str, task_name=str)
        data_name, rule_name, task_name = data["data_name"], data["rule_name"], plain(data["task_name"], "task_name")
        if not task_name.strip():
            raise ApiError(400, "'task_name' must not be empty")
        text = await run_in_threadpool(self._task_rule, data_name, rule_name)
        try:
            await self.check_compiles(text, f"the rule {rule_name!r}", wait=COMPILE_WAIT)
        except ApiError as exc:
            if exc.extra.get("budget") != "workers":
                raise
        await run_in_threadpool(self._add_task, data_name, rule_name, task_name)
        return {"message": _OK["createTask"]}

    def _task_rule(self, data_name: str, rule_name: str) -> str:
        """The text of the rule a new task scores with; 404 when it or the dataset is missing."""
        if not self.store.read("SELECT 1 FROM data WHERE name = ? LIMIT 1", (data_name,)):
            raise ApiError(404, f"no dataset named {data_name!r}")
        text = self.store.rule_text(rule_name)
        if text is None:
            raise ApiError(404, f"no rule named {rule_name!r}")
        return text

    def _add_task(self, data_name: str, rule_name: str, task_name: str) -> None:
        with self._tasks:
            if self.store.task_exists(task_name):
                raise ApiError(409, f"a task named {task_name!r} already exists")
            rowid = self.store.add_task(data_name, rule_name, task_name, check=self.keeper.check_task)
            self.runner.submit(rowid, data_name, rule_name)

    def delete_task(self, body: bytes) -> Any:
        """``POST /api/deleteTask {task_name}``; a task still scoring stops at once."""
        name = _fields(body, task_name=str)["task_name"]
        with self._tasks:
            rows = self.store.delete_tasks(name)
            for rowid in rows:
                self.runner.cancel(rowid)
        return _delete(name, lambda _: len(rows), "task", "deleteTask")
