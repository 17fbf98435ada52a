"""Problems found in a rule: :class:`Diagnostic` and :class:`RuleError`."""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import CoscoreError
from .messages import MESSAGE_LIMIT, shorten

__all__ = ["MESSAGE_LIMIT", "Diagnostic", "RuleError", "Severity", "json_type", "shorten"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a rule, located by a dotted path.

    ``path`` names the place (``"combos.A.combo"``, ``"atoms.3.desc"``, ``"comboMode"``);
    ``column`` is the 1-based character column inside the expression or desc text when
    the problem has one; ``source`` is that text, used to draw a caret.
    """

    path: str
    message: str
    column: int | None = None
    severity: Severity = "error"
    source: str | None = None

    def __str__(self) -> str:
        where = self.path if self.column is None else f"{self.path}, column {self.column}"
        head = f"{where}: {self.message}" if self.severity == "error" else f"{where}: warning: {self.message}"
        if self.column is None or self.source is None:
            return _encodable(head)
        return _encodable(f"{head}\n{_caret_lines(self.source, self.column)}")

    def to_dict(self) -> dict:
        """A JSON-ready form: ``path``, ``message``, ``column``, ``severity``."""
        return {"path": _encodable(self.path), "message": _encodable(self.message), "column": self.column,
                "severity": self.severity}


def _encodable(text: str) -> str:
    """``text`` with each lone surrogate (JSON can spell one, UTF-8 cannot) shown as U+FFFD."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _caret_lines(source: str, column: int) -> str:
    """The source line holding ``column`` (1-based over the whole text) with a caret under it."""
    offset = column - 1
    start = max(source.rfind("\n", 0, offset), source.rfind("\r", 0, offset)) + 1  # CR, LF, CRLF
    end = min((i for i in (source.find("\n", offset), source.find("\r", offset)) if i >= 0), default=len(source))
    line = source[start:end]
    if len(line) > 120:  # keep long expressions readable: a window around the column
        lo = max(0, offset - start - 60)
        line, start = line[lo : lo + 120], start + lo
    return f"    {line}\n    {' ' * (offset - start)}^"


class RuleError(CoscoreError, ValueError):
    """A rule that cannot be compiled; ``diagnostics`` lists every problem found.

    ``parsed``, when reading the rule got that far, holds the parts of it that were read
    without a problem: ``(atoms, combos)``, the :class:`~coscore.spec.AtomSpec` of each
    valid atom by id and the :class:`~coscore.spec.ComboSpec` of each valid combo, so
    that ``coscore check`` can look into the combos that parsed
    (:func:`coscore.expr.types.combo_findings`); else ``None``."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        self.parsed: tuple[dict[str, Any], tuple[Any, ...]] | None = None
        super().__init__("\n".join(str(d) for d in self.diagnostics) or "invalid rule")


def json_type(value: Any) -> str:
    """How a JSON value is named in messages: ``"a string"``, ``"an array"``, ``"null"``…"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__
