"""What scoring gives back: :class:`Outcome` (one answer), :class:`Batch` (many),
:class:`AtomCall` (one step of a trace), and :func:`failure_message`."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Outcome:
    """The result of scoring one answer.

    ``score`` is the clamped total (``None`` when the answer failed), ``combos`` each
    combo's contribution in rule order (the combos that completed, when it failed),
    ``error`` a one-line message such as ``"combos.B: division by zero"``, else ``None``.
    """

    score: float | None
    combos: dict[str, float]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Batch:
    """The results of scoring many answers, aligned with the input order.

    ``scores`` is a float64 array (NaN where the answer failed), ``errors`` a list of
    messages (``None`` where it did not), ``combos`` maps each combo id to a float64
    array of its contributions (NaN from the failing combo on).
    """

    scores: np.ndarray
    errors: list[str | None]
    combos: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scores)

    def __getitem__(self, index: int) -> Outcome:
        error = self.errors[index]
        combos = {
            cid: float(values[index])
            for cid, values in self.combos.items()
            if error is None or not math.isnan(values[index])
        }
        return Outcome(None if error is not None else float(self.scores[index]), combos, error)

    @property
    def failed(self) -> np.ndarray:
        """A boolean mask of the answers that failed."""
        return np.fromiter((e is not None for e in self.errors), dtype=bool, count=len(self.errors))


@dataclass(frozen=True)
class AtomCall:
    """One ``G``/``M`` call made while scoring an answer (see :meth:`coscore.Rule.trace`)."""

    combo: str
    op: str
    atom: str
    text: Any
    hit: bool
    value: int | float


def failure_message(combo_ids: list[str], results: list, exc: Exception) -> str:
    """Where and why an answer failed, on one line: ``"combos.B: division by zero"``.

    ``combo_ids`` are the rule's combos in order, ``results`` the raw results of the
    combos that completed before ``exc`` was raised (as :meth:`coscore.Rule.evaluate`
    leaves them), so ``len(results)`` is the index of the failing combo.
    """
    if isinstance(exc, ZeroDivisionError):
        why = "division by zero"
    elif isinstance(exc, KeyError) and exc.args:
        why = str(exc.args[0])
    else:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    index = len(results)
    if index < len(combo_ids):
        return f"combos.{combo_ids[index]}: {why}"
    return f"score: {why}" if results or not combo_ids else why
