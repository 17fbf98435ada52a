"""Reading and compiling the rule file a ``coscore`` subcommand is given, with one clear
message for a missing file, text that is not UTF-8, or an invalid rule — worded for the
command: files and flags, not the Python API, and shortened."""
from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from ..diagnostics import MESSAGE_LIMIT, Diagnostic, shorten
from ..io import InputError, format_of, open_file
from ..limits import Limits
from .errors import RUNNING, UsageError

#: The most problems of an invalid rule that ``score``, ``explain``, ``report`` and
#: ``compare`` list (``coscore check`` lists them all).
SHOWN_PROBLEMS = 5
#: The longest path and message of one problem as the command shows it.
PATH_LIMIT, LINE_LIMIT = 200, 600

# compile's hint for a caller who passed the text of something else: for the Python API
_API_HINT = re.compile(r"\s*\([^()]*pathlib[^()]*\)$")
_BUDGET = re.compile(r"\bmax_[a-z_]+\b")
_FLAGS = {f.name: f.metadata["flag"] for f in dataclasses.fields(Limits)}


#: What a file of answers is, by its format (:func:`coscore.io.format_of`), when it was given as a rule.
_DATA_KINDS = {"csv": "a CSV file", "tsv": "a TSV file", "jsonl": "a JSON Lines file", "parquet": "a Parquet file",
               "xlsx": "an Excel workbook", "xls": "an Excel workbook", "ods": "an OpenDocument spreadsheet"}
#: The first bytes of binary data files: no rule (JSON text) starts so.
_MAGIC = ((b"PK\x03\x04", "a zip file such as an Excel workbook"), (b"PAR1", "a Parquet file"),
          (b"\xd0\xcf\x11\xe0", "an Office file such as an Excel workbook"))
#: How each subcommand that takes a rule is called, for the message that the rule comes first.
_CALLED = {
    "score": "give the rule file first, then the data: coscore score RULE DATA",
    "check": "give the rule file first: coscore check RULE --data DATA",
    "explain": "give the rule file first, then the answers or the data: coscore explain RULE DATA --row N",
    "tune": "give the rule file first, then the data: coscore tune RULE DATA --label COL",
    "suggest": "give the rule file first, then the data: coscore suggest RULE DATA --label COL",
    "report": "--rule takes the rule that scored SCORED: coscore report SCORED --label COL --rule RULE",
    "compare": "a SCORER is a rule file or a column of DATA, and DATA comes first: "
               "coscore compare DATA --label COL SCORER...",
}


def read_rule_text(path: str) -> str:
    """The text of a rule file, with clear errors for a missing file or invalid UTF-8, and
    for a data file given as the rule (whatever its format or encoding: the arguments
    were swapped, :func:`not_a_rule`)."""
    with open_file(path) as f:
        raw = f.read()
    kind = data_kind(path, raw)
    if kind is not None:
        raise not_a_rule(path, kind)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        swapped = named_as_data(path)
        if swapped is not None:
            raise swapped from None
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8; a rule file must be UTF-8 encoded", line=line) from None


def _data_format(path: str) -> str | None:
    """The data format ``path``'s extension names (``csv``, ``xlsx``…), or ``None``."""
    try:
        return format_of(path)
    except ValueError:
        return None


def named_as_data(path: str) -> UsageError | None:
    """For a rule file that could not be read as a rule: the message that the rule comes
    first when its extension names a data format (``.csv``, ``.jsonl``…), else ``None``."""
    data_format = _data_format(path)
    return not_a_rule(path, _DATA_KINDS[data_format]) if data_format is not None else None


def data_kind(path: str, raw: bytes) -> str | None:
    """What the file at ``path`` (its bytes ``raw``) is when it cannot be a rule but is
    data, e.g. ``"a CSV file"``; ``None`` when it may be a rule (then reading it as one says
    what is wrong). A rule is a JSON object: its text starts with ``{``. Data is told by its
    first bytes (a zip such as ``.xlsx``, Parquet, an ``.xls``), or by a data extension
    (``.csv``, ``.tsv``, ``.jsonl``, ``.parquet``, ``.xlsx``…) or any but ``.json`` on a file
    that does not start with ``{`` or ``[``, in any encoding (a GBK CSV is text that is
    not UTF-8). A ``.json`` file, an empty file and UTF-16 text keep the messages of
    reading them as a rule (invalid JSON, invalid UTF-8)."""
    binary = next((kind for magic, kind in _MAGIC if raw.startswith(magic)), None)
    head = raw.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n\x0c")
    if binary is None and (not head or head[:1] in (b"{", b"[") or raw.startswith((b"\xff\xfe", b"\xfe\xff"))):
        return None
    data_format = _data_format(path)
    if data_format is not None:
        return _DATA_KINDS[data_format]
    if binary is not None:
        return binary
    if os.path.splitext(path)[1].lower() == ".json":
        return None
    try:
        head[:4096].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 4093:  # not a character cut at the end of the sample
            return "text in an encoding other than UTF-8, such as a table saved as GBK"
    return "text that is not JSON, such as a table"


def not_a_rule(path: str, kind: str) -> UsageError:
    """The one line for a data file given where a rule is wanted: that the rule file comes
    first, in the words of the subcommand running (``coscore score RULE DATA``)."""
    running = RUNNING.get()
    command, args = running if running is not None else ("", None)
    given = args is not None and path in (getattr(args, "rule", None), *(getattr(args, "scorers", None) or ()))
    advice = _CALLED.get(command) if given else None
    shown = shorten(path, PATH_LIMIT)
    return UsageError(f"{shown} is not a rule file but {kind} (a rule is a JSON object)"
                      + (f": {advice}" if advice else ""))


def load_rule(path: str, limits: Any = None) -> tuple[Any, str]:
    """Compile the rule file at ``path`` (with ``limits``: a :class:`coscore.Limits`);
    a bad rule is a :class:`UsageError` listing its first problems (at most
    :data:`SHOWN_PROBLEMS`, in :data:`~coscore.diagnostics.MESSAGE_LIMIT` characters)."""
    import coscore

    text = read_rule_text(path)
    try:
        return coscore.compile(text, limits=limits), text
    except coscore.RuleError as exc:
        swapped = named_as_data(path)
        if swapped is not None:  # JSON Lines, or a .csv holding JSON: not a rule either
            raise swapped from None
        errors = [d for d in exc.diagnostics if d.severity == "error"] or exc.diagnostics
        head = shorten(f"{path}: invalid rule (run 'coscore check {path}' for details)", MESSAGE_LIMIT // 2)
        room = MESSAGE_LIMIT - len(head) - 40  # 40: "coscore: " and "… and N more"
        problems: list[str] = []
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
