"""coscore: fast, safe and exact scoring of short answers with CoScore rules.

>>> import coscore
>>> rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}},
...                         "combos": {"A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"}},
...                         "comboMode": "ADD"})
>>> rule.score(["我爱祖国"]).score
4.0
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, RuleError
    from .errors import ClusterError, CoscoreError, PatternError, SuiteError, UsageError
    from .exam import Exam, ExamError, ExamItem, load_exam
    from .expr.tokens import ExprSyntaxError
    from .io import BlanksMisfit, InputError
    from .limits import BudgetExceeded, Limits
    from .results import AtomCall, Batch, Outcome
    from .rule import Rule, compile
    from .search_budget import SearchStopped

# The errors are all under CoscoreError (coscore.errors); ApiError too, imported from coscore
# with the serve extra but left out of __all__ (see _HOMES).
__all__ = [
    "AtomCall",
    "Batch",
    "BlanksMisfit",
    "BudgetExceeded",
    "ClusterError",
    "CoscoreError",
    "Diagnostic",
    "Exam",
    "ExamError",
    "ExamItem",
    "ExprSyntaxError",
    "InputError",
    "Limits",
    "Outcome",
    "PatternError",
    "Rule",
    "RuleError",
    "SearchStopped",
    "SuiteError",
    "UsageError",
    "__version__",
    "compile",
    "load_exam",
]
__version__ = "0.1.0"

# The public names are imported when first used: ``import coscore.io`` (or a command that
# needs only part of the package) does not pay for the engine and numpy.
_HOMES = {
    "compile": "rule", "Rule": "rule",
    "Outcome": "results", "Batch": "results", "AtomCall": "results",
    "Diagnostic": "diagnostics", "Limits": "limits",
    "load_exam": "exam", "Exam": "exam", "ExamItem": "exam",
    # the errors, all under coscore.errors.CoscoreError, each where it is raised
    "CoscoreError": "errors", "RuleError": "diagnostics", "InputError": "io", "BlanksMisfit": "io",
    "ExamError": "exam", "BudgetExceeded": "limits", "ClusterError": "errors", "ExprSyntaxError": "expr.tokens",
    "SuiteError": "errors", "PatternError": "errors", "UsageError": "errors", "SearchStopped": "search_budget",
    # not in __all__: its module needs Starlette (coscore[serve]), and ``from coscore import *`` must not
    "ApiError": "http.responses",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'coscore' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
