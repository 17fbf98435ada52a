"""Datasets from files, for ``coscore workbench``: a data file looked at (:func:`preview`),
imported with a column mapping (:func:`import_file`), and read back for scoring
(:class:`ViewFile`, :class:`FileSource`).

A file is read as ``coscore report`` reads it — :func:`coscore.io.open_reader` (CSV, TSV,
JSON Lines, Parquet, ``.xlsx``…; encodings, sheets, header rows below a title row, cell
limits) and :func:`coscore.labelled.read_table` (blank columns by
:meth:`coscore.io.AnswerColumns.resolve`: the same defaults and refusals, never an
identifier or a group as a blank) — with ``--missing-marks skip``: a mark that is empty or
not a number (缺考) leaves its row out of the agreement and is counted; a mark that is not
finite or lies outside 0–10 refuses the file, naming its cell. The mapping names the blank
columns (in order), the teacher's marks (``label``), a second rater's (``label2``), a
group column and the id column.

What is imported is written as an Arrow IPC file (a *view*: the blanks, ``__mark``,
``__mark2``, ``__group``, ``__id``; what was left out in its metadata), which workers and
the server memory-map: scoring a million answers reads nothing twice. Reading and
importing run in worker processes, under the pool's budgets.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..http.responses import ApiError
from ..io import AnswerColumns, InputError, format_of, id_column, kind_of_name, looks_like_marks, open_reader
from .analysis import Answers, distinct_answers

__all__ = [
    "EXTENSIONS",
    "MAPPING_KEYS",
    "PAGE_BLANKS",
    "PREVIEW_ROWS",
    "FileRequest",
    "FileSource",
    "ViewFile",
    "import_file",
    "preview",
    "view_name",
    "write_view",
]

#: How the page's refusals say to name the blank columns.
PAGE_BLANKS = "the Blanks list of the column mapping"
#: Rows of a file shown before it is imported.
PREVIEW_ROWS = 10
#: The keys of a column mapping.
MAPPING_KEYS = ("blanks", "label", "label2", "group", "id")
#: The file extensions an upload may have (the formats of ``coscore score``'s readers).
EXTENSIONS = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".parquet", ".pq", ".xlsx", ".xls", ".ods")
_MARK, _MARK2, _GROUP, _ID = "__mark", "__mark2", "__group", "__id"
_READING = ("encoding", "sheet", "header_row", "max_cell_chars")
#: The file beside a view holding its distinct answers (:func:`.analysis.distinct_answers`).
_DISTINCT = ".distinct.npz"


@dataclass(frozen=True)
class FileRequest:
    """A data file to read: its ``path``, the name it was given (``shown``, for messages),
    its format (``None``: from the name) and the reading options (``encoding``, ``sheet``,
    ``header_row``, ``max_cell_chars``); ``name_them``: how a refusal says to name the blank
    columns (the page's mapping, or the command's ``--blanks``)."""

    path: str
    shown: str
    fmt: str | None = None
    reading: dict[str, Any] = field(default_factory=dict)
    name_them: str = PAGE_BLANKS

    def format(self) -> str:
        try:
            return self.fmt or format_of(self.shown)
        except ValueError as exc:
            raise ApiError(400, f"{self.shown}: {exc}") from None

    def options(self, notes: list[str]) -> dict[str, Any]:
        """The reading options for :func:`coscore.io.open_reader`, what they chose told to ``notes``."""
        chosen = {k: v for k, v in self.reading.items() if k in _READING and v not in (None, "")}
        return {**chosen, "on_header": lambda source, what: notes.append(what),
                "on_encoding": lambda source, what: notes.append(f"read as {what}")}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)[:200]


def _input_error(exc: InputError, shown: str) -> ApiError:
    return ApiError(422, str(exc).replace(exc.source, shown, 1) if exc.source else str(exc))


def default_mapping(fmt: str, source: str, columns: Sequence[str], sample: Any, need: tuple[int, bool] | None,
                    header_at: int | None) -> tuple[dict[str, Any], list[list[str]], str | None]:
    """The mapping the page proposes: the first column named like marks as the label, the
    first group-like column as the group, the id column the command takes, and the blanks
    :meth:`coscore.io.AnswerColumns.resolve` takes by default (``need``: what the rule
    reads); with the columns left out of the blanks and why, and the refusal when the
    defaults do not fit (then no blank is proposed)."""
    label = next((c for c in columns if looks_like_marks(c)), None)
    group = next((c for c in columns if kind_of_name(c) == "a group"), None)
    ident = id_column(columns)
    mapping: dict[str, Any] = {"blanks": [], "label": label, "label2": None, "group": group, "id": ident}
    try:
        how = AnswerColumns.resolve(fmt, source, list(columns), None, label, need=need, sample=sample,
                                    exclude=[c for c in (group, ident) if c], required=False, header_at=header_at,
                                    name_them=PAGE_BLANKS)
    except InputError as exc:
        return mapping, [], exc.problem
    mapping["blanks"] = list(how.blanks)
    return mapping, [list(s) for s in how.skipped], None


def preview(request: FileRequest, need: tuple[int, bool] | None = None) -> dict[str, Any]:
    """The file's columns, its first :data:`PREVIEW_ROWS` rows (as text), where its header
    is, and the mapping proposed (:func:`default_mapping`)."""
    notes: list[str] = []
    fmt = request.format()
    try:
        with open_reader(request.path, fmt, 1000, **request.options(notes)) as reader:
            columns = list(reader.columns)
            first = next(iter(reader.chunks()), None)
            header_at = getattr(reader, "header_row", None)
            rows = []
            if first is not None:
                values = {c: first.pylist(c)[:PREVIEW_ROWS] for c in first.columns}
                rows = [[_cell(values[c][i]) if c in values and i < len(values[c]) else "" for c in columns]
                        for i in range(min(PREVIEW_ROWS, len(first)))]
            mapping, skipped, problem = default_mapping(fmt, reader.source, columns, first, need, header_at)
    except InputError as exc:
        raise _input_error(exc, request.shown) from None
    return {"file": request.shown, "format": fmt, "columns": columns, "rows": rows, "header_row": header_at,
            "notes": notes, "mapping": mapping, "skipped": skipped, "problem": problem}


def view_name(key: str, mapping: dict[str, Any]) -> str:
    """The file name of a dataset's view with ``mapping``."""
    text = json.dumps({k: mapping.get(k) for k in MAPPING_KEYS}, sort_keys=True, ensure_ascii=False)
    return f"{key}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.arrow"


def _texts(values: Any, n: int) -> Any:
    import pyarrow as pa

    out = [None if v is None or (isinstance(v, float) and math.isnan(v)) else _cell(v) for v in values]
    return pa.array(out if out else [None] * n, pa.string())


def write_view(table: Any, mapping: dict[str, Any], path: str) -> dict[str, Any]:
    """Write what :func:`coscore.labelled.read_table` read (``table``) with ``mapping`` as a
    view at ``path``; its summary (``rows``, what was left out of each mark column)."""
    import pyarrow as pa

    from ..marks import left_out, mark_column

    n = len(table)
    blanks = table.blanks if table.blanks is not None else pa.table({"answers": pa.array([[]] * n,
                                                                                         pa.list_(pa.string()))})
    arrays = {name: blanks.column(name) for name in blanks.column_names}
    meta: dict[str, Any] = {"rows": n, "blanks": blanks.column_names, "mapping": mapping, "left_out": None,
                            "left_out2": None, "source": table.source}
    if mapping.get("label"):
        arrays[_MARK] = pa.array(table.marks, pa.float64())
        meta["left_out"] = left_out(table, mapping["label"]).to_dict()
    if mapping.get("label2"):
        second = mark_column(table, mapping["label2"], "skip", "second mark")
        arrays[_MARK2] = pa.array(second, pa.float64())
        meta["left_out2"] = left_out(table, mapping["label2"], second, "second mark").to_dict()
    if mapping.get("group"):
        arrays[_GROUP] = _texts(list(table.columns[mapping["group"]]), n)
    if table.id_column is not None and table.id_column in table.columns:   # else a row is named by its number
        arrays[_ID] = _texts(list(table.columns[table.id_column]), n)
    out = pa.table(arrays).replace_schema_metadata({"coscore.workbench": json.dumps(meta, ensure_ascii=False)})
    first, counts, means = distinct_answers(blanks, table.marks if mapping.get("label") else None)
    with open(path + _DISTINCT + ".part", "wb") as handle:   # what no rule changes, found once
        np.savez(handle, first=first, counts=counts, means=means)
    os.replace(path + _DISTINCT + ".part", path + _DISTINCT)
    partial = path + ".part"
    with pa.OSFile(partial, "wb") as sink, pa.ipc.new_file(sink, out.schema) as writer:
        writer.write_table(out, max_chunksize=1 << 16)
    os.replace(partial, path)
    return meta


def _checked_mapping(mapping: Any, columns: Sequence[str]) -> dict[str, Any]:
    """The mapping of a request, its names checked against the file's ``columns`` (400 naming one missing)."""
    if not isinstance(mapping, dict):
        raise ApiError(400, "'columns' must be an object: blanks, label, label2, group, id")
    out: dict[str, Any] = {}
    blanks = mapping.get("blanks") or []
    if not isinstance(blanks, list) or not all(isinstance(b, str) for b in blanks):
        raise ApiError(400, "'blanks' must be a list of column names, in order")
    out["blanks"] = blanks
    for key in MAPPING_KEYS[1:]:
        value = mapping.get(key) or None
        if value is not None and not isinstance(value, str):
            raise ApiError(400, f"{key!r} must be a column name or null")
        out[key] = value
    shown = ", ".join(columns[:20])
    for key in MAPPING_KEYS:
        for name in (out[key] if key == "blanks" else [out[key]] if out[key] else []):
            if name not in columns:
                raise ApiError(422, f"no column {name!r} in the file (the {key} column; columns: {shown})")
    taken = [n for k in MAPPING_KEYS[1:] for n in [out[k]] if n]
    clash = next((b for b in out["blanks"] if b in taken), None)
    if clash is not None:
        raise ApiError(422, f"the column {clash!r} cannot be a blank and a mark, group or id column at once")
    return out


def import_file(request: FileRequest, mapping: Any, view_path: str, need: tuple[int, bool] | None = None
                ) -> dict[str, Any]:
    """Read the whole file with ``mapping`` (no blanks: the default ones, which must fit
    ``need``) and write its view at ``view_path``: ``{"rows", "columns" (the mapping as
    taken), "left_out", "left_out2", "notes"}``. 422 for a refusal, naming the place."""
    from ..labelled import read_table

    notes: list[str] = []
    fmt = request.format()
    try:
        with open_reader(request.path, fmt, 1000, **{**request.options([]), "on_header": None,
                                                     "on_encoding": None}) as reader:
            columns = list(reader.columns)
            first = next(iter(reader.chunks()), None)
            header_at = getattr(reader, "header_row", None)
            source = reader.source
        chosen = _checked_mapping(mapping, columns)
        if not chosen["blanks"]:   # the command's defaults, which must fit what the rule reads
            extra = [c for c in (chosen["label2"], chosen["group"], chosen["id"]) if c]
            how = AnswerColumns.resolve(fmt, source, columns, None, chosen["label"], need=need, sample=first,
                                        exclude=extra, required=True, header_at=header_at,
                                        name_them=request.name_them)
            chosen["blanks"] = list(how.blanks)
        table = read_table(request.path, fmt, chosen["blanks"], chosen["label"],
                           [c for c in (chosen["label2"], chosen["group"]) if c], id_column=chosen["id"],
                           missing_marks="skip", **request.options(notes))
        meta = write_view(table, chosen, view_path)
    except InputError as exc:
        raise _input_error(exc, request.shown) from None
    return {"rows": meta["rows"], "columns": chosen, "left_out": meta["left_out"], "left_out2": meta["left_out2"],
            "notes": notes, "format": fmt}


def _open_view(path: str) -> Any:
    import pyarrow as pa

    try:
        return pa.ipc.open_file(pa.memory_map(path, "r")).read_all()
    except (OSError, pa.ArrowInvalid) as exc:
        raise ApiError(409, f"the dataset's stored answers cannot be read ({exc}); import the file again") from None


def _meta(table: Any) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((table.schema.metadata or {}).get(b"coscore.workbench", b"{}"))
    return found


@dataclass(frozen=True)
class ViewFile:
    """A dataset's view (its path): what a worker scores."""

    path: str

    def load(self) -> Answers:
        from ..report import agreement

        table = _open_view(self.path)
        meta = _meta(table)
        blanks = table.select(meta.get("blanks") or [])
        marks = table.column(_MARK).to_numpy() if _MARK in table.column_names else None
        extra: dict[str, Any] = {"columns": meta.get("mapping")}
        if marks is not None and _MARK2 in table.column_names:
            second = table.column(_MARK2).to_numpy()
            a = agreement(marks, second)
            extra["second_rater"] = {"n": a.n, "qwk": _finite(a.qwk), "exact_agreement": _finite(a.exact_agreement),
                                     "left_out": meta.get("left_out2")}
        if _GROUP in table.column_names:
            extra["groups"] = len(table.column(_GROUP).unique())
        distinct = None
        try:
            with np.load(self.path + _DISTINCT) as kept:
                distinct = (kept["first"], kept["counts"], kept["means"])
        except (OSError, KeyError, ValueError):   # not there (an older view): counted again
            pass
        return Answers(blanks, marks, meta.get("left_out"), extra, distinct)


def _finite(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


class FileSource:
    """A dataset of the workbench's store, by name and view file."""

    def __init__(self, name: str, path: str, stamp: Any):
        self.name = name
        self.path = path
        self.key = ("file", name, os.path.basename(path), stamp)
        self._table: Any = None

    def payload(self) -> ViewFile:
        return ViewFile(self.path)

    def answers_of(self, rows: Sequence[int]) -> list[list[str]]:
        import pyarrow as pa

        if self._table is None:
            self._table = _open_view(self.path)
        meta = _meta(self._table)
        names = meta.get("blanks") or []
        picked = self._table.select(names).take(pa.array(list(rows), pa.int64()))
        if names == ["answers"]:
            return [list(a or []) for a in picked.column(0).to_pylist()]
        columns = [picked.column(n).to_pylist() for n in names]
        return [["" if c[j] is None else c[j] for c in columns] for j in range(picked.num_rows)]

    def ids_of(self, rows: Sequence[int]) -> list[str]:
        import pyarrow as pa

        if self._table is None:
            self._table = _open_view(self.path)
        if _ID not in self._table.column_names:
            return [str(i + 1) for i in rows]
        ids: list[str] = self._table.column(_ID).take(pa.array(list(rows), pa.int64())).to_pylist()
        return ids
