"""The evidence of one answer's score: every atom call made while scoring it, with the
evidence the atom found (which EM key matched, which SM options hit or were
excluded/removed, the OP key with the best LCS and its aligned characters, the CS counts).

The hit and value shown are the engine's own (from :meth:`Rule.trace`). The evidence
behind them is recomputed with the kernels, taken from their dispatcher
(:mod:`coscore._fast`): the SM verdict of each group (:func:`~coscore._fast.group_hits`,
the readable statement of the SM walk), each OP key's LCS length and similarity
(:class:`~coscore._fast.LcsScorer`), each CS key's counts and similarity
(:class:`~coscore._fast.JaccardScorer`, with the token counts of
:func:`~coscore._fast.tokens`). What only an explanation needs is added here:
each SM option's part in the walk, which characters one longest common subsequence
aligns, and which key is the best (the first of the most similar). The text of an
explanation is drawn by :mod:`coscore.explain.render`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .._fast import JaccardScorer, LcsScorer, group_hits
from .._fast import tokens as cs_tokens

if TYPE_CHECKING:
    from ..rule import Rule

#: The largest LCS table (key length × text length) drawn as an alignment; a longer
#: text gets its similarities (from the kernels) without the characters marked.
ALIGN_CELLS = 4_000_000

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


def explain(rule: Rule, answer: Sequence[str] | str, source: Mapping[str, Any] | str | None = None) -> Explanation:
    """Score ``answer`` with ``rule`` (a compiled :class:`coscore.Rule`), tracing every
    atom call and evaluating each combo's expression on its own. ``source`` is accepted
    for compatibility; the definitions come from the compiled rule."""
    from ..expr.evaluate import Answer, OperandError, compile_tree
    from ..expr.failures import reason

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
    return Explanation(blanks, outcome.score, outcome.error, rule.combo_mode, list(combos.values()),
                       list(distinct.values()))


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
