"""Exams: many items, each scored by its own CoScore rule on its own answer columns.

An exam file (YAML, or JSON with a top-level ``items``) names each item's rule and its
blank columns (docs/exams.md; its JSON Schema is ``coscore/exam/exam.schema.json``).
:func:`load_exam` reads one and compiles every rule; :func:`read_exam` validates the
structure only. Every problem of an exam is listed at once in one :class:`ExamError`.
:meth:`Exam.score_table` scores a table in memory; ``coscore score EXAM`` a file
(:meth:`Exam.scoring` is the pipeline's view of an exam).

>>> exam = load_exam("midterm.yaml")                        # doctest: +SKIP
>>> [(item.name, item.blanks) for item in exam.items]       # doctest: +SKIP
[('q1', ('q1_a', 'q1_b')), ('q2', ('q2',))]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .detect import is_exam_file

if TYPE_CHECKING:
    from .errors import ExamError, ExamProblem
    from .load import load_exam
    from .model import Exam, ExamItem
    from .needs import blank_need
    from .spec import ExamSpec, ItemSpec, read_exam

__all__ = ["Exam", "ExamError", "ExamItem", "ExamProblem", "ExamSpec", "ItemSpec", "blank_need",
           "is_exam_file", "load_exam", "read_exam"]

# Imported when first used: telling an exam from a rule (is_exam_file) costs the command
# nothing, and a rule's run never imports YAML or the exam model.
_HOMES = {"ExamError": "errors", "ExamProblem": "errors", "Exam": "model", "ExamItem": "model",
          "load_exam": "load", "blank_need": "needs", "ExamSpec": "spec",
          "ItemSpec": "spec", "read_exam": "spec"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'coscore.exam' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
