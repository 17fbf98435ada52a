"""Answers likely to reach the ends of a rule's score range: the witnesses the type pass
(:func:`coscore.expr.types.check_rule`) scores to tell an ``exact`` range from bounds."""
from __future__ import annotations

from typing import Any

from .nodes import Call, Const, walk

#: The most texts :func:`witnesses` draws from, the most blanks it varies one by one, and
#: the longest text it builds.
WITNESS_TEXTS, WITNESS_BLANKS, WITNESS_LENGTH = 400, 8, 5000


def witnesses(rule: Any, blanks: int) -> list[list[str]]:
    """Answers of ``blanks`` blanks likely to reach the ends of ``rule``'s score range:
    every blank empty, ``"null"``, each EM/OP/CS key, each SM option that can count (and
    one option of every group at once), all of them joined; each text in every blank at
    once and in one blank with the others empty."""
    texts: dict[str, None] = {"": None, "null": None}
    for atom in rule.atoms.values():
        if atom.kind == "SM":
            firsts = []
            for group in atom.groups:
                options = [o for o in group if o and o[0] not in "!~"]
                texts.update(dict.fromkeys(options))
                firsts.extend(options[:1])
            texts["".join(firsts)] = None
        else:
            texts.update(dict.fromkeys(atom.keys))
    pool = list(texts)[:WITNESS_TEXTS]
    pool.append("".join(pool)[:WITNESS_LENGTH])
    out = [[t] * blanks for t in pool]
    if 1 < blanks <= WITNESS_BLANKS:
        out += [[t if i == j else "" for j in range(blanks)] for t in pool for i in range(blanks)]
    return out


def blank_count(spec: Any) -> int:
    """The most blanks any part of ``spec``'s combos reads by number (at least 1)."""
    count = 1
    for combo in spec.combos:
        for node in walk(combo.tree):
            if isinstance(node, Call) and node.op in "TLQFS" and isinstance(node.args[0], Const):
                n = node.args[0].value
                if isinstance(n, int) and not isinstance(n, bool):
                    count = max(count, n + 1 if n >= 0 else -n)
    return count
