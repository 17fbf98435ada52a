"""A :class:`~coscore.tune.tuning.Tuning` as the text ``coscore tune`` prints."""
from __future__ import annotations

from ..report.compare import Estimate
from .search import NAMES
from .tuning import Tuning


def render(result: Tuning, rule: str = "the rule", data: str = "the data", output: str | None = None) -> str:
    """The report of ``result``: the figures with their intervals, the decision and why,
    the changes (or those proposed and not made) and where the rule was written."""
    name = NAMES[result.metric]
    searched = result.searched
    knobs = []
    if searched["thresholds"]:
        knobs.append(f"thresholds of atom{'s' * (len(searched['thresholds']) > 1)} {', '.join(searched['thresholds'])}")
    if searched["scores"]:
        knobs.append(f"scores of combo{'s' * (len(searched['scores']) > 1)} {', '.join(searched['scores'])}")
    if searched["drop"]:
        knobs.append("leaving out combos")
    lines = [
        f"coscore tune: {rule} on {data}",
        f"{result.n} marked rows, {result.n_distinct} distinct answers; searched {'; '.join(knobs) or 'nothing'}",
    ]
    if result.after is None or result.improvement is None:
        lines += ["", f"{name} of the original rule: {_estimate(result.before).strip()}", "",
                  f"no change: {result.reason}"]
    else:
        lines += [
            f"{result.folds}-fold cross-validation (seed {result.seed}), {result.resamples} paired bootstrap resamples",
            "",
            f"{name:<22}{'value':>8}   95 % interval",
            f"{'original rule':<22}{_estimate(result.before)}",
            f"{'tuned, held out':<22}{_estimate(result.after)}",
            f"{'improvement':<22}{_estimate(result.improvement, signed=True)}   "
            + ("above 0: accepted" if result.accepted else "not above 0: not accepted"),
            "",
        ]
        if result.accepted:
            lines += ["changes:", *(f"  {c}" for c in result.changes)]
            same = sum(fold == result.proposed for fold in result.fold_changes)
            lines.append(f"the search on each fold's other rows found the same changes in {same} of "
                         f"{result.folds} folds")
            if result.in_sample is not None:
                lines.append("the tuned rule on every row (fitted there, so optimistic): "
                             f"{name} {result.in_sample:.3f}")
        else:
            lines += [f"no change: {result.reason}", "proposed, not made:", *(f"  {c}" for c in result.proposed)]
    work = result.work
    lines.append(f"search: {work.candidates} settings tried; the engine scored {work.answers_scored} answers in "
                 f"{work.scorings} runs and traced {work.traced}; {result.seconds:.2f} s")
    check = result.check
    verdict = f"coscore check: {check['errors']} errors, {check['warnings']} warnings"
    if output is not None:
        lines.append(f"wrote {output} ({'the tuned rule' if result.accepted else 'the rule unchanged'}; {verdict})")
    elif result.accepted:
        lines.append(f"({verdict}; give -o FILE to write the tuned rule)")
    return "\n".join(lines)


def _estimate(estimate: Estimate, signed: bool = False) -> str:
    """``0.966   [0.949, 0.977]`` (signed: ``+0.023   [+0.012, +0.037]``)."""
    form = "{:+.3f}" if signed else "{:.3f}"
    value = "undefined" if estimate.value is None else form.format(estimate.value)
    ci = "no interval" if estimate.ci is None else f"[{form.format(estimate.ci[0])}, {form.format(estimate.ci[1])}]"
    return f"{value:>8}   {ci}"
