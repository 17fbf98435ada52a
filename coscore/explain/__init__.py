"""Why an answer got its score: every atom call made while scoring it, with the evidence
the atom found (which EM key matched, which SM options hit or were excluded/removed, the
OP key with the best LCS and its aligned characters, the CS counts).

- :mod:`coscore.explain.evidence`: the evidence, per atom (:func:`atom_evidence`) and for
  one answer (:func:`explain` gives an :class:`Explanation`; :func:`to_dict` makes it JSON);
- :mod:`coscore.explain.render`: the explanation as text (:func:`render`, :func:`summary`).

>>> text = render(explain(rule, ["开始-前进"]), color=False)      # doctest: +SKIP
"""
from __future__ import annotations

from .evidence import (
    ALIGN_CELLS,
    Call,
    ComboTrace,
    CSEvidence,
    EMEvidence,
    Evidence,
    Explanation,
    KeyScore,
    OPEvidence,
    SMEvidence,
    SMGroup,
    SMStep,
    atom_evidence,
    cs_evidence,
    em_evidence,
    explain,
    lcs_alignment,
    op_evidence,
    sm_evidence,
    to_dict,
)
from .render import SHOWN_CHARS, render, summary

__all__ = [
    "ALIGN_CELLS",
    "SHOWN_CHARS",
    "CSEvidence",
    "Call",
    "ComboTrace",
    "EMEvidence",
    "Evidence",
    "Explanation",
    "KeyScore",
    "OPEvidence",
    "SMEvidence",
    "SMGroup",
    "SMStep",
    "atom_evidence",
    "cs_evidence",
    "em_evidence",
    "explain",
    "lcs_alignment",
    "op_evidence",
    "render",
    "sm_evidence",
    "summary",
    "to_dict",
]
