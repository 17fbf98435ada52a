"""The atom id position of ``G(k, s)`` and ``M(k, s)``: ``k`` names the atom (``str(k)`` is
looked up), so it must name one of the rule's atoms whatever the answer.

The type pass (:mod:`coscore.expr.types`) reports what :func:`atom_id_problems` finds as
errors wherever the call stands: a rule never lets the answer pick its atom
(``G(T(0)*1000, 1)`` looks up an atom named by a thousand copies of the answer).
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..diagnostics import shorten
from .evaluate import constant_value
from .nodes import Call, IfExp, Node, walk

#: The operators that read the answer (a value built from one depends on it).
READS_THE_ANSWER = frozenset("TLQFSGM")


def atom_id_problems(arg: Node, kind: str, atoms: Collection[str], op: str = "G") -> list[tuple[str, bool]]:
    """What is wrong with ``arg`` as the atom id of ``op`` (``kind``: the type pass's name
    of its kinds: ``str``, ``number``…), among the rule's ``atoms``: ``(message, every)``
    pairs, ``every`` when no value it can take names an atom (so every answer fails)."""
    shown = ", ".join(list(atoms)[:10]) + (", …" if len(atoms) > 10 else "")
    values = constant_values(arg)
    if values is None:
        what = {"str": "text", "bool": "a bool", "number": "a number"}.get(kind, "a value")
        return [(f"{op}'s first argument names the atom: it must be an atom id ({shown}), "
                 f"not {what} that depends on the answer", False)]
    missing = [value for value in values if str(value) not in atoms]
    return [(f"atom {shorten(repr(str(value)), 60)} does not exist (atoms: {shown})", len(missing) == len(values))
            for value in missing[:1]]


def constant_values(node: Node) -> list[Any] | None:
    """The values ``node`` can take whatever the answer (the branches of an ``if``/``else``,
    an expression of constants), or ``None`` when the answer decides."""
    if isinstance(node, IfExp):
        then, orelse = constant_values(node.then), constant_values(node.orelse)
        return None if then is None or orelse is None else then + orelse
    if any(isinstance(n, Call) and n.op in READS_THE_ANSWER for n in walk(node)):
        return None
    try:
        return [constant_value(node)]
    except Exception:  # noqa: BLE001 - a constant that fails is a finding of its own
        return []
