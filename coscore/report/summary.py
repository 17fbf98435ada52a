"""The plain-language summary that heads a report: one sentence per figure, in words a
teacher can act on, each number written exactly as the report's tables show it (with
:func:`.format.fmt`: percentages with one decimal, means with two, the other figures with
three) and each verdict the table's own flag (the same :class:`.stats.Agreement`,
:class:`.humans.Consistency` and :class:`.groups.GroupStats`), so that the summary never
says other than the figures.

:func:`report_summary` summarizes a :class:`.sections.FullReport`, :func:`agreement_summary`
the figures alone, :func:`comparison_summary` a :class:`.compare.Comparison` (a line per
scorer, per pair of scorers and for a second teacher). The words are explained in
docs/report.md, "What the figures mean".
"""
from __future__ import annotations

import html
from typing import Any

from .format import fmt
from .groups import DSM_THRESHOLD, R_THRESHOLD, GroupStats
from .humans import DEGRADATION, HH_ADJACENT, HH_EXACT, HH_QWK, HH_R, Consistency
from .stats import QWK_THRESHOLD, SMD_THRESHOLD, Agreement

__all__ = ["agreement_summary", "comparison_summary", "consistency_summary", "groups_summary", "report_summary",
           "summary_html", "summary_text"]

#: How many flagged groups a summary names before "…".
NAMED_GROUPS = 5


def summary_text(sentences: list[str]) -> list[str]:
    """The summary as lines of text: ``in short:``, then a sentence a line."""
    return ["in short:", *(f"  - {sentence}" for sentence in sentences)]


def summary_html(sentences: list[str]) -> str:
    """The summary as a section of an HTML page."""
    items = "".join(f"<li>{html.escape(sentence)}</li>\n" for sentence in sentences)
    return f'<h2>In short</h2>\n<ul class="summary">\n{items}</ul>\n'


def report_summary(report: Any) -> list[str]:
    """The sentences that head ``report`` (a :class:`.sections.FullReport`): its figures,
    then the second teacher (with ``--label2``) and the groups (with ``--by``)."""
    out = agreement_summary(report.agreement, report.label, report.pred)
    if report.consistency is not None and report.agreement.n:
        out += consistency_summary(report.consistency)
    if report.by and report.groups:
        out.append(groups_summary(report.groups, report.by))
    return out


def agreement_summary(a: Agreement, label: str = "human", pred: str = "coscore") -> list[str]:
    """One sentence each on exact and adjacent agreement, the difference of the means
    (SMD), QWK and RMSE of scores ``pred`` against marks ``label``."""
    if not a.n:
        return [f"No answer has both a mark ({label}) and a score ({pred}): there is nothing to compare."]
    out = [(f"The scores ({pred}) give the teacher's mark ({label}) exactly on {fmt(a.exact_agreement, percent=True)} "
            f"of the {a.n} answers and come within one point of it on {fmt(a.adjacent_agreement, percent=True)} "
            "(both rounded to whole points).")]
    out.append(_bias(a))
    if a.qwk is None:
        out.append("Agreement beyond chance (QWK) is undefined: every mark and every score is the same whole point.")
    else:
        out.append(f"Agreement beyond chance (QWK {fmt(a.qwk)}) {_meets(a.qwk_ok)} the usual bar of "
                   f"{QWK_THRESHOLD:.2f} for scores that stand in for a teacher's marks.")
    if a.rmse is not None:
        out.append(f"A score misses its mark by {fmt(a.rmse)} points in a typical answer (RMSE, the root of the mean "
                   "squared difference).")
    return out


def _bias(a: Agreement) -> str:
    """The sentence on SMD: how far the scores lie above or below the marks on average."""
    means = f"mean score {fmt(a.mean_pred, 2)}, mean mark {fmt(a.mean_human, 2)}"
    if a.smd is None:
        return (f"How far the scores lie above or below the marks on average cannot be measured in standard "
                f"deviations (SMD undefined: too few answers, or no spread in the marks and scores; {means}).")
    shown = fmt(abs(a.smd))
    if float(shown) == 0:
        return f"On average the scores neither exceed nor fall short of the marks (SMD {fmt(0.0)}; {means})."
    higher = a.smd > 0
    if a.smd_ok:
        verdict = f"within the usual limit (|SMD| at most {SMD_THRESHOLD:.2f})"
    else:
        verdict = f"too {'high' if higher else 'low'} (|SMD| above {SMD_THRESHOLD:.2f})"
    return (f"On average the scores are {shown} standard deviations {'higher' if higher else 'lower'} than the "
            f"marks ({means}): {verdict}.")


def _meets(ok: bool | None) -> str:
    return "meets" if ok else "is below"


def consistency_summary(c: Consistency) -> list[str]:
    """How the second teacher (``c.label2``) agrees with the first, how the scores compare
    with that (degradation of QWK) and PRMSE."""
    hh, hm = c.human_human, c.human_machine
    if not hh.n:
        return [(f"No scored answer has a second mark ({c.label2}), so the scores cannot be compared with a second "
                 "teacher.")]
    short = [f"{name} {shown} below {bar}" for name, value, shown, bar in (
        ("exact agreement", hh.exact_agreement, fmt(hh.exact_agreement, percent=True), f"{HH_EXACT * 100:.0f} %"),
        ("within one point", hh.adjacent_agreement, fmt(hh.adjacent_agreement, percent=True),
         f"{HH_ADJACENT * 100:.0f} %"),
        ("QWK", hh.qwk, fmt(hh.qwk), f"{HH_QWK:.2f}"), ("Pearson r", hh.pearson_r, fmt(hh.pearson_r), f"{HH_R:.2f}"))
        if c.flags[_HH_FLAGS[name]] is False]
    if short:
        verdict = f"below what two teachers usually reach ({'; '.join(short)})"
    else:
        verdict = (f"as two teachers usually do (exact at least {HH_EXACT * 100:.0f} %, within one point at least "
                   f"{HH_ADJACENT * 100:.0f} %, QWK and r at least {HH_QWK:.2f})")
    out = [(f"A second teacher ({c.label2}) gives the first teacher's mark exactly on "
            f"{fmt(hh.exact_agreement, percent=True)} of the {hh.n} answers marked twice and comes within one point "
            f"on {fmt(hh.adjacent_agreement, percent=True)}, QWK {fmt(hh.qwk)}: {verdict}.")]
    out.append(_against_teacher(hm, hh, c.degradation["qwk"], c.label2))
    out.append(_prmse(c))
    return out


_HH_FLAGS = {"exact agreement": "exact_agreement_ok", "within one point": "adjacent_agreement_ok", "QWK": "qwk_ok",
             "Pearson r": "pearson_r_ok"}


def _against_teacher(hm: Agreement, hh: Agreement, drop: float | None, label2: str) -> str:
    """The scores' QWK beside the second teacher's, in words (RSMTool's degradation flag)."""
    if drop is None:
        return (f"The scores cannot be set beside the second teacher ({label2}): a QWK is undefined (scores "
                f"{fmt(hm.qwk)}, second teacher {fmt(hh.qwk)}).")
    figures = f"QWK {fmt(hm.qwk)} against {fmt(hh.qwk)}"
    if drop < DEGRADATION:
        how = (f"less well than the second teacher ({label2}) does, by more than the {-DEGRADATION:.2f} that is "
               f"accepted ({figures})")
    elif fmt(hm.qwk) == fmt(hh.qwk):
        how = f"as well as the second teacher ({label2}) does ({figures})"
    elif hm.qwk is not None and hh.qwk is not None and hm.qwk > hh.qwk:  # both are: drop is
        how = f"better than the second teacher ({label2}) does ({figures})"
    else:
        how = (f"a little less well than the second teacher ({label2}) does, within the {-DEGRADATION:.2f} that "
               f"is accepted ({figures})")
    return f"The scores agree with the first teacher {how}."


def _prmse(c: Consistency) -> str:
    """PRMSE in words, beside the PRMSE one teacher's marks would have (``1 − variance of
    rater errors / true-score variance``, from the figures the report shows)."""
    t = c.true_score
    if t.prmse is None:
        return ("PRMSE is undefined: it needs answers marked twice and marks whose spread is more than the "
                "teachers' disagreement.")
    head = (f"PRMSE {fmt(t.prmse)} (1 is perfect, 0 no better than giving every answer the average mark) says how "
            "closely the scores follow the mark many teachers would agree on")
    ve, vt = t.variance_of_errors, t.true_score_variance
    if ve is None or not vt:
        return head + "."
    teacher = 1 - ve / vt
    if fmt(t.prmse) == fmt(teacher):
        how = "as closely as"
    else:
        how = "more closely than" if t.prmse > teacher else "less closely than"
    return (f"{head}: {how} one teacher's marks, whose PRMSE is {fmt(teacher)} (1 − variance of rater errors / "
            "true-score variance).")


def groups_summary(groups: list[GroupStats], by: str) -> str:
    """Which groups of ``by`` raise a flag, and which flags."""
    words = {"qwk_ok": f"QWK below {QWK_THRESHOLD:.2f}", "pearson_r_ok": f"r below {R_THRESHOLD:.2f}",
             "smd_ok": f"|SMD| above {SMD_THRESHOLD:.2f}", "dsm_ok": f"|DSM| above {DSM_THRESHOLD:.2f}"}
    flagged = [(g.value or "(empty)", [words[key] for key, ok in g.flags.items() if ok is False]) for g in groups]
    flagged = [(name, low) for name, low in flagged if low]
    if not flagged:
        return (f"No group of {by} ({len(groups)} group{'s' * (len(groups) != 1)}) is flagged: each has QWK and r "
                f"at least {QWK_THRESHOLD:.2f} (or undefined), |SMD| at most {SMD_THRESHOLD:.2f} and |DSM| at most "
                f"{DSM_THRESHOLD:.2f}.")
    named = "; ".join(f"{name} ({', '.join(low)})" for name, low in flagged[:NAMED_GROUPS])
    more = f"; and {len(flagged) - NAMED_GROUPS} more" if len(flagged) > NAMED_GROUPS else ""
    return (f"{len(flagged)} of {len(groups)} groups of {by} are flagged, so the scores serve them less well: "
            f"{named}{more}.")


# -- a comparison ----------------------------------------------------------------------

def comparison_summary(c: Any) -> list[str]:
    """One line per scorer of ``c`` (a :class:`.compare.Comparison`) and for the second
    teacher, then one per pair of scorers: which agrees better, when the interval of the
    QWK difference excludes 0."""
    out = [_scorer_line(s, c.label) for s in c.scorers]
    if c.human_human is not None:
        out.append(_scorer_line(c.human_human, c.label))
    for pair in c.pairs:
        out.append(_pair_line(pair.a, pair.b, pair.qwk_difference))
    return out


def _estimate(e: Any) -> str:
    """A figure (an :class:`.compare.Estimate`) with its interval, as ``compare`` shows it."""
    if e is None or e.value is None:
        return "—"
    return fmt(e.value) + (f" [{fmt(e.ci[0])}, {fmt(e.ci[1])}]" if e.ci else "")


def _scorer_line(s: Any, label: str) -> str:
    """``name: the mark exactly on …, within one point on …; QWK … meets …; … lower …``
    (``s``: a :class:`.compare.ScorerResult`)."""
    a = s.agreement
    who = f"{s.name} (a second teacher, on the {a.n} answers marked twice)" if s.kind == "human" else s.name
    if not a.n:
        return f"{who}: no answer to compare."
    parts = [(f"gives the mark ({label}) exactly on {fmt(a.exact_agreement, percent=True)} and within one point on "
              f"{fmt(a.adjacent_agreement, percent=True)}")]
    qwk = s.estimates.get("qwk")
    if a.qwk is None:
        parts.append("QWK undefined")
    else:
        parts.append(f"QWK {_estimate(qwk)} {_meets(a.qwk_ok)} the bar of {QWK_THRESHOLD:.2f}")
    if a.smd is not None:
        shown = fmt(abs(a.smd))
        if float(shown) == 0:
            parts.append(f"the same mean as the marks (SMD {fmt(0.0)})")
        else:
            higher = a.smd > 0
            verdict = (f"|SMD| at most {SMD_THRESHOLD:.2f}" if a.smd_ok else
                       f"too {'high' if higher else 'low'}: |SMD| above {SMD_THRESHOLD:.2f}")
            parts.append(f"{shown} standard deviations {'higher' if higher else 'lower'} than the marks on average "
                         f"({verdict})")
    prmse = s.estimates.get("prmse")
    if prmse is not None and prmse.value is not None:
        parts.append(f"PRMSE {_estimate(prmse)}")
    return f"{who}: " + "; ".join(parts) + "."


def _pair_line(a: str, b: str, difference: Any) -> str:
    shown = f"difference in QWK {_estimate(difference)}"
    if difference.value is None or difference.ci is None:
        return f"{a} and {b} cannot be set side by side ({shown})."
    low, high = difference.ci
    if low > 0:
        return f"{a} agrees with the marks better than {b} ({shown}: the interval lies above 0)."
    if high < 0:
        return f"{b} agrees with the marks better than {a} ({shown}: the interval lies below 0)."
    return f"{a} and {b} cannot be told apart on these answers ({shown}: the interval contains 0)."
