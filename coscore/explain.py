"""Why an answer got its score: every atom call made while scoring it, with the evidence
the atom found (which EM key matched, which SM options hit or were excluded/removed, the
OP key with the best LCS and its aligned characters, the CS counts).

The hit and value shown are the engine's own (from :meth:`Rule.trace`). The evidence
behind them is recomputed with the kernels, taken from their dispatcher
(:mod:`coscore._fast`): the SM verdict of each group (:func:`~coscore._fast.group_hits`,
the readable statement of the SM walk), each OP key's LCS length and similarity
(:class:`~coscore._fast.LcsScorer`), each CS key's counts and similarity
(:class:`~coscore._fast.JaccardScorer`, with the token counts of
:func:`~coscore._fast.tokens`). What only an explanation needs is added here:
each SM option's part in the walk, which characters one longest common subsequence
aligns, and which key is the best (the first of the most similar).

>>> text = render(explain(rule, ["开始-前进"]), color=False)      # doctest: +SKIP
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ._fast import JaccardScorer, LcsScorer, group_hits
from ._fast import tokens as cs_tokens

#: The largest LCS table (key length × text length) drawn as an alignment; a longer
#: text gets its similarities (from the kernels) without the characters marked.
ALIGN_CELLS = 4_000_000
#: The characters of a text shown with its alignment marked.
SHOWN_CHARS = 400

# -- evidence per atom kind --------------------------------------------------------------


@dataclass(frozen=True)
class EMEvidence:
    """Exact match: the key equal to the text, if any."""

    keys: list[str]
    matched: str | None


@dataclass(frozen=True)
class SMStep:
    """One option of an SM group and what happened to it in the ordered walk.

    ``action`` is ``"counted"``, ``"excluded"`` (a ``!`` option found: the group stops
    without counting), ``"removed"`` (a ``~`` option's text was cut out), ``"absent"``,
    ``"empty"`` (an empty option never matches) or ``"not reached"``.
    """

    option: str
    action: str


@dataclass(frozen=True)
class SMGroup:
    """One comma-separated group of an SM desc: its steps, whether it counted, and the
    text the later options saw after ``~`` removals."""

    steps: list[SMStep]
    counted: bool
    text: str


@dataclass(frozen=True)
class SMEvidence:
    """Substring match: one walk per group; the value is the number of counted groups."""

    groups: list[SMGroup]
    count: int


@dataclass(frozen=True)
class KeyScore:
    """The similarity of one OP/CS key: ``similarity = numerator / denominator``."""

    key: str
    numerator: int
    denominator: int
    similarity: float


@dataclass(frozen=True)
class OPEvidence:
    """Oneway proximity: LCS of each key with the text; for the best key, which of its
    characters and which of the text's are in one longest common subsequence."""

    threshold: float
    scores: list[KeyScore]
    best: KeyScore | None
    key_matched: list[bool]
    text_matched: list[bool]
    #: False when the text was too long to align (over :data:`ALIGN_CELLS`): then
    #: ``key_matched`` and ``text_matched`` are empty
    aligned: bool = True


@dataclass(frozen=True)
class CSEvidence:
    """Content similarity: multiset Jaccard of lowercased non-space characters; for the
    best key, ``counts`` lists ``(character, in key, in text)``."""

    threshold: float
    scores: list[KeyScore]
    best: KeyScore | None
    counts: list[tuple[str, int, int]]


Evidence = EMEvidence | SMEvidence | OPEvidence | CSEvidence


def em_evidence(keys: Sequence[str], text: str) -> EMEvidence:
    """Which EM key equals ``text`` exactly."""
    return EMEvidence(list(keys), next((k for k in keys if k == text), None))


def sm_evidence(groups: Sequence[Sequence[str]], text: str) -> SMEvidence:
    """The ordered walk of each SM group over ``text`` (SEMANTICS.md, SM)."""
    walked = [_walk_group(options, text) for options in groups]
    return SMEvidence(walked, sum(g.counted for g in walked))


def _walk_group(options: Sequence[str], text: str) -> SMGroup:
    """Each option's part in the group's walk; whether the group counts is the twin's
    verdict (:func:`group_hits`), which the walk reaches by the same steps."""
    counted = group_hits(options, text)
    steps: list[SMStep] = []
    for index, option in enumerate(options):
        if option == "":
            steps.append(SMStep(option, "empty"))
            continue
        if option[0] == "!" and option[1:] in text:
            steps.append(SMStep(option, "excluded"))
            return SMGroup(steps + _unreached(options, index), False, text)
        removed = False
        if option[0] == "~" and option[1:] in text:
            text = text.replace(option[1:], "")
            removed = True
        if option in text and counted:
            steps.append(SMStep(option, "counted"))
            return SMGroup(steps + _unreached(options, index), True, text)
        steps.append(SMStep(option, "removed" if removed else "absent"))
    return SMGroup(steps, False, text)


def _unreached(options: Sequence[str], index: int) -> list[SMStep]:
    return [SMStep(option, "not reached") for option in options[index + 1 :]]


def lcs_alignment(key: str, text: str) -> tuple[int, list[bool], list[bool]]:
    """The length of a longest common subsequence of ``key`` and ``text`` (over code
    points) and, for one such subsequence, which characters of each take part (a table
    of suffix LCS lengths, walked forwards: time and memory grow as
    ``len(key) * len(text)``)."""
    n, m = len(key), len(text)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ki = key[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if ki == text[j] else max(below[j], row[j + 1])
    key_hit, text_hit = [False] * n, [False] * m
    i = j = 0
    while i < n and j < m:  # walk forwards, keeping the key's earliest characters
        if key[i] == text[j]:
            key_hit[i] = text_hit[j] = True
            i += 1
            j += 1
        elif table[i][j + 1] >= table[i + 1][j]:
            j += 1
        else:
            i += 1
    return table[0][0], key_hit, text_hit


def op_evidence(threshold: float, keys: Sequence[str], text: str) -> OPEvidence:
    """LCS(key, text) / len(key) for each key, and the alignment of the best one."""
    scores = []
    for key in keys:
        one = LcsScorer([key])
        scores.append(KeyScore(key, one.lengths(text)[0], len(key), one.best(text)))
    best = _best(scores)
    if best is not None and len(best.key) * len(text) > ALIGN_CELLS:
        return OPEvidence(threshold, scores, best, [], [], aligned=False)
    if best is not None and best.numerator:
        _, key_hit, text_hit = lcs_alignment(best.key, text)
    else:
        key_hit, text_hit = [False] * len(best.key if best else ""), [False] * len(text)
    return OPEvidence(threshold, scores, best, key_hit, text_hit)


def cs_evidence(threshold: float, keys: Sequence[str], text: str) -> CSEvidence:
    """Σ min(counts) / Σ max(counts) for each key, and the counts for the best one."""
    scores = []
    for key in keys:
        one = JaccardScorer([key])
        scores.append(KeyScore(key, *one.counts(text)[0], one.best(text)))
    best = _best(scores)
    counts: list[tuple[str, int, int]] = []
    if best is not None:
        key_counts, text_counts = cs_tokens(best.key), cs_tokens(text)
        counts = [(c, key_counts[c], text_counts[c]) for c in dict.fromkeys([*key_counts, *text_counts])]
    return CSEvidence(threshold, scores, best, counts)


def _best(scores: Sequence[KeyScore]) -> KeyScore | None:
    """The first key with the highest similarity (``None`` when there are no keys)."""
    best = None
    for score in scores:
        if best is None or score.similarity > best.similarity:
            best = score
    return best


def atom_evidence(atom: Any, text: str) -> Evidence:
    """The evidence of ``atom`` (a compiled :class:`coscore.Atom`) on ``text``."""
    if atom.kind == "EM":
        return em_evidence(atom.keys, text)
    if atom.kind == "SM":
        return sm_evidence(atom.groups, text)
    if atom.kind == "OP":
        return op_evidence(atom.threshold, atom.keys, text)
    if atom.kind == "CS":
        return cs_evidence(atom.threshold, atom.keys, text)
    raise ValueError(f"unknown atom kind {atom.kind!r}")


# -- one answer ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One atom run on one text (``op``: ``G``, ``M`` or ``G/M``, whichever the combos
    asked): the engine's result and the evidence behind it."""

    op: str
    atom: str
    kind: str
    text: str
    hit: bool
    value: float
    evidence: Evidence


@dataclass
class ComboTrace:
    """One combo: its contribution ``value``, its definition, the value of its expression
    on its own (or the error it raised) and the atom calls it made (shared with other
    combos that make the same call: see :attr:`Explanation.calls`), ``ops[i]`` the
    operator (``G`` or ``M``) it applied to ``calls[i]``."""

    id: str
    value: float | None
    expression: str | None = None
    score: Any = None
    mode: str | None = None
    calls: list[Call] = field(default_factory=list)
    expression_value: Any = None
    expression_error: str | None = None
    ops: list[str] = field(default_factory=list)


@dataclass
class Explanation:
    """Why one answer got its score; ``calls`` lists each distinct atom call once."""

    answer: list[str]
    score: float | None
    error: str | None
    combo_mode: str | None
    combos: list[ComboTrace]
    calls: list[Call] = field(default_factory=list)

    def call_number(self, call: Call) -> int:
        """The 1-based number of ``call`` in :attr:`calls`."""
        return next(i for i, c in enumerate(self.calls, 1) if c is call)


def explain(rule: Any, answer: Sequence[str] | str, source: Mapping[str, Any] | str | None = None) -> Explanation:
    """Score ``answer`` with ``rule`` (a compiled :class:`coscore.Rule`), tracing every
    atom call and evaluating each combo's expression on its own. ``source`` is accepted
    for compatibility; the definitions come from the compiled rule."""
    from .expr.evaluate import Answer, OperandError, compile_tree
    from .expr.failures import reason

    blanks = [answer] if isinstance(answer, str) else list(answer)
    outcome, calls = rule.trace(blanks)
    combos: dict[str, ComboTrace] = {}
    state = Answer(blanks, rule.atoms, manual=rule.dialect == "manual", limits=rule.limits)
    for spec in rule.spec.combos:
        trace = ComboTrace(spec.id, outcome.combos.get(spec.id), spec.text, spec.score, spec.mode)
        try:
            trace.expression_value = compile_tree(spec.tree, explain=True)(state)
        except OperandError as exc:  # an operator given what it does not take: in the rule's terms
            trace.expression_error = reason(exc)
        except Exception as exc:  # noqa: BLE001 - the answer's own error, shown to the author
            trace.expression_error = str(exc) or type(exc).__name__
        combos[spec.id] = trace
    # one atom on one text is one call (the engine runs it once), whether G or M asked
    first: dict[tuple[str, str], Any] = {}
    ops: dict[tuple[str, str], list[str]] = {}
    uses: dict[str, list[tuple[tuple[str, str], str]]] = {}
    for call in calls:
        key = (str(call.atom), call.text if isinstance(call.text, str) else str(call.text))
        first.setdefault(key, call)
        if call.op not in ops.setdefault(key, []):
            ops[key].append(call.op)
        if (key, call.op) not in uses.setdefault(call.combo, []):
            uses[call.combo].append((key, call.op))
    distinct = {}
    for key, call in first.items():
        atom = rule.atoms[key[0]]
        distinct[key] = Call("/".join(sorted(ops[key])), key[0], atom.kind, key[1], bool(call.hit), call.value,
                             atom_evidence(atom, key[1]))
    for combo_id, used in uses.items():
        trace = combos.setdefault(combo_id, ComboTrace(combo_id, outcome.combos.get(combo_id)))
        trace.calls = [distinct[key] for key, _ in used]
        trace.ops = [op for _, op in used]
    return Explanation(blanks, outcome.score, outcome.error, rule.combo_mode, list(combos.values()), list(distinct.values()))


def to_dict(explanation: Explanation) -> dict[str, Any]:
    """The explanation as JSON-ready data: combos refer to ``calls`` by 1-based number."""
    return {
        "answer": explanation.answer,
        "score": explanation.score,
        "error": explanation.error,
        "combo_mode": explanation.combo_mode,
        "combos": [
            {
                "id": c.id, "expression": c.expression, "mode": c.mode, "score": c.score,
                "expression_value": _plain(c.expression_value), "expression_error": c.expression_error,
                "contribution": c.value, "calls": [explanation.call_number(call) for call in c.calls], "ops": c.ops,
            }
            for c in explanation.combos
        ],
        "calls": [
            {"number": i, "op": c.op, "atom": c.atom, "kind": c.kind, "text": c.text, "hit": c.hit,
             "value": c.value, "evidence": {"type": type(c.evidence).__name__, **asdict(c.evidence)}}
            for i, c in enumerate(explanation.calls, 1)
        ],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


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
            detail = "counted " + (", ".join(hit) or "nothing") + (f"; excluded {', '.join(excluded)}" if excluded else "")
        elif ev.best is None:
            detail = "no keys"
        else:
            ratio = f"{ev.best.numerator}/{ev.best.denominator}"
            detail = f"best key {_quote(ev.best.key, 40)} {ratio}"
            if isinstance(ev, OPEvidence) and ev.best.numerator and ev.aligned:
                detail += f": {_quote(_marked(call.text[:120], ev.text_matched, plain), 120)}"
        lines.append(f"{head}: {detail}")
    return lines


# -- rendering ----------------------------------------------------------------------------

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
    out, run, inside = [], [], None
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
