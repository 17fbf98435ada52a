"""The errors coscore raises, under one base: :class:`CoscoreError`.

``except coscore.CoscoreError`` catches every error of the package; each error also keeps
the built-in class it had before (``except ValueError`` still catches a :class:`RuleError`)::

    CoscoreError
    ├── RuleError (ValueError)          a rule that does not compile; every problem listed
    │   (ExprSyntaxError: a combo's syntax, inside compile; compile raises RuleError only)
    ├── InputError (ValueError)         a data file that cannot be read or written as asked
    │   └── BlanksMisfit                the blanks a rule reads against the columns given
    ├── ExamError (ValueError)          an exam file that cannot be used; every problem listed
    ├── BudgetExceeded                  an answer over one of its budgets (coscore.Limits)
    ├── SearchStopped                   tune or suggest past its budget (coscore.search_budget)
    ├── ClusterError (RuntimeError)     a Dask cluster that cannot run coscore
    ├── SuiteError (ValueError)         a malformed expectations suite (coscore expect)
    ├── PatternError (ValueError)       a malformed pattern in a suite
    ├── UsageError                      the command line or its inputs (exit status 2)
    └── ApiError                        the service's answer to a bad request (needs coscore[serve])

Each class lives beside the code that raises it, but for those of the fronts (UsageError,
ClusterError, SuiteError, PatternError), defined here so that ``coscore`` exports them
without importing a front;
``coscore`` exports them all, each imported when first used. This module imports nothing of
the package: every module may import it.

>>> import coscore
>>> try:
...     coscore.compile({"atoms": {}, "combos": {}})
... except coscore.CoscoreError as error:
...     print(type(error).__name__, isinstance(error, ValueError))
RuleError True
"""
from __future__ import annotations

__all__ = ["ClusterError", "CoscoreError", "PatternError", "SuiteError", "UsageError"]


class CoscoreError(Exception):
    """The base of every error coscore raises."""


class UsageError(CoscoreError):
    """A problem with the ``coscore`` command line or its inputs: one message, exit 2
    (:mod:`coscore.cli.errors`)."""


class ClusterError(CoscoreError, RuntimeError):
    """The Dask cluster cannot run coscore: it is missing, or another version, on the
    scheduler or a worker (:mod:`coscore.dask`)."""


class SuiteError(CoscoreError, ValueError):
    """An expectations suite file is malformed (:mod:`coscore.expect`); the message names
    the file, its line and key.

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


class PatternError(CoscoreError, ValueError):
    """A pattern of an expectations suite cannot be parsed (unbalanced braces, unsupported
    syntax, …; :mod:`coscore.expect.patterns`)."""
