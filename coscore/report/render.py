"""The agreement report as text and as a self-contained HTML page (a comparison's: see
:mod:`.render_compare`, whose two functions are also reachable from here)."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .format import flag, fmt, html_flag, html_table, pad, page, text_table, width
from .humans import DEGRADATION, DEGRADED, DISATTENUATED_R, HH_ADJACENT, HH_EXACT, HH_QWK, HH_R, Consistency
from .plots import distribution_figure, heatmap_figure, png
from .render_compare import comparison_body, comparison_html, comparison_text
from .render_groups import GROUP_HEADER, GROUP_NOTE, group_table, html_groups
from .stats import QWK_THRESHOLD, SMD_THRESHOLD, Agreement
from .summary import agreement_summary, summary_html, summary_text

if TYPE_CHECKING:
    from .sections import FullReport, Provenance

__all__ = ["comparison_body", "comparison_html", "comparison_text", "confusion_lines", "consistency_table",
           "consistency_text", "page", "render_html", "render_text", "report_body", "report_text"]


def render_text(stats: Agreement, label: str = "human", pred: str = "coscore") -> str:
    """A plain-text report: the statistics, flags and the confusion matrix. The columns
    of the means and SDs are as wide as the names of ``label`` and ``pred`` (never cut)."""
    w1, w2 = max(10, width(label)), max(13, width(pred))
    lines = [
        f"agreement of {pred} with {label}",
        f"  n                   {stats.n}" + _excluded(stats),
        f"                      {pad(label, w1)} {pad(pred, w2)}",
        f"  mean                {fmt(stats.mean_human, 2):>{w1}} {fmt(stats.mean_pred, 2):>{w2}}",
        f"  SD                  {fmt(stats.sd_human, 2):>{w1}} {fmt(stats.sd_pred, 2):>{w2}}",
        f"  exact agreement     {fmt(stats.exact_agreement, percent=True):>{w1}}",
        f"  adjacent (|d| <= 1) {fmt(stats.adjacent_agreement, percent=True):>{w1}}",
        f"  QWK                 {fmt(stats.qwk):>{w1}}   {flag(stats.qwk_ok):<3} (threshold >= {QWK_THRESHOLD:.2f})",
        f"  unweighted kappa    {fmt(stats.kappa):>{w1}}",
        f"  Pearson r           {fmt(stats.pearson_r):>{w1}}",
        f"  RMSE                {fmt(stats.rmse):>{w1}}",
        f"  R²                  {fmt(stats.r2):>{w1}}",
        (f"  SMD                 {fmt(stats.smd):>{w1}}   {flag(stats.smd_ok):<3}"
         f" (threshold |SMD| <= {SMD_THRESHOLD:.2f})"),
        "",
        f"confusion matrix (rows: {label}, columns: {pred}; rounded half up)",
        *confusion_lines(stats),
    ]
    return "\n".join(lines)


def confusion_lines(stats: Agreement) -> list[str]:
    """The confusion matrix as text, every column as wide as its largest count needs
    (at least 5 characters) so that counts never run together; zeros as ``.``."""
    largest = max([0, *(c for row in stats.confusion for c in row)])
    width = max(5, len(str(largest)) + 2, *(len(str(j)) + 2 for j in stats.labels))
    lines = ["       " + "".join(f"{j:>{width}}" for j in stats.labels)]
    for i, row in zip(stats.labels, stats.confusion):
        lines.append(f"  {i:>3}  " + "".join(f"{c:>{width}}" if c else f"{'.':>{width}}" for c in row))
    return lines


def _excluded(stats: Agreement) -> str:
    parts = []
    if stats.n_without_label:
        parts.append(f"{stats.n_without_label} without a mark")
    if stats.n_without_pred:
        parts.append(f"{stats.n_without_pred} without a score")
    if stats.n_clipped:
        parts.append(f"{stats.n_clipped} rounded values clipped to 0–10")
    return f"   (of {stats.n_rows} rows; left out: {', '.join(parts)})" if parts else ""


def render_html(stats: Agreement, title: str = "coscore agreement report", label: str = "human",
                pred: str = "coscore", report: FullReport | None = None) -> str:
    """A self-contained HTML page: statistics with flags, a score-distribution plot and a
    confusion heatmap (PNG images embedded as base64; needs matplotlib); with ``report``,
    also its provenance and sections (second marks, disagreements, combos, mark levels,
    subgroups)."""
    return page(title, report_body(stats, label, pred, report))


def report_body(stats: Agreement, label: str = "human", pred: str = "coscore",
                report: FullReport | None = None) -> str:
    """The body of :func:`render_html`'s page (its sections headed by ``<h2>``), for a
    page of its own or a section of a larger one."""
    distribution = png(distribution_figure(stats, label, pred))
    heatmap = png(heatmap_figure(stats, label, pred))
    esc = html.escape
    head = _html_provenance(report.provenance) if report is not None else ""
    head += "".join(f'<p class="meta">{esc(line)}</p>\n' for line in report.left_out_lines()) if report else ""
    head += summary_html(report.summary() if report is not None else agreement_summary(stats, label, pred))
    sections = _html_sections(report) if report is not None else ""
    body = f"""{head}<h2>Figures</h2>\n<table>
{_html_figures(stats, label, pred)}
</table>
<p class="note">Agreements, kappas and the confusion matrix use both scores rounded half up to the 0–10 integer
scale; mean, SD, Pearson r, RMSE, R² and SMD use raw scores. SMD = (mean {esc(pred)} − mean {esc(label)}) /
√((SD<sub>{esc(label)}</sub>² + SD<sub>{esc(pred)}</sub>²) / 2). Flags: ETS's usual thresholds.</p>
<h2>Score distribution</h2>
<img alt="score distribution" src="data:image/png;base64,{distribution}">
<h2>Confusion matrix</h2>
<img alt="confusion heatmap" src="data:image/png;base64,{heatmap}">
{sections}"""
    return body


def _html_figures(stats: Agreement, label: str, pred: str) -> str:
    esc = html.escape
    rows = [
        ("n", str(stats.n) + esc(_excluded(stats)), ""),
        (f"mean ({esc(label)} / {esc(pred)})", f"{fmt(stats.mean_human, 2)} / {fmt(stats.mean_pred, 2)}", ""),
        (f"SD ({esc(label)} / {esc(pred)})", f"{fmt(stats.sd_human, 2)} / {fmt(stats.sd_pred, 2)}", ""),
        ("exact agreement", fmt(stats.exact_agreement, percent=True), ""),
        ("adjacent agreement (|d| ≤ 1)", fmt(stats.adjacent_agreement, percent=True), ""),
        ("quadratic weighted kappa", fmt(stats.qwk), html_flag(stats.qwk_ok, f"QWK ≥ {QWK_THRESHOLD:.2f}")),
        ("unweighted kappa", fmt(stats.kappa), ""),
        ("Pearson r", fmt(stats.pearson_r), ""),
        ("RMSE", fmt(stats.rmse), ""),
        ("R²", fmt(stats.r2), ""),
        ("standardized mean difference", fmt(stats.smd), html_flag(stats.smd_ok, f"|SMD| ≤ {SMD_THRESHOLD:.2f}")),
    ]
    return "\n".join(f"<tr><th>{name}</th><td>{value}</td><td>{flag}</td></tr>" for name, value, flag in rows)


def _html_provenance(p: Provenance) -> str:
    esc = html.escape
    rule = f"{esc(p.rule)} (SHA-256 {esc(p.rule_sha256 or '')})" if p.rule else "not given"
    return (f'<p class="meta">rule: {rule}<br>data: {esc(p.data)}<br>'
            f'date: <time>{esc(p.date)}</time></p>\n')


def _html_sections(report: FullReport) -> str:
    esc = html.escape
    out = [_html_consistency(report.consistency, report.label, report.pred)] if report.consistency else []
    out.append("<h2>Largest disagreements</h2>\n")
    if report.disagreements:
        out.append(html_table(
            ["row", "id", "answer", esc(report.label), esc(report.pred), "why"],
            [[str(d.row), esc(d.id), esc(" | ".join(d.answer)), fmt(d.mark, 2),
              fmt(d.score, 2) if d.error is None else f'<span class="low">error: {esc(d.error)}</span>',
              f'<div class="why">{esc(chr(10).join(d.explanation))}</div>'] for d in report.disagreements]))
    else:
        out.append("<p>none: every score equals its mark</p>\n")
    if report.combos:
        out.append("<h2>Combos</h2>\n")
        out.append(html_table(["combo", "counts in", "mean contribution", f"correlation with {esc(report.label)}"],
                              [[esc(c.id), fmt(c.counts, percent=True), fmt(c.mean_contribution, 2),
                                fmt(c.correlation)] for c in report.combos]))
    out.append("<h2>By mark level</h2>\n")
    out.append(html_table([esc(report.label), "n", f"mean {esc(report.pred)}", "exact agreement"],
                          [[str(v.mark), str(v.n), fmt(v.mean_score, 2), fmt(v.exact_agreement, percent=True)]
                           for v in report.levels]))
    if report.by:
        out.append(f"<h2>By {esc(report.by)}</h2>\n{html_groups(report.groups)}")
    return "".join(out)


# -- second marks -----------------------------------------------------------------------

_SECOND_ROWS = (("exact_agreement", "exact agreement", True, HH_EXACT), ("adjacent_agreement", "adjacent (|d| <= 1)",
                True, HH_ADJACENT), ("qwk", "QWK", False, HH_QWK), ("kappa", "unweighted kappa", False, None),
                ("pearson_r", "Pearson r", False, HH_R), ("smd", "SMD", False, None))


def consistency_table(c: Consistency) -> tuple[list[str], list[list[str]]]:
    """The header and rows comparing the second teacher with the first (human–human)
    beside the scores (human–machine), their difference, and RSMTool's flags."""
    rows = [["n", str(c.human_human.n), str(c.human_machine.n), "", ""]]
    degradation = c.degradation
    for key, name, percent, threshold in _SECOND_ROWS:
        hh = getattr(c.human_human, key)
        deg = degradation.get(key) if key in DEGRADED else None
        notes = []
        if threshold is not None:
            notes.append(f"H–H {flag(None if hh is None else hh >= threshold)} (>= {fmt(threshold, 2, percent)})")
        if key in ("qwk", "pearson_r"):
            notes.append(f"degradation {flag(None if deg is None else deg >= DEGRADATION)} (>= {DEGRADATION:.2f})")
        shown = "—" if deg is None else (f"{deg * 100:+.1f} %" if percent else f"{deg:+.3f}")
        rows.append([name, fmt(hh, percent=percent), fmt(getattr(c.human_machine, key), percent=percent), shown,
                     "; ".join(notes)])
    dis = c.disattenuated_r
    rows.append(["disattenuated r", "", fmt(dis), "",
                 f"{flag(None if dis is None else dis >= DISATTENUATED_R)} (>= {DISATTENUATED_R:.2f})"])
    return ["", "human–human", "human–machine", "difference", "flags"], rows


def consistency_text(c: Consistency, label: str, pred: str) -> list[str]:
    """The second-marks section as lines of text."""
    t = c.true_score
    header, rows = consistency_table(c)
    return [f"second marks: {c.label2} against {label} on the {c.human_human.n} rows marked twice "
            f"(human–human); {pred} against {label} on all {c.human_machine.n} (human–machine)",
            *text_table(header, rows), "",
            f"true score (PRMSE, RSMTool's definition): {t.n} rows, {t.n_double} marked twice, {t.n_single} once",
            f"  variance of rater errors {fmt(t.variance_of_errors)}, true-score variance "
            f"{fmt(t.true_score_variance)}, MSE against the true score {fmt(t.mse_true)}",
            f"  PRMSE {fmt(t.prmse)}"]


def _html_consistency(c: Consistency, label: str, pred: str) -> str:
    esc = html.escape
    t = c.true_score
    header, rows = consistency_table(c)
    return (f"<h2>Second marks ({esc(c.label2)})</h2>\n"
            f"<p>{esc(c.label2)} against {esc(label)} on the {c.human_human.n} rows marked twice (human–human); "
            f"{esc(pred)} against {esc(label)} on all {c.human_machine.n} rows (human–machine).</p>\n"
            + html_table([esc(h) for h in header], [[esc(x).replace("LOW", '<span class="low">LOW</span>')
                                                     for x in row] for row in rows])
            + html_table(["true score (RSMTool)", "value"], [
                ["rows (twice / once)", f"{t.n} ({t.n_double} / {t.n_single})"],
                ["variance of rater errors", fmt(t.variance_of_errors)],
                ["true-score variance", fmt(t.true_score_variance)],
                ["MSE against the true score", fmt(t.mse_true)], ["PRMSE", fmt(t.prmse)]]))


def report_text(report: FullReport) -> str:
    """The full report as plain text: provenance, the figures, then every section."""
    p = report.provenance
    rule = f"{p.rule} (SHA-256 {p.rule_sha256})" if p.rule else "not given"
    lines = [f"rule: {rule}", f"data: {p.data}", f"date: {p.date}", *report.left_out_lines(), "",
             *summary_text(report.summary()), "",
             render_text(report.agreement, report.label, report.pred), ""]
    if report.consistency:
        lines += [*consistency_text(report.consistency, report.label, report.pred), ""]
    lines.append(f"largest disagreements (|{report.pred} − {report.label}|)")
    if not report.disagreements:
        lines.append("  none: every score equals its mark")
    for d in report.disagreements:
        score = fmt(d.score, 2) if d.error is None else f"error: {d.error}"
        lines.append(f"  row {d.row} (id {d.id}): {report.label} {fmt(d.mark, 2)}, {report.pred} {score}")
        lines.append(f"    answer: {' | '.join(d.answer)[:300]}")
        lines.extend(f"    {line}" for line in d.explanation)
    if report.combos:
        r_with = f"r with {report.label}"
        w_id, w_r = max(15, *(width(c.id) for c in report.combos)), max(13, width(r_with))
        lines += ["", f"{pad('combos', w_id + 2, left=True)} {'counts in':>10} {'mean contribution':>19} "
                  f"{pad(r_with, w_r)}"]
        for c in report.combos:
            lines.append(f"  {pad(c.id, w_id, left=True)} {fmt(c.counts, percent=True):>10} "
                         f"{fmt(c.mean_contribution, 2):>19} {fmt(c.correlation):>{w_r}}")
    mean = f"mean {report.pred}"
    w_mean = max(18, width(mean))
    lines += ["", f"by mark level {'n':>6} {pad(mean, w_mean)} {'exact':>8}"]
    for v in report.levels:
        lines.append(f"  {v.mark:>11} {v.n:>6} {fmt(v.mean_score, 2):>{w_mean}} "
                     f"{fmt(v.exact_agreement, percent=True):>8}")
    if report.by:
        lines += ["", f"by {report.by}", *text_table(GROUP_HEADER, group_table(report.groups)), f"  {GROUP_NOTE}"]
    return "\n".join(lines)
