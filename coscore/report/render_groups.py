"""The table of subgroups (``--by COL``) that both reports show, in text and HTML."""
from __future__ import annotations

import html

from .format import fmt, html_table
from .groups import DSM_THRESHOLD, R_THRESHOLD, GroupStats
from .stats import QWK_THRESHOLD, SMD_THRESHOLD

#: The columns of a table of subgroups.
GROUP_HEADER = ["group", "n", "mean mark", "mean score", "exact", "QWK", "kappa", "r", "RMSE", "SMD", "DSM", "flags"]
_FLAG_NAMES = {"qwk_ok": "QWK", "pearson_r_ok": "r", "smd_ok": "SMD", "dsm_ok": "DSM"}
GROUP_NOTE = (f"flags: the figures outside RSMTool's usual thresholds (QWK >= {QWK_THRESHOLD:.2f}, "
              f"r >= {R_THRESHOLD:.2f}, |SMD| <= {SMD_THRESHOLD:.2f}, |DSM| <= {DSM_THRESHOLD:.2f}); DSM: the "
              "group's mean of z(score) − z(mark), standardized over all rows")


def group_table(groups: list[GroupStats]) -> list[list[str]]:
    """The rows of a table of subgroups (columns :data:`GROUP_HEADER`)."""
    out = []
    for g in groups:
        a = g.agreement
        low = [name for key, name in _FLAG_NAMES.items() if g.flags[key] is False]
        out.append([g.value or "(empty)", str(a.n), fmt(a.mean_human, 2), fmt(a.mean_pred, 2),
                    fmt(a.exact_agreement, percent=True), fmt(a.qwk), fmt(a.kappa), fmt(a.pearson_r), fmt(a.rmse),
                    fmt(a.smd), fmt(g.dsm), " ".join(f"{name}!" for name in low) or "ok"])
    return out


def html_groups(groups: list[GroupStats]) -> str:
    """A table of subgroups in HTML, the flagged figures in red."""
    rows = []
    for g, cells in zip(groups, group_table(groups)):
        cells = [html.escape(c) for c in cells[:-1]]
        for key, column in (("qwk_ok", 5), ("pearson_r_ok", 7), ("smd_ok", 9), ("dsm_ok", 10)):
            if g.flags[key] is False:
                cells[column] = f'<span class="low">{cells[column]}</span>'
        rows.append(cells)
    return html_table(GROUP_HEADER[:-1], rows) + f'<p class="note">{html.escape(GROUP_NOTE)}</p>\n'
