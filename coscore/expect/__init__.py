"""Rule test suites: Expectations 0.7.2 for CoScore rules (``coscore expect``).

A suite folder holds ``suite.yaml`` (type, time limit, margins, tolerance),
``expectations.yaml`` (the registry), ``rules/**.json`` and marked answers in
``data/**.csv|jsonl``.  :func:`run` scores every rule on every answer, computes
verdicts and checks every expectation that applies::

    report = coscore.expect.run("examples/lab-tools-suite")
    report.ok, report.rules["lab-tools/strict.json"].failures
"""

from __future__ import annotations

from .errors import SuiteError
from .report import ExpectationReport, Report, RuleReport
from .runner import run

__all__ = ["ExpectationReport", "Report", "RuleReport", "SuiteError", "run"]
