"""The agreement report as text and as a self-contained HTML page."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .plots import distribution_figure, heatmap_figure, png
from .stats import QWK_THRESHOLD, SMD_THRESHOLD, Agreement

if TYPE_CHECKING:
    from .compare import Comparison, Estimate
    from .sections import FullReport, Provenance


def _fmt(value: float | None, digits: int = 3, percent: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.1f} %" if percent else f"{value:.{digits}f}"


def _flag(ok: bool | None) -> str:
    return {True: "ok", False: "LOW", None: ""}[ok]


def render_text(stats: Agreement, label: str = "human", pred: str = "coscore") -> str:
    """A plain-text report: the statistics, flags and the confusion matrix."""
    lines = [
        f"agreement of {pred} with {label}",
        f"  n                   {stats.n}" + _excluded(stats),
        f"                      {label[:10]:>10} {pred[:13]:>13}",
        f"  mean                {_fmt(stats.mean_human, 2):>10} {_fmt(stats.mean_pred, 2):>13}",
        f"  SD                  {_fmt(stats.sd_human, 2):>10} {_fmt(stats.sd_pred, 2):>13}",
        f"  exact agreement     {_fmt(stats.exact_agreement, percent=True):>10}",
        f"  adjacent (|d| <= 1) {_fmt(stats.adjacent_agreement, percent=True):>10}",
        f"  QWK                 {_fmt(stats.qwk):>10}   {_flag(stats.qwk_ok):<3} (threshold >= {QWK_THRESHOLD:.2f})",
        f"  unweighted kappa    {_fmt(stats.kappa):>10}",
        f"  Pearson r           {_fmt(stats.pearson_r):>10}",
        f"  RMSE                {_fmt(stats.rmse):>10}",
        f"  R²                  {_fmt(stats.r2):>10}",
        f"  SMD                 {_fmt(stats.smd):>10}   {_flag(stats.smd_ok):<3}"
        f" (threshold |SMD| <= {SMD_THRESHOLD:.2f})",
        "",
        f"confusion matrix (rows: {label}, columns: {pred}; rounded half up)",
        "       " + "".join(f"{j:>5}" for j in stats.labels),
    ]
    for i, row in zip(stats.labels, stats.confusion):
        lines.append(f"  {i:>3}  " + "".join(f"{c:>5}" if c else "    ." for c in row))
    return "\n".join(lines)


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
                pred: str = "coscore", report: "FullReport | None" = None) -> str:
    """A self-contained HTML page: statistics with flags, a score-distribution plot and a
    confusion heatmap (PNG images embedded as base64; needs matplotlib); with ``report``,
    also its provenance and sections (disagreements, combos, mark levels, subgroups)."""
    distribution = png(distribution_figure(stats, label, pred))
    heatmap = png(heatmap_figure(stats, label, pred))
    esc = html.escape
    head = _html_provenance(report.provenance) if report is not None else ""
    sections = _html_sections(report) if report is not None else ""
    body = f"""{head}<table>
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
    return page(title, body)


def page(title: str, body: str) -> str:
    """A self-contained HTML page (no scripts, no external resources) around ``body``."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; }} th, td {{ padding: .3em .8em; border-bottom: 1px solid #ddd; text-align: left; }}
td {{ font-variant-numeric: tabular-nums; vertical-align: top; }}
.ok {{ color: #17692c; font-weight: bold; }} .low {{ color: #b00020; font-weight: bold; }} .na {{ color: #777; }}
img {{ max-width: 100%; }} .note, .meta {{ color: #555; font-size: .9em; }}
.why {{ font-family: ui-monospace, monospace; font-size: .85em; white-space: pre-wrap; }}
.side {{ display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }} .heat {{ width: 24em; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
{body}
</body></html>
"""


def _html_figures(stats: Agreement, label: str, pred: str) -> str:
    esc = html.escape
    rows = [
        ("n", str(stats.n) + esc(_excluded(stats)), ""),
        (f"mean ({esc(label)} / {esc(pred)})", f"{_fmt(stats.mean_human, 2)} / {_fmt(stats.mean_pred, 2)}", ""),
        (f"SD ({esc(label)} / {esc(pred)})", f"{_fmt(stats.sd_human, 2)} / {_fmt(stats.sd_pred, 2)}", ""),
        ("exact agreement", _fmt(stats.exact_agreement, percent=True), ""),
        ("adjacent agreement (|d| ≤ 1)", _fmt(stats.adjacent_agreement, percent=True), ""),
        ("quadratic weighted kappa", _fmt(stats.qwk), _html_flag(stats.qwk_ok, f"QWK ≥ {QWK_THRESHOLD:.2f}")),
        ("unweighted kappa", _fmt(stats.kappa), ""),
        ("Pearson r", _fmt(stats.pearson_r), ""),
        ("RMSE", _fmt(stats.rmse), ""),
        ("R²", _fmt(stats.r2), ""),
        ("standardized mean difference", _fmt(stats.smd), _html_flag(stats.smd_ok, f"|SMD| ≤ {SMD_THRESHOLD:.2f}")),
    ]
    return "\n".join(f"<tr><th>{name}</th><td>{value}</td><td>{flag}</td></tr>" for name, value, flag in rows)


def _html_provenance(p: "Provenance") -> str:
    esc = html.escape
    rule = f"{esc(p.rule)} (SHA-256 {esc(p.rule_sha256 or '')})" if p.rule else "not given"
    return (f'<p class="meta">rule: {rule}<br>data: {esc(p.data)}<br>'
            f'date: <time>{esc(p.date)}</time></p>\n')


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}\n</table>\n"


def _html_sections(report: "FullReport") -> str:
    esc = html.escape
    out = [f"<h2>Largest disagreements</h2>\n"]
    if report.disagreements:
        out.append(_html_table(
            ["row", "id", "answer", esc(report.label), esc(report.pred), "why"],
            [[str(d.row), esc(d.id), esc(" | ".join(d.answer)), _fmt(d.mark, 2),
              _fmt(d.score, 2) if d.error is None else f'<span class="low">error: {esc(d.error)}</span>',
              f'<div class="why">{esc(chr(10).join(d.explanation))}</div>'] for d in report.disagreements]))
    else:
        out.append("<p>none: every score equals its mark</p>\n")
    if report.combos:
        out.append("<h2>Combos</h2>\n")
        out.append(_html_table(["combo", "counts in", "mean contribution", f"correlation with {esc(report.label)}"],
                               [[esc(c.id), _fmt(c.counts, percent=True), _fmt(c.mean_contribution, 2),
                                 _fmt(c.correlation)] for c in report.combos]))
    out.append("<h2>By mark level</h2>\n")
    out.append(_html_table([esc(report.label), "n", f"mean {esc(report.pred)}", "exact agreement"],
                           [[str(v.mark), str(v.n), _fmt(v.mean_score, 2), _fmt(v.exact_agreement, percent=True)]
                            for v in report.levels]))
    if report.by:
        out.append(f"<h2>By {esc(report.by)}</h2>\n")
        out.append(_html_table(_GROUP_HEADER, [[esc(g.value) or "(empty)", *_group_cells(g.agreement)]
                                               for g in report.groups]))
    return "".join(out)


_GROUP_HEADER = ["group", "n", "mean mark", "mean score", "exact", "QWK", "kappa", "r", "RMSE", "SMD"]


def _group_cells(a: Agreement) -> list[str]:
    return [str(a.n), _fmt(a.mean_human, 2), _fmt(a.mean_pred, 2), _fmt(a.exact_agreement, percent=True),
            _fmt(a.qwk), _fmt(a.kappa), _fmt(a.pearson_r), _fmt(a.rmse), _fmt(a.smd)]


def report_text(report: "FullReport") -> str:
    """The full report as plain text: provenance, the figures, then every section."""
    p = report.provenance
    rule = f"{p.rule} (SHA-256 {p.rule_sha256})" if p.rule else "not given"
    lines = [f"rule: {rule}", f"data: {p.data}", f"date: {p.date}", "",
             render_text(report.agreement, report.label, report.pred), "",
             f"largest disagreements (|{report.pred} − {report.label}|)"]
    if not report.disagreements:
        lines.append("  none: every score equals its mark")
    for d in report.disagreements:
        score = _fmt(d.score, 2) if d.error is None else f"error: {d.error}"
        lines.append(f"  row {d.row} (id {d.id}): {report.label} {_fmt(d.mark, 2)}, {report.pred} {score}")
        lines.append(f"    answer: {' | '.join(d.answer)[:300]}")
        lines.extend(f"    {line}" for line in d.explanation)
    if report.combos:
        lines += ["", f"combos            counts in   mean contribution   r with {report.label}"]
        for c in report.combos:
            lines.append(f"  {c.id:<15} {_fmt(c.counts, percent=True):>10} {_fmt(c.mean_contribution, 2):>19}"
                         f" {_fmt(c.correlation):>13}")
    lines += ["", f"by mark level  {'n':>6} {'mean ' + report.pred[:12]:>18} {'exact':>8}"]
    for v in report.levels:
        lines.append(f"  {v.mark:>11} {v.n:>6} {_fmt(v.mean_score, 2):>18} {_fmt(v.exact_agreement, percent=True):>8}")
    if report.by:
        lines += ["", f"by {report.by}", "  " + "".join(f"{h:>11}" for h in _GROUP_HEADER)]
        for g in report.groups:
            lines.append("  " + "".join(f"{c:>11}" for c in [(g.value or "(empty)")[:10], *_group_cells(g.agreement)]))
    return "\n".join(lines)


def _html_flag(ok: bool | None, text: str) -> str:
    if ok is None:
        return f'<span class="na">undefined ({html.escape(text)})</span>'
    cls, word = ("ok", "meets") if ok else ("low", "below")
    return f'<span class="{cls}">{word} {html.escape(text)}</span>'




# -- comparisons -------------------------------------------------------------------------

_FIGURE_NAMES = {
    "qwk": "QWK", "kappa": "unweighted kappa", "exact_agreement": "exact agreement",
    "adjacent_agreement": "adjacent (|d| ≤ 1)", "pearson_r": "Pearson r", "rmse": "RMSE", "r2": "R²",
    "smd": "SMD", "mean_pred": "mean score", "sd_pred": "SD of scores",
}
_PERCENT = {"exact_agreement", "adjacent_agreement"}


def _estimate(e: "Estimate", key: str = "") -> str:
    percent = key in _PERCENT
    if e.value is None:
        return "—"
    ci = f" [{_fmt(e.ci[0], percent=percent)}, {_fmt(e.ci[1], percent=percent)}]" if e.ci else ""
    return _fmt(e.value, percent=percent) + ci


def comparison_text(c: "Comparison") -> str:
    """A comparison as plain text: one column per scorer, 95 % intervals in brackets."""
    width = max([28, *(len(_estimate(s.estimates[k], k)) + 2 for s in c.scorers for k in s.estimates)])
    lines = [f"data: {c.data}", f"date: {c.date}",
             f"marks: {c.label}; n = {c.n} rows scored by every scorer (of {c.n_rows}); "
             f"95 % bootstrap intervals ({c.resamples} resamples, seed {c.seed})", ""]
    for s in c.scorers:
        if s.rule_sha256:
            lines.append(f"{s.name}: rule, SHA-256 {s.rule_sha256}")
    lines.append(f"{'':<20}" + "".join(f"{s.name[:width - 2]:>{width}}" for s in c.scorers))
    for key in (c.scorers[0].estimates if c.scorers else ()):
        lines.append(f"{_FIGURE_NAMES[key]:<20}" + "".join(f"{_estimate(s.estimates[key], key):>{width}}"
                                                          for s in c.scorers))
    if c.pairs:
        lines += ["", "paired QWK difference (a − b)"]
        for pair in c.pairs:
            lines.append(f"  {pair.a} − {pair.b}: {_estimate(pair.qwk_difference)}")
    if c.scorers:
        lines += ["", f"by mark level: n, then each scorer's mean score / exact agreement",
                  f"{c.label[:10]:>10}{'n':>6}" + "".join(f"{s.name[:width - 2]:>{width}}" for s in c.scorers)]
        for k, level in enumerate(c.scorers[0].levels):
            cells = [f"{_fmt(s.levels[k].mean_score, 2)} / {_fmt(s.levels[k].exact_agreement, percent=True)}"
                     for s in c.scorers]
            lines.append(f"{level.mark:>10}{level.n:>6}" + "".join(f"{cell:>{width}}" for cell in cells))
    if len(c.scorers) > 1:
        lines += ["", "rows where the scorers disagree"]
        if not c.rows:
            lines.append("  none")
    for row in c.rows:
        scores = ", ".join(f"{name} {_fmt(v, 2)}" for name, v in row.scores.items())
        lines.append(f"  row {row.row} (id {row.id}): {c.label} {_fmt(row.mark, 2)}; {scores}")
        lines.append(f"    answer: {' | '.join(row.answer)[:300]}")
        for name, why in row.explanations.items():
            lines.append(f"    {name}:")
            lines.extend(f"      {line}" for line in why)
    return "\n".join(lines)


def comparison_html(c: "Comparison", title: str) -> str:
    """A comparison as a self-contained HTML page: the table of figures with intervals,
    the pairs, a QWK plot, a confusion heatmap per scorer and the split rows."""
    from .plots import scorer_figure

    esc = html.escape
    meta = (f'<p class="meta">data: {esc(c.data)}<br>date: <time>{esc(c.date)}</time><br>marks: {esc(c.label)}; '
            f"n = {c.n} rows scored by every scorer (of {c.n_rows}); 95 % bootstrap intervals "
            f"({c.resamples} resamples, seed {c.seed})</p>\n")
    keys = list(c.scorers[0].estimates) if c.scorers else []
    figures = _html_table(["figure", *(esc(s.name) for s in c.scorers)],
                          [[_FIGURE_NAMES[k], *(_estimate(s.estimates[k], k) for s in c.scorers)] for k in keys])
    pairs = _html_table(["a", "b", "QWK a − b [95 %]"],
                        [[esc(p.a), esc(p.b), _estimate(p.qwk_difference)] for p in c.pairs]) if c.pairs else ""
    qwk = png(scorer_figure([s.name for s in c.scorers], [s.estimates["qwk"].value for s in c.scorers],
                            [s.estimates["qwk"].ci for s in c.scorers], "QWK with 95 % interval"))
    parts = [meta, "<h2>Figures</h2>\n", figures]
    if pairs:
        parts += ["<h2>Paired differences</h2>\n", pairs]
    parts.append(f'<h2>QWK</h2>\n<img alt="QWK per scorer" src="data:image/png;base64,{qwk}">\n')
    for s in c.scorers:
        heat = png(heatmap_figure(s.agreement, c.label, s.name))
        sha = f'<p class="meta">rule, SHA-256 {esc(s.rule_sha256)}</p>\n' if s.rule_sha256 else ""
        levels = _html_table([esc(c.label), "n", "mean score", "exact"],
                             [[str(v.mark), str(v.n), _fmt(v.mean_score, 2), _fmt(v.exact_agreement, percent=True)]
                              for v in s.levels])
        parts.append(f'<h2>{esc(s.name)}</h2>\n{sha}<div class="side"><img class="heat" alt="confusion heatmap of '
                     f'{esc(s.name)}" src="data:image/png;base64,{heat}">\n{levels}</div>\n')
    if len(c.scorers) > 1:
        parts.append("<h2>Rows where the scorers disagree</h2>\n")
        parts.append(_html_table(
            ["row", "id", "answer", esc(c.label), *(esc(s.name) for s in c.scorers), "why"],
            [[str(r.row), esc(r.id), esc(" | ".join(r.answer)), _fmt(r.mark, 2),
              *(_fmt(r.scores[s.name], 2) for s in c.scorers),
              '<div class="why">' + esc("\n".join(f"{n}: " + "\n  ".join(w) for n, w in r.explanations.items()))
              + "</div>"] for r in c.rows]) if c.rows else "<p>none</p>\n")
    return page(title, "".join(parts))
