"""The workbench's page (``GET /workbench``), its static files and its JSON endpoints
(``POST /api/workbench/…``, documented in docs/workbench.md), on a catalog (the rules and
datasets: :class:`Catalog`) and a worker pool.

Every endpoint takes a JSON object (``Content-Type: application/json``; anything else is
415) read under the server's body limits, and answers JSON; a bad request is a 4xx
``{"error": ...}``. Checking, explaining and scoring run in the server's worker processes
(:mod:`.jobs`) under the pool's time and memory budgets, database reads in threads: the
event loop only waits. Datasets are scored in the background and kept (:mod:`.scorings`):
while a scoring goes on, ``dataset`` and ``rows`` answer 202 ``{"status": "running"}``
and the page asks again.
"""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..catalog import said
from ..diagnostics import json_type
from ..http.app import run_job
from ..http.bodies import BodyLimits, json_object, read_body
from ..http.pool import WorkerPool
from ..http.responses import ApiError, error_response, json_response
from ..rulecache import rule_key
from .analysis import LISTS, page
from .page_budget import fit_page
from .scorings import Scorings, Source
from .views import view_of

__all__ = ["Catalog", "Workbench", "workbench_routes", "endpoint", "STATIC", "PAGE_SIZE", "MAX_PAGE_SIZE",
           "MAX_BLANKS"]

#: The page and its scripts and styles.
STATIC = Path(__file__).resolve().parent / "static"
#: Rows per page, by default and at most (their answers held to
#: :data:`.page_budget.PAGE_BYTES` of JSON a page: :mod:`.page_budget`).
PAGE_SIZE, MAX_PAGE_SIZE = 20, 500
#: The longest answer (blanks) the tester explains.
MAX_BLANKS = 100

_log = logging.getLogger("coscore.workbench")


class Catalog(Protocol):
    """Where the workbench's rules and datasets are: the original app's database
    (:class:`coscore.webapp.bench.AppCatalog`) or its own store (:class:`.store.WorkbenchCatalog`).
    ``features`` says what the page may offer besides editing, testing and scoring
    (``files``, ``versions``, ``exams``; ``app``: the original app's pages are beside it).
    :meth:`listing` and :meth:`source` run in threads."""

    features: ClassVar[dict[str, bool]]

    def listing(self) -> dict[str, Any]: ...

    def source(self, name: str, view: Any = None) -> Source: ...

    async def save_rule(self, name: str, prompt: str | None, text: str) -> dict[str, Any]: ...


def _text(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ApiError(400, f"{key!r} must be a string, not {json_type(value)}" if key in data else f"missing {key!r}")
    return value


def _rule(data: dict) -> Any:
    """The request's rule: its JSON text (as the editor holds it) or a JSON object."""
    if "rule" not in data:
        raise ApiError(400, "missing 'rule'")
    rule = data["rule"]
    if not isinstance(rule, (str, dict)):
        raise ApiError(400, f"'rule' must be the rule's JSON text or a JSON object, not {json_type(rule)}")
    return rule


def _integer(data: dict, key: str, default: int, lo: int, hi: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ApiError(400, f"{key!r} must be an integer from {lo} to {hi}, not {value!r}"[:200])
    return value


def _blanks(value: Any) -> Any:
    """``blanks`` of a check: ``null``, a count, or ``[fewest, most]``."""
    if value is None:
        return None
    counts = value if isinstance(value, list) else [value]
    if not 1 <= len(counts) <= 2 or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 10**6
                                             for c in counts):
        raise ApiError(400, "'blanks' must be null, a number of blanks, or [fewest, most]")
    return counts[0] if len(counts) == 1 else [min(counts), max(counts)]


class Workbench:
    """The endpoints (``async``; see the module's description) on a ``catalog`` and a
    worker ``pool``."""

    def __init__(self, catalog: Catalog, pool: WorkerPool, scorings: Scorings | None = None):
        self.catalog = catalog
        self.pool = pool
        self.scorings = scorings if scorings is not None else Scorings(pool)

    async def _job(self, kind: str, payload: Any, **options: Any) -> Any:
        status, reply = await run_job(self.pool, kind, payload, **options)
        if status != 200:
            raise ApiError(status, reply.pop("error", "error"), **reply)
        return reply

    # -- rules -----------------------------------------------------------------------------
    async def catalog_endpoint(self, data: dict) -> dict:
        """``{}`` → the stored rules (with their text) and datasets (without their data)."""
        listing = await run_in_threadpool(self.catalog.listing)
        return {**listing, "features": self.catalog.features}

    async def check(self, data: dict) -> dict:
        """``{"rule", "blanks"?}`` → what ``coscore check`` says about the rule."""
        rule = _rule(data)
        return await self._job("workbench.check", (rule, _blanks(data.get("blanks"))), affinity=rule_key(rule))

    async def explain(self, data: dict) -> dict:
        """``{"rule", "answer": [blank, ...]}`` → the answer scored and explained."""
        rule = _rule(data)
        answer = data.get("answer")
        if isinstance(answer, str):
            answer = [answer]
        if not isinstance(answer, list) or not all(isinstance(b, str) for b in answer):
            raise ApiError(400, f"'answer' must be an array of strings (the blanks), not {json_type(answer)}")
        if len(answer) > MAX_BLANKS:
            raise ApiError(400, f"'answer' has {len(answer)} blanks; the tester takes at most {MAX_BLANKS}")
        return await self._job("workbench.explain", (rule, answer), affinity=rule_key(rule))

    async def save(self, data: dict) -> dict:
        """``{"name", "rule", "prompt"?}`` → the rule saved as the rules page saves it;
        422 with the diagnostics while ``coscore check`` finds an error."""
        name, rule = _text(data, "name"), _text(data, "rule")
        if not name.strip():
            raise ApiError(400, "'name' must not be empty")
        prompt = data.get("prompt")
        if prompt is not None and not isinstance(prompt, str):
            raise ApiError(400, f"'prompt' must be a string, not {json_type(prompt)}")
        checked = await self._job("workbench.check", (rule, None), affinity=rule_key(rule))
        if not checked["ok"]:
            errors = [d for d in checked["diagnostics"] if d["severity"] == "error"]
            raise ApiError(422, f"the rule has {len(errors)} error{'s' * (len(errors) != 1)}; it is not saved",
                           diagnostics=errors)
        return await self.catalog.save_rule(name, prompt, rule)

    # -- datasets ---------------------------------------------------------------------------
    async def dataset(self, data: dict) -> Any:
        """``{"dataset", "rule", "size"?}`` → the dataset scored by the rule: its figures and
        the first page of each list; 202 ``{"status": "running"}`` while it is scored."""
        name, rule = _text(data, "dataset"), _rule(data)
        size = _integer(data, "size", PAGE_SIZE, 1, MAX_PAGE_SIZE)
        source = await run_in_threadpool(self.catalog.source, name, view_of(data))
        entry = await self.scorings.get(source, rule)
        if entry is None:
            return json_response({"status": "running", "dataset": name}, 202)
        lists = await run_in_threadpool(
            lambda: {w: fit_page(page(entry.scored, entry.source.answers_of, w, 0, size)) for w in LISTS})
        return {"status": "done", "dataset": name, "rule_version": entry.version, **entry.scored.summary, **lists}

    async def rows(self, data: dict) -> Any:
        """``{"dataset", "rule", "list", "page", "size"?}`` → one page of a list; 202 while scored."""
        name, rule, which = _text(data, "dataset"), _rule(data), _text(data, "list")
        if which not in LISTS:
            raise ApiError(400, f"'list' must be {' or '.join(map(repr, LISTS))}, not {which!r}"[:200])
        number = _integer(data, "page", 0, 0, 10**9)
        size = _integer(data, "size", PAGE_SIZE, 1, MAX_PAGE_SIZE)
        source = await run_in_threadpool(self.catalog.source, name, view_of(data))
        entry = await self.scorings.get(source, rule)
        if entry is None:
            return json_response({"status": "running", "dataset": name}, 202)
        return await run_in_threadpool(
            lambda: fit_page(page(entry.scored, entry.source.answers_of, which, number, size)))


def endpoint(handler: Callable[[dict], Awaitable[Any]],
              limits: BodyLimits) -> Callable[[Request], Awaitable[Response]]:
    """A ``POST /api/workbench/…`` route: a JSON object read under ``limits``, then ``handler``."""

    async def endpoint(request: Request) -> Response:
        try:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise ApiError(415, "the request body must be JSON, sent as 'Content-Type: application/json'")
            with await read_body(request, limits) as body:
                data = await run_in_threadpool(lambda: json_object(body.read(), ()))
                payload = await handler(data)
        except ApiError as exc:
            exc.extra.setdefault("said", said(exc.message))  # the page renders it in its language
            return error_response(exc)
        except Exception as exc:  # never an HTML 500 page
            _log.exception("workbench request failed")
            return error_response(ApiError(500, f"internal error: {type(exc).__name__}: {exc}"))
        return payload if isinstance(payload, Response) else json_response(payload)

    return endpoint


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


def workbench_routes(bench: Workbench, limits: BodyLimits, *, pages: tuple[str, ...] = ("/workbench",),
                     more: dict[str, Callable[[dict], Awaitable[Any]]] | None = None) -> list[BaseRoute]:
    """The routes of the workbench ``bench``: its page at each of ``pages``, its static
    files under ``/workbench/static``, and ``POST /api/workbench/NAME`` for its endpoints
    and ``more`` (by name); bodies are read under ``limits`` (the server's)."""
    from .assists import assist_endpoints

    endpoints = {"catalog": bench.catalog_endpoint, "check": bench.check, "explain": bench.explain,
                 "save": bench.save, "dataset": bench.dataset, "rows": bench.rows,
                 **assist_endpoints(bench), **(more or {})}  # tune, suggest, job, cancel, messages
    routes: list[BaseRoute] = [Route(f"/api/workbench/{name}", endpoint(handler, limits), methods=["POST"])
                               for name, handler in endpoints.items()]
    routes += [Route(path, _page, methods=["GET"]) for path in pages]
    routes.append(Mount("/workbench/static", StaticFiles(directory=STATIC), name="workbench-static"))
    return routes
