"""The rule model: a validated rule as plain frozen dataclasses (:class:`RuleSpec`,
:class:`AtomSpec`, :class:`ComboSpec`) and the names a rule may use.

:func:`coscore.reading.read` makes a :class:`RuleSpec` from JSON; the engine plans it.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, Union

from .diagnostics import Diagnostic

if TYPE_CHECKING:
    from .results import Batch

AtomKind = Literal["EM", "SM", "OP", "CS"]
Dialect = Literal["coscore", "manual"]
RuleSource = Union[Mapping[str, Any], str, bytes, "os.PathLike[str]"]

ATOM_KINDS: tuple[str, ...] = ("EM", "SM", "OP", "CS")
COMBO_MODES: tuple[str, ...] = ("ADD", "MAX")
SCORE_MODES: tuple[str, ...] = ("logic", "value")
DIALECTS: tuple[str, ...] = ("coscore", "manual")


@dataclass(frozen=True)
class AtomSpec:
    """One atom as written: ``keys`` (EM/OP/CS), ``groups`` (SM), ``threshold`` (OP/CS)."""

    id: str
    kind: str
    desc: str
    keys: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()
    threshold: float = 0.0


@dataclass(frozen=True)
class ComboSpec:
    """One combo: its expression text and checked tree, ``score`` and ``mode``.

    ``tree`` is the language's (a :mod:`coscore.expr.nodes` node, from
    :func:`coscore.expr.parse.parse`); the model holds it without looking inside.
    """

    id: str
    text: str
    tree: Any
    score: int | float
    mode: str


@dataclass(frozen=True)
class RuleSpec:
    """A validated rule, ready to compile."""

    atoms: dict[str, AtomSpec]
    combos: tuple[ComboSpec, ...]
    combo_mode: str
    dialect: str
    warnings: tuple[Diagnostic, ...]
    source: dict


class AtomText(Protocol):
    """What :class:`CompiledRule` tells of one atom: its kind and the texts it looks for."""

    @property
    def kind(self) -> str: ...
    @property
    def keys(self) -> Sequence[str]: ...
    @property
    def groups(self) -> Sequence[Sequence[str]]: ...


class CompiledRule(Protocol):
    """A compiled rule as the layers below :class:`coscore.Rule` see it (the language's
    checks take one): :class:`coscore.Rule` is the one there is. A protocol, so that these
    layers name the type without importing the rule, which is built on them."""

    @property
    def spec(self) -> RuleSpec: ...
    @property
    def atoms(self) -> Mapping[str, AtomText]: ...
    def score_many(self, answers: Iterable[Sequence[str]], jobs: int = 1, chunk_size: int | None = None) -> Batch: ...
