"""The original CoScore web app's pages and ``/api/*`` routes, served by Starlette.

Requests and successful answers are the original Flask server's, so its unchanged
frontend works. Where the original answered a bad request with an HTML 500 page,
coscore answers ``{"error": "..."}`` naming the problem: 400 (malformed JSON, a missing
key, a wrong type), 404 (no such dataset, rule or task), 409 (the name is taken), 413
(body over the limit) or 422 (a rule that does not compile, with its ``diagnostics``).
Database work runs in worker threads, scoring in the task threads: no request waits
for a task.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..diagnostics import RuleError, json_type
from ..rule import compile as _compile
from ..server import ApiError, Service, json_object, json_response, read_body
from .store import Store
from .tasks import DEFAULT_WORKERS, TaskRunner

__all__ = ["create_app", "PAGES", "DEFAULT_MAX_BODY"]

#: Page paths and their templates.
PAGES = {"/": "index", "/data": "data", "/rules": "rules", "/tasks": "tasks", "/manual": "manual",
         "/settings": "settings"}
#: The largest request body accepted (datasets are sent whole as CSV text).
DEFAULT_MAX_BODY = 64 * 2**20
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


def _rule_text(text: str) -> str:
    """The rule as the original stores it: ```` ```json ```` fences removed, stripped."""
    return text.replace("```json", "").replace("```", "").strip()


def _check_compiles(text: str, what: str) -> None:
    """422 with the diagnostics when ``text`` is not a rule that compiles."""
    try:
        _compile(text)
    except RuleError as exc:
        raise ApiError(422, f"{what} does not compile: {exc}",
                       diagnostics=[d.to_dict() for d in exc.diagnostics]) from None


def _delete(name: str, delete: Callable[[str], int], what: str, done: str) -> dict:
    """Delete the ``what`` called ``name`` (``delete`` returns how many it deleted): 404 when
    there is none, else the original's message."""
    if not delete(name):
        raise ApiError(404, f"no {what} named {name!r}")
    return {"message": _OK[done]}


class Api:
    """The ``/api/*`` handlers, synchronous (they run in worker threads)."""

    def __init__(self, store: Store, runner: TaskRunner):
        self.store = store
        self.runner = runner
        self.tester = Service()

    # -- datasets ------------------------------------------------------------------------
    def get_data(self, body: bytes) -> Any:
        return self.store.datasets()

    def get_data_by_name(self, body: bytes) -> Any:
        name = _fields(body, name=str)["name"]
        dataset = self.store.dataset(name)
        if dataset is None:
            raise ApiError(404, f"no dataset named {name!r}")
        return dataset

    def create_data(self, body: bytes) -> Any:
        data = _fields(body, name=str, desc=str, type=str, data=str, ulength=(int, str))
        name, kind, text = data["name"], data["type"], data["data"]
        if not name.strip():
            raise ApiError(400, "'name' must not be empty")
        if kind not in ("labeled", "unlabeled"):
            raise ApiError(400, f"'type' must be 'labeled' or 'unlabeled', not {kind!r}")
        try:
            length = int(data["ulength"])
        except ValueError:
            raise ApiError(400, f"'ulength' must be an integer, not {data['ulength']!r}") from None
        lines = text.count("\n")
        if not 0 <= length <= lines:
            raise ApiError(400, f"'ulength' is {length} but the data has {lines} lines after its header")
        if self.store.dataset(name) is not None:
            raise ApiError(409, f"a dataset named {name!r} already exists")
        self.store.add_dataset(name, data["desc"], kind, text, length)
        return {"message": _OK["createData"]}

    def delete_data(self, body: bytes) -> Any:
        return _delete(_fields(body, name=str)["name"], self.store.delete_dataset, "dataset", "deleteData")

    # -- rules ---------------------------------------------------------------------------
    def get_rules(self, body: bytes) -> Any:
        return self.store.rules()

    def save_rule(self, body: bytes) -> Any:
        data = _fields(body, name=str, prompt=str, rule=str)
        name, prompt = data["name"], data["prompt"]
        if not name.strip():
            raise ApiError(400, "'name' must not be empty")
        rule = _rule_text(data["rule"])
        _check_compiles(rule, "the rule")
        desc = prompt[:20] + "..." if len(prompt) > 20 else prompt
        self.store.save_rule(name, prompt, desc, rule)
        return {"message": _OK["saveRule"]}

    def delete_rule(self, body: bytes) -> Any:
        return _delete(_fields(body, name=str)["name"], self.store.delete_rule, "rule", "deleteRule")

    def test_rule(self, body: bytes) -> Any:
        return self.tester.test_rule(body)

    # -- tasks ---------------------------------------------------------------------------
    def get_tasks(self, body: bytes) -> Any:
        return self.store.tasks()

    def create_task(self, body: bytes) -> Any:
        data = _fields(body, data_name=str, rule_name=str, task_name=str)
        data_name, rule_name, task_name = data["data_name"], data["rule_name"], data["task_name"]
        if not task_name.strip():
            raise ApiError(400, "'task_name' must not be empty")
        if self.store.dataset(data_name) is None:
            raise ApiError(404, f"no dataset named {data_name!r}")
        text = self.store.rule_text(rule_name)
        if text is None:
            raise ApiError(404, f"no rule named {rule_name!r}")
        _check_compiles(text, f"the rule {rule_name!r}")
        if self.store.task_exists(task_name):
            raise ApiError(409, f"a task named {task_name!r} already exists")
        rowid = self.store.add_task(data_name, rule_name, task_name)
        self.runner.submit(rowid, data_name, rule_name)
        return {"message": _OK["createTask"]}

    def delete_task(self, body: bytes) -> Any:
        return _delete(_fields(body, task_name=str)["task_name"], self.store.delete_task, "task", "deleteTask")


def _error(status: int, message: str, **extra: Any) -> Response:
    headers = {"Connection": "close"} if status == 413 else None
    return json_response({"error": message, **extra}, status, headers)


def _endpoint(handler: Callable[[bytes], Any], max_body: int) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            body = await read_body(request, max_body) if request.method == "POST" else b""
            payload = await run_in_threadpool(handler, body)
        except ApiError as exc:
            return _error(exc.status, exc.message, **exc.extra)
        except Exception as exc:  # never an HTML 500 page
            return _error(500, f"internal error: {type(exc).__name__}: {exc}")
        return json_response(payload)

    return endpoint


def _page(templates: Path, name: str) -> Callable[[Request], Awaitable[Response]]:
    async def page(request: Request) -> Response:
        path = templates / f"{name}.html"
        if not path.is_file():
            return HTMLResponse(f"<!doctype html><title>Not found</title><p>This app has no page "
                                f"templates/{name}.html.</p>", 404)
        return FileResponse(path, media_type="text/html")

    return page


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


def create_app(app_dir: str | os.PathLike[str], db: str | os.PathLike[str] = "database.db",
               max_body: int = DEFAULT_MAX_BODY, workers: int = DEFAULT_WORKERS) -> Starlette:
    """The ASGI app serving the original CoScore app folder ``app_dir`` on database ``db``.

    ``app_dir`` holds ``templates/`` and ``static/``; ``db`` is created with the original's
    tables when missing. Tasks left ``running`` are scored again when the app starts;
    ``workers`` tasks score at once.
    """
    root = Path(app_dir)
    templates, static = root / "templates", root / "static"
    if not templates.is_dir() or not static.is_dir():
        raise FileNotFoundError(f"{root} is not a CoScore app folder (it needs templates/ and static/)")
    store = Store(db)
    runner = TaskRunner(store, workers)
    api = Api(store, runner)
    get, post = ["GET"], ["POST"]
    handlers = [
        ("getData", api.get_data, get), ("createData", api.create_data, post),
        ("getDataByName", api.get_data_by_name, post), ("deleteData", api.delete_data, post),
        ("getRules", api.get_rules, get), ("saveRule", api.save_rule, post),
        ("deleteRule", api.delete_rule, post), ("testRule", api.test_rule, post),
        ("getTasks", api.get_tasks, get), ("createTask", api.create_task, post),
        ("deleteTask", api.delete_task, post),
    ]
    routes = [Route(f"/api/{name}", _endpoint(handler, max_body), methods=methods)
              for name, handler, methods in handlers]
    routes += [Route(path, _page(templates, name), methods=get) for path, name in PAGES.items()]
    routes.append(Route("/favicon.ico", _no_icon, methods=get))  # the app has none: no 404 in the console
    routes.append(Mount("/static", StaticFiles(directory=static), name="static"))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if request.url.path.startswith("/api/"):
            detail = {404: f"no route {request.url.path}",
                      405: f"{request.method} is not allowed on {request.url.path}"}.get(status, "error")
            return _error(status, detail)
        return HTMLResponse(f"<!doctype html><title>{status}</title><p>{status}</p>", status)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        runner.resume()
        try:
            yield
        finally:
            runner.close(wait=False)

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: http_error})
    app.state.store = store
    app.state.runner = runner
    return app
