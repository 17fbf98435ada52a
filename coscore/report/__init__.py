"""Agreement between scores and teachers' marks, as in automated-scoring practice
(RSMTool): the figures (:mod:`.stats`, computed from joint counts in :mod:`.counts`), a
second teacher's marks and PRMSE (:mod:`.humans`), subgroups (:mod:`.groups`), the
report's other sections (:mod:`.sections`), text and HTML (:mod:`.render`), figures
(:mod:`.plots`), reading a scored file (:mod:`.reading`), several scorers side by side
(:mod:`.compare`) with bootstrap intervals (:mod:`.bootstrap`). For an exam: each item's
table in a file read once (:mod:`.items`), the students' totals (:mod:`.totals`), the
exam's report (:mod:`.exam`), two exams compared (:mod:`.exam_compare`), both rendered by
:mod:`.render_exam`.
"""
from __future__ import annotations

from .groups import GroupStats, group_stats
from .humans import Consistency, TrueScore, consistency, true_score
from .reading import read_scored
from .render import render_html, render_text, report_text
from .sections import FullReport, Provenance, build_report
from .stats import (
    QWK_THRESHOLD,
    SCALE,
    SMD_THRESHOLD,
    Agreement,
    agreement,
    cohen_kappa,
    disagreement_order,
    quadratic_weighted_kappa,
    round_half_up,
)

__all__ = [
    "QWK_THRESHOLD", "SCALE", "SMD_THRESHOLD", "Agreement", "Consistency", "FullReport", "GroupStats", "Provenance",
    "TrueScore", "agreement", "build_report", "cohen_kappa", "consistency", "disagreement_order", "group_stats",
    "quadratic_weighted_kappa", "read_scored", "render_html", "render_text", "report_text", "round_half_up",
    "true_score",
]
