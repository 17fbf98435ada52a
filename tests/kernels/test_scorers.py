"""What the three scorers share: a batch equals its single calls, any sequence of str is a
batch, huge answers, pickling, threads."""
from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from kernels.strategies import SETTINGS_MANY, Sub, keys_st, same, sm_groups_st, texts

# kind -> (module, class, argument strategy, single method, batch method, dtype, other methods of a text)
SCORERS = {
    "OP": ("lcs", "LcsScorer", keys_st, "best", "best_many", np.float64, ("lengths",)),
    "CS": ("jaccard", "JaccardScorer", keys_st, "best", "best_many", np.float64, ("counts",)),
    "SM": ("substring", "SubstringScanner", sm_groups_st, "count", "count_many", np.int64, ()),
}
BAD_ARGUMENTS = {"OP": [["a", 1], [None], "ab", 5], "CS": [["a", 1], [None], "ab", 5],
                 "SM": [["ab"], [["a", 1]], "ab", [None], 5]}


def _scorer(kernels, kind, arg):
    module, cls = SCORERS[kind][:2]
    return getattr(getattr(kernels, module), cls)(arg)


@pytest.mark.parametrize("kind", SCORERS)
@SETTINGS_MANY
@given(data=st.data(), strings=st.lists(texts, max_size=10))
def test_many_equals_single(kernels, kind, data, strings):
    _, _, arg_st, one, many, dtype, _ = SCORERS[kind]
    sc = _scorer(kernels, kind, data.draw(arg_st))
    got = getattr(sc, many)(strings)
    assert got.dtype == dtype and got.shape == (len(strings),)
    assert got.tolist() == [getattr(sc, one)(s) for s in strings]
    assert getattr(sc, many)(tuple(strings)).tolist() == got.tolist()


@pytest.mark.parametrize("kind", SCORERS)
def test_many_accepts_any_sequence_of_str(kernels, kind):
    keys = ["前进车道", "ab"]
    _, _, _, one, many_name, _, _ = SCORERS[kind]
    sc = _scorer(kernels, kind, [[k] for k in keys] if kind == "SM" else keys)
    many = getattr(sc, many_name)
    strings = ["ab", Sub("前进"), "xab", Sub(""), "车道前进"]
    exp = [getattr(sc, one)(str(s)) for s in strings]
    assert many(strings).tolist() == exp
    assert many(tuple(strings)).tolist() == exp
    assert many(iter(strings)).tolist() == exp
    assert many(np.array([str(s) for s in strings])).tolist() == exp
    for bad in (["ab", b"ab"], ["ab", None, "x"], "ab"):
        with pytest.raises(TypeError):
            many(bad)


def test_huge_answer(kernels):
    """A long answer against 24 keys (1,000,000 characters compiled, 20,000 in pure Python;
    no timing assertion)."""
    size = 1_000_000 if kernels.name == "cython" else 20_000
    keys = [a + b + "车道" + c for a in ("前进障碍", "前进车辆", "前进行人") for b in ("变换", "变更")
            for c in ("停止", "停车", "避让", "减速")][:24]
    assert len(keys) == 24
    s = ("前进一二车道停三障碍" * (size // 10))[:size]
    lcs = kernels.lcs.LcsScorer(keys)
    # s is periodic (period 10) and keys have 10 characters: a 200-character prefix gives the same LCS
    assert lcs.lengths(s) == [ref.lcs_length(k, s[:200]) for k in keys]
    assert lcs.best(s) == lcs.best_many([s])[0] == ref.op_best(keys, s[:200]) == 0.8
    long_keys = [k * 10 for k in keys]  # multi-word keys (100 code points)
    t = s[: size // 2] + long_keys[7] + s[size // 2:]
    assert lcs.best(t) == 1.0
    ns = ref.cs_tokens(s)  # once: the reference recounts s for every key
    exp = []
    for k in keys:
        nk = ref.cs_tokens(k)
        exp.append((sum((nk & ns).values()), sum((nk | ns).values())))
    jac = kernels.jaccard.JaccardScorer(keys)
    assert jac.counts(s) == exp
    assert jac.best(s) == max(a / b for a, b in exp)
    assert kernels.lcs.LcsScorer(long_keys[6:9] if kernels.name == "python" else long_keys).best(t) == 1.0
    groups = [[k] for k in keys] + [["~前进", "前进"], ["一二"]]
    assert kernels.substring.SubstringScanner(groups).count(t) == ref.sm_count(groups, t) == 2


@pytest.mark.parametrize("kind", SCORERS)
def test_pickle_and_repr(kernels, kind):
    sc = _scorer(kernels, kind, [["a", "!b"]] if kind == "SM" else ["ab", "c"])
    clone = pickle.loads(pickle.dumps(sc))
    assert type(clone) is type(sc) and repr(clone) == repr(sc)
    one = SCORERS[kind][3]
    assert getattr(clone, one)("ab") == getattr(sc, one)("ab")


def test_types(kernels):
    LcsScorer, JaccardScorer = kernels.lcs.LcsScorer, kernels.jaccard.JaccardScorer
    SubstringScanner = kernels.substring.SubstringScanner
    with pytest.raises(TypeError):
        LcsScorer(["a", 1])
    with pytest.raises(TypeError):
        LcsScorer(["a"]).best(b"a")
    with pytest.raises(TypeError):
        JaccardScorer(["a"]).best_many(["a", None])
    with pytest.raises(TypeError):
        SubstringScanner([["a"]]).count_many("abc")
    with pytest.raises(TypeError):
        SubstringScanner(["ab"])
    assert LcsScorer(["ab"]).best(Sub("ab")) == 1.0
    assert JaccardScorer(["ab"]).best(Sub("ab")) == 1.0
    assert SubstringScanner([["~a", "b"]]).count(Sub("ab")) == 1
    assert LcsScorer(["ab"]).best_many(np.array(["ab", "a"])).tolist() == [1.0, 0.5]


def test_threads_share_a_scorer(kernels):
    scale = 1 if kernels.name == "cython" else 10   # shorter texts in pure Python
    keys = ["前进障碍变换车道停止", "a" * (100 // scale), "xyz"]
    strings = ["前进一二车道停三障碍" * (50 // scale), "a" * (5000 // scale), "xy" * (3000 // scale)] * (20 // scale)
    lcs, jac = kernels.lcs.LcsScorer(keys), kernels.jaccard.JaccardScorer(keys)
    sub = kernels.substring.SubstringScanner([["车道"], ["~a", "aa"]])
    exp = (lcs.best_many(strings).tolist(), jac.best_many(strings).tolist(), sub.count_many(strings).tolist())
    errors = []

    def work():
        for _ in range(5):
            got = (lcs.best_many(strings).tolist(), jac.best_many(strings).tolist(), sub.count_many(strings).tolist())
            if got != exp:
                errors.append(got)
            if [lcs.best(s) for s in strings[:6]] != exp[0][:6]:
                errors.append("best")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# --- the twins raise as the compiled scorers do ---------------------------------------
@pytest.mark.parametrize("kind, bad", [(kind, bad) for kind, bads in BAD_ARGUMENTS.items() for bad in bads])
def test_twin_raises_as_compiled_on_bad_arguments(twins, kind, bad):
    cy, py = twins
    module, cls = SCORERS[kind][:2]
    same(getattr(getattr(cy, module), cls), getattr(getattr(py, module), cls), bad)


@pytest.mark.parametrize("kind", SCORERS)
@pytest.mark.parametrize("bad", [b"a", None, 1, ["a"], Sub("ab")])
def test_twin_raises_as_compiled_on_bad_texts(twins, kind, bad):
    cy, py = twins
    _, _, _, one, many, _, others = SCORERS[kind]
    for arg in ([["a"]], [["~a", "b"]], [], [["!a"]]) if kind == "SM" else (["ab"], []):
        a, b = _scorer(cy, kind, arg), _scorer(py, kind, arg)
        for method in (one, *others):
            same(getattr(a, method), getattr(b, method), bad)
        same(getattr(a, many), getattr(b, many), bad)
        same(getattr(a, many), getattr(b, many), ["a", bad])
