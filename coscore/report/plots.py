"""The report's figures, drawn with matplotlib (imported only when a figure is drawn) and
embedded in HTML as base64 PNG."""
from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from .stats import Agreement


def figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("the HTML report needs matplotlib: pip install 'coscore[plot]'") from None
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def distribution_figure(stats: Agreement, label: str, pred: str) -> Any:
    confusion = np.asarray(stats.confusion)
    fig = figure(7, 3.2)
    ax = fig.add_subplot()
    x = np.asarray(stats.labels)
    ax.bar(x - 0.2, confusion.sum(axis=1), width=0.4, label=label, color="#4c72b0")
    ax.bar(x + 0.2, confusion.sum(axis=0), width=0.4, label=pred, color="#dd8452")
    ax.set_xticks(x)
    ax.set_xlabel("score (rounded half up)")
    ax.set_ylabel("answers")
    ax.legend()
    return fig


def heatmap_figure(stats: Agreement, label: str, pred: str) -> Any:
    confusion = np.asarray(stats.confusion)
    fig = figure(5.5, 5)
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


def png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def scorer_figure(names: Sequence[str], values: Sequence[float | None], intervals: Sequence[tuple | None],
                  label: str) -> Any:
    """One point per scorer with its 95 % interval as an error bar, on an axis zoomed to
    the intervals so that differences show (``label`` names the figure)."""
    fig = figure(6, 0.9 + 0.45 * len(names))
    ax = fig.add_subplot()
    y = np.arange(len(names))
    shown = [np.nan if v is None else v for v in values]
    lo = [0 if v is None or ci is None or ci[0] is None else v - ci[0] for v, ci in zip(values, intervals)]
    hi = [0 if v is None or ci is None or ci[1] is None else ci[1] - v for v, ci in zip(values, intervals)]
    ax.errorbar(shown, y, xerr=[lo, hi], fmt="o", color="#4c72b0", capsize=5, markersize=7)
    for yi, v in zip(y, values):
        if v is not None:
            ax.annotate(f"{v:.3f}", (v, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_yticks(y, list(names))
    ax.set_ylim(len(names) - 0.4, -0.6)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(label)
    return fig
