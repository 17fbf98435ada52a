"""``coscore demo``: score the CoScore datasets bundled in ``coscore/data/demo`` and show
how the scores agree with the teachers' marks.

The data are located with :mod:`importlib.resources`, so the demo works from a checkout
and after ``pip install``. Each ``<task>.csv`` (the original layout) is scored with the
rule whose name is the longest prefix of its own (``lab-tools-unlabeled.csv`` uses
``lab-tools.rule.json``).
"""
from __future__ import annotations

import contextlib
import importlib.resources
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .io import AnswerColumns, open_reader
from .pipeline.files import scored_chunks
from .pipeline.results import ERROR_COLUMN, SCORE_COLUMN
from .pipeline.scoring import ItemPlan, Scoring
from .report import QWK_THRESHOLD, SMD_THRESHOLD, Agreement, agreement

if TYPE_CHECKING:
    from .rule import Rule

_RULE_SUFFIX = ".rule.json"


@dataclass
class DemoResult:
    """One bundled dataset, scored: its answers, marks (or ``None``), scores and statistics."""

    task: str
    rule: str
    answers: list[str]
    marks: list[float] | None
    scores: list[float | None]
    errors: int
    stats: Agreement | None


@contextlib.contextmanager
def demo_folder() -> Iterator[Path]:
    """The folder of bundled demo files, as a real path for the duration of the block."""
    with importlib.resources.as_file(importlib.resources.files("coscore") / "data" / "demo") as folder:
        yield Path(folder)


def demo_pairs(folder: Path) -> list[tuple[str, Path, Path]]:
    """``(task, rule file, data file)`` for each bundled dataset, sorted by task."""
    rules = {p.name[: -len(_RULE_SUFFIX)]: p for p in folder.iterdir() if p.name.endswith(_RULE_SUFFIX)}
    pairs = []
    for data in sorted(folder.glob("*.csv")):
        task = data.stem
        owners = [name for name in rules if task == name or task.startswith(name + "-")]
        if owners:
            pairs.append((task, rules[max(owners, key=len)], data))
    return pairs


def score_demo(folder: Path | None = None) -> list[DemoResult]:
    """Score every bundled dataset (or those in ``folder``) with its rule."""
    import coscore

    if folder is None:
        with demo_folder() as bundled:
            return score_demo(bundled)
    results = []
    for task, rule_path, data_path in demo_pairs(folder):
        rule = coscore.compile(rule_path.read_text(encoding="utf-8"))
        results.append(_score_one(task, rule_path.name, rule, data_path))
    return results


def _score_one(task: str, rule_name: str, rule: Rule, data_path: Path) -> DemoResult:
    answers: list[str] = []
    marks: list[float] = []
    scores: list[float | None] = []
    errors = 0
    with open_reader(data_path, "coscore") as reader:
        columns = AnswerColumns.resolve("coscore", reader.source, reader.columns, None, None)
        for chunk in scored_chunks(Scoring((ItemPlan(rule.plan, columns),)), reader.chunks()):
            answers.extend(chunk.pylist("text"))
            if columns.label:
                marks.extend(float(m) for m in chunk.pylist(columns.label))
            scores.extend(chunk.pylist(SCORE_COLUMN))
            errors += sum(e is not None for e in chunk.pylist(ERROR_COLUMN))
        labelled = columns.label is not None
    stats = agreement(marks, scores) if labelled else None
    return DemoResult(task, rule_name, answers, marks if labelled else None, scores, errors, stats)


def render_demo(results: list[DemoResult], folder: Path | None = None) -> str:
    """The agreement table (labelled datasets), the scores of unlabelled ones, and (given
    the demo ``folder``) commands to try next."""
    out = [
        "coscore demo: the CoScore tasks bundled with coscore, scored with their rules and",
        "compared with the teachers' marks (agreement on the 0-10 scale, rounded half up).",
        "",
        f"{'task':<16}{'answers':>8}{'mean mark':>11}{'mean score':>12}{'exact':>8}{'adjacent':>10}"
        f"{'QWK':>8}{'r':>8}{'SMD':>8}",
    ]
    for r in results:
        if r.stats is None:
            continue
        s = r.stats
        out.append(
            f"{r.task:<16}{s.n:>8}{_f(s.mean_human, 2):>11}{_f(s.mean_pred, 2):>12}"
            f"{_pct(s.exact_agreement):>8}{_pct(s.adjacent_agreement):>10}"
            f"{_f(s.qwk):>7}{_mark(s.qwk_ok)}{_f(s.pearson_r):>8}{_f(s.smd):>7}{_mark(s.smd_ok)}"
        )
    out.append(f"* meets ETS's usual threshold (QWK >= {QWK_THRESHOLD:.2f}, |SMD| <= {SMD_THRESHOLD:.2f}).")
    for r in results:
        if r.stats is not None:
            continue
        out += ["", f"{r.task} (no marks), scored with {r.rule}:", f"{'score':>7}  answer"]
        out += [f"{_f(score, 1):>7}  {answer}" for answer, score in zip(r.answers, r.scores)]
    failed = sum(r.errors for r in results)
    if failed:
        out += ["", f"{failed} answers could not be scored."]
    if folder is not None:
        out += ["", "Next, see why an answer gets its score, or score a file yourself:"]
        out += [f"  {command}" for command in next_commands(folder)]
        if not html_reports():
            out.append("  (for an HTML page with figures, add --html report.html after: pip install matplotlib)")
    return "\n".join(out)


def next_commands(folder: Path, html: bool | None = None) -> list[str]:
    """The commands the demo suggests trying next, on the demo files in ``folder``; the
    report writes an HTML page when ``html`` (default: when :func:`html_reports`). Each
    runs on the install the README's Quick start makes, from any working directory."""
    html = html_reports() if html is None else html
    return [
        f"coscore explain {_shell(folder / 'traffic-light.rule.json')} 前进 如果红灯等待 左转",
        f"coscore score {_shell(folder / 'lane-change.rule.json')} {_shell(folder / 'lane-change.csv')}"
        " --format coscore -o scored.csv",
        "coscore report scored.csv --label score" + (" --html report.html" if html else ""),
    ]


def html_reports() -> bool:
    """Whether ``coscore report --html`` can draw its figures here: matplotlib, the
    ``plot`` extra, is installed (looked up, not imported)."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def run_demo() -> str:
    """Score the bundled datasets and return the printed report."""
    persistent = isinstance(importlib.resources.files("coscore"), Path)  # not inside a zip
    with demo_folder() as folder:
        return render_demo(score_demo(folder), folder if persistent else None)


def _shell(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def _f(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _mark(ok: bool | None) -> str:
    return "*" if ok else " "
