"""An exam's report (:mod:`.exam`) and comparison (:mod:`.exam_compare`) as text and as
one self-contained HTML page: the overview first, then each item's section as the
report or comparison of that item alone renders it, then the total's."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .format import fmt, html_table, page, text_table
from .render import report_body, report_text
from .render_compare import comparison_body, comparison_text, estimate

if TYPE_CHECKING:
    from ..exam import Exam
    from .exam import ExamReport, ExamTotal, OverviewLine
    from .exam_compare import ExamComparison

__all__ = ["exam_comparison_html", "exam_comparison_text", "exam_report_html", "exam_report_text",
           "overview_table"]

#: The columns of an exam's overview.
OVERVIEW_HEADER = ["item", "marks", "n", "mean mark", "mean score", "QWK [95 %]", "exact", "SMD", "PRMSE", "flags"]


def _exam_line(exam: Exam) -> str:
    name = f" — {exam.name}" if exam.name else ""
    items = len(exam.items)
    return f"exam: {exam.source or '<exam>'}{name} ({exam.layout} layout, {items} item{'s' * (items != 1)})"


def _interval(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None:
        return "—"
    return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")


def overview_table(lines: list[OverviewLine]) -> list[list[str]]:
    """The rows of an exam's overview (columns :data:`OVERVIEW_HEADER`)."""
    rows = []
    for line in lines:
        a = line.agreement
        if a is None:
            rows.append([line.item, "—", "", "no marks", "", "", "", "", "", ""])
            continue
        rows.append([line.item, line.label or "", str(a.n), fmt(a.mean_human, 2), fmt(a.mean_pred, 2),
                     _interval(a.qwk, line.qwk_ci), fmt(a.exact_agreement, percent=True), fmt(a.smd),
                     fmt(line.prmse), ", ".join(line.flags) or "ok"])
    return rows


def _total_lines(t: ExamTotal) -> list[str]:
    s, r = t.students, t.report
    weights = ", ".join(f"{name} × {weight:g}" for name, weight in t.weights.items())
    out = [f"{r.pred} against {r.label}: Σ weight × score against Σ weight × mark ({weights})"]
    if s.divisor != 1:
        out.append(f"  both divided by {s.divisor:g}, the sum of the weights: the figures are on the items' 0–10 "
                   "scale")
    a = r.agreement
    left = [f"{count} {what}" for count, what in (
        (a.n_without_label, "missing an item's mark"), (a.n_without_pred, "missing an item's score"),
        (s.incomplete, "without a row for every item"), (s.duplicated, "with two rows for one item")) if count]
    rows = f"; {s.without_id} rows without a student id are left out" if s.without_id else ""
    out.append(f"  {a.n} of {s.students} students have both totals"
               + (f" (no total: {', '.join(left)})" if left else "") + rows)
    means = s.raw_means()
    out.append(f"  mean total mark {fmt(means['mark'], 2)}, mean total score {fmt(means[r.pred], 2)} (in points)")
    if t.unmarked:
        out.append(f"  left out of the total (no marks): {', '.join(t.unmarked)}")
    return out


def exam_report_text(r: ExamReport) -> str:
    """The exam's report as plain text: the overview, each item's report, the total's."""
    head = (f"overview, worst first (lowest QWK first); QWK with its 95 % bootstrap interval ({r.resamples} "
            f"resamples, seed {r.seed})")
    lines = [_exam_line(r.exam), f"data: {r.data}", f"date: {r.date}", "", head,
             *text_table(OVERVIEW_HEADER, overview_table(r.overview + ([r.total.line] if r.total else [])))]
    for name, report in r.reports.items():
        lines += ["", f"══ item {name}: {report.pred} against {report.label} ══", report_text(report)]
    if r.total is not None:
        lines += ["", "══ total ══", *_total_lines(r.total), "", report_text(r.total.report)]
    return "\n".join(lines)


def _html_overview(lines: list[OverviewLine], anchors: dict[str, str]) -> str:
    esc = html.escape
    rows = []
    for line, cells in zip(lines, overview_table(lines)):
        cells = [esc(c) for c in cells]
        if line.item in anchors:
            cells[0] = f'<a href="#{anchors[line.item]}">{cells[0]}</a>'
        if line.flags:
            cells[-1] = f'<span class="low">{cells[-1]}</span>'
        rows.append(cells)
    return html_table(OVERVIEW_HEADER, rows)


def _demoted(body: str) -> str:
    """A report's body as a section of a larger page: its headings one level down (user
    text in it is escaped, so every ``<h2>`` and ``<h3>`` is the renderer's own)."""
    return (body.replace("<h3>", "<h4>").replace("</h3>", "</h4>")
            .replace("<h2>", "<h3>").replace("</h2>", "</h3>"))


def exam_report_html(r: ExamReport, title: str) -> str:
    """The exam's report as one self-contained HTML page (needs matplotlib)."""
    esc = html.escape
    anchors = {name: f"item-{k}" for k, name in enumerate(r.reports)}
    anchors["total"] = "total"
    parts = [(f'<p class="meta">{esc(_exam_line(r.exam))}<br>data: {esc(r.data)}<br>date: <time>{esc(r.date)}'
              f'</time></p>\n<h2>Overview</h2>\n<p class="note">Worst first (lowest QWK first); QWK with its 95 % '
              f'bootstrap interval ({r.resamples} resamples, seed {r.seed}).</p>\n'),
             _html_overview(r.overview + ([r.total.line] if r.total else []), anchors)]
    for name, report in r.reports.items():
        parts.append(f'<h2 id="{anchors[name]}">Item {esc(name)}: {esc(report.pred)} against {esc(report.label)}'
                     f'</h2>\n{_demoted(report_body(report.agreement, report.label, report.pred, report))}')
    if r.total is not None:
        t = r.total
        notes = "<br>".join(esc(line.strip()) for line in _total_lines(t))
        parts.append(f'<h2 id="total">Total</h2>\n<p class="note">{notes}</p>\n'
                     f'{_demoted(report_body(t.report.agreement, t.report.label, t.report.pred, t.report))}')
    return page(title, "".join(parts))


# -- comparisons --------------------------------------------------------------------------

def _comparison_head(c: ExamComparison) -> list[str]:
    a, b = c.names
    out = [f"exam a: {c.exams[0].source or '<exam>'} (shown as {a})",
           f"exam b: {c.exams[1].source or '<exam>'} (shown as {b})", f"data: {c.data}", f"date: {c.date}"]
    for names, why in ((c.only_a, f"only in {a}"), (c.only_b, f"only in {b}"), (c.unmarked, "without marks")):
        if names:
            out.append(f"left out, {why}: {', '.join(names)}")
    return out


def _comparison_rows(c: ExamComparison) -> tuple[list[str], list[list[str]]]:
    header = ["item", "n", *(f"QWK {name}" for name in c.names), "QWK a − b"]
    rows = []
    for name, comparison in c.lines():
        by_name = {s.name: s for s in comparison.scorers}
        rows.append([name, str(comparison.n),
                     *(estimate(by_name[n].estimates["qwk"]) if n in by_name else "—" for n in c.names),
                     estimate(comparison.pairs[0].qwk_difference) if comparison.pairs else "—"])
    return header, rows


def _total_note(c: ExamComparison) -> list[str]:
    s = c.students
    if s is None:
        return []
    out = [(f"each exam's Σ weight × score against {c.total.label if c.total else 'the marks'} "
            f"({c.names[0]}'s weights for the marks), over {s.students} students")]
    if s.divisor != 1 or any(d != 1 for d in s.divisors.values()):
        divided = ", ".join(f"{name} ÷ {d:g}" for name, d in s.divisors.items())
        out.append(f"each total divided by its sum of weights ({divided}; marks ÷ {s.divisor:g}): the figures are "
                   "on the items' 0–10 scale")
    counts = [f"{count} {what}" for count, what in ((s.incomplete, "without a row for every item"),
                                                    (s.duplicated, "with two rows for one item"),
                                                    (s.without_id, "rows without a student id")) if count]
    if counts:
        out.append("left out: " + "; ".join(counts))
    return out


def exam_comparison_text(c: ExamComparison) -> str:
    """The comparison of two exams as plain text: the overview, each item's comparison,
    the total's."""
    header, rows = _comparison_rows(c)
    lines = [*_comparison_head(c), "", "overview: each exam's QWK and the paired difference, 95 % bootstrap intervals",
             *text_table(header, rows)]
    for name, comparison in c.items.items():
        lines += ["", f"══ item {name} ══", comparison_text(comparison)]
    if c.total is not None:
        lines += ["", "══ total ══", *_total_note(c), "", comparison_text(c.total)]
    return "\n".join(lines)


def exam_comparison_html(c: ExamComparison, title: str) -> str:
    """The comparison of two exams as one self-contained HTML page (needs matplotlib)."""
    esc = html.escape
    header, rows = _comparison_rows(c)
    anchors = {name: f"item-{k}" for k, name in enumerate(c.items)}
    anchors["total"] = "total"
    cells = [[f'<a href="#{anchors[row[0]]}">{esc(row[0])}</a>', *(esc(x) for x in row[1:])] for row in rows]
    parts = [f'<p class="meta">{"<br>".join(esc(line) for line in _comparison_head(c))}</p>\n<h2>Overview</h2>\n',
             html_table([esc(h) for h in header], cells)]
    for name, comparison in c.items.items():
        parts.append(f'<h2 id="{anchors[name]}">Item {esc(name)}</h2>\n{_demoted(comparison_body(comparison))}')
    if c.total is not None:
        notes = "<br>".join(esc(line) for line in _total_note(c))
        parts.append(f'<h2 id="total">Total</h2>\n<p class="note">{notes}</p>\n'
                     f'{_demoted(comparison_body(c.total))}')
    return page(title, "".join(parts))
