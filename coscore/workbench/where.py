"""Where a diagnostic points in the rule's JSON text: the characters the editor marks.

A diagnostic names its place by a dotted path (``combos.A.combo``, ``atoms.0.desc``,
``comboMode``) and, inside a text, a 1-based column over the decoded string. The author
edits JSON text, so :func:`locate` finds that place in it: the character at the column
inside the string literal (an escape such as ``\\n`` or ``\\u00e9`` is the one character
it stands for, a ``\\ud83d\\ude00`` pair one too), else the key of an object member (the
value for an array item or the whole text's root), or, when the last key is missing, the
brace of the object that lacks it. :func:`json_error_place` places a JSON syntax error,
and :func:`diagnostics_json` gives diagnostics as the page shows them, each placed.

A :class:`Place` gives offsets in UTF-16 code units, as a browser's ``<textarea>`` counts
them (``setSelectionRange``), and the line and column (1-based, in characters) for people.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..catalog import said
from ..diagnostics import Diagnostic, shorten

__all__ = ["Place", "diagnostics_json", "locate", "json_error_place"]

#: One JSON token after optional white space: a string, a punctuation mark, or a literal.
_TOKEN = re.compile(r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|([^ \t\r\n{}\[\]:,"]+))', re.S)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Place:
    """Characters ``start``..``end`` of the text (UTF-16 code units), at ``line`` and
    ``column`` (1-based; the column counts characters)."""

    start: int
    end: int
    line: int
    column: int

    def to_dict(self) -> dict[str, int]:
        """``{"start", "end", "line", "column"}``."""
        return {"start": self.start, "end": self.end, "line": self.line, "column": self.column}


@dataclass
class _Value:
    """A JSON value at ``start``..``end`` (character offsets); an object's members map
    each key to ``(key start, key end, value)``, the last of a repeated key winning as
    in :func:`json.loads`; an array's items are listed."""

    start: int
    end: int = -1
    members: dict[str, tuple[int, int, _Value]] | None = None
    items: list[_Value] | None = None
    string: bool = False
    pending: list = field(default_factory=list)  # an object's key waiting for its value


def _tree(text: str) -> _Value | None:
    """The values of ``text`` and where they are; ``None`` when it is not JSON."""
    stack: list[_Value] = []
    root: _Value | None = None
    expect_key = False
    pos = 0
    try:
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:
                break
            pos = match.end()
            string, mark, _literal = match.groups()
            start = match.start(1) if string else match.start(2) if mark else match.start(3)
            top = stack[-1] if stack else None
            if mark in ("{", "["):
                value = _Value(start, members={} if mark == "{" else None, items=[] if mark == "[" else None)
                if top is None:
                    root = value
                else:
                    _attach(top, value)
                stack.append(value)
                expect_key = mark == "{"
            elif mark in ("}", "]"):
                stack.pop().end = pos
                expect_key = False
            elif mark == ",":
                expect_key = top is not None and top.members is not None
            elif mark == ":":
                expect_key = False
            elif string and expect_key and top is not None and top.members is not None:
                top.pending = [json.loads(string), start, pos]
                expect_key = False
            else:
                value = _Value(start, pos, string=bool(string))
                if top is None:
                    root = value
                else:
                    _attach(top, value)
    except (ValueError, IndexError):
        return None
    return root if root is not None and not stack else None


def _attach(container: _Value, value: _Value) -> None:
    if container.members is not None:
        key, start, end = container.pending
        container.members.pop(key, None)  # a repeated key: the last one counts, placed last
        container.members[key] = (start, end, value)
    elif container.items is not None:
        container.items.append(value)


def _character(text: str, value: _Value, column: int) -> tuple[int, int] | None:
    """The characters of string literal ``value`` that stand for its decoded character
    ``column`` (1-based); the closing quote for the column just past its end."""
    i, end, n = value.start + 1, value.end - 1, 0
    while i < end:
        width = 1
        if text[i] == "\\":
            width = 2
            if text[i + 1] == "u":
                width = 6
                high = 0xD800 <= int(text[i + 2 : i + 6], 16) < 0xDC00
                if high and text[i + 6 : i + 8] == "\\u" and 0xDC00 <= int(text[i + 8 : i + 12], 16) < 0xE000:
                    width = 12  # a surrogate pair: one character
        n += 1
        if n == column:
            return i, i + width
        i += width
    return (end, end + 1) if column == n + 1 else None


def _find(root: _Value, path: str) -> tuple[_Value, tuple[int, int] | None, bool]:
    """The value ``path`` leads to, the key that names it, and whether it was found
    whole (``False``: a key is missing and the value is the object lacking it)."""
    node, rest, key = root, path, None
    while rest:
        if node.members is not None:
            names = [k for k in node.members if rest == k or rest.startswith(k + ".")]
            if not names:
                return node, key, False
            name = max(names, key=len)
            start, end, child = node.members[name]
            key, node, rest = (start, end), child, rest[len(name) + 1 :]
        elif node.items is not None:
            head, _, tail = rest.partition(".")
            if not head.isdigit() or int(head) >= len(node.items):
                return node, key, False
            node, rest, key = node.items[int(head)], tail, None
        else:
            return node, key, False
    return node, key, True


class _Offsets:
    """Character offsets of one text as places (UTF-16 offsets, lines and columns)."""

    def __init__(self, text: str):
        self.text = text
        self.astral = [m.start() for m in _ASTRAL.finditer(text)]

    def place(self, start: int, end: int) -> Place:
        line = self.text.count("\n", 0, start) + 1
        column = start - (self.text.rfind("\n", 0, start) + 1) + 1
        return Place(self._utf16(start), self._utf16(end), line, column)

    def _utf16(self, i: int) -> int:
        return i + bisect.bisect_left(self.astral, i)


def locate(text: str, diagnostics: list[Any]) -> list[Place | None]:
    """Where each of ``diagnostics`` (with ``path`` and ``column``) is in the rule's JSON
    ``text``; ``None`` for one that names the whole rule (``rule``) or when ``text`` is not
    a JSON object."""
    root = _tree(text)
    offsets = _Offsets(text)
    places: list[Place | None] = []
    for d in diagnostics:
        span = None if root is None or d.path == "rule" else _span(text, root, d.path, d.column)
        places.append(None if span is None else offsets.place(*span))
    return places


def _span(text: str, root: _Value, path: str, column: int | None) -> tuple[int, int] | None:
    node, key, whole = _find(root, path)
    if whole and column is not None and node.string:
        found = _character(text, node, column)
        if found is not None:
            return found
    if not whole:  # a missing key: the brace of the object that lacks it
        return node.start, node.start + 1
    if key is not None:
        return key
    return node.start, node.end


def json_error_place(text: str) -> Place | None:
    """Where ``text`` stops being JSON (``None`` when it is JSON)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return _Offsets(text).place(exc.pos, min(exc.pos + 1, len(text)))
    except (ValueError, RecursionError):
        return None
    return None


def diagnostics_json(text: Any, found: list[Diagnostic]) -> list[dict[str, Any]]:
    """Diagnostics as JSON, each with the expression it is in (``source``) and its place
    in the rule's text (``at``, ``null`` when it has none)."""
    places = locate(text, found) if isinstance(text, str) else [None] * len(found)
    if isinstance(text, str) and any(d.path == "rule" for d in found):
        error = json_error_place(text)
        places = [error if d.path == "rule" and error is not None else p for d, p in zip(found, places)]
    return [{**d.to_dict(), "message": shorten(d.message), "source": None if d.source is None else shorten(d.source),
             "at": None if place is None else place.to_dict(), "said": said(shorten(d.message))}
            for d, place in zip(found, places)]
