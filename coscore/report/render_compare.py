"""A comparison of scorers (:mod:`.compare`) as text and as a self-contained HTML page."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .format import fmt, html_table, pad, page, text_table
from .format import width as text_width
from .plots import heatmap_figure, png
from .render_groups import GROUP_HEADER, GROUP_NOTE, group_table, html_groups
from .summary import summary_html, summary_text

if TYPE_CHECKING:
    from .compare import Comparison, Estimate, ScorerResult

#: How each figure of a comparison is named.
FIGURE_NAMES = {
    "qwk": "QWK", "kappa": "unweighted kappa", "exact_agreement": "exact agreement",
    "adjacent_agreement": "adjacent (|d| ≤ 1)", "pearson_r": "Pearson r", "rmse": "RMSE", "r2": "R²",
    "smd": "SMD", "mean_pred": "mean score", "sd_pred": "SD of scores", "prmse": "PRMSE",
}
_PERCENT = {"exact_agreement", "adjacent_agreement"}
#: The figures in points, shown with 2 decimals as the report shows means and SDs.
_POINTS = {"mean_pred", "sd_pred"}


def estimate(e: Estimate | None, key: str = "") -> str:
    """A figure with its interval in brackets; ``—`` when undefined or absent."""
    percent = key in _PERCENT
    digits = 2 if key in _POINTS else 3
    if e is None or e.value is None:
        return "—"
    ci = f" [{fmt(e.ci[0], digits, percent)}, {fmt(e.ci[1], digits, percent)}]" if e.ci else ""
    return fmt(e.value, digits, percent) + ci


def _columns(c: Comparison) -> list[ScorerResult]:
    """The columns of the table of figures: each scorer, then the second teacher."""
    return [*c.scorers, *([c.human_human] if c.human_human else [])]


def _title(s: ScorerResult) -> str:
    return f"{s.name} (H–H)" if s.kind == "human" else s.name


def _meta(c: Comparison) -> list[str]:
    """What the figures are about, a sentence a line."""
    out = [f"marks: {c.label}; n = {c.n} rows scored by every scorer (of {c.n_rows}); 95 % bootstrap intervals "
           f"({c.resamples} resamples, seed {c.seed}, resampling {c.method})"]
    if c.human_human:
        out.append(f"second marks: {c.label2}; the column \"{_title(c.human_human)}\" is {c.label2} against "
                   f"{c.label} on the {c.human_human.agreement.n} of those rows marked twice; PRMSE: RSMTool's "
                   "proportional reduction in mean squared error against the true score")
    out.extend(c.left_out_lines())
    return out


def comparison_text(c: Comparison) -> str:
    """A comparison as plain text: one column per scorer, 95 % intervals in brackets."""
    columns = _columns(c)
    width = max([28, *(len(estimate(s.estimates.get(k), k)) + 2 for s in columns for k in s.estimates),
                 *(text_width(_title(s)) + 2 for s in columns)])
    lines = [f"data: {c.data}", f"date: {c.date}", *_meta(c), "", *summary_text(c.summary()), ""]
    for s in c.scorers:
        if s.rule_sha256:
            lines.append(f"{s.name}: rule, SHA-256 {s.rule_sha256}")
    lines.append(f"{'':<20}" + "".join(pad(_title(s), width) for s in columns))
    for key in (c.scorers[0].estimates if c.scorers else ()):
        lines.append(f"{FIGURE_NAMES[key]:<20}" + "".join(f"{estimate(s.estimates.get(key), key):>{width}}"
                                                         for s in columns))
    if c.pairs:
        lines += ["", "paired QWK difference (a − b)"]
        for pair in c.pairs:
            lines.append(f"  {pair.a} − {pair.b}: {estimate(pair.qwk_difference)}")
    if c.scorers:
        w_label = max(10, text_width(c.label))
        lines += ["", "by mark level: n, then each scorer's mean score / exact agreement",
                  f"{pad(c.label, w_label)}{'n':>6}" + "".join(pad(s.name, width) for s in c.scorers)]
        for k, level in enumerate(c.scorers[0].levels):
            cells = [f"{fmt(s.levels[k].mean_score, 2)} / {fmt(s.levels[k].exact_agreement, percent=True)}"
                     for s in c.scorers]
            lines.append(f"{level.mark:>{w_label}}{level.n:>6}" + "".join(f"{cell:>{width}}" for cell in cells))
    if c.by:
        for s in c.scorers:
            lines += ["", f"{s.name} by {c.by}", *text_table(GROUP_HEADER, group_table(s.groups))]
        lines.append(f"  {GROUP_NOTE}")
    if len(c.scorers) > 1:
        lines += ["", "rows where the scorers disagree"]
        if not c.rows:
            lines.append("  none")
    for row in c.rows:
        scores = ", ".join(f"{name} {fmt(v, 2)}" for name, v in row.scores.items())
        lines.append(f"  row {row.row} (id {row.id}): {c.label} {fmt(row.mark, 2)}; {scores}")
        lines.append(f"    answer: {' | '.join(row.answer)[:300]}")
        for name, why in row.explanations.items():
            lines.append(f"    {name}:")
            lines.extend(f"      {line}" for line in why)
    return "\n".join(lines)


def comparison_html(c: Comparison, title: str) -> str:
    """A comparison as a self-contained HTML page: the table of figures with intervals,
    the pairs, a QWK plot, a confusion heatmap per scorer, the groups and the split rows."""
    return page(title, comparison_body(c))


def comparison_body(c: Comparison) -> str:
    """The body of :func:`comparison_html`'s page (its sections headed by ``<h2>``)."""
    from .plots import scorer_figure

    esc = html.escape
    meta = (f'<p class="meta">data: {esc(c.data)}<br>date: <time>{esc(c.date)}</time><br>'
            + "<br>".join(esc(line) for line in _meta(c)) + "</p>\n")
    columns = _columns(c)
    keys = list(c.scorers[0].estimates) if c.scorers else []
    figures = html_table(["figure", *(esc(_title(s)) for s in columns)],
                         [[FIGURE_NAMES[k], *(estimate(s.estimates.get(k), k) for s in columns)] for k in keys])
    pairs = html_table(["a", "b", "QWK a − b [95 %]"],
                       [[esc(p.a), esc(p.b), estimate(p.qwk_difference)] for p in c.pairs]) if c.pairs else ""
    qwk = png(scorer_figure([_title(s) for s in columns], [s.estimates["qwk"].value for s in columns],
                            [s.estimates["qwk"].ci for s in columns], "QWK with 95 % interval"))
    parts = [meta, summary_html(c.summary()), "<h2>Figures</h2>\n", figures]
    if pairs:
        parts += ["<h2>Paired differences</h2>\n", pairs]
    parts.append(f'<h2>QWK</h2>\n<img alt="QWK per scorer" src="data:image/png;base64,{qwk}">\n')
    for s in c.scorers:
        heat = png(heatmap_figure(s.agreement, c.label, s.name))
        sha = f'<p class="meta">rule, SHA-256 {esc(s.rule_sha256)}</p>\n' if s.rule_sha256 else ""
        levels = html_table([esc(c.label), "n", "mean score", "exact"],
                            [[str(v.mark), str(v.n), fmt(v.mean_score, 2), fmt(v.exact_agreement, percent=True)]
                             for v in s.levels])
        parts.append(f'<h2>{esc(s.name)}</h2>\n{sha}<div class="side"><img class="heat" alt="confusion heatmap of '
                     f'{esc(s.name)}" src="data:image/png;base64,{heat}">\n{levels}</div>\n')
        if c.by:
            parts.append(f"<h3>{esc(s.name)} by {esc(c.by)}</h3>\n{html_groups(s.groups)}")
    if len(c.scorers) > 1:
        parts.append("<h2>Rows where the scorers disagree</h2>\n")
        parts.append(html_table(
            ["row", "id", "answer", esc(c.label), *(esc(s.name) for s in c.scorers), "why"],
            [[str(r.row), esc(r.id), esc(" | ".join(r.answer)), fmt(r.mark, 2),
              *(fmt(r.scores[s.name], 2) for s in c.scorers),
              '<div class="why">' + esc("\n".join(f"{n}: " + "\n  ".join(w) for n, w in r.explanations.items()))
              + "</div>"] for r in c.rows]) if c.rows else "<p>none</p>\n")
    return "".join(parts)
