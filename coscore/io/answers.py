"""Which columns hold the blanks of each answer, and the answers of a chunk."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..columns import answers_from_columns
from .errors import InputError
from .legacy import blank_lists, split_blanks
from .listed import blank_groups
from .table import MISSING, Chunk

#: Columns never taken as blanks by default.
ID_COLUMN = "id"
#: JSON Lines keys holding the answer: a list of blanks, or one string.
JSONL_KEYS = ("answers", "answer")


@dataclass(frozen=True)
class AnswerColumns:
    """How to find the answers in a table.

    Attributes:
        fmt: the input format.
        blanks: the blank columns in order (tabular formats, or JSON Lines with
            ``--blanks``); empty for the CoScore layout and default JSON Lines.
        label: the column holding the teacher's mark, or ``None``.
    """

    fmt: str
    blanks: tuple[str, ...]
    label: str | None = None

    @classmethod
    def resolve(
        cls, fmt: str, source: str, columns: Sequence[str], blanks: Sequence[str] | None, label: str | None
    ) -> "AnswerColumns":
        """Check the options against the header and pick the default blank columns:
        every column except ``id`` and the label. Raises :class:`InputError`."""
        header_line = {"line": 1} if fmt in ("csv", "tsv", "coscore") else {}
        if fmt == "coscore":
            if blanks:
                raise InputError(source, "--blanks does not apply to the CoScore layout (its blanks are split on '-')")
            if label not in (None, "score"):
                raise InputError(source, "the CoScore layout's mark column is 'score'", column=label)
            return cls(fmt, (), "score" if "score" in columns else None)
        known = set(columns)
        if label is not None and label not in known and fmt != "jsonl":
            raise InputError(source, f"no such column (columns: {_listing(columns)})", column=label, **header_line)
        if fmt == "jsonl":
            return cls(fmt, tuple(blanks or ()), label)
        if blanks:
            for name in blanks:
                if name not in known:
                    raise InputError(
                        source, f"no such column (columns: {_listing(columns)})", column=name, **header_line
                    )
            chosen = tuple(blanks)
        else:
            chosen = tuple(name for name in columns if name not in (ID_COLUMN, label))
            if not chosen:
                raise InputError(source, "no column left to take as a blank; name them with --blanks", **header_line)
        if label is not None and label in chosen:
            raise InputError(source, "the label column cannot also be a blank", column=label)
        return cls(fmt, chosen, label)

    def arrays(self, chunk: Chunk) -> list[Any] | None:
        """The blank columns of ``chunk`` as they are when every one is an Arrow text
        array (what :meth:`coscore.Rule.score_many` scores without a Python object per
        row), else ``None``."""
        if self.fmt == "jsonl" and not self.blanks and chunk.data.get("answers") is None:
            one = chunk.data.get("answer")
            return [one] if one is not None and _is_text_array(one) and not one.null_count else None
        if self.fmt in ("jsonl", "coscore") and not self.blanks:   # lists of blanks, all as many
            lists = self._lists(chunk)
            groups = blank_groups(lists, alike=True) if lists is not None else None
            return groups[0][1] if groups is not None else None
        if not self.blanks or any(name not in chunk.data for name in self.blanks):
            return None
        arrays = [chunk.data[name] for name in self.blanks]
        return arrays if all(_is_text_array(a) for a in arrays) else None

    def groups(self, chunk: Chunk) -> list[tuple[np.ndarray, list[Any]]] | None:
        """When the answers of ``chunk`` are lists of blanks as Arrow text (JSON Lines
        ``answers``, the CoScore layout): its rows grouped by their number of blanks,
        each group's rows and blank columns (one group when all have as many; see
        :func:`~coscore.io.listed.blank_groups`); else ``None``."""
        lists = self._lists(chunk)
        return blank_groups(lists) if lists is not None else None

    def _lists(self, chunk: Chunk) -> Any:
        """Each row's blanks as one Arrow list array (JSON Lines ``answers``, the CoScore
        layout's text split on ``-``), or ``None`` for other layouts and other values."""
        if self.fmt == "jsonl" and not self.blanks:
            many = chunk.data.get("answers")
            return many if many is not None and hasattr(many, "offsets") else None
        if self.fmt == "coscore":
            texts = chunk.data.get("text")
            return blank_lists(texts) if _is_text_array(texts) and not texts.null_count else None
        return None

    def answers(self, chunk: Chunk) -> list[Any]:
        """The answers of every row of ``chunk``, in order: lists of blanks, or (when
        the blank columns are Arrow text arrays) each one-blank answer's text and each
        other answer's tuple of blanks, converted column by column."""
        if self.fmt == "coscore":
            return [split_blanks(text) for text in chunk.pylist("text")]
        if self.fmt == "jsonl" and not self.blanks:
            return _jsonl_answers(chunk)
        for name in self.blanks:
            if name not in chunk.data:
                raise InputError(chunk.source, "no such key in any row so far", column=name, **_first(chunk))
        arrays = [chunk.data[name] for name in self.blanks]
        if arrays and all(_is_text_array(a) for a in arrays):
            return answers_from_columns(arrays)
        columns = []
        for name in self.blanks:
            values = chunk.pylist(name)
            columns.append(_strings(values, chunk, name))
        if len(columns) == 1:
            return [[value] for value in columns[0]]
        return list(map(list, zip(*columns))) if columns else [[] for _ in range(len(chunk))]


def _is_text_array(values: Any) -> bool:
    """An Arrow array of text (or all nulls): its blanks need no check one by one."""
    kind = getattr(values, "type", None)
    if kind is None or not type(values).__module__.startswith("pyarrow"):
        return False
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)


def _strings(values: list[object], chunk: Chunk, name: str) -> list[str]:
    """The blank values as str: ``None`` (JSON ``null``, a Parquet null) is an empty blank."""
    if all(type(v) is str for v in values):
        return values  # type: ignore[return-value]
    out = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            out.append(v)
        elif v is None:
            out.append("")
        elif v is MISSING:
            raise InputError(chunk.source, "the row has no such key", column=name, **chunk.where(i))
        else:
            raise InputError(
                chunk.source, f"a blank must be a string, got {type(v).__name__} {v!r}", column=name, **chunk.where(i)
            )
    return out


def _jsonl_answers(chunk: Chunk) -> list[list[str]]:
    """``answers`` (a list of strings) or ``answer`` (a string) of each JSON Lines row."""
    many = chunk.pylist("answers") if "answers" in chunk.data else None
    one = chunk.pylist("answer") if "answer" in chunk.data else None
    out: list[list[str]] = []
    for i in range(len(chunk)):
        listed = many[i] if many is not None else MISSING
        single = one[i] if one is not None else MISSING
        if listed is not MISSING:
            if not isinstance(listed, list) or not all(isinstance(b, str) or b is None for b in listed):
                raise InputError(chunk.source, "must be a list of strings", column="answers", **chunk.where(i))
            out.append(["" if b is None else b for b in listed])
        elif single is not MISSING:
            if not isinstance(single, str):
                raise InputError(chunk.source, "must be a string", column="answer", **chunk.where(i))
            out.append([single])
        else:
            raise InputError(
                chunk.source, "the row has neither 'answers' (a list of blanks) nor 'answer' (a string)",
                **chunk.where(i),
            )
    return out


def _first(chunk: Chunk) -> dict[str, int]:
    return chunk.where(0) if len(chunk) else {}


def _listing(columns: Sequence[str]) -> str:
    shown = ", ".join(columns[:12])
    return shown + (", ..." if len(columns) > 12 else "")
