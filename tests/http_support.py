"""Worker handlers for the tests of :mod:`coscore.http.pool` (importable by spawned workers)."""
from __future__ import annotations

import time


def sleeper():
    """A handler: job ``("sleep", seconds)`` sleeps, ``("echo", x)`` answers ``x``; stats name the worker."""
    import os

    def handle(kind, payload):
        if kind == "sleep":
            time.sleep(payload)
        return 200, (kind, payload, time.monotonic()), {"pid": os.getpid()}

    return handle
