"""The one error a malformed suite raises."""

from __future__ import annotations


class SuiteError(ValueError):
    """A suite file is malformed; the message names the file, its line and key.

    Attributes:
        file: the file, relative to the suite folder (``expectations.yaml``).
        key: the path of keys inside it (``"lab/*" › sample › with_margin``), or "".
        line: 1-based line number, or ``None`` when unknown.
        problem: what is wrong, without the location.
    """

    def __init__(self, file: str, key: str, problem: str, line: int | None = None) -> None:
        self.file = file
        self.key = key
        self.line = line
        self.problem = problem
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")
