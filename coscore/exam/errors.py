"""Problems found in an exam file: :class:`ExamProblem` and :class:`ExamError`, which lists
every problem of the file at once, one per line, each with the file, line and the place
in the file (``exam.yaml:12: items[2] (q3).blanks: …``)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..diagnostics import Severity
from ..errors import CoscoreError

__all__ = ["DICT_SOURCE", "ExamError", "ExamProblem"]

#: How an exam given as a mapping (not read from a file) is named in messages.
DICT_SOURCE = "<exam>"


@dataclass(frozen=True)
class ExamProblem:
    """One problem of an exam.

    ``where`` is the place in the exam (``"items[2] (q3).blanks"``: 0-based item index,
    and the item's name when it has one; ``""`` for the file as a whole); ``line`` the
    1-based line of the exam file it concerns (``None`` for an exam given as a mapping, or
    when unknown); ``severity`` ``"error"`` or ``"warning"``.
    """

    where: str
    message: str
    line: int | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        """``items[2] (q3).blanks: message`` (``warning:`` before a warning's message)."""
        message = self.message if self.severity == "error" else f"warning: {self.message}"
        text = f"{self.where}: {message}" if self.where else message
        return " ".join(text.splitlines())  # one line, whatever the message quotes

    def located(self, source: str) -> str:
        """The problem as a line of :class:`ExamError`: ``exam.yaml:12: items[2] (q3).blanks: …``."""
        source = " ".join(source.splitlines())  # one line, whatever the file is called
        return f"{source}:{self.line}: {self}" if self.line is not None else f"{source}: {self}"

    def to_dict(self) -> dict[str, str | int | None]:
        """A JSON-ready form: ``where``, ``message``, ``line``, ``severity``."""
        return {"where": self.where, "message": self.message, "line": self.line, "severity": self.severity}


class ExamError(CoscoreError, ValueError):
    """An exam that cannot be used: ``problems`` lists every problem found (errors, and the
    warnings found with them); ``source`` is the exam file, or ``"<exam>"`` for a mapping.

    ``str(error)`` is one line per problem: ``exam.yaml:12: items[2] (q3).blanks: message``.
    """

    def __init__(self, source: str, problems: Iterable[ExamProblem]):
        self.source = source
        self.problems: list[ExamProblem] = list(problems)
        super().__init__("\n".join(p.located(source) for p in self.problems) or f"{source}: invalid exam")

    @property
    def errors(self) -> list[ExamProblem]:
        """The problems that are errors (not warnings)."""
        return [p for p in self.problems if p.severity == "error"]
