"""The Cython kernels in coscore._fast against the plain-Python reference."""
from __future__ import annotations

import pickle
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import reference as ref  # noqa: E402

from coscore._fast import jaccard as jaccard_mod  # noqa: E402
from coscore._fast import lcs as lcs_mod  # noqa: E402
from coscore._fast import substring as substring_mod  # noqa: E402
from coscore._fast.jaccard import JaccardScorer  # noqa: E402
from coscore._fast.lcs import LcsScorer  # noqa: E402
from coscore._fast.substring import SubstringScanner  # noqa: E402

# --- strategies ---------------------------------------------------------------
SPECIAL = (
    "\x00\ud800\udbff\udc00\udfff\U0001F600\U00010400\U00010428\U0010FFFF"  # NUL, lone surrogates, astral
    " \t\n\x1c\x1f\x85\xa0\u2006\u3000"                                    # whitespace
    "İiIı\u0307Σσς"                                                        # İ, dotless i, sigma
    "KkK\u212a"                                                            # Kelvin sign
    "绕落回一二前进车道停止变换"                                            # CJK
    "!~|,"                                                                 # SM syntax characters
)
small_alphabet = st.sampled_from("abcAB" + SPECIAL)
any_char = st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)
chars = st.one_of(small_alphabet, small_alphabet, small_alphabet, any_char)

texts = st.text(chars, max_size=60)
long_keys = st.text(small_alphabet, min_size=60, max_size=200)  # multi-word keys
keys_st = st.lists(st.one_of(texts, st.text(small_alphabet, max_size=20), long_keys), max_size=8)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SETTINGS_MANY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- OP -------------------------------------------------------------------------
def test_op_examples():
    assert LcsScorer(["绕绕落落回"]).best("一二绕三四落五回") == 0.6
    assert LcsScorer([]).best("abc") == 0.0
    assert LcsScorer([""]).best("") == 0.0
    assert LcsScorer(["", "ab"]).lengths("xaxb") == [0, 2]
    assert LcsScorer(["abc"]).best("") == 0.0
    assert LcsScorer(["a\x00\ud800\U0001F600"]).best("\U0001F600\x00\ud800") == 0.5
    sc = LcsScorer(["ab", "abc"])
    assert sc.best_many([]).dtype == np.float64
    assert len(sc.best_many([])) == 0


@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300])
def test_op_key_lengths(n):
    key = "".join("ab"[(i * 7 // 3) % 2] for i in range(n))
    s = ("ba" * n)[: n + 5]
    sc = LcsScorer([key, key[::-1], "x"])
    exp = [ref.lcs_length(key, s), ref.lcs_length(key[::-1], s), 0]
    assert sc.lengths(s) == exp
    assert sc.lengths(key) == [n, ref.lcs_length(key[::-1], key), 0]
    assert sc.best(s) == ref.op_best([key, key[::-1], "x"], s)


@SETTINGS
@given(keys=keys_st, s=texts)
@example(keys=["ΑΣ", "", "a" * 65], s="")
@example(keys=["a" * 129 + "b"], s="b" * 3 + "a" * 200)
def test_op_matches_reference(keys, s):
    sc = LcsScorer(keys)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in keys]
    exp = ref.op_best(keys, s)
    assert sc.best(s) == exp
    assert sc.best_many([s, "", s])[2] == exp


@SETTINGS
@given(keys=st.lists(st.text(small_alphabet, max_size=70), max_size=40), s=texts)
def test_op_many_keys(keys, s):
    """Many keys: several vectors per lane class, partial vectors moved up."""
    sc = LcsScorer(keys)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in keys]
    assert sc.best(s) == ref.op_best(keys, s)


@SETTINGS_MANY
@given(keys=keys_st, strings=st.lists(texts, max_size=10))
def test_op_many_equals_single(keys, strings):
    sc = LcsScorer(keys)
    got = sc.best_many(strings)
    assert got.dtype == np.float64 and got.shape == (len(strings),)
    assert got.tolist() == [sc.best(s) for s in strings]
    assert sc.best_many(tuple(strings)).tolist() == got.tolist()


@SETTINGS_MANY
@given(keys=st.lists(long_keys, min_size=1, max_size=4), s=texts)
def test_op_sparse_long_keys(keys, s):
    """Every long key's rows stored sparsely (per 64-code-point block)."""
    old = lcs_mod._set_dense_limit(0)  # read when a scorer is built
    try:
        sc = LcsScorer(keys + ["ab", "x" * 40])
    finally:
        lcs_mod._set_dense_limit(old)
    assert sc.lengths(s) == [ref.lcs_length(k, s) for k in keys + ["ab", "x" * 40]]
    assert sc.best(s) == ref.op_best(keys + ["ab", "x" * 40], s)


def test_op_big_key():
    """A 100,000-code-point key over 20,000 distinct code points (sparse blocks)."""
    import random

    rnd = random.Random(0)
    key = "".join(chr(0x4E00 + rnd.randrange(20000)) for _ in range(100_000))
    sc = LcsScorer([key, key[:10]])
    assert sc.lengths(key[:50] + "x" + key[-50:]) == [101 - 1, 10]
    assert sc.best(key[:10]) == 1.0


# --- CS -------------------------------------------------------------------------
def test_cs_examples():
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


def test_cs_token_table_is_pythons():
    """Every code point's token equals chr(c).lower() on its own / isspace()."""
    lower, spaces, inverse = jaccard_mod.token_tables()
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


@SETTINGS
@given(keys=keys_st, s=texts)
@example(keys=["ΑΣ", "ΣΑΣ", "İı"], s="ας ΑΣ σς İIi")
def test_cs_matches_reference(keys, s):
    sc = JaccardScorer(keys)
    assert sc.counts(s) == [ref.cs_counts(k, s) for k in keys]
    exp = ref.cs_best(keys, s)
    assert sc.best(s) == exp
    assert sc.best_many(["", s])[1] == exp


@SETTINGS_MANY
@given(keys=keys_st, strings=st.lists(texts, max_size=10))
def test_cs_many_equals_single(keys, strings):
    sc = JaccardScorer(keys)
    got = sc.best_many(strings)
    assert got.dtype == np.float64 and got.shape == (len(strings),)
    assert got.tolist() == [sc.best(s) for s in strings]


def test_cs_huge_key():
    """A key of more than 32767 tokens: the sparse path instead of the 16-bit lanes."""
    keys = ["ab" * 20000 + "c", "abc"]
    for s in ("abc", "a" * 30000 + "b" * 50000, ""):
        sc = JaccardScorer(keys)
        assert sc.best(s) == ref.cs_best(keys, s)
        assert sc.counts(s) == [ref.cs_counts(k, s) for k in keys]


def test_cs_large_alphabet():
    """More ids than the stack count buffer holds."""
    keys = ["".join(chr(0x4E00 + i * 7 + j) for j in range(5)) for i in range(300)]
    s = "".join(keys[::3]) + "x y"
    sc = JaccardScorer(keys)
    assert sc.best(s) == ref.cs_best(keys, s)
    assert sc.best_many([s, "", keys[5]]).tolist() == [ref.cs_best(keys, t) for t in (s, "", keys[5])]


# --- SM -------------------------------------------------------------------------
def test_sm_examples():
    def count(desc, s):
        got = SubstringScanner(ref.sm_groups(desc)).count(s)
        assert got == ref.sm_count(ref.sm_groups(desc), s)
        return got

    assert count("爱,祖国|国家", "我爱我的国家") == 2
    assert count("国家|!不爱国家", "不爱国家") == 1
    assert count("!不爱国家|国家", "不爱国家") == 0
    assert count("!", "abc") == 0
    assert count("!|a", "abc") == 0
    assert count("~", "a~b") == 1
    assert count("~", "ab") == 0
    assert count("~ab|~ab", "~aabb") == 1          # the cut creates a new '~ab'
    assert count("~b|ac", "abc") == 1
    assert count("a,,b|", "ab") == 2
    assert count("", "") == 0
    assert SubstringScanner([]).count("abc") == 0
    assert SubstringScanner([[]]).count("abc") == 0


sm_option = st.one_of(
    st.text(small_alphabet, max_size=3),
    st.builds(lambda p, t: p + t, st.sampled_from(["!", "~"]), st.text(small_alphabet, max_size=3)),
)
sm_groups_st = st.lists(st.lists(sm_option, max_size=5), max_size=6)


@SETTINGS
@given(groups=sm_groups_st, s=texts)
@example(groups=[["~ab", "~ab"], ["a", "!b"], ["!"], ["~"]], s="~aabb~")
def test_sm_matches_reference(groups, s):
    sc = SubstringScanner(groups)
    exp = ref.sm_count(groups, s)
    assert sc.count(s) == exp
    assert sc.count_many([s, s]).tolist() == [exp, exp]


@SETTINGS
@given(desc=st.text(st.sampled_from("ab,|!~"), max_size=20), s=st.text(st.sampled_from("ab!~|,"), max_size=20))
def test_sm_desc_syntax(desc, s):
    groups = ref.sm_groups(desc)
    assert SubstringScanner(groups).count(s) == ref.sm_count(groups, s)


@SETTINGS_MANY
@given(groups=sm_groups_st, strings=st.lists(texts, max_size=10))
def test_sm_many_equals_single(groups, strings):
    sc = SubstringScanner(groups)
    got = sc.count_many(strings)
    assert got.dtype == np.int64 and got.shape == (len(strings),)
    assert got.tolist() == [sc.count(s) for s in strings]


def test_sm_without_automaton():
    """So many distinct characters that the dense automaton is not built."""
    cjk = [chr(0x4E00 + i) for i in range(2500)]
    groups = [[cjk[i] + cjk[-i - 1], cjk[i + 1] + "x"] for i in range(1200)] + [["~" + cjk[5], "ab"]]
    sc = SubstringScanner(groups)
    assert not sc.use_ac
    for s in ("", cjk[3] + cjk[-4], cjk[7] + "x" + cjk[5] + "ab", "a" + cjk[5] + "b"):
        assert sc.count(s) == ref.sm_count(groups, s)
        assert sc.count_many([s]).tolist() == [ref.sm_count(groups, s)]
    assert SubstringScanner([["ab", "c"]]).use_ac


def test_sm_many_batches():
    groups = ref.sm_groups("a|~b,!c|d,e")
    strings = ["abcde"[i % 5 :] + "bd"[i % 2] for i in range(2500)]
    assert SubstringScanner(groups).count_many(strings).tolist() == [ref.sm_count(groups, s) for s in strings]


# Shift-And (options totalling <= 128 code points, with an SSE2 prefilter for small
# alphabets) and Aho-Corasick (forced with _set_shift_and_bits(0)) against the reference.
sm_text_chars = st.one_of(st.sampled_from("abcxyz前进车道停止!~" + "\ud800\U0001F600\xe9\u0100"), any_char)
sm_long_option = st.text(st.sampled_from("abcé前进车道\U0001F600\ud800"), min_size=1, max_size=24)
sm_wide_groups = st.lists(
    st.lists(st.one_of(sm_long_option, sm_option, st.builds(lambda t: "~" + t, sm_long_option)), min_size=1, max_size=5),
    max_size=8,
)


def _scanners(groups):
    sa = SubstringScanner(groups)
    old = substring_mod._set_shift_and_bits(0)
    try:
        ac = SubstringScanner(groups)
    finally:
        substring_mod._set_shift_and_bits(old)
    return sa, ac


@SETTINGS
@given(groups=sm_wide_groups, s=st.text(sm_text_chars, max_size=80), reps=st.sampled_from([1, 1, 7, 40]))
@example(groups=[["a" * 64], ["b" * 64]], s="a" * 64 + "b" * 63, reps=1)
@example(groups=[["x" * 63 + "y"], ["x" * 65]], s="x" * 70 + "y", reps=1)
@example(groups=[["前进" * 20 + "a"], ["车"]], s="前进" * 20 + "a", reps=1)
@example(groups=[["ab"], ["c"]], s="b" * 2047 + "ab", reps=1)
def test_sm_shift_and_and_automaton(groups, s, reps):
    s = s * reps
    sa, ac = _scanners(groups)
    exp = ref.sm_count(groups, s)
    assert ac.kernel in (0, 1)
    assert sa.count(s) == ac.count(s) == exp
    assert sa.count_many([s, "", s]).tolist() == ac.count_many([s, "", s]).tolist() == [exp, ref.sm_count(groups, ""), exp]


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4100])
@pytest.mark.parametrize("kind", ["latin", "bmp", "astral"])
def test_sm_prefilter_block_edges(n, kind):
    """Options at every position of texts around the prefilter's block sizes."""
    import random

    rnd = random.Random(n)
    filler = {"latin": "xyzé", "bmp": "xyz一二三", "astral": "xy一\U0001F600"}[kind]
    groups = [["ab"], ["é二"], ["a"], ["\U0001F600b"], ["zz", "一a"]]
    many = [["ab", "q" + chr(0x4E00 + i)] for i in range(14)]   # alphabet > 12: scalar scan
    for opts in (groups, many):
        sc = SubstringScanner(opts)
        assert sc.kernel == 2
        texts = []
        for _ in range(6):
            t = [rnd.choice(filler) for _ in range(n)]
            if n:
                for option in ("ab", "é二", "\U0001F600b", "一a"):
                    at = rnd.randrange(n)
                    t[at:at + len(option)] = option
            texts.append("".join(t)[: max(n, 0) + 3])
        texts += ["ab" + filler[0] * n, filler[0] * n + "ab", filler[0] * n + "a"]
        got = sc.count_many(texts).tolist()
        assert got == [ref.sm_count(opts, t) for t in texts]
        assert got == [sc.count(t) for t in texts]


def test_sm_kernels_chosen():
    assert SubstringScanner([["开始"], ["结束"]]).kernel == 2
    assert SubstringScanner([["a" * 64, "b" * 64]]).kernel == 2      # 128 bits: two words
    assert SubstringScanner([["a" * 64, "b" * 65]]).kernel == 1      # 129: the automaton
    assert SubstringScanner([["a" * 100, "a" * 100]]).kernel == 2    # distinct texts count once
    assert SubstringScanner([["!a", "~b"]]).kernel == 0                # no leading plain option
    assert SubstringScanner([["a" * 64, "b" * 65]]).use_ac


def test_many_accepts_any_sequence_of_str():
    class S(str):
        pass

    keys = ["前进车道", "ab"]
    strings = ["ab", S("前进"), "xab", S(""), "车道前进"]
    for sc, one in ((LcsScorer(keys), "best"), (JaccardScorer(keys), "best"), (SubstringScanner([[k] for k in keys]), "count")):
        many = sc.best_many if one == "best" else sc.count_many
        exp = [getattr(sc, one)(str(s)) for s in strings]
        assert many(strings).tolist() == exp
        assert many(tuple(strings)).tolist() == exp
        assert many(iter(strings)).tolist() == exp
        assert many(np.array([str(s) for s in strings])).tolist() == exp
        with pytest.raises(TypeError):
            many(["ab", b"ab"])
        with pytest.raises(TypeError):
            many(["ab", None, "x"])
        with pytest.raises(TypeError):
            many("ab")


# --- common -----------------------------------------------------------------------
def test_huge_answer():
    """A 1,000,000-character answer against 24 keys (no timing assertion)."""
    keys = [a + b + "车道" + c for a in ("前进障碍", "前进车辆", "前进行人") for b in ("变换", "变更") for c in ("停止", "停车", "避让", "减速")][:24]
    assert len(keys) == 24
    s = ("前进一二车道停三障碍" * 100_000)[:1_000_000]
    lcs = LcsScorer(keys)
    # s is periodic (period 10) and keys have 10 characters: a 200-character prefix gives the same LCS
    assert lcs.lengths(s) == [ref.lcs_length(k, s[:200]) for k in keys]
    assert lcs.best(s) == lcs.best_many([s])[0] == ref.op_best(keys, s[:200]) == 0.8
    long_keys = [k * 10 for k in keys]  # multi-word keys (100 code points)
    t = s[:500_000] + long_keys[7] + s[500_000:]
    assert lcs.best(t) == 1.0
    ns = ref.cs_tokens(s)  # once: the reference recounts s for every key
    exp = []
    for k in keys:
        nk = ref.cs_tokens(k)
        exp.append((sum((nk & ns).values()), sum((nk | ns).values())))
    jac = JaccardScorer(keys)
    assert jac.counts(s) == exp
    assert jac.best(s) == max(a / b for a, b in exp)
    assert LcsScorer(long_keys).best(t) == 1.0
    groups = [[k] for k in keys] + [["~前进", "前进"], ["一二"]]
    assert SubstringScanner(groups).count(t) == ref.sm_count(groups, t) == 2


def test_types_and_pickle():
    for cls, arg in ((LcsScorer, ["ab", "c"]), (JaccardScorer, ["ab", "c"]), (SubstringScanner, [["a", "!b"]])):
        sc = cls(arg)
        clone = pickle.loads(pickle.dumps(sc))
        assert repr(clone) == repr(sc)
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

    class S(str):
        pass

    assert LcsScorer(["ab"]).best(S("ab")) == 1.0
    assert JaccardScorer(["ab"]).best(S("ab")) == 1.0
    assert SubstringScanner([["~a", "b"]]).count(S("ab")) == 1
    assert LcsScorer(["ab"]).best_many(np.array(["ab", "a"])).tolist() == [1.0, 0.5]


def test_threads_share_a_scorer():
    keys = ["前进障碍变换车道停止", "a" * 100, "xyz"]
    strings = ["前进一二车道停三障碍" * 50, "a" * 5000, "xy" * 3000] * 20
    lcs, jac, sub = LcsScorer(keys), JaccardScorer(keys), SubstringScanner([["车道"], ["~a", "aa"]])
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


# --- batch plumbing (coscore._fast.batch: checked and deduplicated without the GIL) -----
from coscore._fast import batch as batch_mod  # noqa: E402

any_text = st.text(st.one_of(small_alphabet, any_char), max_size=6)


class _Sub(str):
    pass


def _as_key(answer):
    return (answer,) if isinstance(answer, str) else tuple(answer)


@SETTINGS
@given(st.lists(any_text, max_size=50))
@example(["", "\ud800", "\ud800", "\U0001F600", "a", "a", "\x00"])
def test_dedup_strings_caches_pythons_own_hash(strings):
    strings = [(s + "!")[:-1] for s in strings + strings[::3]]   # fresh objects, hashes not cached
    distinct, index = batch_mod.dedup_strings(strings)
    assert distinct == list(dict.fromkeys(strings))
    assert [distinct[i] for i in index] == strings
    for s in strings:   # the hash stored in each str is Python's own
        assert hash(s) == hash((s + "!")[:-1]) == hash(str(s))
    assert {s: 1 for s in strings} == dict.fromkeys(strings, 1)


def test_dedup_strings_rejects_non_str():
    with pytest.raises(TypeError):
        batch_mod.dedup_strings(["a", _Sub("a")])
    with pytest.raises(TypeError):
        batch_mod.dedup_strings(["a", None])
    assert batch_mod.dedup_strings([])[0] == []
    strings = ["a", "b"]
    assert batch_mod.dedup_strings(strings)[0] is strings   # all distinct: the list itself


answer_st = st.one_of(
    any_text,
    st.lists(st.sampled_from(["", "a", "b", "ab", "\ud800", "爱", "\U0001f600"]), max_size=3),
    st.lists(any_text, max_size=3).map(tuple),
)


@SETTINGS
@given(st.lists(answer_st, max_size=40), st.booleans())
def test_dedup_answers_any_container(answers, subclass):
    answers = answers + answers[::2]
    if subclass and answers and not isinstance(answers[0], str) and answers[0]:
        answers[0] = [_Sub(answers[0][0])] + list(answers[0][1:])   # the slow path, same result
    distinct, inverse = batch_mod.dedup_answers(answers)
    assert [_as_key(d) for d in distinct] == list(dict.fromkeys(_as_key(a) for a in answers))
    assert [_as_key(distinct[j]) for j in inverse] == [_as_key(a) for a in answers]
    with pytest.raises(TypeError):
        batch_mod.dedup_answers(answers + [None])


@SETTINGS
@given(st.lists(st.one_of(answer_st, st.sampled_from([None, 1, b"x", ["a", 1], ("a", None), [_Sub("a")], _Sub("b")])), max_size=30))
def test_check_and_columns_match_python(answers):
    def ok(a):
        return type(a) is str or (type(a) in (list, tuple) and all(type(b) is str for b in a))

    sizes = [1 if type(a) is str else len(a) for a in answers if ok(a)]
    assert batch_mod.check_answers(answers) == ([i for i, a in enumerate(answers) if not ok(a)], max(sizes, default=0), min(sizes, default=0))
    good = [a for a in answers if ok(a)]
    assert batch_mod.joined_column(good) == ["".join(_as_key(a)) for a in good]
    for n in (0, 1, -1, -2):
        values, missing = batch_mod.blank_column(good, n)
        exp = [_as_key(a)[n] if -len(_as_key(a)) <= n < len(_as_key(a)) else "" for a in good]
        lacks = [not (-len(_as_key(a)) <= n < len(_as_key(a))) for a in good]
        assert values == exp
        assert (missing.tolist() if missing is not None else [False] * len(good)) == lacks
        assert missing is None or any(lacks)


def _texts_model(answers, key):
    """distinct_texts() in plain Python: (texts, missing, odd) before deduplication."""
    texts, missing, odd = [], [], []
    for i, a in enumerate(answers):
        blanks = [a] if type(a) is str else a
        if type(a) not in (str, list, tuple) or any(type(b) is not str for b in blanks):
            texts.append("")
            missing.append(False)
            odd.append(i)
        elif key == "*":
            texts.append("".join(blanks))
            missing.append(False)
        else:
            ok = -len(blanks) <= key < len(blanks)
            texts.append(blanks[key] if ok else "")
            missing.append(not ok)
    return texts, missing, odd


answer_st = st.one_of(
    any_text,
    st.lists(any_text, max_size=3),
    st.lists(any_text, max_size=3).map(tuple),
    st.sampled_from([None, 7, ["a", None], (_Sub("a"),), _Sub("b")]),
)


@SETTINGS
@given(st.lists(answer_st, max_size=40), st.sampled_from([0, 1, -1, 2, "*"]))
@example([["a", "b"], "ab", ["ab"], ("a", "b"), [], None], "*")
def test_distinct_texts_matches_model(answers, key):
    answers = answers + answers[::2]
    texts, missing, odd = _texts_model(answers, key)
    distinct, inverse, got_missing, got_odd = batch_mod.distinct_texts(answers, key)
    assert distinct == list(dict.fromkeys(texts))
    assert [distinct[i] for i in inverse] == texts
    assert got_odd == odd
    if any(missing):
        assert got_missing.tolist() == missing
    else:
        assert got_missing is None
    plain = ["x", "y"]
    assert batch_mod.distinct_texts(plain, 0)[0] is plain   # distinct str answers: the list itself
    start, stop = len(answers) // 3, len(answers) - len(answers) // 4   # a window: as if sliced
    window = batch_mod.distinct_texts(answers, key, start, stop)
    sliced = batch_mod.distinct_texts(answers[start:stop], key)
    assert window[0] == sliced[0] and window[1].tolist() == sliced[1].tolist() and window[3] == sliced[3]
    assert (window[2] is None) == (sliced[2] is None)


def test_distinct_texts_window_bounds():
    answers = ["a", ["b"], "a"]
    assert batch_mod.distinct_texts(answers, 0, 1, 3)[0] == ["b", "a"]
    assert batch_mod.distinct_texts(answers, 0, 1, 1)[0] == []
    assert batch_mod.distinct_texts(answers, 0, 2)[0] == ["a"]
    for start, stop in ((-1, 2), (2, 1), (0, 4)):
        with pytest.raises(IndexError):
            batch_mod.distinct_texts(answers, 0, start, stop)


@SETTINGS
@given(atoms=st.lists(sm_wide_groups, min_size=1, max_size=3), strings=st.lists(st.text(sm_text_chars, max_size=40), max_size=12),
       shift_and=st.booleans())
@example(atoms=[[["ab"], ["!a", "b"]], [], [["~a", "b"], [""]]], strings=["ab", "b", "", "aab"], shift_and=True)
def test_sm_count_many_parts_splits_count_many(atoms, strings, shift_and):
    groups = [g for a in atoms for g in a]
    sa, ac = _scanners(groups)
    scanner = sa if shift_and else ac
    got = scanner.count_many_parts(strings, [len(a) for a in atoms])
    assert got.shape == (len(atoms), len(strings))
    assert got.tolist() == [[ref.sm_count(a, s) for s in strings] for a in atoms]
    assert got.sum(axis=0).tolist() == scanner.count_many(strings).tolist()


def test_sm_count_many_parts_checks_parts():
    scanner = SubstringScanner([["a"], ["b"], ["c"]])
    with pytest.raises(ValueError):
        scanner.count_many_parts(["abc"], [1, 1])
    with pytest.raises(ValueError):
        scanner.count_many_parts(["abc"], [4, -1])
    assert scanner.count_many_parts(["abc", "b"], [2, 0, 1]).tolist() == [[2, 1], [0, 0], [1, 0]]


def _scanner_without_nibbles(groups):
    old = substring_mod._set_nibbles(False)
    try:
        return SubstringScanner(groups)
    finally:
        substring_mod._set_nibbles(old)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 31, 32, 33, 100, 1023, 1024, 1025, 2047, 2048, 2049, 3000])
@pytest.mark.parametrize("size", [1, 5, 9, 20, 40])
def test_sm_nibble_prefilter_equals_other_scans(n, size):
    """The AVX2 nibble-class prefilter (UCS-2 text, alphabets of more than 4 characters)
    against the scan without it and the reference: look-alike characters (same bytes in
    other places, same nibbles) must not count, options must count at every offset."""
    import random

    rnd = random.Random(n * 100 + size)
    alphabet = [chr(0x4E00 + 37 * i) for i in range(size)] + ["a", "\u0161"]
    lookalikes = [chr(ord(c) ^ 0x0101) for c in alphabet] + [chr(((ord(c) & 0xFF) << 8) | (ord(c) >> 8)) for c in alphabet]
    filler = lookalikes + ["x", "一", "\u00e9"]
    long_option = "".join(rnd.choice(alphabet) for _ in range(70))   # two state words
    for options in ([[c] for c in alphabet], [["".join(rnd.sample(alphabet, min(3, size)))] for _ in range(6)], [[long_option], alphabet[:2]]):
        texts = []
        for _ in range(8):
            t = [rnd.choice(filler) for _ in range(n)]
            for option in rnd.sample([o for g in options for o in g], min(2, len(options))):
                if n >= len(option):
                    at = rnd.randrange(n - len(option) + 1)
                    t[at:at + len(option)] = option
            texts.append("".join(t))
        with_nibbles, without = SubstringScanner(options), _scanner_without_nibbles(options)
        expected = [ref.sm_count(options, t) for t in texts]
        assert with_nibbles.count_many(texts).tolist() == expected
        assert without.count_many(texts).tolist() == expected
        assert [with_nibbles.count(t) for t in texts] == expected
