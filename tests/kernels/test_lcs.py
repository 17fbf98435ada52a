"""OP kernel (LcsScorer): both implementations against the reference, and against each other."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import reference as ref
from kernels.strategies import SETTINGS, SETTINGS_MANY, keys_st, long_keys, same, small_alphabet, texts


def test_op_examples(kernels):
    LcsScorer = kernels.lcs.LcsScorer
    assert LcsScorer(["绕绕落落回"]).best("一二绕三四落五回") == 0.6
    assert LcsScorer([]).best("abc") == 0.0
    assert LcsScorer([""]).best("") == 0.0
    assert LcsScorer(["", "ab"]).lengths("xaxb") == [0, 2]
    assert LcsScorer(["abc"]).best("") == 0.0
    assert LcsScorer(["a\x00\ud800\U0001F600"]).best("\U0001F600\x00\ud800") == 0.5
    assert LcsScorer(["ab", "ca"]).alphabet_size == 3
    assert LcsScorer(["ab", "c"]).keys == ("ab", "c") and len(LcsScorer(["ab", "c"])) == 2
    sc = LcsScorer(["ab", "abc"])
    assert sc.best_many([]).dtype == np.float64
    assert len(sc.best_many([])) == 0


@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300])
def test_op_key_lengths(kernels, n):
    key = "".join("ab"[(i * 7 // 3) % 2] for i in range(n))
    s = ("ba" * n)[: n + 5]
    sc = kernels.lcs.LcsScorer([key, key[::-1], "x"])
    exp = [ref.lcs_length(key, s), ref.lcs_length(key[::-1], s), 0]
    assert sc.lengths(s) == exp
    assert sc.lengths(key) == [n, ref.lcs_length(key[::-1], key), 0]
    assert sc.best(s) == ref.op_best([key, key[::-1], "x"], s)


@SETTINGS
@given(keys=keys_st, s=texts)
@example(keys=["ΑΣ", "", "a" * 65], s="")
@example(keys=["a" * 129 + "b"], s="b" * 3 + "a" * 200)
def test_op_matches_reference(kernels, keys, s):
    sc = kernels.lcs.LcsScorer(keys)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in keys]
    exp = ref.op_best(keys, s)
    assert sc.best(s) == exp
    assert sc.best_many([s, "", s])[2] == exp


@SETTINGS
@given(keys=st.lists(st.text(small_alphabet, max_size=70), max_size=40), s=texts)
def test_op_many_keys(kernels, keys, s):
    """Many keys: several vectors per lane class, partial vectors moved up."""
    sc = kernels.lcs.LcsScorer(keys)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in keys]
    assert sc.best(s) == ref.op_best(keys, s)


@SETTINGS_MANY
@given(keys=st.lists(long_keys, min_size=1, max_size=4), s=texts)
def test_op_sparse_long_keys(kernels, keys, s):
    """Every long key's rows stored sparsely (per 64-code-point block)."""
    old = kernels.lcs._set_dense_limit(0)  # read when a scorer is built
    try:
        sc = kernels.lcs.LcsScorer([*keys, "ab", "x" * 40])
    finally:
        kernels.lcs._set_dense_limit(old)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in [*keys, "ab", "x" * 40]]
    assert sc.best(s) == ref.op_best([*keys, "ab", "x" * 40], s)


def test_op_big_key(kernels):
    """A 100,000-code-point key over 20,000 distinct code points (sparse blocks)."""
    rnd = random.Random(0)
    key = "".join(chr(0x4E00 + rnd.randrange(20000)) for _ in range(100_000))
    sc = kernels.lcs.LcsScorer([key, key[:10]])
    assert sc.lengths(key[:50] + "x" + key[-50:]) == [101 - 1, 10]
    assert sc.best(key[:10]) == 1.0


# --- the twin against the compiled module, call by call -------------------------------
@SETTINGS
@given(keys=keys_st, strings=st.lists(texts, max_size=6))
@example(keys=["\ud800\U0001F600", "\udfff", ""], strings=["\U0001F600\ud800\udfff", ""])
def test_twin_equals_compiled(twins, keys, strings):
    cy, py = twins
    a, b = cy.lcs.LcsScorer(keys), py.lcs.LcsScorer(keys)
    assert (a.keys, a.alphabet_size, len(a), repr(a)) == (b.keys, b.alphabet_size, len(b), repr(b))
    for s in strings:
        same(a.best, b.best, s)
        same(a.lengths, b.lengths, s)
    same(a.best_many, b.best_many, strings)

