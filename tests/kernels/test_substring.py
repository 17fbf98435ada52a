"""SM kernel (SubstringScanner): both implementations against the reference, and against
each other."""
from __future__ import annotations

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import reference as ref
from kernels.strategies import (
    SETTINGS,
    Sub,
    same,
    sm_groups_st,
    sm_option,
    sm_text_chars,
    sm_wide_groups,
    small_alphabet,
    texts,
)


def test_sm_examples(kernels):
    def count(desc, s):
        got = kernels.substring.SubstringScanner(ref.sm_groups(desc)).count(s)
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
    assert kernels.substring.SubstringScanner([]).count("abc") == 0
    assert kernels.substring.SubstringScanner([[]]).count("abc") == 0
    assert kernels.substring.SubstringScanner([["a", "!b"], ("c",)]).groups == (("a", "!b"), ("c",))


@SETTINGS
@given(groups=sm_groups_st, s=texts)
@example(groups=[["~ab", "~ab"], ["a", "!b"], ["!"], ["~"]], s="~aabb~")
def test_sm_matches_reference(kernels, groups, s):
    sc = kernels.substring.SubstringScanner(groups)
    exp = ref.sm_count(groups, s)
    assert sc.count(s) == exp
    assert sc.count_many([s, s]).tolist() == [exp, exp]


@SETTINGS
@given(desc=st.text(st.sampled_from("ab,|!~"), max_size=20), s=st.text(st.sampled_from("ab!~|,"), max_size=20))
def test_sm_desc_syntax(kernels, desc, s):
    groups = ref.sm_groups(desc)
    assert kernels.substring.SubstringScanner(groups).count(s) == ref.sm_count(groups, s)


def test_sm_without_automaton(kernels):
    """So many distinct characters that the dense automaton is not built."""
    SubstringScanner = kernels.substring.SubstringScanner
    cjk = [chr(0x4E00 + i) for i in range(2500)]
    groups = [[cjk[i] + cjk[-i - 1], cjk[i + 1] + "x"] for i in range(1200)] + [["~" + cjk[5], "ab"]]
    sc = SubstringScanner(groups)
    assert not sc.use_ac
    for s in ("", cjk[3] + cjk[-4], cjk[7] + "x" + cjk[5] + "ab", "a" + cjk[5] + "b"):
        assert sc.count(s) == ref.sm_count(groups, s)
        assert sc.count_many([s]).tolist() == [ref.sm_count(groups, s)]
    assert SubstringScanner([["ab", "c"]]).use_ac


def test_sm_many_batches(kernels):
    groups = ref.sm_groups("a|~b,!c|d,e")
    strings = ["abcde"[i % 5 :] + "bd"[i % 2] for i in range(2500)]
    assert kernels.substring.SubstringScanner(groups).count_many(strings).tolist() == [ref.sm_count(groups, s) for s in strings]


# Shift-And (options totalling <= 128 code points, with an SSE2 prefilter for small
# alphabets) and Aho-Corasick (forced with _set_shift_and_bits(0)) against the reference.
def _scanners(substring, groups):
    sa = substring.SubstringScanner(groups)
    old = substring._set_shift_and_bits(0)
    try:
        ac = substring.SubstringScanner(groups)
    finally:
        substring._set_shift_and_bits(old)
    return sa, ac


@SETTINGS
@given(groups=sm_wide_groups, s=st.text(sm_text_chars, max_size=80), reps=st.sampled_from([1, 1, 7, 40]))
@example(groups=[["a" * 64], ["b" * 64]], s="a" * 64 + "b" * 63, reps=1)
@example(groups=[["x" * 63 + "y"], ["x" * 65]], s="x" * 70 + "y", reps=1)
@example(groups=[["前进" * 20 + "a"], ["车"]], s="前进" * 20 + "a", reps=1)
@example(groups=[["ab"], ["c"]], s="b" * 2047 + "ab", reps=1)
def test_sm_shift_and_and_automaton(kernels, groups, s, reps):
    s = s * reps
    sa, ac = _scanners(kernels.substring, groups)
    exp = ref.sm_count(groups, s)
    assert ac.kernel in (0, 1)
    assert sa.count(s) == ac.count(s) == exp
    assert sa.count_many([s, "", s]).tolist() == ac.count_many([s, "", s]).tolist() == [exp, ref.sm_count(groups, ""), exp]


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4100])
@pytest.mark.parametrize("kind", ["latin", "bmp", "astral"])
def test_sm_prefilter_block_edges(kernels, n, kind):
    """Options at every position of texts around the prefilter's block sizes."""
    rnd = random.Random(n)
    filler = {"latin": "xyzé", "bmp": "xyz一二三", "astral": "xy一\U0001F600"}[kind]
    groups = [["ab"], ["é二"], ["a"], ["\U0001F600b"], ["zz", "一a"]]
    many = [["ab", "q" + chr(0x4E00 + i)] for i in range(14)]   # alphabet > 12: scalar scan
    for opts in (groups, many):
        sc = kernels.substring.SubstringScanner(opts)
        assert sc.kernel == 2
        strings = []
        for _ in range(6):
            t = [rnd.choice(filler) for _ in range(n)]
            if n:
                for option in ("ab", "é二", "\U0001F600b", "一a"):
                    at = rnd.randrange(n)
                    t[at:at + len(option)] = option
            strings.append("".join(t)[: max(n, 0) + 3])
        strings += ["ab" + filler[0] * n, filler[0] * n + "ab", filler[0] * n + "a"]
        got = sc.count_many(strings).tolist()
        assert got == [ref.sm_count(opts, t) for t in strings]
        assert got == [sc.count(t) for t in strings]


def test_sm_kernels_chosen(kernels):
    SubstringScanner = kernels.substring.SubstringScanner
    assert SubstringScanner([["开始"], ["结束"]]).kernel == 2
    assert SubstringScanner([["a" * 64, "b" * 64]]).kernel == 2      # 128 bits: two words
    assert SubstringScanner([["a" * 64, "b" * 65]]).kernel == 1      # 129: the automaton
    assert SubstringScanner([["a" * 100, "a" * 100]]).kernel == 2    # distinct texts count once
    assert SubstringScanner([["!a", "~b"]]).kernel == 0                # no leading plain option
    assert SubstringScanner([["a" * 64, "b" * 65]]).use_ac


@SETTINGS
@given(atoms=st.lists(sm_wide_groups, min_size=1, max_size=3), strings=st.lists(st.text(sm_text_chars, max_size=40), max_size=12),
       shift_and=st.booleans())
@example(atoms=[[["ab"], ["!a", "b"]], [], [["~a", "b"], [""]]], strings=["ab", "b", "", "aab"], shift_and=True)
def test_sm_count_many_parts_splits_count_many(kernels, atoms, strings, shift_and):
    groups = [g for a in atoms for g in a]
    sa, ac = _scanners(kernels.substring, groups)
    scanner = sa if shift_and else ac
    got = scanner.count_many_parts(strings, [len(a) for a in atoms])
    assert got.shape == (len(atoms), len(strings))
    assert got.tolist() == [[ref.sm_count(a, s) for s in strings] for a in atoms]
    assert got.sum(axis=0).tolist() == scanner.count_many(strings).tolist()


def test_sm_count_many_parts_checks_parts(kernels):
    scanner = kernels.substring.SubstringScanner([["a"], ["b"], ["c"]])
    with pytest.raises(ValueError):
        scanner.count_many_parts(["abc"], [1, 1])
    with pytest.raises(ValueError):
        scanner.count_many_parts(["abc"], [4, -1])
    assert scanner.count_many_parts(["abc", "b"], [2, 0, 1]).tolist() == [[2, 1], [0, 0], [1, 0]]


def _scanner_without_nibbles(substring, groups):
    old = substring._set_nibbles(False)
    try:
        return substring.SubstringScanner(groups)
    finally:
        substring._set_nibbles(old)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 31, 32, 33, 100, 1023, 1024, 1025, 2047, 2048, 2049, 3000])
@pytest.mark.parametrize("size", [1, 5, 9, 20, 40])
def test_sm_nibble_prefilter_equals_other_scans(kernels, n, size):
    """The AVX2 nibble-class prefilter (UCS-2 text, alphabets of more than 4 characters)
    against the scan without it and the reference: look-alike characters (same bytes in
    other places, same nibbles) must not count, options must count at every offset."""
    rnd = random.Random(n * 100 + size)
    alphabet = [chr(0x4E00 + 37 * i) for i in range(size)] + ["a", "\u0161"]
    lookalikes = [chr(ord(c) ^ 0x0101) for c in alphabet] + [chr(((ord(c) & 0xFF) << 8) | (ord(c) >> 8)) for c in alphabet]
    filler = [*lookalikes, "x", "一", "\u00e9"]
    long_option = "".join(rnd.choice(alphabet) for _ in range(70))   # two state words
    for options in ([[c] for c in alphabet], [["".join(rnd.sample(alphabet, min(3, size)))] for _ in range(6)],
                    [[long_option], alphabet[:2]]):
        strings = []
        for _ in range(8):
            t = [rnd.choice(filler) for _ in range(n)]
            for option in rnd.sample([o for g in options for o in g], min(2, len(options))):
                if n >= len(option):
                    at = rnd.randrange(n - len(option) + 1)
                    t[at:at + len(option)] = option
            strings.append("".join(t))
        with_nibbles, without = kernels.substring.SubstringScanner(options), _scanner_without_nibbles(kernels.substring, options)
        expected = [ref.sm_count(options, t) for t in strings]
        assert with_nibbles.count_many(strings).tolist() == expected
        assert without.count_many(strings).tolist() == expected
        assert [with_nibbles.count(t) for t in strings] == expected


# --- the twin against the compiled module, call by call -------------------------------
sm_any_groups = st.one_of(sm_groups_st, sm_wide_groups, st.lists(st.lists(st.one_of(sm_option, texts), max_size=4), max_size=5))


@SETTINGS
@given(groups=sm_any_groups, strings=st.lists(st.one_of(texts, st.text(sm_text_chars, max_size=40)), max_size=6),
       sa_bits=st.sampled_from([128, 128, 0, 5]))
@example(groups=[["\ud800", "~\U0001F600"], ["!\udfff", "a"]], strings=["\U0001F600\ud800", "\udfffa"], sa_bits=128)
def test_twin_equals_compiled(twins, groups, strings, sa_bits):
    cy, py = twins
    old = cy.substring._set_shift_and_bits(sa_bits), py.substring._set_shift_and_bits(sa_bits)
    try:
        a, b = cy.substring.SubstringScanner(groups), py.substring.SubstringScanner(groups)
    finally:
        cy.substring._set_shift_and_bits(old[0])
        py.substring._set_shift_and_bits(old[1])
    assert (a.groups, a.kernel, a.use_ac, repr(a)) == (b.groups, b.kernel, b.use_ac, repr(b))
    for s in strings:
        same(a.count, b.count, s)
    same(a.count_many, b.count_many, strings)
    half = len(groups) // 2
    same(a.count_many_parts, b.count_many_parts, strings, (half, len(groups) - half))


@pytest.mark.parametrize("groups", [[["a"]], [["~a", "b"]], [], [["!a"]]])
@pytest.mark.parametrize("bad", [b"a", None, 1, ["a"], Sub("ab")])
def test_twin_count_many_parts_raises_as_compiled(twins, groups, bad):
    cy, py = twins
    a, b = cy.substring.SubstringScanner(groups), py.substring.SubstringScanner(groups)
    same(a.count_many_parts, b.count_many_parts, ["a", bad], (len(groups),))
    same(a.count_many_parts, b.count_many_parts, ["a"], (len(groups) + 1,))
    same(a.count_many_parts, b.count_many_parts, ["a"], None)


@SETTINGS
@given(options=st.lists(st.text(small_alphabet, min_size=1, max_size=40), min_size=1, max_size=12))
def test_twin_chooses_the_compiled_scan(twins, options):
    cy, py = twins
    groups = [options[i::3] for i in range(3)]
    assert cy.substring.SubstringScanner(groups).kernel == py.substring.SubstringScanner(groups).kernel
