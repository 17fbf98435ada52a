"""Load a suite folder: ``suite.yaml``, ``expectations.yaml``, ``rules/`` and ``data/``.

Data files are CSV (a header row; optional ``id`` and ``mark`` columns; every
other column is a blank, in order) or JSONL (objects with ``answers`` — a list
of blanks — or ``answer`` — one blank —, optional ``id`` and ``mark``).  A test
case is named ``<data path without extension>/<id>``; without an id, the
1-based row number zero-padded to 4 digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..io import MISSING, DelimitedReader, InputError, JsonlReader
from .errors import SuiteError
from .registry import Registry, SuiteType, load_registry
from .yamlfile import compose, read_text

SUITE_FILE = "suite.yaml"
REGISTRY_FILE = "expectations.yaml"
_SUITE_TYPES: tuple[SuiteType, ...] = ("pass-fail", "scoring")
_JSONL_KEYS = ("id", "answers", "answer", "mark")


@dataclass(frozen=True)
class Settings:
    """``suite.yaml``: the suite type, the time limit (seconds), the margins and the mark tolerance."""

    type: SuiteType = "pass-fail"
    time_limit: float = 1.0
    ac_margin: float = 2.0
    tle_margin: float = 1.5
    tolerance: float = 0.0


@dataclass(frozen=True)
class Case:
    """One marked (or unmarked) answer: a test case."""

    name: str
    answer: tuple[str, ...]
    mark: float | None


@dataclass(frozen=True)
class Suite:
    """A loaded suite, ready to run."""

    root: Path
    settings: Settings
    registry: Registry
    cases: tuple[Case, ...]
    rules: tuple[tuple[str, Path], ...]


def load_suite(path: str | Path) -> Suite:
    """Load and validate the suite at ``path``; raise :class:`SuiteError` if it is malformed."""
    root = Path(path)
    if not root.is_dir():
        raise SuiteError(str(path), "", "not a suite folder")
    settings = load_settings(root / SUITE_FILE)
    registry_path = root / REGISTRY_FILE
    if not registry_path.is_file():
        raise SuiteError(REGISTRY_FILE, "", "missing (the registry of expectations)")
    registry = load_registry(registry_path, settings.type, file=REGISTRY_FILE)
    return Suite(root, settings, registry, load_cases(root / "data"), find_rules(root / "rules"))


def load_settings(path: Path) -> Settings:
    """Read ``suite.yaml`` (every key optional; a missing file means the defaults)."""
    if not path.exists():
        return Settings()
    values = _yaml_mapping(path, SUITE_FILE)
    known = Settings.__dataclass_fields__
    kwargs: dict[str, Any] = {}
    for key, (value, line) in values.items():
        if key not in known:
            raise SuiteError(SUITE_FILE, key, f"unknown key; allowed: {', '.join(known)}", line)
        kwargs[key] = _setting(key, value, line)
    return Settings(**kwargs)


def load_cases(data: Path) -> tuple[Case, ...]:
    """Every answer row of ``data/**.csv|jsonl``, sorted by test case name."""
    if not data.is_dir():
        raise SuiteError("data/", "", "missing (put marked answers in data/**.csv or data/**.jsonl)")
    files = sorted(p for p in data.rglob("*") if p.is_file() and p.suffix in (".csv", ".jsonl"))
    if not files:
        raise SuiteError("data/", "", "has no .csv or .jsonl files")
    cases: dict[str, Case] = {}
    for file in files:
        rel = file.relative_to(data.parent).as_posix()
        stem = file.relative_to(data).with_suffix("").as_posix()
        rows = _csv_rows(file, rel) if file.suffix == ".csv" else _jsonl_rows(file, rel)
        for number, (row_id, answer, mark, line) in enumerate(rows, start=1):
            name = f"{stem}/{row_id if row_id is not None else f'{number:04d}'}"
            if name in cases:
                raise SuiteError(rel, "id", f"test case {name} appears twice", line)
            cases[name] = Case(name, answer, mark)
    return tuple(sorted(cases.values(), key=lambda c: c.name))


def find_rules(rules: Path) -> tuple[tuple[str, Path], ...]:
    """``(name, path)`` of every ``rules/**.json``, the name being the path below ``rules/``."""
    if not rules.is_dir():
        raise SuiteError("rules/", "", "missing (put rules in rules/**.json)")
    found = sorted((p.relative_to(rules).as_posix(), p) for p in rules.rglob("*.json") if p.is_file())
    if not found:
        raise SuiteError("rules/", "", "has no .json rules")
    return tuple(found)


# -- suite.yaml -------------------------------------------------------------------


def _yaml_mapping(path: Path, file: str) -> dict[str, tuple[Any, int]]:
    """A flat YAML mapping as ``{key: (value, line)}``."""
    node = compose(read_text(path, file), file)
    if node is None:
        return {}
    if not isinstance(node, yaml.MappingNode):
        raise SuiteError(file, "", "must be a mapping", node.start_mark.line + 1)
    constructor = yaml.SafeLoader("")
    out: dict[str, tuple[Any, int]] = {}
    for key_node, value_node in node.value:
        key = str(constructor.construct_object(key_node, deep=True))
        line = key_node.start_mark.line + 1
        if key in out:
            raise SuiteError(file, key, "duplicate key", line)
        out[key] = (constructor.construct_object(value_node, deep=True), line)
    return out


def _setting(key: str, value: Any, line: int) -> Any:
    if key == "type":
        if value not in _SUITE_TYPES:
            raise SuiteError(SUITE_FILE, key, f"must be one of {', '.join(_SUITE_TYPES)}, not {value!r}", line)
        return value
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    low, strict = {"time_limit": (0.0, True), "tolerance": (0.0, False)}.get(key, (1.0, True))
    if not number or value < low or (strict and value == low):
        raise SuiteError(SUITE_FILE, key, f"must be a number {'>' if strict else '>='} {low:g}, not {value!r}", line)
    return float(value)


# -- data files -------------------------------------------------------------------

_Row = tuple[str | None, tuple[str, ...], float | None, int]


def _csv_rows(path: Path, rel: str) -> list[_Row]:
    rows: list[_Row] = []
    try:
        reader = DelimitedReader(path, "csv", chunk_size=1)  # one row at a time: an error names its row
    except InputError as exc:
        problem = "empty (a CSV needs a header row)" if "empty" in exc.problem else exc.problem
        raise SuiteError(rel, exc.column or "", problem, exc.line) from None
    try:
        header = reader.columns
        blanks = [column for column in header if column not in ("id", "mark")]
        if not blanks:
            raise SuiteError(rel, "", "no answer column (every column other than id and mark is a blank)", 1)
        for chunk in reader.chunks():
            for i in range(len(chunk)):
                line = chunk.lines[i]
                row_id = None if "id" not in header else _id(chunk.data["id"][i], rel, line)
                mark = None if "mark" not in header else _mark(chunk.data["mark"][i], rel, line)
                rows.append((row_id, tuple(chunk.data[column][i] for column in blanks), mark, line))
    except InputError as exc:
        key = exc.column or (f"row {len(rows) + 1}" if "fields" in exc.problem else "")
        raise SuiteError(rel, key, exc.problem, exc.line) from None
    finally:
        reader.close()
    return rows


def _jsonl_rows(path: Path, rel: str) -> list[_Row]:
    rows: list[_Row] = []
    try:
        reader = JsonlReader(path)
        try:
            for chunk in reader.chunks():
                columns = {key: chunk.pylist(key) for key in chunk.columns}
                for i in range(len(chunk)):
                    obj = {key: values[i] for key, values in columns.items() if values[i] is not MISSING}
                    rows.append(_jsonl_row(obj, rel, chunk.lines[i]))
        finally:
            reader.close()
    except InputError as exc:
        raise SuiteError(rel, exc.column or "", exc.problem, exc.line) from None
    return rows


def _jsonl_row(obj: dict[str, Any], rel: str, line: int) -> _Row:
    for key in obj:
        if key not in _JSONL_KEYS:
            raise SuiteError(rel, key, f"unknown key; allowed: {', '.join(_JSONL_KEYS)}", line)
    if ("answers" in obj) == ("answer" in obj):
        raise SuiteError(rel, "answers", "give exactly one of answers (a list of blanks) and answer (one blank)", line)
    answer = obj["answers"] if "answers" in obj else [obj["answer"]]
    if not isinstance(answer, list) or not answer or not all(isinstance(b, str) for b in answer):
        key = "answers" if "answers" in obj else "answer"
        raise SuiteError(rel, key, "blanks must be strings (answers: a non-empty list of them)", line)
    row_id = obj.get("id")
    if row_id is not None and (isinstance(row_id, bool) or not isinstance(row_id, (str, int))):
        raise SuiteError(rel, "id", "must be a string or an integer", line)
    mark = obj.get("mark")
    if mark is not None and (isinstance(mark, bool) or not isinstance(mark, (int, float))):
        raise SuiteError(rel, "mark", f"must be a number or null, not {mark!r}", line)
    return (None if row_id is None else _id(str(row_id), rel, line), tuple(answer),
            None if mark is None else float(mark), line)


def _id(text: str, rel: str, line: int) -> str:
    if not text or text.startswith("/") or text.endswith("/") or "//" in text:
        raise SuiteError(rel, "id", f"bad test case id {text!r}", line)
    return text


def _mark(text: str, rel: str, line: int) -> float | None:
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise SuiteError(rel, "mark", f"not a number: {text!r}", line) from None
    if not math.isfinite(value):
        raise SuiteError(rel, "mark", f"not a finite number: {text!r}", line)
    return value
