"""Telling an exam file from a rule file, cheaply: what ``coscore score`` and ``check`` ask
of their first argument before anything else is imported."""
from __future__ import annotations

import json
import os
import stat

__all__ = ["MAX_BYTES", "is_exam_file"]

#: The largest exam file (bytes), inline rules included.
MAX_BYTES = 16 << 20


def is_exam_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an exam file: a ``.yaml`` or ``.yml`` file, or a ``.json``
    file whose top level is an object with ``items`` (a rule has none). Reads at most
    :data:`MAX_BYTES`; never raises (``False`` for a ``.json`` file that cannot be read)."""
    try:
        name = os.fspath(path)
        suffix = os.path.splitext(name)[1].lower()
        if suffix in (".yaml", ".yml"):
            return True
        if suffix != ".json" or not stat.S_ISREG(os.stat(name).st_mode):
            return False
        with open(name, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return False
        value = json.loads(data.decode("utf-8-sig"))
        return isinstance(value, dict) and "items" in value
    except Exception:  # noqa: BLE001 - unreadable, not JSON, nested too deep: not an exam
        return False
