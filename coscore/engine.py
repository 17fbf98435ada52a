"""Scoring: a rule's plan, and one answer, a chunk or many answers scored with it.

:func:`plan` prepares a validated rule once: its atoms, its combos for the reference
evaluator (:mod:`coscore.expr.evaluate`) and, when every combo can be evaluated
column-wise, a :class:`ColumnarPlan` (:mod:`coscore.expr.columnar`).

A batch is cut into chunks. On the columnar path a chunk is deduplicated, each atom
runs once per *distinct* string of its text column in one kernel call (the SM atoms
that read the same text in one scan together), and each combo is a few array passes.
Only the answers it flags — errors, inexact integers, malformed answers — are scored
again by the reference evaluator, each distinct one once. Otherwise every distinct
answer is scored by the reference evaluator. Results always keep the input order.
"""
from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Hashable, Iterable, Iterator, Mapping, Sequence, Union

import numpy as np

from . import atoms as _atoms
from ._fast import blank_column, check_answers, dedup_answers, dedup_strings, distinct_texts, joined_column, longest, tune_malloc
from .expr.columnar import EXACT_LIMIT, MAX_TEXT, Column, ColumnFn, build, built_over, column_kind, integral, signed_zeros, text_key, truthy
from .expr.evaluate import Answer, combo_result, compile_tree, total
from .expr.nodes import ATOM_OPERATORS, BLANK_OPERATORS, Call, Const, Node, walk
from .limits import DEFAULT_LIMITS, Limits
from .results import AtomCall, Batch, Outcome, failure_message
from .spec import RuleSpec

#: An answer: its blanks, or one string for a one-blank answer.
AnswerLike = Union[Sequence[str], str]

#: Answers per chunk: large enough to amortise per-chunk costs, small enough to bound memory.
DEFAULT_CHUNK_SIZE = 16_384
#: The fewest answers worth handing to another thread.
_MIN_SHARE = 4_096


class Plan:
    """A rule prepared for scoring, made once by :func:`plan` from a validated spec.

    ``atoms`` maps atom ids to prepared :class:`~coscore.atoms.Atom` objects,
    ``combo_ids`` lists the combos in rule order, ``columnar`` is the rule's
    :class:`ColumnarPlan` (``None`` when some combo needs the reference evaluator), and
    ``limits`` the budgets every answer is held to.
    """

    def __init__(self, spec: RuleSpec, limits: Limits = DEFAULT_LIMITS):
        self.spec = spec
        self.limits = limits
        self.atoms: dict[str, _atoms.Atom] = {aid: _atoms.build(a) for aid, a in spec.atoms.items()}
        self.combo_ids: list[str] = [c.id for c in spec.combos]
        self.combo_mode: str = spec.combo_mode
        self.manual: bool = spec.dialect == "manual"
        self.combos = [(compile_tree(c.tree), c.score, c.mode) for c in spec.combos]
        vectorised = bool(spec.combos) and all(column_kind(c.tree) is not None for c in spec.combos) and not _shared_atom_calls(spec)
        # the columnar path counts an answer's atom calls by the rule's call sites: all must fit
        vectorised = vectorised and sum(_call_sites(spec).values()) <= limits.max_atom_calls
        self.columnar: ColumnarPlan | None = ColumnarPlan(spec, self.atoms, limits) if vectorised else None


def plan(spec: RuleSpec, limits: Limits = DEFAULT_LIMITS) -> Plan:
    """The :class:`Plan` of a validated rule: atoms prepared, combos compiled, answers
    held to ``limits``."""
    return Plan(spec, limits)


def _call_sites(spec: RuleSpec) -> Counter:
    """How many ``G``/``M`` calls of the rule name each ``(atom id, text key)``."""
    return Counter(
        (str(node.args[0].value), text_key(node.args[1]))
        for c in spec.combos
        for node in walk(c.tree)
        if isinstance(node, Call) and node.op in "GM"
    )


class ColumnarPlan:
    """A rule's combos compiled for column-wise evaluation.

    ``key`` is the one blank the rule reads (an int, or ``"*"`` for the joined blanks)
    when it reads nothing else: then two answers with the same such text score the
    same, and a batch is deduplicated on those texts alone. ``groups`` are the SM
    atoms scanned together (:func:`substring_groups`).

    ``kernel_texts`` says whether the combos read the text only through the kernels
    (:func:`_kernel_texts`): then :meth:`run` hands a batch of texts that is not a list
    (a :class:`~coscore._fast.texts.Texts` of the Arrow reader) to the kernels as is;
    otherwise it makes the ``str`` of each text first.

    The answer budgets are kept by flagging: an answer whose string ``+`` could build
    more than its budget (an upper bound from the blanks' lengths) is never built here,
    and one whose atom calls, each counted once per call site, could cost more kernel
    work than its budget is flagged, so that the reference evaluator, which counts as
    it goes, gives its outcome.
    """

    def __init__(self, spec: RuleSpec, atoms: Mapping[str, _atoms.Atom], limits: Limits = DEFAULT_LIMITS):
        self.atoms = atoms
        self.limits = limits
        self.call_sites = _call_sites(spec)
        self.built_over = built_over([c.tree for c in spec.combos])
        self.manual = spec.dialect == "manual"
        self.combo_mode = spec.combo_mode
        self.combos = [(c.id, build(c.tree), float(c.score), c.mode, _int_zero(c, atoms)) for c in spec.combos]
        self.groups = substring_groups([c.tree for c in spec.combos], atoms)
        reads = {
            (node.op, node.args[0].value)
            for c in spec.combos
            for node in walk(c.tree)
            if isinstance(node, Call) and node.op in BLANK_OPERATORS
        }
        blanks = {value for _, value in reads}
        structural = ("Q", "*") in reads or (self.manual and ("L", "*") in reads)
        self.key = next(iter(blanks)) if len(blanks) == 1 and not structural else None
        self.kernel_texts = _kernel_texts(spec, atoms)

    def run(self, answers: list, view=None, longest: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """Totals, combo results and flags for distinct, well-formed answers.

        With ``view`` set, each answer is a string standing for blank ``view`` (``"*"``:
        the joined blanks) — all the rule reads; ``answers`` may then be any sequence
        of ``str`` or a ``Texts`` (see ``kernel_texts``) — and ``longest``, when given, is
        at least the length of the longest of them."""
        if not (self.kernel_texts or isinstance(answers, list)):
            answers = list(answers)
        ctx = self._context(answers, view, longest)
        n = len(answers)
        flag = np.zeros(n, dtype=bool)
        if self.built_over is not None:
            over = self.built_over(ctx, self.limits.max_built_chars)
            if over is not None and over.any():  # never build these: the reference path stops at the budget
                flag |= over
                empty = "" if view is not None else ()
                ctx = self._context([empty if o else a for a, o in zip(answers, over.tolist())], view, longest)
            # no answer left builds more than its budget in all: then no one join is too long
            ctx.joins_fit = self.limits.max_built_chars <= MAX_TEXT
        results: dict[str, np.ndarray] = {}
        with np.errstate(all="ignore"):
            for combo_id, column, score, mode, int_zero in self.combos:
                kind, values, f = column(ctx)
                if f is not None:
                    flag |= f
                if mode == "logic":
                    result = np.where(truthy((kind, values, f)), score, 0.0)
                elif kind != "num":  # a string in value mode is an error: the reference path says so
                    flag[:] = True
                    result = np.zeros(n)
                else:
                    result = values * score
                    if int_zero:  # -0.0 means 0.0 (see signed_zeros); -0.0 + 0.0 is 0.0, all else unchanged
                        result += 0.0
                    else:
                        result, f = signed_zeros(result, None, False)
                        if f is not None:
                            flag |= f
                    _flag_inexact(result, flag)
                results[combo_id] = result
            combos = list(results.values())
            if self.combo_mode == "ADD":  # 0.0 + the results, left to right (-0.0 sums to 0.0)
                total = combos[0] + 0.0
                _flag_inexact(total, flag)
                for result in combos[1:]:
                    total += result
                    _flag_inexact(total, flag)
            else:
                total = combos[0].copy()
                for result in combos[1:]:
                    np.copyto(total, result, where=result > total)
            flag |= np.isnan(total)
            over = ctx.over_work()
            if over is not None:
                flag |= over
            np.copyto(total, 0.0, where=total < 0)
            np.copyto(total, 10.0, where=total > 10)
        return total, results, flag

    def _context(self, answers: list, view, longest: int | None) -> "BatchContext":
        return BatchContext(answers, self.atoms, self.manual, view, self.groups, self.limits, self.call_sites, longest)


def _flag_inexact(values: np.ndarray, flag: np.ndarray) -> None:
    """Flag the rows of ``values`` at or beyond :data:`EXACT_LIMIT` in magnitude (two
    reductions when none is, the usual case; NaN is never flagged here)."""
    if not (values.size and -EXACT_LIMIT < values.min() and values.max() < EXACT_LIMIT):
        flag |= np.abs(values) >= EXACT_LIMIT


def _int_zero(combo, atoms) -> bool:
    """Whether a zero of the value-mode result ``expression * score`` is Python's int ``0``
    (an int score times an int expression; or a nonzero one times an expression whose
    zeros are ints), so that ``-0.0`` there means ``0.0`` (see :func:`signed_zeros`)."""
    return isinstance(combo.score, int) and integral(combo.tree, atoms, zero_only=combo.score != 0)


def _kernel_texts(spec: RuleSpec, atoms: Mapping[str, _atoms.Atom]) -> bool:
    """Whether the combos read the blanks only as the text of ``G``/``M`` calls of SM, OP
    and CS atoms (each such call's text a ``T(n)`` itself): then only the kernels read
    the texts, never a ``str`` operation (an EM atom's set lookup, a comparison, ``+``,
    ``L``/``Q``/``F``/``S``)."""
    through: set[int] = set()
    reads = []
    for c in spec.combos:
        for node in walk(c.tree):
            if not isinstance(node, Call):
                continue
            if node.op in ATOM_OPERATORS:
                name, text = node.args[0], node.args[1]
                atom = atoms.get(str(name.value)) if isinstance(name, Const) else None
                if atom is not None and atom.kind != "EM" and isinstance(text, Call) and text.op == "T":
                    through.add(id(text))
            elif node.op in BLANK_OPERATORS:
                reads.append(node)
    return all(id(node) in through for node in reads)


def _shared_atom_calls(spec: RuleSpec) -> bool:
    """Whether two ``G``/``M`` calls name different atoms with equal ids (``1`` and ``1.0``,
    ``True``): the reference path's per-answer atom cache, keyed by ``(id, text)`` as the
    original's, gives the second the first one's result, which depends on evaluation order."""
    names: dict = {}
    for c in spec.combos:
        for node in walk(c.tree):
            if isinstance(node, Call) and node.op in "GM" and isinstance(node.args[0], Const):
                names.setdefault(node.args[0].value, set()).add(str(node.args[0].value))
    return any(len(spelled) > 1 for spelled in names.values())


class BatchContext:
    """The answers of one batch and its caches: the :class:`~coscore.expr.columnar.Columns`
    that a :class:`ColumnarPlan`'s column functions read.

    ``answers`` are well formed (a ``str``, or a list/tuple of ``str``); the engine puts
    ``()`` in place of any other, and flags it. With ``view`` set, the answers are
    distinct strings, each standing for blank ``view`` of an answer (``"*"``: its joined
    blanks; ``0``: the one blank of one-blank answers), so that text needs no
    deduplication; they may be a ``Texts`` when only the kernels read them
    (:attr:`ColumnarPlan.kernel_texts`).

    ``work`` is each answer's kernel work so far, an upper bound of what the reference
    evaluator would count: each atom call is counted once per call site
    (``call_sites``), whether it runs or not (``None`` while no answer can be over
    ``limits.max_work``, the usual case: then only a bound for the batch is kept). A
    string whose call alone would go over ``limits.max_work``, or whose answers are all
    over it already, is not scanned: its answers are flagged. ``longest``, with
    ``view`` set, is a bound of the answers' lengths (the dedup's), so that bound costs
    nothing to find for the rule's own text.
    """

    def __init__(self, answers: list, atoms: Mapping, manual: bool, view=None, groups: Mapping | None = None,
                 limits: Limits = DEFAULT_LIMITS, call_sites: Mapping | None = None, longest: int | None = None):
        self.answers = answers
        self.n = len(answers)
        self.atoms = atoms
        self.groups = groups or {}   # (atom id, text key) -> SubstringGroup: see substring_groups()
        self.manual = manual
        self.limits = limits
        self.call_sites = call_sites or {}
        self.joins_fit = False
        # per answer once some answer may be over the work budget; until then a bound for all
        self.work: np.ndarray | None = None
        self._work_bound = 0.0
        self._charges: list = []
        self._longest = longest if view is not None else None
        self.cache: dict = {}
        if view is not None:
            names = (0, -1, "*") if type(view) is int and view == 0 else (view,)
            for name in names:
                self.cache[("T", name)] = ("str", answers, None)
                self.cache[("distinct", ("T", name))] = (answers, None)

    def blank(self, n) -> Column:
        """``T(n)`` as a column; answers without blank ``n`` are flagged."""
        key = ("T", n)
        column = self.cache.get(key)
        if column is None:
            if n == "*":
                column = ("str", joined_column(self.answers), None)
            else:
                column = ("str", *blank_column(self.answers, n))
            self.cache[key] = column
        return column

    def distinct(self, text_key, strings: list) -> tuple[list, np.ndarray | None]:
        """The distinct strings of a text column and each row's position among them
        (``None``: the strings are distinct already, row ``i`` is string ``i``)."""
        key = ("distinct", text_key)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = dedup_strings(strings)
        return found

    def atom(self, atom_id: str, text_key: Hashable, text: ColumnFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``(hits, values, flag)`` of an atom over a text column: each distinct string
        scanned once, with the other SM atoms of its group on the same text."""
        key = ("atom", atom_id, text_key)
        result = self.cache.get(key)
        if result is None:
            _, strings, flag = text(self)
            distinct, index = self.distinct(text_key, strings)
            group = self.groups.get((atom_id, text_key))
            ids = group.ids if group is not None else (atom_id,)
            chars = self.cache.get(("chars", text_key))
            if chars is None:  # a bound of any one call's cost per unit of work: longest text + 1
                known = self._longest if strings is self.answers else None
                chars = self.cache[("chars", text_key)] = (longest(distinct) if known is None else known) + 1
            texts = distinct
            distinct, skipped = self._affordable(texts, index, text_key, chars, sum(self.atoms[i].work for i in ids))
            if skipped is not None:
                flag = _or_flag(flag, skipped if index is None else skipped[index])
            if group is not None:   # this atom and the other SM atoms on this text, in one scan
                found = group.evaluate_many(distinct)
            else:
                found = {atom_id: self.atoms[atom_id].evaluate_many(distinct)}
            for found_id, (hits, values) in found.items():
                per_char = self.atoms[found_id].work * self.call_sites.get((found_id, text_key), 1)
                self._charge(texts, index, text_key, chars, per_char)
                if index is not None:
                    hits, values = hits[index], values[index]
                self.cache[("atom", found_id, text_key)] = (hits.astype(np.float64), values, flag)
            result = self.cache[key]
        return result

    def _sizes(self, text_key, texts) -> np.ndarray:
        """Each distinct text's length + 1: what one call on it costs per unit of work."""
        sizes = self.cache.get(("sizes", text_key))
        if sizes is None:
            if hasattr(texts, "lengths"):  # a compiled Texts: no str made for each text
                lengths = texts.lengths().astype(np.float64)
            else:
                lengths = np.fromiter(map(len, texts), np.float64, len(texts))
            sizes = self.cache[("sizes", text_key)] = lengths + 1.0
        return sizes

    def _affordable(self, texts: list, index: np.ndarray | None, text_key, chars: int,
                    per_char: int) -> tuple[list, np.ndarray | None]:
        """``texts`` with ``""`` in place of each one not worth scanning (one call over the
        whole work budget, or only answers over it already), and which those are."""
        limit = self.limits.max_work
        if self.work is None and chars * per_char <= limit:
            return texts, None
        skip = self._sizes(text_key, texts) * per_char > limit
        if self.work is not None:
            over = self.work > limit
            if over.any():
                wanted = np.zeros(len(texts), dtype=bool)
                wanted[(index if index is not None else np.arange(self.n))[~over]] = True
                skip |= ~wanted
        if not skip.any():
            return texts, None
        return ["" if s else d for d, s in zip(texts, skip.tolist())], skip

    def _charge(self, texts: list, index: np.ndarray | None, text_key, chars: int, per_char: int) -> None:
        """Add a call's work on each distinct text (its length + 1, times ``per_char``) to
        its answers' work; while ``chars`` (a bound of each text's) keep every answer under
        the budget, only their sum is kept."""
        if self.work is None:
            self._charges.append((texts, index, text_key, per_char))
            self._work_bound += chars * per_char
            if self._work_bound <= self.limits.max_work:
                return
            charges, self._charges = self._charges, []
            self.work = np.zeros(self.n)
        else:
            charges = [(texts, index, text_key, per_char)]
        for texts, i, key, factor in charges:
            sizes = self._sizes(key, texts)
            self.work += (sizes if i is None else sizes[i]) * factor

    def over_work(self) -> np.ndarray | None:
        """The answers whose work went over ``limits.max_work`` (``None``: none can have)."""
        return None if self.work is None else self.work > self.limits.max_work


def _or_flag(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    return b if a is None else a | b


def substring_groups(trees: list[Node], atoms: Mapping) -> dict:
    """``{(atom id, text key): SubstringGroup}`` for the SM atoms that ``trees`` call on
    the same text (two or more per text, whose options fit one bit-parallel scan)."""
    by_text: dict = {}
    for tree in trees:
        for node in walk(tree):
            if isinstance(node, Call) and node.op in "GM":
                atom = atoms.get(str(node.args[0].value))
                if atom is not None and atom.kind == "SM":
                    by_text.setdefault(text_key(node.args[1]), {})[atom.id] = atom
    groups = {}
    for key, found in by_text.items():
        if len(found) > 1:
            group = _atoms.SubstringGroup(list(found.values()))
            if group.one_pass:
                groups.update(((atom_id, key), group) for atom_id in found)
    return groups


# -- one answer: the reference evaluator ---------------------------------------------
def evaluate(plan: Plan, blanks: list, results: list, trace: list | None = None, add=None):
    """The raw total (Python int/float, as the original engine) of one answer.

    Appends each combo's raw result to ``results`` as it completes, so after an
    exception ``len(results)`` is the index of the failing combo. Errors are the
    original engine's exception classes. ``trace``, when given, receives the index
    of each combo as it starts and a ``(op, atom, text, hit, value)`` per atom call.
    ``add`` replaces ADD's left-to-right sum (:func:`coscore.expr.evaluate.total`).
    """
    answer = Answer(blanks, plan.atoms, plan.manual, trace, plan.limits)
    for evaluate_combo, score, mode in plan.combos:
        if trace is not None:
            trace.append(len(results))
        results.append(combo_result(evaluate_combo(answer), score, mode))
    return total(results, plan.combo_mode, add)


def score_one(plan: Plan, answer: AnswerLike, trace: list | None = None) -> Outcome:
    """One answer's :class:`~coscore.results.Outcome` by the reference evaluator; its
    failure is its ``error``, never an exception."""
    blanks = _answer_blanks(answer)
    if blanks is None:
        return _refused(type(answer).__name__)
    return _score_blanks(plan, blanks, trace)


def _score_blanks(plan: Plan, blanks: list, trace: list | None = None) -> Outcome:
    """:func:`score_one` of an answer whose blanks :func:`_answer_blanks` has taken."""
    results: list = []
    try:
        value = evaluate(plan, blanks, results, trace)
    except Exception as exc:  # one answer's failure never escapes
        combos = {cid: _as_float(r) for cid, r in zip(plan.combo_ids, results)}
        return Outcome(None, combos, failure_message(plan.combo_ids, results, exc))
    combos = {cid: _as_float(r) for cid, r in zip(plan.combo_ids, results)}
    return Outcome(float(value), combos)


def trace(plan: Plan, answer: AnswerLike) -> tuple[Outcome, list[AtomCall]]:
    """Score one answer and list every atom call made, in evaluation order."""
    events: list = []
    outcome = score_one(plan, answer, events)
    calls: list[AtomCall] = []
    combo = plan.combo_ids[0] if plan.combo_ids else ""
    for event in events:
        if isinstance(event, int):
            combo = plan.combo_ids[event]
        else:
            calls.append(AtomCall(combo, *event))
    return outcome, calls


def _answer_blanks(answer: object) -> list | None:
    """The blanks of an answer as a new list: a ``str`` is one blank, a list or tuple
    (subclasses too) holds them; ``None`` for anything else (see :func:`_refused`).

    Only the answer's shape is checked here: a blank that is not a ``str`` (``1``,
    ``None``, a ``str`` subclass such as ``numpy.str_``) fails the answer when a combo
    reads it, as the contract says. No code of the answer's own runs (a subclass's
    ``__iter__`` is not called), so taking the blanks never fails otherwise.
    """
    if isinstance(answer, str):
        return [answer]
    if isinstance(answer, list):
        return list.copy(answer)
    if isinstance(answer, tuple):
        return list(tuple.__iter__(answer))
    return None


def _refused(kind: str) -> Outcome:
    """The outcome of something that is not an answer, of the type named ``kind``."""
    return Outcome(None, {}, f"answer: an answer is a list of blanks or a string, not {kind}")


def _shared_key(blanks: list) -> tuple | None:
    """The key under which answers with these blanks share one outcome in a batch: the
    blanks themselves when every one is an exact ``str`` (``"a"``, ``["a"]`` and
    ``("a",)`` score alike); ``(type, value)`` in place of an ``int``, ``bool`` or
    ``None`` blank; ``None`` (scored on its own) for any other blank, whose equality is
    its own to define (``1 == 1.0 == True``, a ``str`` subclass equal to its text)."""
    for blank in blanks:
        if type(blank) is not str:
            break
    else:
        return tuple(blanks)
    key = []
    for blank in blanks:
        kind = type(blank)
        if kind is str:
            key.append(blank)
        elif kind is int or kind is bool or blank is None:  # equal ones are alike (a float is not: -0.0)
            key.append((kind, blank))
        else:
            return None
    return tuple(key)


def _as_float(value) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# -- many answers ----------------------------------------------------------------------
def score_chunk(plan: Plan, answers: list, start: int = 0, stop: int | None = None) -> Batch:
    """Score one chunk, ``answers[start:stop]`` (a list), into a :class:`Batch`."""
    stop = len(answers) if stop is None else stop
    n = stop - start
    columnar = plan.columnar
    view = columnar.key if columnar is not None else None
    if view is None and (start or stop != len(answers)):
        answers, start = answers[start:stop], 0
    if columnar is not None and n:
        # identical answers are scored once: deduplicate what the combos can see;
        # answers that are not lists of strings (odd) are flagged for the reference path
        flag = np.zeros(n, dtype=bool)
        if view is not None:  # the rule reads one text per answer: no copy of the chunk needed
            distinct, inverse, missing, odd, bound = distinct_texts(answers, view, start, stop)
            if missing is not None:
                flag |= missing
            flag[odd] = True
        else:
            bound = None
            odd, most, fewest = check_answers(answers)
            rows = answers
            if odd:
                rows = list(answers)
                for i in odd:
                    rows[i] = ()
                flag[odd] = True
            if most == fewest == 1 and not odd:  # one blank each: the answers are their blank
                view = 0
                distinct, inverse = dedup_strings(joined_column(rows))
            else:
                distinct, inverse = dedup_answers(rows)
        return score_distinct(plan, distinct, inverse, view, flag, lambda i: answers[start + i], bound)
    return score_distinct(plan, None, None, None, np.ones(n, dtype=bool), lambda i: answers[start + i])


def score_distinct(plan: Plan, distinct: list | None, inverse: np.ndarray | None, view, flag: np.ndarray,
                   answer_at: Callable[[int], AnswerLike], longest: int | None = None) -> Batch:
    """Score a chunk of ``len(flag)`` answers given already deduplicated: ``distinct``
    (what the rule's combos read: whole answers, or with ``view`` set the text of blank
    ``view`` of each, see :meth:`ColumnarPlan.run`) and ``inverse`` (each answer's
    position among them). Answers where ``flag`` is set, those the columnar path flags
    and all of them when ``distinct`` is ``None`` (or the rule has no columnar plan) are
    scored by the reference evaluator, each distinct one once; ``answer_at(i)`` gives
    answer ``i``; ``longest``, when known, bounds the length of the distinct texts (with
    ``view`` set). Used by :func:`score_chunk` and by the Arrow columns of
    :mod:`coscore.columns`."""
    n = len(flag)
    columnar = plan.columnar
    if columnar is not None and distinct is not None and n:
        total, results, flag_distinct = columnar.run(distinct, view, longest)
        if len(distinct) == n:  # all distinct: ``inverse`` is the identity
            scores, combos = total, results
            flag |= flag_distinct
        else:
            scores = total[inverse]
            combos = {cid: values[inverse] for cid, values in results.items()}
            flag |= flag_distinct[inverse]
        redo = np.flatnonzero(flag).tolist()
        if redo:
            scores[redo] = np.nan
            for values in combos.values():
                values[redo] = np.nan
    else:
        scores = np.full(n, np.nan)
        combos = {cid: np.full(n, np.nan) for cid in plan.combo_ids}
        redo = range(n)
    errors: list[str | None] = [None] * n
    completed: dict[int, int] = {}
    seen: dict = {}
    refused: dict[str, Outcome] = {}
    for i in redo:
        # validated and normalised first: only answers of exact strings share an outcome
        answer = answer_at(i)
        blanks = _answer_blanks(answer)
        if blanks is None:  # not an answer: its outcome says only its type's name
            kind = type(answer).__name__
            outcome = refused.get(kind)
            if outcome is None:
                outcome = refused[kind] = _refused(kind)
        else:
            key = _shared_key(blanks)
            outcome = None if key is None else seen.get(key)
            if outcome is None:
                outcome = _score_blanks(plan, blanks)
                if key is not None:
                    seen[key] = outcome
        _store(i, outcome, scores, combos, errors)
        if outcome.error is not None:
            completed[i] = len(outcome.combos)
    return Batch(scores, errors, combos, completed)


def _store(i: int, outcome, scores: np.ndarray, combos: dict, errors: list) -> None:
    scores[i] = math.nan if outcome.error is not None else outcome.score
    errors[i] = outcome.error
    for cid, values in combos.items():
        values[i] = outcome.combos.get(cid, math.nan)


def _chunks(answers: Iterable, size: int) -> Iterator[list]:
    if isinstance(answers, list):
        for start in range(0, len(answers), size):
            yield answers[start : start + size]
        return
    iterator = iter(answers)
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield chunk


def _workers(jobs: int) -> int:
    if jobs == -1 or jobs == 0:
        return os.cpu_count() or 1
    if jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + jobs)
    return jobs


def score_chunks(plan: Plan, answers: Iterable[AnswerLike], chunk_size: int = DEFAULT_CHUNK_SIZE, jobs: int = 1) -> Iterator[Batch]:
    """Score ``answers`` chunk by chunk, yielding one :class:`Batch` per chunk, in order.

    With ``jobs > 1`` (``-1``: every core) chunks are scored by that many threads; the
    kernels release the GIL. Memory stays proportional to ``jobs`` chunks.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    tune_malloc()  # once per process: chunk-sized blocks stay reusable (see coscore._fast.batch)
    workers = _workers(jobs)
    if workers <= 1:
        for chunk in _chunks(answers, chunk_size):
            yield score_chunk(plan, chunk)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = []
        for chunk in _chunks(answers, chunk_size):
            pending.append(pool.submit(score_chunk, plan, chunk))
            if len(pending) > workers:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


#: Answers per block of the arrays :func:`gather` collects a stream's results in: one
#: float64 column of a block (32 MB) is at the malloc tuning's mmap threshold (see
#: :func:`coscore._fast.tune_malloc`), so each block is mapped on its own, holds memory
#: only for the rows written, and is given back whole once joined.
_BLOCK = 1 << 22


def gather(plan: Plan, batches: Iterable[Batch]) -> Batch:
    """One :class:`Batch` of consecutive ones, each copied into blocks of result arrays
    as it comes and then dropped.

    The chunks' own arrays are released chunk by chunk (so their memory is reused by the
    next chunk's), not held to the end; the blocks of each column are joined and released
    before the next column, and the errors list is made last: the peak is the results
    once in blocks plus one joined column.
    """
    ids = plan.combo_ids
    columns: dict = {None: [], **{cid: [] for cid in ids}}   # None: the scores; each a list of blocks
    errors: dict[int, str] = {}
    completed: dict[int, int] = {}
    n = 0
    for batch in batches:
        m = len(batch)
        if batch.errors.count(None) != m:
            errors.update((n + i, e) for i, e in enumerate(batch.errors) if e is not None)
        completed.update((n + i, done) for i, done in batch.completed.items())
        values = {None: batch.scores, **batch.combos}
        del batch
        done = 0
        while done < m:
            at = n % _BLOCK
            if at == 0:
                for blocks in columns.values():
                    blocks.append(np.empty(_BLOCK))
            take = min(m - done, _BLOCK - at)
            for key, blocks in columns.items():
                blocks[-1][at : at + take] = values[key][done : done + take]
            done += take
            n += take
        del values
    joined = {}
    for key, blocks in columns.items():
        if blocks:
            blocks[-1] = blocks[-1][: n - (len(blocks) - 1) * _BLOCK]
        joined[key] = np.concatenate(blocks) if blocks else np.empty(0)
        blocks.clear()
    error_list: list[str | None] = [None] * n
    for i, error in errors.items():
        error_list[i] = error
    return Batch(joined.pop(None), error_list, joined, completed)


def _even_chunks(n: int, workers: int) -> int:
    """A chunk size near :data:`DEFAULT_CHUNK_SIZE` that cuts ``n`` answers into a multiple
    of ``workers`` chunks of equal size, so that no worker is left with the tail alone."""
    if workers <= 1:
        return DEFAULT_CHUNK_SIZE
    count = max(1, round(n / DEFAULT_CHUNK_SIZE))
    if count > 1 or n >= workers * _MIN_SHARE:  # else one chunk: threads would not pay off
        count = -(-count // workers) * workers
    return max(1, -(-n // count))


def score_many(plan: Plan, answers: Iterable[AnswerLike], jobs: int = 1, chunk_size: int | None = None) -> Batch:
    """Score ``answers`` with ``plan`` into one :class:`Batch` (input order kept).

    A list is scored straight into result arrays allocated once, chunk by chunk, each
    worker reading its chunks in place (``jobs > 1``: equal chunks, a multiple of the
    workers); any other iterable is read chunk by chunk (memory: ``jobs`` chunks plus
    the result), each chunk's results gathered as it comes (:func:`gather`).
    """
    workers = _workers(jobs)
    if not isinstance(answers, list):
        if chunk_size is None:  # threads share the GIL-held steps better over larger chunks
            chunk_size = DEFAULT_CHUNK_SIZE if workers <= 1 else 2 * DEFAULT_CHUNK_SIZE
        return gather(plan, score_chunks(plan, answers, chunk_size, jobs))
    return score_ranges(plan, len(answers), lambda start, stop: score_chunk(plan, answers, start, stop),
                        jobs, chunk_size)


def score_ranges(plan: Plan, n: int, score_range: Callable[..., Batch], jobs: int = 1,
                 chunk_size: int | None = None, read_range: Callable[[int, int], object] | None = None,
                 read_ahead: bool = True) -> Batch:
    """One :class:`Batch` of ``n`` answers, ``score_range(start, stop)`` scoring each chunk
    of them straight into result arrays allocated once (``jobs > 1``: threads, equal
    chunks, a multiple of the workers). Used by :func:`score_many` for a list and by the
    Arrow columns of :mod:`coscore.columns`.

    ``read_range(start, stop)``, when given, is the first step of scoring a chunk, one
    that runs without the GIL (reading its texts in C); its result is passed on as
    ``score_range(start, stop, read)``. With one worker and ``read_ahead``, it reads the
    next chunk in a second thread while this one is scored, so reading and scoring
    overlap."""
    workers = _workers(jobs)
    if chunk_size is None:
        chunk_size = _even_chunks(n, workers)
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    tune_malloc()
    scores = np.empty(n)
    combos = {cid: np.empty(n) for cid in plan.combo_ids}
    errors: list[str | None] = [None] * n
    completed: dict[int, int] = {}

    def fill(start: int, read: Callable[[int, int], object] | None = read_range) -> None:
        stop = min(n, start + chunk_size)
        batch = score_range(start, stop) if read is None else score_range(start, stop, read(start, stop))
        scores[start:stop] = batch.scores
        for cid, values in batch.combos.items():
            combos[cid][start:stop] = values
        if batch.errors.count(None) != len(batch.errors):
            errors[start:stop] = batch.errors
        completed.update((start + i, done) for i, done in batch.completed.items())

    starts = range(0, n, chunk_size)
    if workers > 1 and len(starts) > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for _ in pool.map(fill, starts):
                pass
    elif read_range is None or not read_ahead or len(starts) <= 1:
        for start in starts:
            fill(start)
    else:   # one worker: each chunk's texts are read while the one before is scored
        with ThreadPoolExecutor(max_workers=1) as reader:
            ahead = reader.submit(read_range, 0, min(n, chunk_size))
            for start in starts:
                read, ahead = ahead, None
                following = start + chunk_size
                if following < n:
                    ahead = reader.submit(read_range, following, min(n, following + chunk_size))
                fill(start, lambda _start, _stop, read=read: read.result())
    return Batch(scores, errors, combos, completed)
