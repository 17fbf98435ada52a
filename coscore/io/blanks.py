"""Which columns hold the blanks of each answer, and a chunk's blank columns.

:meth:`AnswerColumns.select` gives the columns of a chunk that hold its answers, as a
list of Arrow arrays (what :func:`coscore.pipeline.tables.from_columns` takes): the blank
columns (Arrow text, taken as they are), or for the layouts that hold each answer as a
list of blanks (JSON Lines ``answers``, the original layout's text split on ``-``) one
column of those lists.
Values that the readers could not give as Arrow text are checked here, one by one, and a
bad one is an :class:`~coscore.io.errors.InputError` naming its line and column.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .arrays import is_text, text_lists
from .errors import InputError
from .legacy import blank_lists, split_blanks
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

    def select(self, chunk: Chunk) -> list[Any]:
        """The answers of every row of ``chunk``, in order, as a list of Arrow arrays: the
        blank columns, or one column of lists of blanks (JSON Lines ``answers``, the
        CoScore layout). Arrow text is taken as it is; other values are checked and
        converted (:class:`InputError` at the first bad one)."""
        import pyarrow as pa

        if self.fmt == "coscore":
            texts = chunk.data.get("text")
            if _is_text_array(texts) and not texts.null_count:
                return [blank_lists(texts)]
            return [_lists_array([split_blanks("" if t is None else t) for t in chunk.pylist("text")])]
        if self.fmt == "jsonl" and not self.blanks:
            many = chunk.data.get("answers")
            if many is not None and text_lists(many):
                return [many]
            one = chunk.data.get("answer")
            if many is None and _is_text_array(one) and not one.null_count:
                return [one]
            return [_lists_array(_jsonl_answers(chunk))]
        for name in self.blanks:
            if name not in chunk.data:
                raise InputError(chunk.source, "no such key in any row so far", column=name, **_first(chunk))
        return [chunk.data[name] if _is_text_array(chunk.data[name])
                else pa.array(_strings(chunk.pylist(name), chunk, name), pa.string()) for name in self.blanks]


def _is_text_array(values: Any) -> bool:
    """An Arrow array of text (or all nulls): its blanks need no check one by one."""
    kind = getattr(values, "type", None)
    return kind is not None and type(values).__module__.startswith("pyarrow") and is_text(kind)


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


def _lists_array(lists: list[list[str]]) -> Any:
    """Answers given as Python lists of blanks as one Arrow column of lists."""
    import pyarrow as pa

    return pa.array(lists, pa.list_(pa.string()))
