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

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .arrays import is_text, text_lists
from .errors import InputError
from .identifiers import CODE_ROWS, kind_of_name, looks_like_codes, looks_like_marks
from .legacy import blank_lists, split_blanks
from .table import MISSING, Chunk

#: Columns never taken as blanks by default.
ID_COLUMN = "id"
#: The prefix of the columns ``coscore score`` adds (never taken as blanks).
RESULT_PREFIX = "coscore_"
#: JSON Lines keys holding the answer: a list of blanks, or one string.
JSONL_KEYS = ("answers", "answer")


class BlanksMisfit(InputError):
    """The columns a table offers as default blanks do not fit what the rule reads (or
    none is left): the table is fine, the blank columns must be named (``--blanks``).
    ``offered`` is how many columns could have been blanks."""

    offered: int = 0


@dataclass(frozen=True)
class AnswerColumns:
    """How to find the answers in a table.

    Attributes:
        fmt: the input format.
        blanks: the blank columns in order (tabular formats, or JSON Lines with
            ``--blanks``); empty for the CoScore layout and default JSON Lines.
        label: the column holding the teacher's mark, or ``None``.
        skipped: the columns left out of the default blanks because they look like
            identifiers or groups, each with why (``("学号", "an identifier")``).
    """

    fmt: str
    blanks: tuple[str, ...]
    label: str | None = None
    skipped: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @classmethod
    def resolve(
        cls, fmt: str, source: str, columns: Sequence[str], blanks: Sequence[str] | None, label: str | None,
        *, need: tuple[int, bool] | None = None, exclude: Sequence[str] = (), sample: Chunk | None = None,
        reader: str = "the rule", required: bool = True, header_at: int | None = None,
        name_them: str = "--blanks COL[,COL...]",
    ) -> AnswerColumns:
        """Check the options against the header and pick the default blank columns.

        The defaults are the columns but ``id``, the label, ``exclude`` and ``coscore_*``
        result columns, and but every column that looks like an identifier or a group
        (:mod:`.identifiers`: by its name, or by the rows of ``sample``, a first chunk).
        With ``need`` — ``(count, any_number)``: how many blanks ``reader`` reads
        (:class:`coscore.expr.reads.BlankNeed`) — they are taken only when they fit it:
        exactly ``count`` columns (at least ``count`` when it reads any number); else an
        :class:`InputError` names the need, the columns and ``--blanks``. Without
        ``need`` and not ``required`` (answers only shown, never scored), no column left is
        no blank. Raises :class:`InputError` for a column that is not there, naming the
        header's line (CSV, TSV) or row (workbooks): ``header_at``, the reader's
        ``header_row`` (default line 1; a workbook's row when given)."""
        header_line: dict[str, Any] = ({"line": header_at or 1} if fmt in ("csv", "tsv", "coscore")
                       else {"row": header_at} if header_at is not None else {})
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
        skipped: tuple[tuple[str, str], ...] = ()
        if blanks:
            for name in blanks:
                if name not in known:
                    raise InputError(
                        source, f"no such column (columns: {_listing(columns)})", column=name, **header_line
                    )
            chosen = tuple(blanks)
        else:
            left = {ID_COLUMN, label, *exclude}
            candidates = [name for name in columns if name not in left and not name.startswith(RESULT_PREFIX)]
            skipped = tuple((name, kind) for name in candidates
                            if (kind := _identifier(name, sample)) is not None)
            chosen = tuple(name for name in candidates if name not in dict(skipped))
            if need is not None and not _fits(need, len(chosen)):
                misfit = BlanksMisfit(source, _misfit(need, chosen, skipped, reader, name_them), **header_line)
                misfit.offered = len(chosen)
                raise misfit
            if not chosen and (required or need is not None):
                raise BlanksMisfit(source, "no column left to take as a blank" + _not_taken(skipped)
                                   + f"; name them with {name_them}", **header_line)
        if label is not None and label in chosen:
            raise InputError(source, "the label column cannot also be a blank", column=label)
        return cls(fmt, chosen, label, skipped)

    def select(self, chunk: Chunk) -> list[Any]:
        """The answers of every row of ``chunk``, in order, as a list of Arrow arrays: the
        blank columns, or one column of lists of blanks (JSON Lines ``answers``, the
        CoScore layout). Arrow text is taken as it is; other values are checked and
        converted (:class:`InputError` at the first bad one)."""
        import pyarrow as pa

        if self.fmt == "coscore":
            texts: Any = chunk.data.get("text")
            if _is_text_array(texts) and not texts.null_count:
                return [blank_lists(texts)]
            return [_lists_array([split_blanks("" if t is None else t) for t in chunk.pylist("text")])]
        if self.fmt == "jsonl" and not self.blanks:
            many = chunk.data.get("answers")
            if many is not None and text_lists(many):
                return [many]
            one: Any = chunk.data.get("answer")
            if many is None and _is_text_array(one) and not one.null_count:
                return [one]
            return [_lists_array(_jsonl_answers(chunk))]
        if not self.blanks:   # answers without blanks
            return [_lists_array([[] for _ in range(len(chunk))])]
        for name in self.blanks:
            if name not in chunk.data:
                raise InputError(chunk.source, "no such key in any row so far", column=name, **_first(chunk))
        return [chunk.data[name] if _is_text_array(chunk.data[name])
                else pa.array(_strings(chunk.pylist(name), chunk, name), pa.string()) for name in self.blanks]


def _identifier(name: str, sample: Chunk | None) -> str | None:
    """Why column ``name`` is no default blank (``"an identifier"``, ``"a group"``), or ``None``."""
    kind = kind_of_name(name)
    if kind is None and sample is not None and name in sample.data and len(sample) >= CODE_ROWS:
        values = sample.data[name]
        if not _is_text_array(values) or values.null_count < len(values):
            kind = "an identifier" if looks_like_codes(sample.pylist(name)) else None
    return kind


def _fits(need: tuple[int, bool], columns: int) -> bool:
    """Whether ``columns`` default blanks fit a rule reading ``need``: exactly its count (at
    least, when it reads any number); any columns when it reads no blank by number (its
    scores cannot depend on them)."""
    count, any_number = need
    if count == 0 and not any_number:
        return True
    return columns >= count if any_number else columns == count


def _misfit(need: tuple[int, bool], chosen: Sequence[str], skipped: Sequence[tuple[str, str]], reader: str,
            name_them: str) -> str:
    """Why the default blank columns are not taken: the need, what the data offers, what to give."""
    count, any_number = need
    reads = f"{count:,} blank{'s' * (count != 1)}" + ("" if count < 2 else f" (T(0)…T({count - 1}))")
    reads = ("at least " if any_number else "") + (reads if count else "no numbered blank")
    offered = f"{len(chosen)} column{'s' * (len(chosen) != 1)} that could be blanks" + \
        (f" ({_listing(chosen)})" if chosen else "")
    marks = [name for name in chosen if looks_like_marks(name)]
    hint = f"; if {marks[0]} holds the teachers' marks, give --label {shlex.quote(marks[0])}" if marks else ""
    return (f"{reader} reads {reads}, but the data has {offered}{_not_taken(skipped)}: name the blank columns, "
            f"in order, with {name_them}{hint}")


def _not_taken(skipped: Sequence[tuple[str, str]]) -> str:
    if not skipped:
        return ""
    return "; not taken: " + ", ".join(f"{name} (looks like {kind})" for name, kind in skipped[:8]) + \
        (", ..." if len(skipped) > 8 else "")


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


def _first(chunk: Chunk) -> dict[str, Any]:
    return chunk.where(0) if len(chunk) else {}


def _listing(columns: Sequence[str]) -> str:
    shown = ", ".join(columns[:12])
    return shown + (", ..." if len(columns) > 12 else "")


def _lists_array(lists: list[list[str]]) -> Any:
    """Answers given as Python lists of blanks as one Arrow column of lists."""
    import pyarrow as pa

    return pa.array(lists, pa.list_(pa.string()))
