"""coscore: fast, safe and exact scoring of short answers with CoScore rules.

>>> import coscore
>>> rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}},
...                         "combos": {"A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"}},
...                         "comboMode": "ADD"})
>>> rule.score(["我爱祖国"]).score
4.0
"""
from .diagnostics import Diagnostic, RuleError
from .limits import BudgetExceeded, Limits
from .results import AtomCall, Batch, Outcome
from .rule import Rule, compile

__all__ = ["compile", "Rule", "Outcome", "Batch", "AtomCall", "RuleError", "Diagnostic", "Limits", "BudgetExceeded",
           "__version__"]
__version__ = "0.1.0"
