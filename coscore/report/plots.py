"""The report's figures, drawn with matplotlib (imported only when a figure is drawn) and
embedded in HTML as base64 PNG.

Every figure is drawn in matplotlib's default font with an installed CJK font after it
(:func:`cjk_font`) as a fallback, so that Chinese, Japanese and Korean labels show as
text while Latin text keeps its look. matplotlib's "Glyph … missing" warnings never reach
stderr (they are filtered around the drawing, :func:`drawing`); when no CJK font is
installed and a figure's labels need one, one line on stderr (once per run) says which
package to install.
"""
from __future__ import annotations

import base64
import contextlib
import functools
import io
import logging
import os
import sys
import unicodedata
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .stats import Agreement

#: CJK font families, the most wanted first (Simplified Chinese first, then the other
#: scripts' and the systems' own): the first installed is :func:`cjk_font`.
CJK_FONTS: tuple[str, ...] = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC", "Hiragino Sans GB", "Heiti SC", "STHeiti", "SimHei",
    "Noto Sans CJK JP", "Noto Sans CJK TC", "Noto Sans CJK KR", "Noto Sans CJK HK", "Source Han Sans",
    "Source Han Sans JP", "Source Han Sans TW", "Source Han Sans K", "Noto Serif CJK SC", "Source Han Serif SC",
    "Microsoft JhengHei", "PingFang TC", "Hiragino Sans", "Hiragino Kaku Gothic Pro", "Hiragino Kaku Gothic ProN",
    "Yu Gothic", "Meiryo", "MS Gothic", "Malgun Gothic", "Apple SD Gothic Neo", "AR PL UMing CN", "AR PL UKai CN",
    "Droid Sans Fallback", "Arial Unicode MS", "SimSun", "Songti SC",
)
#: Parts of the file names of those fonts (lower case, without spaces, dashes and
#: underscores), for a font installed after matplotlib's font cache was built.
CJK_FILES: tuple[str, ...] = (
    "notosanscjk", "notoserifcjk", "notosanssc", "notosanstc", "notosansjp", "notosanskr", "sourcehansans",
    "sourcehanserif", "wqyzenhei", "wqymicrohei", "msyh", "msjh", "pingfang", "hiragino", "heiti", "simhei",
    "simsun", "songti", "yugoth", "meiryo", "msgothic", "malgun", "applesdgothic", "uming", "ukai",
    "droidsansfallback", "arialuni",
)
#: The line said once per run when no CJK font is installed and a figure needs one.
CJK_HINT = ("coscore: note: no Chinese, Japanese or Korean font is installed, so the report's figures show those "
            "characters as boxes; install one (Debian/Ubuntu: apt-get install fonts-noto-cjk, or "
            "fonts-wqy-zenhei; macOS and Windows have one) and run again")
#: The warnings matplotlib gives for a character no font has.
GLYPH_WARNING = r"(?s).*Glyph .* missing from (current )?font"
_said = {"hint": False}


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The family name of an installed CJK font (the first of :data:`CJK_FONTS` that
    matplotlib knows), or ``None``. A font installed after matplotlib built its cache is
    found among the system's font files (:data:`CJK_FILES`) and added."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    found = _known(manager)
    if found is None:
        known = {entry.fname for entry in manager.ttflist}
        try:
            paths = font_manager.findSystemFonts()
        except Exception:   # noqa: BLE001 - a font folder that cannot be listed: no font found there
            paths = []
        for path in paths:
            name = os.path.basename(path).lower().replace(" ", "").replace("-", "").replace("_", "")
            if path not in known and any(part in name for part in CJK_FILES):
                try:
                    manager.addfont(path)
                except Exception:   # noqa: BLE001, S112 - a broken font file is not ours to report
                    continue
        found = _known(manager)
    return found


def _known(manager: Any) -> str | None:
    names = {entry.name for entry in manager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


def needs_cjk(text: str) -> bool:
    """Whether ``text`` has a Chinese, Japanese or Korean character (a wide or full-width
    one that is a letter: ideographs, kana, hangul, full-width Latin)."""
    return any(unicodedata.east_asian_width(ch) in "WF" and unicodedata.category(ch).startswith("L") for ch in text)


@contextlib.contextmanager
def drawing(*texts: str) -> Iterator[str | None]:
    """Draw inside: matplotlib's default font family with :func:`cjk_font` (yielded)
    after it, and no "Glyph … missing" warning. Without a CJK font, when one of ``texts``
    (the labels the figure shows) needs one, :data:`CJK_HINT` on stderr, once per run."""
    import matplotlib

    family = list(matplotlib.rcParams["font.family"])
    cjk = cjk_font()
    if cjk is not None and cjk not in family:
        family.append(cjk)
    if cjk is None and not _said["hint"] and any(needs_cjk(str(text)) for text in texts):
        _said["hint"] = True
        print(CJK_HINT, file=sys.stderr, flush=True)
    log = logging.getLogger("matplotlib.font_manager")
    log.addFilter(_quiet_fonts)
    try:
        with matplotlib.rc_context({"font.family": family}), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=GLYPH_WARNING)
            yield cjk
    finally:
        log.removeFilter(_quiet_fonts)


def _quiet_fonts(record: logging.LogRecord) -> bool:
    """Leave out matplotlib's font-matching notes ("findfont: Failed to find font weight
    normal for WenQuanYi Zen Hei, now using 500."): the figure is drawn all the same."""
    return not str(record.msg).startswith("findfont:")


def figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("the HTML report needs matplotlib: pip install 'coscore[plot]'") from None
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def png(fig: Any) -> str:
    """``fig`` as base64 PNG, drawn with the fonts and filters of :func:`drawing` (the
    texts it shows are checked for a CJK font)."""
    from matplotlib.text import Text

    buffer = io.BytesIO()
    texts = fig.findobj(Text)   # titles, axis and tick labels, legends, annotations made so far
    with drawing(*(t.get_text() for t in texts)) as cjk:
        if cjk is not None:   # texts made before: the CJK font after their own (tick labels made now have it)
            for text in texts:
                family = list(text.get_fontfamily())
                if cjk not in family:
                    text.set_fontfamily([*family, cjk])
        fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


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
