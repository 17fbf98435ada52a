"""The workbench's own catalog and the endpoints only ``coscore workbench`` has: data files
uploaded, previewed and imported, rule versions (list, diff, revert) and exams.

- ``POST /workbench/upload?name=FILE`` — the file's bytes as the body
  (``Content-Type: application/octet-stream``; at most the server's ``--max-body``) →
  ``{"upload", "file", "format", "columns", "rows", "header_row", "notes", "mapping",
  "skipped", "problem"}`` (:func:`.datasets.preview`); ``preview`` ``{"upload", "rule"?,
  "reading"?}`` looks again (the defaults fitting what the rule reads, another sheet…);
- ``import`` ``{"upload" | "dataset", "name"?, "columns"?, "reading"?, "rule"?}`` → the
  dataset stored (``{"name", "count", "columns", "left_out", …}``);
- ``versions`` ``{"name"}`` → ``{"versions": [{"number", "saved", "note", "rule"}]}``
  (latest first); ``diff`` ``{"name", "from", "to"}`` → ``{"lines": [...]}`` (a unified
  diff); ``revert`` ``{"name", "number"}`` → the version saved again as the latest;
- ``exam`` ``{"text", "file"}`` (an exam file's text, rules inline) or ``{"exam": NAME}``
  (one opened before), with ``"dataset"``? → the items with their figures (:mod:`.exams`).

The upload is not under ``/api/`` because it is not JSON: the guard's Host, origin and
token rules apply to it as to every request, and it takes only
``application/octet-stream`` (which another site's page cannot send without asking first).
"""
from __future__ import annotations

import difflib
import os
import re
import secrets
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ..diagnostics import json_type
from ..http.app import run_job
from ..http.bodies import BodyLimits, read_body
from ..http.pool import WorkerPool
from ..http.responses import ApiError, error_response, json_response
from .datasets import EXTENSIONS, PAGE_BLANKS, FileRequest, FileSource, view_name
from .routes import Workbench
from .store import WorkbenchStore

__all__ = ["IMPORT_TIME", "MAX_DIFF_CHARS", "MAX_UPLOADS", "Library", "WorkbenchCatalog"]

#: Wall-time budget (seconds) of reading a file whole (an import, an exam's items).
IMPORT_TIME = 300.0
#: Uploads kept at once before they are imported (the oldest is dropped past it).
MAX_UPLOADS = 20
#: The longest rule text two versions of which are compared.
MAX_DIFF_CHARS = 200_000
_TOKEN = re.compile(r"^[0-9a-f]{16}$")
_VIEW = re.compile(r"^[0-9a-f]{16}-[0-9a-f]{12}\.arrow$")


def _text(data: dict[str, Any], key: str, limit: int = 500) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, f"{key!r} must be a non-empty string, not {json_type(value)}" if key in data
                       else f"missing {key!r}")
    if len(value) > limit:
        raise ApiError(400, f"{key!r} is longer than {limit:,} characters")
    return value


def _number(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ApiError(400, f"{key!r} must be a version number (1, 2, …), not {value!r}"[:200])
    return value


class WorkbenchCatalog:
    """The rules and datasets of a :class:`.store.WorkbenchStore`."""

    features: ClassVar[dict[str, bool]] = {"files": True, "versions": True, "exams": True, "app": False}

    def __init__(self, store: WorkbenchStore):
        self.store = store

    def listing(self) -> dict[str, Any]:
        return {"rules": self.store.rules(), "datasets": self.store.datasets(), "exams": self.store.exams()}

    def source(self, name: str, view: Any = None) -> FileSource:
        found = self.store.dataset(name)
        if found is None:
            raise ApiError(404, f"no dataset named {name!r}")
        chosen = found["view"]
        if view is not None:
            chosen = view.get("view") if isinstance(view, dict) else None
            if not isinstance(chosen, str) or not _VIEW.match(chosen) or not chosen.startswith(found["file"][:16]):
                raise ApiError(400, "'columns' must name a view of the dataset ({\"view\": …}, as an exam's item "
                               "gives)")
        path = self.store.folder("views") / chosen
        if not path.is_file():
            raise ApiError(404, f"the dataset {name!r} has no answers stored for these columns: open the exam again")
        return FileSource(name, str(path), (found["created"], path.stat().st_mtime_ns))

    async def save_rule(self, name: str, prompt: str | None, text: str) -> dict[str, Any]:
        number = await run_in_threadpool(self.store.save_rule, name, prompt, text)
        return {"message": "Rule saved successfully", "name": name, "version": number}


class Library:
    """The endpoints of ``coscore workbench``'s own store (see the module's description),
    beside those of ``bench`` (a :class:`.routes.Workbench` on a :class:`WorkbenchCatalog`)."""

    def __init__(self, bench: Workbench, store: WorkbenchStore, pool: WorkerPool, import_time: float = IMPORT_TIME):
        self.bench = bench
        self.store = store
        self.pool = pool
        self.import_time = import_time

    async def _job(self, kind: str, payload: Any, **options: Any) -> Any:
        status, reply = await run_job(self.pool, kind, payload, **options)
        if status != 200:
            raise ApiError(status, reply.pop("error", "error"), **reply)
        return reply

    # -- files ---------------------------------------------------------------------------------
    async def upload(self, request: Request, limits: BodyLimits) -> Response:
        """``POST /workbench/upload?name=FILE``: the file stored as an upload, and its preview."""
        try:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/octet-stream":
                raise ApiError(415, "send the file's bytes as 'Content-Type: application/octet-stream'")
            shown = os.path.basename(unquote(request.query_params.get("name", "")).replace("\\", "/")).strip()
            extension = os.path.splitext(shown)[1].lower()
            if not shown or extension not in EXTENSIONS:
                raise ApiError(415, f"{shown or 'the file'}: a data file is CSV, TSV, JSON Lines, Parquet or a "
                               "workbook "
                               f"({', '.join(EXTENSIONS)})")
            token = secrets.token_hex(8)
            await run_in_threadpool(self._drop_old_uploads)
            path = self.store.folder("uploads") / f"{token}{extension}"
            with await read_body(request, limits) as body:
                await run_in_threadpool(_save, body, path)
            found = await self._job("workbench.preview", (FileRequest(str(path), shown), None),
                                    timeout=self.import_time, wait=self.import_time)
            return json_response({"upload": token, **_with_said(found)})
        except ApiError as exc:
            from ..catalog import said

            exc.extra.setdefault("said", said(exc.message))   # the page renders it in its language
            return error_response(exc)

    def _drop_old_uploads(self) -> None:
        """Keep at most :data:`MAX_UPLOADS` - 1 uploads not imported, dropping the oldest."""
        kept = sorted(self.store.folder("uploads").iterdir(), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[: max(0, len(kept) - MAX_UPLOADS + 1)]:
            old.unlink(missing_ok=True)

    async def preview(self, data: dict[str, Any]) -> dict[str, Any]:
        """``{"upload" | "dataset", "reading"?, "rule"?}`` → the file looked at again (another sheet or header row)."""
        request, _ = await run_in_threadpool(self._request, data)
        found = await self._job("workbench.preview", (request, data.get("rule")), timeout=self.import_time,
                                wait=self.import_time)
        return {**_with_said(found), **({"upload": data["upload"]} if "upload" in data else {})}

    def _request(self, data: dict[str, Any]) -> tuple[FileRequest, dict[str, Any] | None]:
        """The file a request names: an upload (``upload``: its token) or a stored dataset's."""
        reading = data.get("reading") or {}
        if not isinstance(reading, dict):
            raise ApiError(400, "'reading' must be an object: encoding, sheet, header_row")
        if "upload" in data:
            token = data.get("upload")
            if not isinstance(token, str) or not _TOKEN.match(token):
                raise ApiError(400, "'upload' must be the token the upload answered")
            found = [p for p in self.store.folder("uploads").glob(f"{token}.*")]
            if not found:
                raise ApiError(404, "no such upload (uploads are kept until the server stops): upload the file again")
            given = data.get("file")
            shown = given if isinstance(given, str) else found[0].name
            given_names = data.get("name_them")
            name_them = given_names if isinstance(given_names, str) else PAGE_BLANKS
            return FileRequest(str(found[0]), os.path.basename(shown) or found[0].name, None, reading, name_them), None
        stored = self.store.dataset(_text(data, "dataset"))
        if stored is None:
            raise ApiError(404, f"no dataset named {data['dataset']!r}")
        return FileRequest(str(self.store.folder("files") / stored["file"]), stored["original"], stored["format"],
                           {**stored["reading"], **reading}), stored

    async def import_dataset(self, data: dict[str, Any]) -> dict[str, Any]:
        """Read the file whole with the mapping and store it as a dataset."""
        request, stored = await run_in_threadpool(self._request, data)
        name = data.get("name") or (stored["name"] if stored else os.path.splitext(request.shown)[0])
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise ApiError(400, "'name' must be a dataset name (1 to 200 characters)")
        key = stored["file"][:16] if stored else secrets.token_hex(8)
        mapping = data.get("columns") or {}
        view = view_name(key, mapping if isinstance(mapping, dict) else {})
        found = await self._job("workbench.import", (request, mapping, str(self.store.folder("views") / view),
                                                     data.get("rule")), timeout=self.import_time,
                                wait=self.import_time)
        await run_in_threadpool(self._keep, request, stored, key, view, name.strip(), found)
        return {"name": name.strip(), "count": found["rows"], **_with_said(found)}

    def _keep(self, request: FileRequest, stored: dict[str, Any] | None, key: str, view: str, name: str,
              found: dict[str, Any]) -> None:
        if stored is None:
            extension = os.path.splitext(request.path)[1]
            file = f"{key}{extension}"
            shutil.move(request.path, self.store.folder("files") / file)
            replaced = self.store.dataset(name)
            if replaced is not None:   # the same name, another file: the old one's files go
                (self.store.folder("files") / replaced["file"]).unlink(missing_ok=True)
                for old in self.store.folder("views").glob(f"{replaced['file'][:16]}-*"):
                    old.unlink(missing_ok=True)
        else:
            file = stored["file"]
        self.store.add_dataset(name, file, request.shown, found["format"], request.reading, found["columns"],
                               found["rows"], view)

    # -- versions ---------------------------------------------------------------------------------
    async def versions(self, data: dict[str, Any]) -> dict[str, Any]:
        name = _text(data, "name")
        return {"name": name, "versions": await run_in_threadpool(self.store.versions, name)}

    async def diff(self, data: dict[str, Any]) -> dict[str, Any]:
        name, older, newer = _text(data, "name"), _number(data, "from"), _number(data, "to")
        texts = [await run_in_threadpool(self.store.version, name, n) for n in (older, newer)]
        for number, text in zip((older, newer), texts):
            if text is None:
                raise ApiError(404, f"the rule {name!r} has no version {number}")
            if len(text) > MAX_DIFF_CHARS:
                raise ApiError(413, f"version {number} is longer than {MAX_DIFF_CHARS:,} characters: too long to "
                               "compare")
        before, after = (_lines(t or "") for t in texts)
        lines = list(difflib.unified_diff(before, after, f"v{older}", f"v{newer}", lineterm=""))
        return {"name": name, "from": older, "to": newer, "lines": lines}

    async def revert(self, data: dict[str, Any]) -> dict[str, Any]:
        name, number = _text(data, "name"), _number(data, "number")
        text = await run_in_threadpool(self.store.version, name, number)
        if text is None:
            raise ApiError(404, f"the rule {name!r} has no version {number}")
        saved = await run_in_threadpool(self.store.save_rule, name, None, text, f"revert:{number}")
        return {"name": name, "version": saved, "rule": text}

    # -- exams --------------------------------------------------------------------------------------
    async def exam(self, data: dict[str, Any]) -> dict[str, Any]:
        """An exam opened (its text) or opened again (its name), on ``dataset`` when given."""
        if "text" in data:
            text = _text(data, "text", 2_000_000)
            shown = os.path.basename(str(data.get("file") or "exam.yaml")).strip() or "exam.yaml"
            if os.path.splitext(shown)[1].lower() not in (".yaml", ".yml", ".json"):
                raise ApiError(415, f"{shown}: an exam file is YAML (.yaml, .yml) or JSON (.json)")
            path = self.store.folder("exams") / f"{secrets.token_hex(4)}-{shown}"
            await run_in_threadpool(path.write_text, text, "utf-8")
            name, files = shown, False
        else:
            name = _text(data, "exam")
            found = [e for e in await run_in_threadpool(self.store.exams) if e["name"] == name]
            if not found:
                raise ApiError(404, f"no exam named {name!r}")
            path, files = Path(found[0]["path"]), found[0]["files"]
        return await self.open_exam(name, str(path), files, data.get("dataset"))

    async def open_exam(self, name: str, path: str, files: bool, dataset: Any) -> dict[str, Any]:
        request = key = None
        if dataset is not None:
            request, stored = await run_in_threadpool(self._request, {"dataset": dataset})
            key = stored["file"][:16] if stored else None
        found = await self._job("workbench.exam", (path, files, request, str(self.store.folder("views")), key),
                                timeout=self.import_time, wait=self.import_time)
        await run_in_threadpool(self._keep_exam, name, path, files, dataset, found)
        return {"exam": name, "dataset": dataset, **found}

    def _keep_exam(self, name: str, path: str, files: bool, dataset: Any, found: dict[str, Any]) -> None:
        self.store.add_exam(name, path, files, dataset if isinstance(dataset, str) else None)
        for item in found["items"]:   # each item's rule in the editor's list; a version when the exam's is new
            item["rule_name"] = f"{found['name']} · {item['name']}"
            known = [v["number"] for v in self.store.versions(item["rule_name"]) if v["rule"] == item["rule"]]
            item["version"] = known[0] if known else self.store.save_rule(item["rule_name"], None, item["rule"],
                                                                          f"exam:{name}")

    def endpoints(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[Any]]]:
        return {"preview": self.preview, "import": self.import_dataset, "versions": self.versions, "diff": self.diff,
                "revert": self.revert, "exam": self.exam}


def _with_said(found: dict[str, Any]) -> dict[str, Any]:
    """A file's preview or import with the catalog's ids of its notes and its problem
    (``notes_said``, ``problem_said``: ``None`` where the catalog has none), for the page
    to write them in its language."""
    from ..catalog import said

    return {**found, "notes_said": [said(note) for note in found.get("notes") or []],
            "problem_said": said(found["problem"]) if found.get("problem") else None}


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _save(body: Any, path: Path) -> None:
    """The request's body written at ``path`` (moved there when it was spooled to a file)."""
    spooled = body.payload()
    if isinstance(spooled, (bytes, bytearray)):
        path.write_bytes(spooled)
    else:
        shutil.copyfile(spooled.path, path)
