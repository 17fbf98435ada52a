"""The original CoScore dataset layout.

A header line ``text`` or ``text,score``, then one answer per line: the answer is the
text before the first comma (no CSV quoting: quotes are part of the answer), its
blanks are separated by ``-``, and in the labelled layout the last comma-separated
field is the teacher's mark. Read as the columns ``text`` (and ``score``), both str.
"""
from __future__ import annotations

import os
from collections.abc import Iterator

from ._text import TextFileReader
from .errors import InputError
from .table import Chunk

#: The character that separates the blanks of one answer in ``text``.
BLANK_SEPARATOR = "-"
#: The column holding the teacher's mark in the labelled layout.
LABEL_COLUMN = "score"


def split_blanks(text: str) -> list[str]:
    """The blanks of one answer in the original layout (``"a-b"`` -> ``["a", "b"]``)."""
    return text.split(BLANK_SEPARATOR)


class LegacyReader(TextFileReader):
    """Read a file in the original CoScore layout, ``chunk_size`` lines at a time.

    Every line after the header is one answer (an empty line is an empty answer in
    the ``text`` layout); a labelled line without a comma is an error.
    """

    def __init__(self, path: str | os.PathLike[str], chunk_size: int = 65536) -> None:
        super().__init__(path, chunk_size)
        self._iter = iter(self._lines)
        header = _strip_eol(next(self._iter, "")).strip()
        if header not in ("text", "text,score"):
            shown = header if len(header) <= 60 else header[:57] + "..."
            raise InputError(
                self.source, f"expected the header 'text' or 'text,score' of the CoScore layout, got {shown!r}", line=1
            )
        self.labelled = header == "text,score"
        self.columns: list[str] = header.split(",")

    def chunks(self) -> Iterator[Chunk]:
        """The answers, ``chunk_size`` at a time."""
        texts: list[str] = []
        marks: list[str] = []
        lines: list[int] = []
        yielded = False
        for raw in self._iter:
            line = _strip_eol(raw)
            texts.append(line.split(",", 1)[0])
            if self.labelled:
                if "," not in line:
                    raise InputError(
                        self.source, "no ',' before the mark (the layout is 'text,score')", line=self._lines.lineno
                    )
                marks.append(line.rsplit(",", 1)[1])
            lines.append(self._lines.lineno)
            if len(lines) >= self._chunk_size:
                yield self._chunk(texts, marks, lines)
                texts, marks, lines, yielded = [], [], [], True
        if lines or not yielded:
            yield self._chunk(texts, marks, lines)

    def _chunk(self, texts: list[str], marks: list[str], lines: list[int]) -> Chunk:
        data = {"text": texts}
        if self.labelled:
            data[LABEL_COLUMN] = marks
        types = dict.fromkeys(self.columns, "str")
        return Chunk(list(self.columns), data, lines, "line", self.source, self._lines.position, types)


def _strip_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line
