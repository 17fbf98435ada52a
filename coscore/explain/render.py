"""An explanation (:func:`coscore.explain.explain`) as text: :func:`render` draws it for a
terminal (ANSI colour when asked), :func:`summary` gives a short account of it in a few lines.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .evidence import (
    Call,
    ComboTrace,
    CSEvidence,
    EMEvidence,
    Explanation,
    OPEvidence,
    SMEvidence,
    SMStep,
)

#: The characters of a text shown with its alignment marked.
SHOWN_CHARS = 400

_STYLES = {"hit": "32", "miss": "31", "dim": "2", "bold": "1", "warn": "33", "key": "36"}


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or not text:
            return text
        codes = ";".join(_STYLES[s] for s in style.split("+"))
        return f"\x1b[{codes}m{text}\x1b[0m"


def _num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}" if value != int(value) or abs(value) >= 1e15 else f"{value:.1f}"
    return str(value)


def _quote(text: str, limit: int = 200) -> str:
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= limit else shown[: limit - 4] + '…"'


def render(explanation: Explanation, color: bool = False) -> str:
    """The explanation as readable text (ANSI colour when ``color``): the combos with
    their expression's value and contribution, then each distinct atom call once."""
    p = _Painter(color)
    out = []
    blanks = ", ".join(_quote(b) for b in explanation.answer)
    out.append(f"answer  [{blanks}]")
    if explanation.error is not None:
        out.append(f"score   {p('error: ' + explanation.error, 'miss+bold')}")
    else:
        mode = f"  ({explanation.combo_mode} of the combos, clamped to 0–10)" if explanation.combo_mode else ""
        out.append(f"score   {p(_num(explanation.score), 'bold')}{p(mode, 'dim')}")
    for combo in explanation.combos:
        out.append("")
        out.append(f"{p('combo ' + combo.id, 'bold')} = {p(_num(combo.value), 'bold')}{p(_definition(combo), 'dim')}")
        if combo.expression is not None:
            shown = (p("error: " + combo.expression_error, "miss") if combo.expression_error is not None
                     else p(_num(combo.expression_value) if not isinstance(combo.expression_value, str)
                            else _quote(combo.expression_value), "bold"))
            out.append(f"    {combo.expression}  →  {shown}")
        refs = ", ".join(f"[{explanation.call_number(c)}] {op}({c.atom})" for c, op in zip(combo.calls, combo.ops))
        out.append(p(f"    atom calls: {refs}" if refs else "    (no atom calls)", "dim"))
    if explanation.calls:
        out.append("")
        out.append(p("atom calls", "bold"))
    for number, call in enumerate(explanation.calls, 1):
        lines = _render_call(call, p)
        out.append(f"[{number}]{lines[0]}")
        out.extend(lines[1:])
    return "\n".join(out)


def _definition(combo: ComboTrace) -> str:
    if combo.expression is None:
        return ""
    if combo.mode == "logic":
        return f"  (logic: {_num(combo.score)} if the expression is true, else 0)"
    return f"  (value: the expression × {_num(combo.score)})"


def _render_call(call: Call, p: _Painter) -> list[str]:
    result = p("hit", "hit") if call.hit else p("miss", "miss")
    shown = {"M": _num(call.value), "G": str(call.hit)}.get(call.op, f"{call.hit} / {_num(call.value)}")
    head = f"  {call.op}({call.atom}, {_quote(call.text)}) = {shown}"
    lines = [f"{head}   {call.kind} {result}, value {_num(call.value)}"]
    ev = call.evidence
    if isinstance(ev, EMEvidence):
        if ev.matched is not None:
            lines.append(f"      matched key {p(_quote(ev.matched), 'hit')}")
        else:
            keys = ", ".join(_quote(k) for k in ev.keys[:8]) + (" …" if len(ev.keys) > 8 else "")
            lines.append(f"      equal to no key ({keys})")
    elif isinstance(ev, SMEvidence):
        for number, group in enumerate(ev.groups, 1):
            lines.append(f"      group {number}: " + "  ".join(_sm_step(s, p) for s in group.steps))
    elif isinstance(ev, OPEvidence):
        lines.extend(_render_op(ev, call.text, p))
    elif isinstance(ev, CSEvidence):
        lines.extend(_render_cs(ev, p))
    return lines


def _sm_step(step: SMStep, p: _Painter) -> str:
    shown = step.option if step.option else "(empty)"
    if step.action == "counted":
        return p(f"{shown} ✓counted", "hit")
    if step.action == "excluded":
        return p(f"{shown} ✗excluded", "miss")
    if step.action == "removed":
        return p(f"{shown} (removed)", "warn")
    if step.action == "not reached":
        return p(f"{shown} (not reached)", "dim")
    if step.action == "empty":
        return p(f"{shown} (never matches)", "dim")
    return f"{shown} (not found)"


def _marked(text: str, mask: Sequence[bool], p: _Painter, limit: int = SHOWN_CHARS) -> str:
    """``text`` with the characters in ``mask`` highlighted: in colour, or in [brackets];
    a text over ``limit`` characters is cut there and says its length."""
    out: list[str] = []
    run: list[str] = []
    inside: bool | None = None
    for char, flag in zip(text[:limit], mask):
        if flag != inside and run:
            out.append(_run("".join(run), bool(inside), p))
            run = []
        inside = flag
        run.append(char)
    if run:
        out.append(_run("".join(run), bool(inside), p))
    if len(text) > limit:
        out.append(p(f"… ({len(text):,} characters)", "dim"))
    return "".join(out)


def _run(text: str, matched: bool, p: _Painter) -> str:
    if not matched:
        return p(text, "dim") if p.color else text
    return p(text, "hit+bold") if p.color else f"[{text}]"


def _similarities(ev: OPEvidence | CSEvidence, p: _Painter) -> list[str]:
    lines = []
    rest = [s for s in ev.scores if s is not ev.best]
    if ev.best is not None:
        b = ev.best
        hit = b.similarity >= ev.threshold
        threshold = _num(ev.threshold)
        verdict = p(f"≥ threshold {threshold}", "hit") if hit else p(f"< threshold {threshold}", "miss")
        kind = "LCS" if isinstance(ev, OPEvidence) else "shared/all characters"
        ratio = f"{b.numerator}/{b.denominator} = {_num(b.similarity)}"
        lines.append(
            f"      best key {p(_quote(b.key), 'key')}: {kind} {ratio} {verdict}"
        )
    else:
        lines.append("      no keys")
    if rest:
        shown = ", ".join(f"{_quote(s.key, 40)} {_num(s.similarity)}" for s in rest[:6])
        lines.append(p(f"      other keys: {shown}" + (" …" if len(rest) > 6 else ""), "dim"))
    return lines


def _render_op(ev: OPEvidence, text: str, p: _Painter) -> list[str]:
    lines = _similarities(ev, p)
    if not ev.aligned:
        lines.append(p(f"      (the text has {len(text):,} characters: too long to mark the alignment)", "dim"))
    elif ev.best is not None and ev.best.numerator:
        lines.append(f"      key : {_marked(ev.best.key, ev.key_matched, p)}")
        lines.append(f"      text: {_marked(text, ev.text_matched, p)}")
    return lines


def _render_cs(ev: CSEvidence, p: _Painter) -> list[str]:
    lines = _similarities(ev, p)
    if ev.counts:
        cells = []
        for char, in_key, in_text in ev.counts[:40]:
            cell = f"{char} {in_key}/{in_text}"
            cells.append(p(cell, "hit") if in_key and in_text else cell)
        more = " …" if len(ev.counts) > 40 else ""
        lines.append("      counts (key/text): " + "  ".join(cells) + more)
    return lines


def summary(explanation: Explanation) -> list[str]:
    """A short account: the combos that counted, then each distinct atom call: the EM key
    matched, the SM options counted, the best OP/CS key with its ratio (OP: the text's
    aligned characters in [])."""
    counted = ", ".join(f"{c.id}={_num(c.value)}" for c in explanation.combos if c.value)
    lines = [f"combos: {counted or 'none counted'}" + (f"; error: {explanation.error}" if explanation.error else "")]
    plain = _Painter(False)
    for call in explanation.calls:
        ev = call.evidence
        head = f"{call.op}({call.atom}) {call.kind} {'hit' if call.hit else 'miss'} {_num(call.value)}"
        if isinstance(ev, EMEvidence):
            detail = f"key {_quote(ev.matched)}" if ev.matched is not None else "no key equal"
        elif isinstance(ev, SMEvidence):
            hit = [s.option for g in ev.groups for s in g.steps if s.action == "counted"]
            excluded = [s.option for g in ev.groups for s in g.steps if s.action == "excluded"]
            detail = "counted " + (", ".join(hit) or "nothing")
            detail += f"; excluded {', '.join(excluded)}" if excluded else ""
        elif ev.best is None:
            detail = "no keys"
        else:
            ratio = f"{ev.best.numerator}/{ev.best.denominator}"
            detail = f"best key {_quote(ev.best.key, 40)} {ratio}"
            if isinstance(ev, OPEvidence) and ev.best.numerator and ev.aligned:
                detail += f": {_quote(_marked(call.text[:120], ev.text_matched, plain), 120)}"
        lines.append(f"{head}: {detail}")
    return lines
