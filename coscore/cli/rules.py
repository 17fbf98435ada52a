"""Reading and compiling the rule file a ``coscore`` subcommand is given, with one clear
message for a missing file, text that is not UTF-8, or an invalid rule."""
from __future__ import annotations

from typing import Any

from ..io import InputError, open_file
from .errors import UsageError


def read_rule_text(path: str) -> str:
    """The text of a rule file, with clear errors for a missing file or invalid UTF-8."""
    with open_file(path) as f:
        raw = f.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8; a rule file must be UTF-8 encoded", line=line) from None


def load_rule(path: str, limits: Any = None) -> tuple[Any, str]:
    """Compile the rule file at ``path`` (with ``limits``: a :class:`coscore.Limits`);
    a bad rule is a :class:`UsageError` listing every problem."""
    import coscore

    text = read_rule_text(path)
    try:
        return coscore.compile(text, limits=limits), text
    except coscore.RuleError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"] or exc.diagnostics
        problems = "\n".join(f"  {line}" for d in errors for line in str(d).splitlines())
        raise UsageError(f"{path}: invalid rule (run 'coscore check {path}' for details)\n{problems}") from None
