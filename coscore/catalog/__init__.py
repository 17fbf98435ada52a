"""The message catalog: every diagnostic, error, hint and status coscore shows a person,
by message id, in English and Chinese, from one place.

Each :class:`Message` has an ``id`` (``"json.invalid"``), an English template and a
Chinese one; ``{name}`` in a template is a parameter. The English template is the text
the command prints (``coscore check``, ``coscore report`` …): :func:`said` recognises a
message the library wrote and gives its id and parameters, :func:`render` writes a
message in either language. A parameter that is itself a message of the catalog (the
reason in ``invalid JSON at line 3, column 5: Expecting ',' delimiter``, the JSON type in
``must be an object, not an array``) is recognised too and carried as a nested
``{"id", "params"}``, so that a page renders the whole message in its language.

A new diagnostic is added here once, with both languages (``tests/test_catalog.py``
walks every entry, and checks that the diagnostics of a corpus of broken rules are all
recognised); the workbench loads :func:`catalog_json` and renders ids and parameters in
the language its reader chose.

>>> said("score 20 is outside the 0–10 scale")
{'id': 'combo.score_outside_scale', 'params': {'score': '20'}}
>>> render(said("score 20 is outside the 0–10 scale"), "zh")
'分值 20 超出 0–10 分的范围'
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from .message import FIELD, Message

__all__ = ["LANGUAGES", "MESSAGES", "Message", "catalog_json", "localize", "message", "render", "said"]

#: The languages of the catalog.
LANGUAGES = ("en", "zh")
#: How deep parameters are searched for messages of their own.
_DEPTH = 3
#: The longest text :func:`said` tries to recognise (longer text is left as it is): the
#: longest message coscore writes (:data:`coscore.messages.MESSAGE_LIMIT`), so that no
#: input can make the patterns' matching long.
_LONGEST = 1000

#: The parameters that may hold a message of their own (a reason, a JSON type, what a
#: budget counts …); the others (a name, a value, an operator, a path) are the user's text
#: and are never translated, even when they read like a message ("unknown name 'text'").
_NESTED = frozenset({"reason", "problem", "type", "what", "left", "right", "a", "b", "message", "reads", "reader",
                     "offered", "name_them"})
#: The parameters that hold a list, ``, ``-separated, of messages of their own (the columns
#: not taken as blanks, each ``NAME (looks like …)``): carried as a JSON list, each item
#: recognised (or left as it is), and written back joined as each language joins a list.
_LISTS = frozenset({"skipped"})
#: How each language joins the items of a list.
_JOIN = {"en": ", ", "zh": "、"}


def _entries() -> list[Message]:
    from . import data, files, rules, workbench

    return [*rules.ENTRIES, *data.ENTRIES, *files.ENTRIES, *workbench.ENTRIES]


@lru_cache(maxsize=1)
def _table() -> dict[str, Message]:
    table: dict[str, Message] = {}
    for entry in _entries():
        if entry.id in table:
            raise ValueError(f"message id {entry.id!r} is in the catalog twice")
        table[entry.id] = entry
    return table


class _Messages:
    """The catalog by id (a read-only mapping, loaded at first use)."""

    def __getitem__(self, key: str) -> Message:
        return _table()[key]

    def __contains__(self, key: object) -> bool:
        return key in _table()

    def __iter__(self) -> Iterator[str]:
        return iter(_table())

    def __len__(self) -> int:
        return len(_table())

    def values(self) -> Iterable[Message]:
        return _table().values()


#: Every message by id.
MESSAGES = _Messages()


def _pattern(template: str) -> re.Pattern[str]:
    parts, at = [], 0
    seen: set[str] = set()
    for match in FIELD.finditer(template):
        parts.append(re.escape(template[at:match.start()]))
        name = match.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.*?)")
        seen.add(name)
        at = match.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts), re.DOTALL)


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[Message, re.Pattern[str]]]:
    """Every message with its English pattern: the messages around others first, then
    the most specific (most fixed text) first."""
    entries = sorted(_table().values(), key=lambda m: (not m.wraps, -len(FIELD.sub("", m.en))))
    return [(m, _pattern(m.en)) for m in entries]


def said(text: str, depth: int = _DEPTH) -> dict[str, Any] | None:
    """The catalog's ``{"id", "params"}`` for a message the library wrote in English
    (``None`` when the catalog has no message it fits). A parameter that is a message
    itself is nested the same way."""
    if not isinstance(text, str) or not text or len(text) > _LONGEST:
        return None
    for entry, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        params: dict[str, Any] = {}
        for name, value in match.groupdict().items():
            if name in _LISTS:
                params[name] = [_item(piece, depth - 1) for piece in value.split(", ")]
                continue
            inner = said(value, depth - 1) if depth > 0 and name in _NESTED else None
            params[name] = inner if inner is not None else value
        nested = [value for name, value in params.items() if name in _NESTED]
        if entry.wraps and not (nested and isinstance(nested[0], dict)):
            continue   # a message around another: its first nested parameter must be one
        return {"id": entry.id, "params": params}
    return None


def _item(text: str, depth: int) -> Any:
    """An item of a list parameter: its message, or the text as it is."""
    found = said(text, depth) if depth >= 0 else None
    return text if found is None else found


def message(id: str, **params: Any) -> str:
    """Message ``id`` in English with ``params``: the text the command prints."""
    return render({"id": id, "params": params}, "en")


def render(found: dict[str, Any] | str | None, language: str = "en") -> str:
    """A message (``{"id", "params"}`` as :func:`said` gives it, or plain text) written
    in ``language`` (``"en"`` or ``"zh"``)."""
    if found is None:
        return ""
    if isinstance(found, str):
        return found
    entry = _table().get(found.get("id", ""))
    if entry is None:
        return str(found.get("text", found.get("id", "")))
    params = found.get("params") or {}
    template = getattr(entry, language if language in LANGUAGES else "en")
    return FIELD.sub(lambda m: _param(params.get(m.group(1), m.group(0)), language), template)


def _param(value: Any, language: str) -> str:
    if isinstance(value, dict) and "id" in value:
        return render(value, language)
    if isinstance(value, list):
        return _JOIN.get(language, ", ").join(_param(item, language) for item in value)
    return str(value)


def localize(text: str, language: str) -> str:
    """``text`` (a message the library wrote in English) in ``language``; as it is when
    the catalog has no message it fits."""
    found = said(text)
    return text if found is None else render(found, language)


def catalog_json() -> dict[str, dict[str, str]]:
    """The catalog as a page loads it: ``{id: {"en": template, "zh": template}}``."""
    return {m.id: {"en": m.en, "zh": m.zh} for m in _table().values()}
