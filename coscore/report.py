"""Agreement between coscore's scores and teachers' marks, as in automated-scoring
practice (RSMTool), and the HTML report.

Formulas (``h`` = human marks, ``p`` = coscore scores, over the ``n`` rows that have both):

* rounding: ``round_half_up(x) = floor(x) + (1 if x - floor(x) >= 0.5 else 0)``, then
  clipped to the 0–10 integer scale; exact agreement, adjacent agreement, the QWK and the
  confusion matrix use these integers; the means, SDs, Pearson r and SMD use raw scores.
* exact agreement = share of rows with ``round(h) == round(p)``; adjacent agreement =
  share with ``|round(h) - round(p)| <= 1`` (fractions 0–1).
* QWK (quadratic weighted kappa) on the 11 categories 0..10: with ``O`` the confusion
  matrix, ``E = outer(row sums, column sums) / n`` and ``W[i, j] = (i - j)**2 / 100``,
  ``qwk = 1 - sum(W * O) / sum(W * E)``; undefined (``None``) when ``sum(W * E) == 0``.
* SD = sample standard deviation (``ddof=1``); Pearson r is undefined when an SD is 0.
* SMD (RSMTool, pooled) = ``(mean(p) - mean(h)) / sqrt((sd(h)**2 + sd(p)**2) / 2)``,
  undefined when the denominator is 0.

ETS's usual thresholds are flagged: QWK >= 0.70 and |SMD| <= 0.15.
"""
from __future__ import annotations

import base64
import html
import io
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .io import InputError, open_reader

#: The integer score scale of the kappas and the confusion matrix.
SCALE: tuple[int, ...] = tuple(range(11))
#: ETS's usual minimum quadratic weighted kappa.
QWK_THRESHOLD = 0.70
#: ETS's usual maximum absolute standardized mean difference.
SMD_THRESHOLD = 0.15


@dataclass
class Agreement:
    """Agreement statistics of predicted scores with human marks (see the module doc).

    Fractions are 0–1; a statistic that is undefined for the data is ``None``.
    ``confusion[i][j]`` counts rows with human mark ``i`` and coscore score ``j``
    (rounded half up, 0–10).
    """

    n: int
    mean_human: float | None
    mean_pred: float | None
    sd_human: float | None
    sd_pred: float | None
    exact_agreement: float | None
    adjacent_agreement: float | None
    qwk: float | None
    pearson_r: float | None
    smd: float | None
    confusion: list[list[int]]
    labels: list[int] = field(default_factory=lambda: list(SCALE))
    n_rows: int = 0
    n_without_label: int = 0
    n_without_pred: int = 0
    n_clipped: int = 0

    @property
    def qwk_ok(self) -> bool | None:
        """Whether QWK >= 0.70 (``None`` when QWK is undefined)."""
        return None if self.qwk is None else self.qwk >= QWK_THRESHOLD

    @property
    def smd_ok(self) -> bool | None:
        """Whether |SMD| <= 0.15 (``None`` when SMD is undefined)."""
        return None if self.smd is None else abs(self.smd) <= SMD_THRESHOLD

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every statistic, plus the thresholds and flags."""
        out = asdict(self)
        out["thresholds"] = {"qwk": QWK_THRESHOLD, "smd": SMD_THRESHOLD}
        out["qwk_ok"] = self.qwk_ok
        out["smd_ok"] = self.smd_ok
        return out


def round_half_up(values: Any) -> np.ndarray:
    """Round to the nearest integer, halves up (2.5 -> 3, -2.5 -> -2), as int64."""
    x = np.asarray(values, dtype=np.float64)
    floor = np.floor(x)
    return (floor + (x - floor >= 0.5)).astype(np.int64)


def quadratic_weighted_kappa(human: Sequence[int], pred: Sequence[int], categories: int = len(SCALE)) -> float | None:
    """Cohen's kappa with quadratic weights over integer categories ``0..categories-1``."""
    observed = _confusion(np.asarray(human), np.asarray(pred), categories).astype(np.float64)
    n = observed.sum()
    if n == 0:
        return None
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    idx = np.arange(categories)
    weights = (idx[:, None] - idx[None, :]) ** 2 / (categories - 1) ** 2
    denominator = float((weights * expected).sum())
    if denominator == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denominator


def agreement(human: Any, pred: Any) -> Agreement:
    """Agreement of ``pred`` with ``human`` (equal-length numeric sequences).

    Rows where either value is NaN or ``None`` are left out (and counted).
    """
    h_all = np.asarray([np.nan if v is None else v for v in human], dtype=np.float64)
    p_all = np.asarray([np.nan if v is None else v for v in pred], dtype=np.float64)
    if h_all.shape != p_all.shape:
        raise ValueError(f"human and pred differ in length: {h_all.size} and {p_all.size}")
    has_h, has_p = ~np.isnan(h_all), ~np.isnan(p_all)
    both = has_h & has_p
    h, p = h_all[both], p_all[both]
    n = int(h.size)
    rh_raw, rp_raw = round_half_up(h), round_half_up(p)
    lo, hi = SCALE[0], SCALE[-1]
    clipped = int(((rh_raw < lo) | (rh_raw > hi)).sum() + ((rp_raw < lo) | (rp_raw > hi)).sum())
    rh, rp = np.clip(rh_raw, lo, hi), np.clip(rp_raw, lo, hi)
    sd_h, sd_p = _sd(h), _sd(p)
    return Agreement(
        n=n,
        mean_human=float(h.mean()) if n else None,
        mean_pred=float(p.mean()) if n else None,
        sd_human=sd_h,
        sd_pred=sd_p,
        exact_agreement=float((rh == rp).mean()) if n else None,
        adjacent_agreement=float((np.abs(rh - rp) <= 1).mean()) if n else None,
        qwk=quadratic_weighted_kappa(rh, rp),
        pearson_r=_pearson(h, p, sd_h, sd_p),
        smd=_smd(h, p, sd_h, sd_p),
        confusion=_confusion(rh, rp, len(SCALE)).tolist(),
        n_rows=int(h_all.size),
        n_without_label=int((~has_h).sum()),
        n_without_pred=int((has_h & ~has_p).sum()),
        n_clipped=clipped,
    )


def _sd(x: np.ndarray) -> float | None:
    return float(x.std(ddof=1)) if x.size >= 2 else None


def _pearson(h: np.ndarray, p: np.ndarray, sd_h: float | None, sd_p: float | None) -> float | None:
    if not sd_h or not sd_p:
        return None
    cov = float(((h - h.mean()) * (p - p.mean())).sum()) / (h.size - 1)
    return max(-1.0, min(1.0, cov / (sd_h * sd_p)))


def _smd(h: np.ndarray, p: np.ndarray, sd_h: float | None, sd_p: float | None) -> float | None:
    if sd_h is None or sd_p is None:
        return None
    pooled = math.sqrt((sd_h**2 + sd_p**2) / 2)
    return None if pooled == 0 else (float(p.mean()) - float(h.mean())) / pooled


def _confusion(h: np.ndarray, p: np.ndarray, categories: int) -> np.ndarray:
    matrix = np.zeros((categories, categories), dtype=np.int64)
    np.add.at(matrix, (h.astype(np.int64), p.astype(np.int64)), 1)
    return matrix


# -- reading a scored file ---------------------------------------------------------------


def read_scored(
    path: str | os.PathLike[str], label: str, pred: str = "coscore_score", fmt: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The ``label`` and ``pred`` columns of a scored file as float arrays (NaN where empty).

    Raises :class:`coscore.io.InputError` for a missing column or a value that is not a number.
    """
    humans: list[Any] = []
    preds: list[Any] = []
    with open_reader(path, fmt) as reader:
        has_header = reader.format in ("csv", "tsv", "coscore")
        for chunk in reader.chunks():
            for name in (label, pred):
                if name not in chunk.data:
                    where = {"line": 1} if has_header else {}
                    raise InputError(
                        reader.source, f"no such column (columns: {', '.join(reader.columns)})", column=name, **where
                    )
            humans.append(np.asarray(_numbers(chunk, label), dtype=np.float64))
            preds.append(np.asarray(_numbers(chunk, pred), dtype=np.float64))
    return np.concatenate(humans or [np.empty(0)]), np.concatenate(preds or [np.empty(0)])


def _numbers(chunk: Any, column: str) -> list[float] | np.ndarray:
    fast = _arrow_numbers(chunk.data[column])
    if fast is not None:
        return fast
    out = []
    for i, value in enumerate(chunk.pylist(column)):
        if value is None or (isinstance(value, str) and not value.strip()):
            out.append(math.nan)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InputError(chunk.source, f"expected a number, got {value!r}", column=column, **chunk.where(i))
        try:
            number = float(value)
        except ValueError:
            raise InputError(
                chunk.source, f"expected a number, got {value!r}", column=column, **chunk.where(i)
            ) from None
        out.append(number)
    return out


def _arrow_numbers(values: Any) -> np.ndarray | None:
    """A numeric Arrow column, or one of texts that all read as numbers (empty: NaN), as
    floats at once; ``None`` when the values must be checked one by one."""
    kind = getattr(values, "type", None)
    if kind is None or not type(values).__module__.startswith("pyarrow"):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            values = pc.if_else(pc.equal(pc.utf8_trim_whitespace(values), ""), None, values)
            values = pc.cast(values, pa.float64())
        elif not (pa.types.is_floating(kind) or pa.types.is_integer(kind)):
            return None
        return pc.fill_null(values.cast(pa.float64()), math.nan).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


# -- rendering ---------------------------------------------------------------------------


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
        f"  Pearson r           {_fmt(stats.pearson_r):>10}",
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
                pred: str = "coscore") -> str:
    """A self-contained HTML page: statistics with flags, a score-distribution plot and a
    confusion heatmap (PNG images embedded as base64; needs matplotlib)."""
    distribution = _png(_distribution_figure(stats, label, pred))
    heatmap = _png(_heatmap_figure(stats, label, pred))
    esc = html.escape
    rows = [
        ("n", str(stats.n) + esc(_excluded(stats)), ""),
        (f"mean ({esc(label)} / {esc(pred)})", f"{_fmt(stats.mean_human, 2)} / {_fmt(stats.mean_pred, 2)}", ""),
        (f"SD ({esc(label)} / {esc(pred)})", f"{_fmt(stats.sd_human, 2)} / {_fmt(stats.sd_pred, 2)}", ""),
        ("exact agreement", _fmt(stats.exact_agreement, percent=True), ""),
        ("adjacent agreement (|d| ≤ 1)", _fmt(stats.adjacent_agreement, percent=True), ""),
        ("quadratic weighted kappa", _fmt(stats.qwk), _html_flag(stats.qwk_ok, f"QWK ≥ {QWK_THRESHOLD:.2f}")),
        ("Pearson r", _fmt(stats.pearson_r), ""),
        ("standardized mean difference", _fmt(stats.smd), _html_flag(stats.smd_ok, f"|SMD| ≤ {SMD_THRESHOLD:.2f}")),
    ]
    table = "\n".join(f"<tr><th>{name}</th><td>{value}</td><td>{flag}</td></tr>" for name, value, flag in rows)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; }} th, td {{ padding: .3em .8em; border-bottom: 1px solid #ddd; text-align: left; }}
td {{ font-variant-numeric: tabular-nums; }}
.ok {{ color: #17692c; font-weight: bold; }} .low {{ color: #b00020; font-weight: bold; }} .na {{ color: #777; }}
img {{ max-width: 100%; }} .note {{ color: #555; font-size: .9em; }}
</style></head><body>
<h1>{esc(title)}</h1>
<table>
{table}
</table>
<p class="note">Agreements, QWK and the confusion matrix use both scores rounded half up to the 0–10 integer
scale; mean, SD, Pearson r and SMD use raw scores. SMD = (mean {esc(pred)} − mean {esc(label)}) /
√((SD<sub>{esc(label)}</sub>² + SD<sub>{esc(pred)}</sub>²) / 2). Flags: ETS's usual thresholds.</p>
<h2>Score distribution</h2>
<img alt="score distribution" src="data:image/png;base64,{distribution}">
<h2>Confusion matrix</h2>
<img alt="confusion heatmap" src="data:image/png;base64,{heatmap}">
</body></html>
"""


def _html_flag(ok: bool | None, text: str) -> str:
    if ok is None:
        return f'<span class="na">undefined ({html.escape(text)})</span>'
    cls, word = ("ok", "meets") if ok else ("low", "below")
    return f'<span class="{cls}">{word} {html.escape(text)}</span>'


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("the HTML report needs matplotlib: pip install 'coscore[plot]'") from None
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _distribution_figure(stats: Agreement, label: str, pred: str) -> Any:
    confusion = np.asarray(stats.confusion)
    fig = _figure(7, 3.2)
    ax = fig.add_subplot()
    x = np.asarray(stats.labels)
    ax.bar(x - 0.2, confusion.sum(axis=1), width=0.4, label=label, color="#4c72b0")
    ax.bar(x + 0.2, confusion.sum(axis=0), width=0.4, label=pred, color="#dd8452")
    ax.set_xticks(x)
    ax.set_xlabel("score (rounded half up)")
    ax.set_ylabel("answers")
    ax.legend()
    return fig


def _heatmap_figure(stats: Agreement, label: str, pred: str) -> Any:
    confusion = np.asarray(stats.confusion)
    fig = _figure(5.5, 5)
    ax = fig.add_subplot()
    image = ax.imshow(confusion, cmap="Blues", origin="upper")
    top = confusion.max() if confusion.size else 0
    for i, row in enumerate(confusion):
        for j, count in enumerate(row):
            if count:
                ax.text(j, i, str(count), ha="center", va="center", fontsize=8,
                        color="white" if count > top / 2 else "black")
    ax.set_xticks(range(len(stats.labels)), stats.labels)
    ax.set_yticks(range(len(stats.labels)), stats.labels)
    ax.set_xlabel(pred)
    ax.set_ylabel(label)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")
