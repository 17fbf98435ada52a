"""Reading an exam and compiling its rules: :func:`load_exam`.

:func:`build_exam` does the work and never raises: it reads the exam (:func:`.spec.draft_exam`),
compiles the rule of every item that has one (even when other parts of the exam are wrong,
so that one :class:`~coscore.exam.errors.ExamError` lists every problem) and checks that
each item lists as many blanks as its rule reads (:func:`.needs.blank_need`).
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, RuleError, json_type, shorten
from ..limits import Limits
from .errors import ExamError, ExamProblem
from .file import Located
from .model import Exam, ExamItem
from .needs import blank_need, describe_need
from .spec import ExamDraft, ItemDraft, draft_exam, quote

if TYPE_CHECKING:
    from ..rule import Rule

__all__ = ["ExamBuild", "ItemBuild", "build_exam", "load_exam", "rule_problem"]


def load_exam(source: str | os.PathLike[str] | Mapping[str, object], *, limits: Limits | None = None,
              base: str | os.PathLike[str] | None = None, allow_files: bool = True) -> Exam:
    """Read the exam ``source`` and compile every item's rule.

    ``source`` is the path of an exam file (YAML, or JSON with a top-level ``items``) or
    an exam already parsed (a mapping). ``limits`` (a :class:`coscore.Limits`) go with every
    rule, as :func:`coscore.compile` takes them. Rule paths are relative to ``base``
    (default: the exam file's folder; for a mapping, the current directory);
    ``allow_files=False`` refuses them (rules must be inline). Each item must list exactly
    the blanks its rule reads (:func:`coscore.exam.blank_need`; more when it reads ``'*'``).

    Raises :class:`~coscore.exam.ExamError` listing every problem of the exam (its
    structure, its rules' diagnostics, the blank counts), and nothing else whatever
    ``source`` holds (``limits`` of another type is a ``TypeError``, as for ``compile``).
    """
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be a coscore.Limits, not {type(limits).__name__}")
    build = build_exam(source, limits=limits, base=base, allow_files=allow_files)
    if build.exam is None:
        raise ExamError(build.source, build.problems)
    return build.exam


@dataclass
class ItemBuild:
    """One item compiled: its :class:`~.spec.ItemDraft`, its ``rule`` (``None`` when it has
    none or it does not compile), the rule's ``diagnostics`` (its errors when it does not
    compile, else its warnings) and the blanks it reads (``need``, ``any_number``)."""

    draft: ItemDraft
    rule: Rule | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    need: int = 0
    any_number: bool = False


@dataclass
class ExamBuild:
    """An exam read and its rules compiled (:func:`build_exam`): the ``exam`` when nothing
    is an error, else ``None``; every problem, in the order of the file."""

    source: str
    draft: ExamDraft
    items: list[ItemBuild]
    problems: list[ExamProblem]
    exam: Exam | None

    @property
    def errors(self) -> int:
        """The number of problems that are errors."""
        return sum(p.severity == "error" for p in self.problems)


def build_exam(source: object, *, limits: Limits | None = None, base: str | os.PathLike[str] | None = None,
               allow_files: bool = True) -> ExamBuild:
    """Read ``source`` (as :func:`load_exam` takes it), compile every item's rule it can,
    check the blank counts; never raises for what ``source`` holds."""
    draft = draft_exam(source, base=base, allow_files=allow_files)
    try:
        return _build(draft, limits)
    except Exception as exc:  # noqa: BLE001 - whatever the exam holds, one ExamError
        what = {RecursionError: "nested too deeply", MemoryError: "too large to compile"}.get(type(exc))
        problem = ExamProblem("", shorten(f"cannot be compiled: {what or f'{type(exc).__name__}: {exc}'}", 500))
        return ExamBuild(draft.source, draft, [], [*draft.problems, problem], None)


def _build(draft: ExamDraft, limits: Limits | None) -> ExamBuild:
    """:func:`build_exam` after reading."""
    problems = list(draft.problems)
    items: list[ItemBuild] = []
    compiled: dict[str, tuple[Rule | None, list[Diagnostic]]] = {}  # a rule file that items share: compiled once
    for item in draft.items:
        built = ItemBuild(item)
        items.append(built)
        if item.rule is None:
            continue
        if item.rule_path is None:
            built.rule, built.diagnostics = _compile(item.rule, limits)
        else:
            if item.rule_path not in compiled:
                compiled[item.rule_path] = _compile(item.rule, limits)
            built.rule, diagnostics = compiled[item.rule_path]
            built.diagnostics = list(diagnostics)
        problems.extend(rule_problem(item, d) for d in built.diagnostics)
        if built.rule is None:
            continue
        built.need, built.any_number = blank_need(built.rule)
        if item.blanks is not None:
            problem = _count_problem(item, built.need, built.any_number)
            if problem is not None:
                problems.append(problem)
    problems.sort(key=lambda p: p.line or 0)  # stable: the order found within a line
    exam = None
    if not any(p.severity == "error" for p in problems):  # then every item is complete and compiled
        exam = Exam(tuple(ExamItem(i.draft.name, i.rule, i.draft.blanks,  # type: ignore[arg-type]
                                   i.draft.label, i.draft.label2, i.draft.weight, i.draft.rule_path) for i in items),
                    draft.name, draft.id, draft.item_column, draft.path)
    return ExamBuild(draft.source, draft, items, problems, exam)


def _compile(rule: Mapping[str, object] | str, limits: Limits | None) -> tuple[Rule | None, list[Diagnostic]]:
    """The compiled rule and its warnings, or ``None`` and its diagnostics."""
    from ..rule import compile as compile_rule

    if isinstance(rule, str):  # a rule file's text
        try:
            value = json.loads(rule)
        except json.JSONDecodeError as exc:
            return None, [Diagnostic("rule", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")]
        except RecursionError:
            return None, [Diagnostic("rule", "nested too deeply")]
        except ValueError as exc:  # an integer of more digits than Python converts
            return None, [Diagnostic("rule", shorten(f"invalid JSON: {exc}", 300))]
        if not isinstance(value, dict):
            return None, [Diagnostic("rule", "a rule file holds a JSON object (atoms, combos, comboMode), "
                                             f"not {json_type(value)}")]
        rule = value
    try:
        compiled = compile_rule(rule, limits=limits)
    except RuleError as exc:
        return None, list(exc.diagnostics)
    return compiled, list(compiled.warnings)


def rule_problem(item: ItemDraft, d: Diagnostic) -> ExamProblem:
    """A diagnostic of ``item``'s rule as a problem of the exam: ``items[1] (q2).rule``,
    ``rules/q2.rule.json: combos.A.combo, column 5: …``, on the line of the place in an
    inline rule (else of the item's ``rule`` key)."""
    head = d.path if d.column is None else f"{d.path}, column {d.column}"
    message = f"{head}: {d.message}"
    if item.rule_written is not None:
        message = f"{shorten(item.rule_written, 300)}: {message}"
    line = _line_in(item.rule_node, d.path) if item.rule_node is not None else item.lines.get("rule")
    return ExamProblem(f"{item.where}.rule", shorten(message), line, d.severity)


def _line_in(node: Located, path: str) -> int | None:
    """The line of the value at the dotted ``path`` of an inline rule (keys may hold dots:
    the longest key that fits is taken), or of the deepest part of it found."""
    line, rest = node.line, path
    while rest and node.kind == "map":
        fits = [(key, value) for key, value in node.pairs
                if key.text is not None and (rest == key.text or rest.startswith(key.text + "."))]
        if not fits:
            break
        key, node = max(fits, key=lambda pair: len(pair[0].text or ""))
        line = node.line if node.line is not None else line
        rest = rest[len(key.text or "") + 1:]
    return line


def _count_problem(item: ItemDraft, need: int, any_number: bool) -> ExamProblem | None:
    """The problem of an item listing fewer blanks than its rule reads, or more when it does
    not read ``'*'`` (the extra columns would never be read); else ``None``."""
    blanks = item.blanks or ()
    given = len(blanks)
    if given >= need and (any_number or given == need):
        return None
    shown = ", ".join(quote(b, 100) for b in blanks[:20]) + (", …" if given > 20 else "")
    listed = f"lists {given:,} blank{'s' * (given != 1)} ({shown})"
    if given < need:
        advice = f"list {need:,} column{'s' * (need != 1)}" + (" or more" if any_number else "")
    else:
        unread = ", ".join(quote(b, 100) for b in blanks[need:need + 20]) + (", …" if given - need > 20 else "")
        never = f"column{'s' * (given - need != 1)} {unread} would never be read"
        advice = f"{never}; list {need:,} column{'s' * (need != 1)}" if need else never
    return ExamProblem(f"{item.where}.blanks", f"{listed}, but its rule {describe_need(need, any_number)}: {advice}",
                       item.lines.get("blanks"))
