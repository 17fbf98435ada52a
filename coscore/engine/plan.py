"""Planning a rule: what scoring needs, prepared once from a validated spec.

:class:`Plan` holds the rule's prepared atoms, its combos compiled for the reference
evaluator (:mod:`coscore.expr.evaluate`) and, when every combo can be evaluated over
whole columns, a :class:`ColumnarPlan`: the combos built as column functions
(:mod:`.columnar`), the SM atoms scanned together, and the one text the rule reads
(when it reads one), on which a chunk is deduplicated.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from typing import Any

from .. import atoms as _atoms
from ..expr.evaluate import compile_tree
from ..expr.nodes import ATOM_OPERATORS, BLANK_OPERATORS, Call, Const, Node, Value, literal_value, walk
from ..expr.reads import BlankNeed, blank_need
from ..limits import DEFAULT_LIMITS, Limits
from ..spec import ComboSpec, RuleSpec
from .columnar import build, built_over, column_kind, integral, text_key


class Plan:
    """A rule prepared for scoring, made once by :func:`plan` from a validated spec.

    ``atoms`` maps atom ids to prepared :class:`~coscore.atoms.Atom` objects,
    ``combo_ids`` lists the combos in rule order, ``combos`` are the combos compiled for
    the reference evaluator (``(evaluate, score, mode)``), ``columnar`` is the rule's
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
        #: How many blanks the rule reads (:mod:`coscore.expr.reads`).
        self.blank_need: BlankNeed = blank_need(c.tree for c in spec.combos)
        vectorised = bool(spec.combos) and all(column_kind(c.tree) is not None for c in spec.combos) \
            and not _shared_atom_calls(spec)
        # the columnar path counts an answer's atom calls by the rule's call sites: all must fit
        vectorised = vectorised and sum(_call_sites(spec).values()) <= limits.max_atom_calls
        self.columnar: ColumnarPlan | None = ColumnarPlan(spec, self.atoms, limits) if vectorised else None

    @property
    def key(self) -> int | str | None:
        """The one text the rule reads (see :attr:`ColumnarPlan.key`), else ``None``."""
        return self.columnar.key if self.columnar is not None else None

    @property
    def keys(self) -> tuple[int | str, ...] | None:
        """The blanks the rule reads through the kernels only (see :attr:`ColumnarPlan.keys`), else ``None``."""
        return self.columnar.keys if self.columnar is not None else None

    @property
    def blanks_read(self) -> frozenset[int] | None:
        """The only blanks (0-based) an answer's score depends on, when the rule reads
        some by number only (its :attr:`key` or :attr:`keys`); ``None``: any may count
        (the blanks joined, their number, a rule scored answer by answer)."""
        read = (self.key,) if self.key is not None else self.keys
        if read is None or not all(type(b) is int and b >= 0 for b in read):
            return None
        return frozenset(b for b in read if isinstance(b, int))  # all are (above)


def plan(spec: RuleSpec, limits: Limits = DEFAULT_LIMITS) -> Plan:
    """The :class:`Plan` of a validated rule: atoms prepared, combos compiled, answers
    held to ``limits``."""
    return Plan(spec, limits)


class ColumnarPlan:
    """A rule's combos compiled for column-wise evaluation (see :func:`.columnar.run`).

    ``key`` is the one blank the rule reads (an int, or ``"*"`` for the joined blanks)
    when it reads nothing else: then two answers with the same such text score the
    same, and a chunk is deduplicated on those texts alone. ``keys`` are the blanks a
    rule reads when it reads several, and each only through the kernels (``kernel_texts``,
    no string built): then Arrow blank columns are scored from each blank's distinct
    texts (:class:`~coscore.engine.context.BlankTexts`), with no ``str`` made.
    ``groups`` are the SM atoms scanned together (:func:`substring_groups`). ``kernel_texts`` says whether the
    combos read the text only through the kernels (:func:`_kernel_texts`): then a chunk
    of texts that is not a list (the ``Texts`` of the Arrow reader) goes to the kernels
    as is; otherwise the ``str`` of each text is made first. ``call_sites`` counts the
    ``G``/``M`` calls naming each ``(atom id, text)``, ``built_over`` bounds what string
    ``+`` builds (:func:`.columnar.built_over`), both for the answer budgets.
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
            (node.op, _blank(node))
            for c in spec.combos
            for node in walk(c.tree)
            if isinstance(node, Call) and node.op in BLANK_OPERATORS
        }
        blanks = {value for _, value in reads}
        structural = ("Q", "*") in reads or (self.manual and ("L", "*") in reads)
        self.key = next(iter(blanks)) if len(blanks) == 1 and not structural else None
        self.kernel_texts = _kernel_texts(spec, atoms)
        several = len(blanks) > 1 and not structural and all(type(b) is int or b == "*" for b in blanks)
        self.keys = tuple(sorted(blanks, key=repr)) if several and self.kernel_texts and self.built_over is None \
            else None


def _blank(call: Call) -> int | str:
    """The blank a ``T``/``L``/``Q``/``F``/``S`` call names: an int or ``'*'`` (a columnar
    plan is made only when :func:`.columnar.column_kind` let no other through)."""
    name = literal_value(call.args[0])
    assert isinstance(name, (int, str))
    return name


def _call_sites(spec: RuleSpec) -> Counter[tuple[str, Hashable]]:
    """How many ``G``/``M`` calls of the rule name each ``(atom id, text key)``."""
    return Counter(
        (str(literal_value(node.args[0])), text_key(node.args[1]))
        for c in spec.combos
        for node in walk(c.tree)
        if isinstance(node, Call) and node.op in "GM"
    )


def _int_zero(combo: ComboSpec, atoms: Mapping[str, _atoms.Atom]) -> bool:
    """Whether a zero of the value-mode result ``expression * score`` is Python's int ``0``
    (an int score times an int expression; or a nonzero one times an expression whose
    zeros are ints), so that ``-0.0`` there means ``0.0`` (see :func:`.columnar.signed_zeros`)."""
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
    names: dict[Value, set[str]] = {}
    for c in spec.combos:
        for node in walk(c.tree):
            if isinstance(node, Call) and node.op in "GM" and isinstance(node.args[0], Const):
                names.setdefault(node.args[0].value, set()).add(str(node.args[0].value))
    return any(len(spelled) > 1 for spelled in names.values())


def substring_groups(trees: list[Node], atoms: Mapping[str, _atoms.Atom]) -> dict[tuple[str, Hashable], Any]:
    """``{(atom id, text key): SubstringGroup}`` for the SM atoms that ``trees`` call on
    the same text (two or more per text, whose options fit one bit-parallel scan)."""
    by_text: dict[Hashable, dict[str, _atoms.SubstringMatch]] = {}
    for tree in trees:
        for node in walk(tree):
            if isinstance(node, Call) and node.op in "GM":
                atom = atoms.get(str(literal_value(node.args[0])))
                if isinstance(atom, _atoms.SubstringMatch):  # kind SM
                    by_text.setdefault(text_key(node.args[1]), {})[atom.id] = atom
    groups: dict[tuple[str, Hashable], Any] = {}
    for key, found in by_text.items():
        if len(found) > 1:
            group = _atoms.SubstringGroup(list(found.values()))
            if group.one_pass:
                groups.update(((atom_id, key), group) for atom_id in found)
    return groups
