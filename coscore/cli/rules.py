"""Reading and compiling the rule file a ``coscore`` subcommand is given, with one clear
message for a missing file, text that is not UTF-8, or an invalid rule — worded for the
command: files and flags, not the Python API, and shortened."""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..diagnostics import MESSAGE_LIMIT, Diagnostic, shorten
from ..io import InputError, open_file
from ..limits import Limits
from .errors import UsageError

#: The most problems of an invalid rule that ``score``, ``explain``, ``report`` and
#: ``compare`` list (``coscore check`` lists them all).
SHOWN_PROBLEMS = 5
#: The longest path and message of one problem as the command shows it.
PATH_LIMIT, LINE_LIMIT = 200, 600

# compile's hint for a caller who passed the text of something else: for the Python API
_API_HINT = re.compile(r"\s*\([^()]*pathlib[^()]*\)$")
_BUDGET = re.compile(r"\bmax_[a-z_]+\b")
_FLAGS = {f.name: f.metadata["flag"] for f in dataclasses.fields(Limits)}


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
    a bad rule is a :class:`UsageError` listing its first problems (at most
    :data:`SHOWN_PROBLEMS`, in :data:`~coscore.diagnostics.MESSAGE_LIMIT` characters)."""
    import coscore

    text = read_rule_text(path)
    try:
        return coscore.compile(text, limits=limits), text
    except coscore.RuleError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"] or exc.diagnostics
        head = shorten(f"{path}: invalid rule (run 'coscore check {path}' for details)", MESSAGE_LIMIT // 2)
        room, problems = MESSAGE_LIMIT - len(head) - 40, []  # 40: "coscore: " and "… and N more"
        for d in errors[:SHOWN_PROBLEMS]:
            block = "\n".join(f"  {line}" for line in str(for_the_command(d, path)).splitlines())
            if len(block) + 1 > room and problems:
                break
            problems.append(shorten(block, room - 1))
            room -= len(problems[-1]) + 1
        if len(errors) > len(problems):
            problems.append(f"  … and {len(errors) - len(problems)} more")
        raise UsageError("\n".join([head, *problems])) from None


def for_the_command(d: Diagnostic, path: str) -> Diagnostic:
    """``d`` as the command shows it: its path and message shortened, a budget named by
    its flag (``--max-rule-atoms``, not ``max_atoms``), and compile's hint for Python callers (pass a
    ``pathlib.Path``) replaced by one for someone who gave another file as RULE."""
    message = d.message
    if _API_HINT.search(message):
        message = _API_HINT.sub("", message) + (f"; {path} is not a rule file (a rule is a JSON object): "
                                                 "give the rule file first, then the data")
    message = _BUDGET.sub(lambda m: _FLAGS.get(m.group(0), m.group(0)), message)
    return dataclasses.replace(d, path=shorten(d.path, PATH_LIMIT), message=shorten(message, LINE_LIMIT))
