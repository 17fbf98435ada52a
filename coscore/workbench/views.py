"""Which columns of a stored dataset a request to the workbench scores: its ``columns``
field (:func:`view_of`), read by the dataset endpoints (:mod:`.routes`) and by tune and
suggest (:mod:`.assists`) alike."""
from __future__ import annotations

from typing import Any

from ..diagnostics import json_type
from ..http.responses import ApiError

__all__ = ["view_of"]


def view_of(data: dict[str, Any]) -> Any:
    """A request's ``columns`` (which columns of a stored dataset to score: blanks, label,
    second rater…), or ``None`` (the dataset's own)."""
    view = data.get("columns")
    if view is not None and not isinstance(view, dict):
        raise ApiError(400, f"'columns' must be an object (blanks, label, label2, group, id), not {json_type(view)}")
    return view
