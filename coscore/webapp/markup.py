"""What the original pages show as HTML, kept from running as script there.

The original frontend puts names, descriptions, the data's cells and what a rule test
gives into the page as HTML (``innerHTML``, jQuery's ``.html()``), some inside quoted
attributes and script strings. So that nothing stored can run as script in those pages:

- **names** (datasets, rules, tasks) holding ``<``, ``>``, ``"``, ``'`` or ``&`` are refused
  (400 naming the field): they are also keys the pages send back, so they must stay as typed;
- **descriptions** (a dataset's, a rule's, made from its prompt) are stored escaped
  (``&lt;``, ``&amp;``, …): the pages show them as typed;
- **data** holding ``<`` is refused (its cells are shown as HTML, and escaping would change
  the answers a task scores);
- **rules** whose test could show markup are refused: a combo id holding one of the five
  characters, or a text constant holding ``<`` in a combo whose value can be text.
"""
from __future__ import annotations

import html

from ..http.responses import ApiError
from ..language import combo_kinds
from ..rule import Rule

__all__ = ["MARKUP", "plain", "escaped", "check_data", "rule_markup"]

#: The characters a name must not hold.
MARKUP = "<>\"'&"


def plain(value: str, field: str) -> str:
    """``value``; 400 naming ``field`` when it holds one of :data:`MARKUP`."""
    found = next((c for c in MARKUP if c in value), None)
    if found is not None:
        raise ApiError(400, f"{field!r} must not hold {found!r} (nor any of {MARKUP}): the original pages show it "
                       "as HTML")
    return value


def escaped(text: str) -> str:
    """``text`` as HTML text (``<`` → ``&lt;``, quotes too), shown as typed by the pages."""
    return html.escape(text, quote=True)


def check_data(text: str) -> None:
    """400 when the dataset's CSV text holds ``<`` (the data page shows its cells as HTML)."""
    at = text.find("<")
    if at >= 0:
        line = text.count("\n", 0, at) + 1
        raise ApiError(400, f"'data' holds '<' (line {line}): the original pages show the data as HTML, where it "
                       "could run as script")


def rule_markup(rule: Rule) -> str | None:
    """Why testing ``rule`` in the rules page could show markup, or ``None``."""
    for cid in rule.combo_ids:
        if any(c in cid for c in MARKUP):
            return f"the combo id {cid!r} holds one of {MARKUP} (a test shows combo ids as HTML)"
    for combo in combo_kinds(rule):
        if "str" in combo.kinds and any("<" in text for text in combo.texts):
            return (f"combos.{combo.id}.combo gives text and holds '<' in a string (a test shows what a combo "
                    "gives as HTML)")
    return None
