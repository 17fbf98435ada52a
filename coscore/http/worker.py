"""The loop of one worker process of :class:`coscore.http.pool.WorkerPool`.

A worker builds its handler with ``factory(*args)`` (a module-level function, so that a
freshly started interpreter can import it), says it is ready with the resident memory it
holds, then answers jobs one at a time: ``(kind, payload)`` in, ``("ok", status, reply,
stats)`` out, where ``handle(kind, payload)`` returned ``(status, reply, stats)``. A
payload spooled to a file (:class:`coscore.http.bodies.SpooledBody`) is read here, so the
server never holds it whole. Its address space is limited (``RLIMIT_AS``) to 1.25 times
the memory budget over what it held at start: an allocation past that raises
``MemoryError``, answered ``("memory",)`` before the worker exits.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ..limits import rss_bytes
from .bodies import SpooledBody

__all__ = ["worker_main"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _address_space() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(memory: int | None) -> None:
    if not memory:
        return
    import resource  # POSIX only, as the pool is

    limit = _address_space() + memory + memory // 4
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ValueError, OSError):  # a lower hard limit is already set: keep it
        pass


def worker_main(conn: Connection, factory: Callable[..., Any], args: tuple, memory: int | None) -> None:
    """Run jobs from ``conn`` until the pool goes away (see the module's description)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle: it stops us
    handle = factory(*args)
    base = rss_bytes()
    _limit_memory(memory)
    conn.send(("ready", base))
    while True:
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):  # the pool has gone
            return
        exhausted = False
        reply: Any = None
        try:
            if isinstance(payload, SpooledBody):
                payload = payload.read()
            reply = ("ok", *handle(kind, payload))
        except MemoryError:
            exhausted = True
        payload = None
        if exhausted:
            reply = None
            try:
                conn.send(("memory",))
            finally:
                return  # noqa: B012 - exit whatever the send did: the pool starts a fresh worker
        conn.send(reply)
        reply = None
