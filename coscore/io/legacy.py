"""The original CoScore dataset layout.

A header line ``text`` or ``text,score``, then one answer per line: the answer is the
text before the first comma (no CSV quoting: quotes are part of the answer), its
blanks are separated by ``-``, and in the labelled layout the last comma-separated
field is the teacher's mark. Read as the columns ``text`` (and ``score``), both str,
as Arrow arrays: each chunk's lines are cut out of the file's bytes at once.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._text import DecodedLines, LineTooLong, TextFileReader, open_file
from .cell_limit import check_chunk, limit_of, line_cap, over_limit
from .encodings import Announce, decoded
from .errors import InputError
from .line_blocks import LineBlock, LineBlocks
from .table import CHUNK_SIZE, Chunk

#: The character that separates the blanks of one answer in ``text``.
BLANK_SEPARATOR = "-"
#: The column holding the teacher's mark in the labelled layout.
LABEL_COLUMN = "score"


def split_blanks(text: str) -> list[str]:
    """The blanks of one answer in the original layout (``"a-b"`` -> ``["a", "b"]``)."""
    return text.split(BLANK_SEPARATOR)


def blank_lists(texts: Any) -> Any:
    """:func:`split_blanks` of every value of an Arrow string array, as a list array."""
    import pyarrow.compute as pc

    return pc.split_pattern(texts, BLANK_SEPARATOR)


class LegacyReader(TextFileReader):
    """Read a file in the original CoScore layout, ``chunk_size`` lines at a time.

    Every line after the header is one answer (an empty line is an empty answer in
    the ``text`` layout); a labelled line without a comma is an error.
    """

    def __init__(
        self, path: str | os.PathLike[str], chunk_size: int = CHUNK_SIZE, *, encoding: str | None = None,
        announce: Announce | None = None, max_cell_chars: int | None = None,
    ) -> None:
        super().__init__(path, chunk_size, encoding=encoding, announce=announce)
        self._path = os.fspath(path)
        self._limit = limit_of(max_cell_chars)
        self._blocks = LineBlocks(self._stream, self.source, line_cap(self._limit, 2))
        try:
            first = self._blocks.take(1)
        except LineTooLong as exc:
            raise over_limit(self.source, self._limit, line=exc.lineno) from None
        header = _strip_eol(first.text() if first is not None else "").strip()
        if header not in ("text", "text,score"):
            shown = header if len(header) <= 60 else header[:57] + "..."
            raise InputError(
                self.source, f"expected the header 'text' or 'text,score' of the CoScore layout, got {shown!r}", line=1
            )
        self.labelled = header == "text,score"
        self.columns: list[str] = header.split(",")

    def chunks(self) -> Iterator[Chunk]:
        """The answers, ``chunk_size`` at a time."""
        yielded = False
        while True:
            try:
                block = self._blocks.take(self._chunk_size)
            except LineTooLong as exc:
                raise over_limit(self.source, self._limit, line=exc.lineno, column="text") from None
            if block is None:
                break
            chunk = self._chunk(block)
            check_chunk(chunk, self._limit)
            yield chunk
            yielded = True
        if not yielded:
            import pyarrow as pa

            empty = pa.array([], pa.string())
            yield self._made({"text": empty, LABEL_COLUMN: empty}, range(2, 2))

    def _chunk(self, block: LineBlock) -> Chunk:
        import pyarrow as pa
        import pyarrow.compute as pc

        lines = _lines(block)
        if lines is None:
            self._raise_first_error(block)
        texts = pc.list_element(pc.split_pattern(lines, ",", max_splits=1), 0)
        data = {"text": texts}
        if self.labelled:
            comma = pc.match_substring(lines, ",")
            if not pc.all(comma).as_py():
                self._raise_first_error(block)
            data[LABEL_COLUMN] = pc.list_element(pc.split_pattern(lines, ",", max_splits=1, reverse=True), 1)
        for name, values in data.items():
            if not isinstance(values, pa.Array):
                data[name] = values.combine_chunks()
        return self._made(data, range(block.first, block.first + block.count))

    def _made(self, data: dict[str, Any], lines: range) -> Chunk:
        types = dict.fromkeys(self.columns, "str")
        data = {name: data[name] for name in self.columns}
        return Chunk(list(self.columns), data, lines, "line", self.source, self._blocks.position, types)

    def _raise_first_error(self, block: LineBlock) -> None:
        """Raise the error the file holds first, as reading it line by line finds it (the
        file is read again; standard input, which cannot be, is judged on ``block``)."""
        if self.source != "<stdin>":
            with open_file(self._path) as raw:
                lines = DecodedLines(decoded(raw, self._encoding, self.source), self.source)
                rows = iter(lines)
                next(rows, "")  # the header
                _check_lines(self.source, ((lines.lineno, raw) for raw in rows), self.labelled)
        _check_lines(self.source, block.lines(), self.labelled)  # invalid UTF-8 raises here
        raise AssertionError("a block of the CoScore layout found wrong holds no error")  # pragma: no cover


def _lines(block: LineBlock) -> Any:
    """The lines of ``block`` without their line ends, as an Arrow string array; ``None``
    when the block is not valid UTF-8."""
    import pyarrow as pa
    import pyarrow.compute as pc

    starts = block.starts()
    wide = len(block.data) >= 1 << 31
    offsets = pa.py_buffer(starts.astype(np.int64 if wide else np.int32))
    lines = pa.Array.from_buffers(pa.large_string() if wide else pa.string(), block.count,
                                  [None, offsets, pa.py_buffer(block.data)])
    try:
        lines.validate(full=True)
    except pa.ArrowInvalid:
        return None
    return pc.replace_substring_regex(lines, r"\r?\n?\z", "")


def _check_lines(source: str, numbered: Iterable[tuple[int, str]], labelled: bool) -> None:
    """Read ``(line number, line)`` pairs one by one, raising the first error."""
    for number, raw in numbered:
        if labelled and "," not in _strip_eol(raw):
            raise InputError(source, "no ',' before the mark (the layout is 'text,score')", line=number)


def _strip_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line
