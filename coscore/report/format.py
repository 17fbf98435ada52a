"""How the reports write numbers, flags and tables, in text and in HTML (shared by
:mod:`.render` and :mod:`.render_compare`)."""
from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence


def fmt(value: float | None, digits: int = 3, percent: bool = False) -> str:
    """A figure as text: ``—`` when undefined, a percentage with one decimal, or ``digits`` decimals."""
    if value is None:
        return "—"
    return f"{value * 100:.1f} %" if percent else f"{value:.{digits}f}"


def flag(ok: bool | None) -> str:
    """``ok``, ``LOW`` or nothing (undefined), for a figure checked against a threshold."""
    return {True: "ok", False: "LOW", None: ""}[ok]


def html_flag(ok: bool | None, text: str) -> str:
    """A flag as HTML: "meets/below ``text``" in colour, or "undefined (``text``)"."""
    if ok is None:
        return f'<span class="na">undefined ({html.escape(text)})</span>'
    cls, word = ("ok", "meets") if ok else ("low", "below")
    return f'<span class="{cls}">{word} {html.escape(text)}</span>'


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of cells already escaped."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}\n</table>\n"


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal: 2 for each wide or full-width character
    (Chinese, Japanese, Korean), 0 for a combining mark, 1 for any other."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def pad(text: str, columns: int, left: bool = False) -> str:
    """``text`` padded with spaces to ``columns`` display columns (:func:`width`), aligned
    right (or ``left``); never cut: a longer text is returned whole."""
    room = " " * max(0, columns - width(text))
    return text + room if left else room + text


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Lines of a plain-text table: the first column left-aligned, the others right-aligned,
    each as wide as its widest cell in display columns (:func:`width`; two spaces between
    columns), so that no heading or cell is ever cut."""
    columns = list(zip(header, *rows)) if header else []
    widths = [max(width(c) for c in column) for column in columns]
    lines = []
    for row in (header, *rows):
        cells = [pad(c, w, left=j == 0) for j, (c, w) in enumerate(zip(row, widths))]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


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
