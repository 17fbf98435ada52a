"""What ``coscore score`` records in a Parquet or ``.xlsx`` output of how it was scored
(:func:`coscore.io.scored_metadata` reads it back; ``docs/columns.md`` lists the keys).

A rule's run::

    {"record": 1, "coscore_version": "0.1.0", "kind": "rule",
     "rule": {"file": "lane-change.rule.json", "sha256": "…"},
     "format": "csv", "blanks": ["answer"], "label": "mark", "decimals": null, "limits": {}}

An exam's holds ``"exam": {"name", "file", "sha256", "layout", "id", "item_column"}``,
``"combos"`` and ``"items"``: each ``{"name", "rule", "blanks", "label", "label2",
"weight"}`` (an inline rule's ``"rule"`` is ``{"inline": true}``: the exam's digest covers
it). The digests are SHA-256 of the files' bytes (:func:`coscore.labelled.file_hash`);
``null`` for a rule read from a pipe. ``limits`` holds the budgets set otherwise than by
default (``--max-answer-*``, ``--max-rule-*``), which can change which answers fail.
"""
from __future__ import annotations

import dataclasses
import os
import stat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..exam import Exam
    from ..limits import Limits
    from ..pipeline.scoring import Scoring

#: The version of the record's layout (a reader meeting a later one may not know every key).
RECORD_VERSION = 1


def rule_record(rule_path: str, scoring: Scoring, limits: Limits) -> dict[str, Any]:
    """The record of scoring with the rule file ``rule_path`` (its columns as ``scoring`` resolved them)."""
    columns = scoring.items[0].columns
    return {**_head("rule", limits), "rule": _file(rule_path), "format": columns.fmt,
            "blanks": list(columns.blanks), "label": columns.label, "decimals": scoring.decimals}


def exam_record(exam: Exam, scoring: Scoring, limits: Limits) -> dict[str, Any]:
    """The record of scoring every item of ``exam`` (each item's columns as ``scoring`` resolved them)."""
    items = []
    for item, plan in zip(exam.items, scoring.items):
        items.append({"name": item.name, "rule": _file(item.rule_path) if item.rule_path else {"inline": True},
                      "blanks": list(plan.columns.blanks), "label": plan.columns.label, "label2": item.label2,
                      "weight": item.weight})
    about = {"name": exam.name, **(_file(exam.source) if exam.source else {"file": None, "sha256": None}),
             "layout": exam.layout, "id": exam.id, "item_column": exam.item_column}
    return {**_head("exam", limits), "exam": about, "format": scoring.items[0].columns.fmt,
            "decimals": scoring.decimals, "combos": scoring.combos, "items": items}


def _head(kind: str, limits: Limits) -> dict[str, Any]:
    from .. import __version__

    changed = {f.name: getattr(limits, f.name) for f in dataclasses.fields(limits)
               if getattr(limits, f.name) != f.default}
    return {"record": RECORD_VERSION, "coscore_version": __version__, "kind": kind, "limits": changed}


def _file(path: str) -> dict[str, Any]:
    """``{"file": its name, "sha256": the digest of its bytes}`` (``None`` unless a regular file)."""
    from ..labelled import file_hash

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = False
    return {"file": os.path.basename(path), "sha256": file_hash(path) if regular else None}
