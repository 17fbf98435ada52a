"""Agreement between scores and teachers' marks, as in automated-scoring practice
(RSMTool): the figures (:mod:`.stats`), the report's other sections (:mod:`.sections`),
text and HTML (:mod:`.render`), figures (:mod:`.plots`), reading a scored file
(:mod:`.reading`), several scorers side by side (:mod:`.compare`) with bootstrap
intervals (:mod:`.bootstrap`; from confusion matrices alone for large data).
"""
from __future__ import annotations

from .bootstrap import confusion_intervals, confusion_resamples
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
    confusion_figures,
    disagreement_order,
    quadratic_weighted_kappa,
    round_half_up,
)

__all__ = [
    "QWK_THRESHOLD", "SCALE", "SMD_THRESHOLD", "Agreement", "FullReport", "Provenance", "agreement",
    "build_report", "cohen_kappa", "confusion_figures", "confusion_intervals", "confusion_resamples",
    "disagreement_order", "quadratic_weighted_kappa", "read_scored", "render_html", "render_text", "report_text",
    "round_half_up",
]
