"""A page of the workbench's dataset lists held to a budget of bytes.

``dataset`` and ``rows`` answer pages of at most ``size`` rows (:data:`~.routes.MAX_PAGE_SIZE`)
whose answers are texts of the dataset, which may be long or full of control characters
(each escaped in six bytes of JSON). So that no page is larger than its budget, the
answers of a page may take :data:`PAGE_BYTES` bytes of JSON in all, each row's at most
``PAGE_BYTES // size``: a longer answer is cut (each blank kept while it fits, the one
that does not cut short, the ones after it emptied) and its row says so with
``"cut": true``, ``"answer_chars"`` (the characters of the whole answer) and
``"position"`` (its place in the list, from 0), so that the page can ask for that row
alone (``rows`` with ``page`` = ``position``, ``size`` 1) to have it whole, up to
:data:`PAGE_BYTES`.
"""
from __future__ import annotations

from typing import Any

from ..http.jsonsize import fit_text, json_size

__all__ = ["PAGE_BYTES", "fit_answer", "fit_page"]

#: Bytes of JSON the answers of one page of a list may take in all.
PAGE_BYTES = 2**20


def fit_answer(blanks: list[str], budget: int) -> tuple[list[str], bool]:
    """``blanks`` held to ``budget`` bytes of JSON (as an array of strings); whether it was cut."""
    total = 2 + sum(json_size(b) + 1 for b in blanks)
    if total <= budget:
        return blanks, False
    left = budget - 2 - 3 * len(blanks)  # brackets; each blank's quotes and comma
    kept: list[str] = []
    for blank in blanks:
        part = fit_text(blank, max(0, left) + 2) if left > 0 else ""
        kept.append(part)
        left -= json_size(part) - 2
    return kept, True


def fit_page(listing: dict[str, Any], budget: int | None = None) -> dict[str, Any]:
    """A page (:func:`.analysis.page`'s answer) with its rows' answers held to ``budget``
    bytes (default :data:`PAGE_BYTES`)."""
    size = max(1, int(listing.get("size") or 1))
    each = (PAGE_BYTES if budget is None else budget) // size
    first = int(listing.get("page") or 0) * size
    for index, row in enumerate(listing.get("rows", ())):
        blanks = row.get("answer")
        if not isinstance(blanks, list):
            continue
        kept, cut = fit_answer(blanks, each)
        if cut:
            row["answer"] = kept
            row.update(cut=True, answer_chars=sum(len(b) for b in blanks), position=first + index)
    return listing
