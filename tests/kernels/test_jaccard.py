"""CS kernel (JaccardScorer, tokens): both implementations against the reference, and
against each other."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import reference as ref
from kernels.strategies import SETTINGS, Sub, any_char, keys_st, same, texts


def test_cs_examples(kernels):
    JaccardScorer = kernels.jaccard.JaccardScorer
    assert JaccardScorer(["ΑΣ"]).best("ας") == 1 / 3
    assert JaccardScorer(["ΑΣ"]).best("ασ") == 1.0
    assert JaccardScorer(["İ"]).best("i") == 0.0
    assert JaccardScorer(["İ"]).best("İ") == 1.0
    assert JaccardScorer(["İ"]).best("i\u0307") == 0.0
    assert JaccardScorer(["ab"]).best("a b\u3000") == 1.0
    assert JaccardScorer(["k"]).best("\u212a") == 1.0  # Kelvin sign lowercases to k
    assert JaccardScorer([]).best("abc") == 0.0
    assert JaccardScorer([""]).best("") == 0.0
    assert JaccardScorer([" "]).best("\t") == 0.0
    assert JaccardScorer(["", "ab"]).counts("abc") == [(0, 3), (2, 3)]
    assert JaccardScorer(["aab"]).counts("abbc") == [(2, 5)]
    assert JaccardScorer(["ab", "c"]).keys == ("ab", "c") and len(JaccardScorer(["ab", "c"])) == 2
    assert JaccardScorer(["ab"]).best_many([]).dtype == np.float64


def test_cs_token_table_is_pythons(kernels):
    """Every code point's token equals chr(c).lower() on its own / isspace()."""
    lower, spaces, inverse = kernels.jaccard.token_tables()
    assert spaces == frozenset(c for c in range(0x110000) if chr(c).isspace())
    multi = {}
    for c in range(0x110000):
        lo = chr(c).lower()
        if len(lo) == 1:
            assert lower.get(c, c) == ord(lo), hex(c)
        else:
            tok = lower[c]
            assert tok >= 0x110000
            assert multi.setdefault(tok, lo) == lo
    assert [hex(c) for c in range(0x110000) if len(chr(c).lower()) != 1] == ["0x130"]
    for tok, cps in inverse.items():
        assert all(lower[c] == tok for c in cps)
    assert kernels.jaccard.token(" ") is None and kernels.jaccard.token("Σ") == ord("σ")
    assert kernels.jaccard.token("İ") == lower[0x130]


@SETTINGS
@given(keys=keys_st, s=texts)
@example(keys=["ΑΣ", "ΣΑΣ", "İı"], s="ας ΑΣ σς İIi")
def test_cs_matches_reference(kernels, keys, s):
    sc = kernels.jaccard.JaccardScorer(keys)
    assert sc.counts(s) == [ref.cs_counts(k, s) for k in keys]
    exp = ref.cs_best(keys, s)
    assert sc.best(s) == exp
    assert sc.best_many(["", s])[1] == exp


def test_cs_huge_key(kernels):
    """A key of more than 32767 tokens: the sparse path instead of the 16-bit lanes."""
    keys = ["ab" * 20000 + "c", "abc"]
    for s in ("abc", "a" * 30000 + "b" * 50000, ""):
        sc = kernels.jaccard.JaccardScorer(keys)
        assert sc.best(s) == ref.cs_best(keys, s)
        assert sc.counts(s) == [ref.cs_counts(k, s) for k in keys]


def test_cs_large_alphabet(kernels):
    """More ids than the stack count buffer holds."""
    keys = ["".join(chr(0x4E00 + i * 7 + j) for j in range(5)) for i in range(300)]
    s = "".join(keys[::3]) + "x y"
    sc = kernels.jaccard.JaccardScorer(keys)
    assert sc.best(s) == ref.cs_best(keys, s)
    assert sc.best_many([s, "", keys[5]]).tolist() == [ref.cs_best(keys, t) for t in (s, "", keys[5])]


# --- the twin against the compiled module, call by call -------------------------------
@SETTINGS
@given(keys=keys_st, strings=st.lists(texts, max_size=6))
@example(keys=["\ud800Σ\U00010400", "İ i", ""], strings=["\U00010428σς\ud800", "i\u0307İ", "   "])
def test_twin_equals_compiled(twins, keys, strings):
    cy, py = twins
    a, b = cy.jaccard.JaccardScorer(keys), py.jaccard.JaccardScorer(keys)
    assert (a.keys, len(a), repr(a)) == (b.keys, len(b), repr(b))
    for s in strings:
        same(a.best, b.best, s)
        same(a.counts, b.counts, s)
    same(a.best_many, b.best_many, strings)


@SETTINGS
@given(ch=st.one_of(any_char, st.sampled_from(["İ", "\u212a", " ", "\u3000", "\ud800", "\U00010400"])))
def test_twin_tokens_equal_compiled(twins, ch):
    cy, py = twins
    same(cy.jaccard.token, py.jaccard.token, ch)



@pytest.mark.parametrize("bad", [b"a", b"\x85", None, 1, ["a"], Sub("ab"), "", "ab"])
def test_twin_token_raises_as_compiled(twins, bad):
    cy, py = twins
    same(cy.jaccard.token, py.jaccard.token, bad)
