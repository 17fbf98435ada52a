"""The app's listings (``GET /api/getData``, ``/api/getRules``, ``/api/getTasks``), streamed.

The original pages ask for a whole list and read every field of it (a dataset's data, a
task's result), so without a query a listing answers the original's JSON array — but
written piece by piece, from a read snapshot of the database taken when it begins (a
connection of its own, in a read transaction): the rows' ids first, then one row at a
time, each stored text read :data:`BLOB_CHUNK` bytes at a time through a blob handle and
escaped as it goes (:func:`coscore.http.jsonsize.json_escaped`; on Python 3.10, without
blob handles, a text is read whole and escaped a slice at a time). The server holds
about :data:`FLUSH` bytes of an answer at once, however many and however large the rows.
How large an answer can get is set by the store's quotas (:mod:`.quotas`), which count
bytes as these answers send them.

Other callers may ask for a page: ``?page=N&size=K`` (``page`` from 0, ``size`` from 1 to
:data:`MAX_PAGE_SIZE`, by default :data:`PAGE_SIZE`) answers
``{"page", "size", "total", "pages", "items": [...]}``, ``items`` the rows of that page in
the same shape, streamed the same way. ``POST /api/getDataByName`` streams its one dataset.
"""
from __future__ import annotations

import codecs
import json
import logging
import math
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ..http.jsonsize import json_escaped, json_pieces
from ..http.responses import ApiError, error_response
from ..http.sqlite_db import connect
from .store import Store

__all__ = [
    "BLOBS",
    "BLOB_CHUNK",
    "DATASETS",
    "FLUSH",
    "MAX_PAGE_SIZE",
    "PAGE_SIZE",
    "RULES",
    "TASKS",
    "Listing",
    "Page",
    "listing_endpoint",
    "one_row",
    "page_of",
    "stream",
]

#: Rows per page when only ``page`` is given; the most a page may hold.
PAGE_SIZE, MAX_PAGE_SIZE = 20, 100
#: Bytes gathered before they are sent; bytes of a stored text read at once.
FLUSH, BLOB_CHUNK = 256 * 2**10, 256 * 2**10
#: Whether SQLite texts can be read a piece at a time here (``Connection.blobopen``, Python 3.11+).
BLOBS = hasattr(sqlite3.Connection, "blobopen")

_log = logging.getLogger("coscore.webapp")


@dataclass(frozen=True)
class Listing:
    """One listing: its ``table``, the SQL ``columns`` read and the JSON ``keys`` they are sent as."""

    table: str
    columns: str
    keys: tuple[str, ...]


DATASETS = Listing("data", "name, description, type, data, length, create_time",
                   ("name", "desc", "type", "data", "count", "created"))
RULES = Listing("rules", "name, prompt, description, rule, create_time, modify_time",
                ("name", "prompt", "desc", "rule", "created", "modified"))
TASKS = Listing("tasks", "data_name, rule_name, task_name, status, create_time, executed_time, result",
                ("data_name", "rule_name", "task_name", "status", "created", "executed", "result"))


@dataclass(frozen=True)
class Page:
    """Page ``number`` (from 0) of ``size`` rows."""

    number: int
    size: int


def _integer(params: Any, key: str, default: int, lo: int, hi: int) -> int:
    text = params.get(key)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise ApiError(400, f"?{key}= must be an integer from {lo} to {hi:,}, not {text[:40]!r}")
    return value


def page_of(params: Any) -> Page | None:
    """The page a query asks for (``None``: the whole list); 400 naming a bad ``page`` or ``size``."""
    if "page" not in params and "size" not in params:
        return None
    return Page(_integer(params, "page", 0, 0, 10**9), _integer(params, "size", PAGE_SIZE, 1, MAX_PAGE_SIZE))


class _Buffer:
    """Pieces of bytes gathered and handed on :data:`FLUSH` bytes at a time."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> bytes | None:
        self.parts.append(piece)
        self.size += len(piece)
        return self.take() if self.size >= FLUSH else None

    def take(self) -> bytes:
        out = b"".join(self.parts)
        self.parts, self.size = [], 0
        return out


def _value(value: Any) -> Iterator[bytes]:
    if isinstance(value, str):
        yield b'"'
        yield from json_pieces(value)
        yield b'"'
    else:  # SQLite gives numbers, None or bytes: bytes are sent as text, as the original would fail to
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        yield json.dumps(value, ensure_ascii=False).encode("utf-8")


def _text(db: sqlite3.Connection, table: str, column: str, rowid: int) -> Iterator[bytes]:
    """A stored text as a JSON string, read :data:`BLOB_CHUNK` bytes at a time (a blob
    handle reads TEXT as its UTF-8 bytes), never whole."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    yield b'"'
    with db.blobopen(table, column, rowid, readonly=True) as blob:  # type: ignore[attr-defined]  # 3.11+: BLOBS
        while True:
            raw = blob.read(BLOB_CHUNK)
            if not raw:
                break
            yield json_escaped(decoder.decode(raw))
    yield json_escaped(decoder.decode(b"", True)) + b'"'


def _object(db: sqlite3.Connection, listing: Listing, rowid: int) -> Iterator[bytes] | None:
    """Row ``rowid`` as a JSON object in pieces (``None`` when there is none): each text
    read through a blob handle where SQLite offers one (Python 3.11+), else whole."""
    columns = listing.columns.split(", ")
    kinds = db.execute(f"SELECT {', '.join(f'typeof({c})' for c in columns)} FROM {listing.table} WHERE rowid = ?",
                       (rowid,)).fetchone()
    if kinds is None:
        return None

    def pieces() -> Iterator[bytes]:
        for index, (key, column, kind) in enumerate(zip(listing.keys, columns, kinds)):
            yield (b"{" if index == 0 else b",") + json.dumps(key).encode() + b":"
            if kind == "text" and BLOBS:
                yield from _text(db, listing.table, column, rowid)
            else:
                row = db.execute(f"SELECT {column} FROM {listing.table} WHERE rowid = ?", (rowid,)).fetchone()
                yield from _value(row[0] if row is not None else None)
        yield b"}"

    return pieces()


def _gathered(pieces: Iterable[bytes]) -> Iterator[bytes]:
    buffer = _Buffer()
    for piece in pieces:
        out = buffer.add(piece)
        if out is not None:
            yield out
    if buffer.size:
        yield buffer.take()


def _items(db: sqlite3.Connection, listing: Listing, rowids: list[int]) -> Iterator[bytes]:
    yield b"["
    first = True
    for rowid in rowids:
        row = _object(db, listing, rowid)
        if row is None:  # not in the snapshot: cannot happen, but never break the JSON
            continue
        if not first:
            yield b","
        first = False
        yield from row
    yield b"]"


def _snapshot(store: Store) -> sqlite3.Connection:
    """A connection of its own to ``store``'s database, in a read transaction: every row a
    listing sends is as it was when the listing began, whatever is written meanwhile."""
    db = connect(store.path, store.busy_timeout, any_thread=True)
    db.execute("BEGIN")
    return db


def _closing(db: sqlite3.Connection, parts: Iterable[Iterable[bytes]]) -> Iterator[bytes]:
    """The pieces of ``parts``, the snapshot ``db`` closed when they end (or are dropped)."""
    try:
        for part in parts:
            yield from part
    finally:
        db.close()


def stream(store: Store, listing: Listing, page: Page | None = None) -> Iterator[bytes]:
    """The listing's JSON (see the module's description), in pieces of about :data:`FLUSH` bytes."""
    db = _snapshot(store)
    try:
        if page is None:
            rowids = [r[0] for r in db.execute(f"SELECT rowid FROM {listing.table} ORDER BY rowid")]
            return _gathered(_closing(db, [_items(db, listing, rowids)]))
        total = db.execute(f"SELECT COUNT(*) FROM {listing.table}").fetchone()[0]
        rowids = [r[0] for r in db.execute(f"SELECT rowid FROM {listing.table} ORDER BY rowid LIMIT ? OFFSET ?",
                                           (page.size, page.number * page.size))]
    except BaseException:
        db.close()
        raise
    head = {"page": page.number, "size": page.size, "total": total, "pages": max(1, math.ceil(total / page.size))}
    opening = json.dumps(head, separators=(",", ":"))[:-1].encode() + b',"items":'
    return _gathered(_closing(db, [[opening], _items(db, listing, rowids), [b"}"]]))


def one_row(store: Store, listing: Listing, where: str, params: tuple) -> Iterator[bytes] | None:
    """The first row ``where`` selects, as a JSON object in pieces; ``None`` when there is none."""
    db = _snapshot(store)
    try:
        found = db.execute(f"SELECT rowid FROM {listing.table} WHERE {where} ORDER BY rowid LIMIT 1",
                           params).fetchone()
        row = _object(db, listing, found[0]) if found is not None else None
    except BaseException:
        db.close()
        raise
    if row is None:
        db.close()
        return None
    return _gathered(_closing(db, [row]))


def listing_endpoint(store: Store, listing: Listing) -> Any:
    """The ``GET`` route of ``listing``: the whole list, or a page (``?page``, ``?size``)."""

    async def endpoint(request: Request) -> Response:
        try:
            page = page_of(request.query_params)
            pieces = await run_in_threadpool(stream, store, listing, page)
        except ApiError as exc:
            return error_response(exc)
        except Exception as exc:  # never an HTML 500 page
            _log.exception("listing %s failed", listing.table)
            return error_response(ApiError(500, f"internal error: {type(exc).__name__}: {exc}"))
        return StreamingResponse(pieces, media_type="application/json")

    return endpoint
