"""Glob patterns for rule names and test case names.

``*`` matches any run of characters other than ``/``; ``{a,b}`` matches either
alternative (alternatives may nest and may be empty); every other character
matches itself.  A pattern matches a name when it matches the whole name or any
of its parent folders, so ``secret`` matches ``secret/x/0001`` but ``sec``
does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import PatternError

_UNSUPPORTED = "?[]"


@dataclass(frozen=True)
class Pattern:
    """A compiled glob pattern."""

    text: str
    _regex: re.Pattern[str] = field(repr=False, compare=False)

    def matches(self, name: str) -> bool:
        """True iff the pattern matches ``name`` or one of its parent folders."""
        return any(self._regex.fullmatch(prefix) for prefix in _prefixes(name))


def compile_pattern(text: str) -> Pattern:
    """Compile ``text`` into a :class:`Pattern`, raising :class:`PatternError`."""
    if not text:
        raise PatternError("the pattern is empty")
    if text.startswith("/") or text.endswith("/") or "//" in text:
        raise PatternError(f"pattern {text!r} has an empty path segment")
    for char in _UNSUPPORTED:
        if char in text:
            raise PatternError(f"pattern {text!r}: {char!r} is not supported (only * and {{a,b}} are special)")
    regex, end = _parse(text, 0, nested=False)
    if end != len(text):  # pragma: no cover - _parse consumes everything at top level
        raise PatternError(f"pattern {text!r}: unexpected {text[end]!r}")
    return Pattern(text, re.compile(regex))


def matches(pattern: str, name: str) -> bool:
    """Convenience: compile ``pattern`` and match it against ``name``."""
    return compile_pattern(pattern).matches(name)


def _prefixes(name: str) -> list[str]:
    """``a/b/c`` → ``["a", "a/b", "a/b/c"]``."""
    parts = name.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _parse(text: str, pos: int, *, nested: bool) -> tuple[str, int]:
    """Translate ``text[pos:]`` into a regex, stopping at ``,``/``}`` when nested."""
    out: list[str] = []
    while pos < len(text):
        char = text[pos]
        if char == "*":
            out.append("[^/]*")
            pos += 1
        elif char == "{":
            alternatives: list[str] = []
            pos += 1
            while True:
                alt, pos = _parse(text, pos, nested=True)
                alternatives.append(alt)
                if pos >= len(text):
                    raise PatternError(f"pattern {text!r}: '{{' is never closed")
                pos += 1
                if text[pos - 1] == "}":
                    break
            out.append("(?:" + "|".join(alternatives) + ")")
        elif char == "}" and not nested:
            raise PatternError(f"pattern {text!r}: '}}' without '{{'")
        elif char in ",}" and nested:
            return "".join(out), pos
        else:
            out.append(re.escape(char))
            pos += 1
    return "".join(out), pos
