"""Batch plumbing (checking answers, blank columns, deduplication): both implementations
against plain-Python models, and against each other."""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kernels.strategies import SETTINGS, Sub, any_text, as_key, same

well_formed = st.one_of(
    any_text,
    st.lists(st.sampled_from(["", "a", "b", "ab", "\ud800", "爱", "\U0001f600"]), max_size=3),
    st.lists(any_text, max_size=3).map(tuple),
)
odd_answers = st.sampled_from([None, 1, 7, b"x", ["a", 1], ("a", None), [Sub("a")], (Sub("a"),), Sub("b"), {"a": 1}])
any_answer = st.one_of(well_formed, odd_answers)


def _ok(a):
    return type(a) is str or (type(a) in (list, tuple) and all(type(b) is str for b in a))


@SETTINGS
@given(st.lists(any_text, max_size=50))
@example(["", "\ud800", "\ud800", "\U0001F600", "a", "a", "\x00"])
def test_dedup_strings(kernels, strings):
    strings = [(s + "!")[:-1] for s in strings + strings[::3]]   # fresh objects, hashes not cached
    distinct, index = kernels.batch.dedup_strings(strings)
    assert distinct == list(dict.fromkeys(strings))
    assert [distinct[i] for i in index] == strings
    for s in strings:   # the hash stored in each str is Python's own
        assert hash(s) == hash((s + "!")[:-1]) == hash(str(s))
    assert {s: 1 for s in strings} == dict.fromkeys(strings, 1)


@SETTINGS
@given(st.lists(st.one_of(any_text, odd_answers), max_size=40), st.booleans())
def test_plain_strings_counts_the_leading_exact_str(kernels, values, as_array):
    """A list or a 1-D object ndarray: how many leading items are exact ``str`` (a
    subclass, None, bytes and the like end the run)."""
    import numpy as np

    leading = next((i for i, v in enumerate(values) if type(v) is not str), len(values))
    if as_array:
        array = np.empty(len(values), dtype=object)
        for i, value in enumerate(values):   # one by one: numpy would unpack a list
            array[i] = value
        assert kernels.batch.plain_strings(array) == leading
        assert kernels.batch.plain_strings(array[::-1].copy()) == \
            next((i for i, v in enumerate(values[::-1]) if type(v) is not str), len(values))
    else:
        assert kernels.batch.plain_strings(values) == leading


def test_plain_strings_reads_only_lists_and_flat_object_arrays(kernels):
    import numpy as np

    for bad in (("a",), np.array(["a"]), np.empty((2, 2), dtype=object), np.empty(4, dtype=object)[::2]):
        with pytest.raises(TypeError):
            kernels.batch.plain_strings(bad)


@SETTINGS
@given(st.lists(any_text, max_size=50))
def test_longest(kernels, strings):
    top = max(map(len, strings), default=0)
    assert kernels.batch.longest(strings) == top
    assert kernels.batch.longest(tuple(strings)) == top
    assert kernels.batch.longest(iter(strings)) == top
    assert kernels.batch.longest([*strings, Sub("abcdefg"), ["x"]]) == max(top, 7)


@SETTINGS
@given(st.lists(st.text(st.sampled_from("ab\x00\xff\u0100\u6261\uffff\ud800\U0001F600\U00010000"), max_size=4), max_size=60))
@example(["ab", "\u6261", "\x00\x00", "\x00", "\U00006261", "\u6261\x00", "ba"])
def test_dedup_tells_kinds_apart(kernels, strings):
    """Texts whose bytes agree across kinds ("ab" in one-byte code points, U+6261 in two
    bytes) or differ only in NULs stay apart; equal texts built apart meet."""
    strings = [(s + "\U0001F600")[:-1] for s in strings + strings[::2]]   # wider, then narrowed back
    distinct, index = kernels.batch.dedup_strings(strings)
    assert distinct == list(dict.fromkeys(strings))
    assert [distinct[i] for i in index] == strings
    texts = kernels.batch.distinct_texts(strings, 0)
    assert texts[0] == distinct and texts[4] == max(map(len, strings), default=0)


def test_dedup_strings_rejects_non_str(kernels):
    with pytest.raises(TypeError):
        kernels.batch.dedup_strings(["a", Sub("a")])
    with pytest.raises(TypeError):
        kernels.batch.dedup_strings(["a", None])
    assert kernels.batch.dedup_strings([])[0] == []
    strings = ["a", "b"]
    assert kernels.batch.dedup_strings(strings)[0] is strings   # all distinct: the list itself


@SETTINGS
@given(st.lists(well_formed, max_size=40), st.booleans())
def test_dedup_answers_any_container(kernels, answers, subclass):
    answers = answers + answers[::2]
    if subclass and answers and not isinstance(answers[0], str) and answers[0]:
        answers[0] = [Sub(answers[0][0]), *answers[0][1:]]   # the slow path, same result
    distinct, inverse = kernels.batch.dedup_answers(answers)
    assert [as_key(d) for d in distinct] == list(dict.fromkeys(as_key(a) for a in answers))
    assert [as_key(distinct[j]) for j in inverse] == [as_key(a) for a in answers]
    with pytest.raises(TypeError):
        kernels.batch.dedup_answers([*answers, None])


@SETTINGS
@given(st.lists(st.lists(st.sampled_from(["", "a", "b", "ab", "\ud800", "爱", "\U0001f600"]), max_size=3), max_size=40))
def test_dedup_answers_groups_equal_blanks_whatever_their_container(kernels, answers):
    mixed = [tuple(a) if i % 3 == 1 else (a[0] if i % 3 == 2 and len(a) == 1 else a) for i, a in enumerate(answers)]
    distinct, inverse = kernels.batch.dedup_answers(mixed)
    assert [as_key(d) for d in distinct] == list(dict.fromkeys(as_key(a) for a in mixed))
    assert [as_key(distinct[j]) for j in inverse] == [as_key(a) for a in mixed]


@SETTINGS
@given(st.lists(any_answer, max_size=30))
def test_check_and_columns_match_python(kernels, answers):
    batch = kernels.batch
    sizes = [1 if type(a) is str else len(a) for a in answers if _ok(a)]
    assert batch.check_answers(answers) == ([i for i, a in enumerate(answers) if not _ok(a)], max(sizes, default=0), min(sizes, default=0))
    good = [a for a in answers if _ok(a)]
    assert batch.joined_column(good) == ["".join(as_key(a)) for a in good]
    for n in (0, 1, -1, -2):
        values, missing = batch.blank_column(good, n)
        exp = [as_key(a)[n] if -len(as_key(a)) <= n < len(as_key(a)) else "" for a in good]
        lacks = [not (-len(as_key(a)) <= n < len(as_key(a))) for a in good]
        assert values == exp
        assert (missing.tolist() if missing is not None else [False] * len(good)) == lacks
        assert missing is None or any(lacks)


def test_blank_columns_of_ragged_answers(kernels):
    batch = kernels.batch
    answers = ["a", ["b", "c"], ("d", "e", "f"), [], ["g"]]
    assert batch.check_answers(answers) == ([], 3, 0)
    assert batch.check_answers([["a", 1], None, "x"]) == ([0, 1], 1, 1)
    values, missing = batch.blank_column(answers, 1)
    assert values == ["", "c", "e", "", ""] and missing.tolist() == [True, False, False, True, True]
    values, missing = batch.blank_column(answers, -1)
    assert values == ["a", "c", "f", "", "g"] and missing.tolist() == [False, False, False, True, False]
    assert batch.blank_column(answers[:1], 0) == (["a"], None)
    assert batch.joined_column(answers) == ["a", "bc", "def", "", "g"]
    plain = ["x", "y"]
    assert batch.blank_column(plain, -1)[0] is plain and batch.joined_column(plain) is plain


def _texts_model(answers, key):
    """distinct_texts() in plain Python: (texts, missing, odd) before deduplication."""
    texts, missing, odd = [], [], []
    for i, a in enumerate(answers):
        blanks = [a] if type(a) is str else a
        if not _ok(a):
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


texts_answers = st.one_of(
    any_text,
    st.lists(any_text, max_size=3),
    st.lists(any_text, max_size=3).map(tuple),
    st.sampled_from([None, 7, ["a", None], (Sub("a"),), Sub("b")]),
)


@SETTINGS
@given(st.lists(texts_answers, max_size=40), st.sampled_from([0, 1, -1, 2, "*"]))
@example([["a", "b"], "ab", ["ab"], ("a", "b"), [], None], "*")
def test_distinct_texts_matches_model(kernels, answers, key):
    batch = kernels.batch
    answers = answers + answers[::2]
    texts, missing, odd = _texts_model(answers, key)
    distinct, inverse, got_missing, got_odd, longest = batch.distinct_texts(answers, key)
    assert distinct == list(dict.fromkeys(texts))
    assert longest == max(map(len, texts), default=0)
    assert [distinct[i] for i in inverse] == texts
    assert got_odd == odd
    if any(missing):
        assert got_missing.tolist() == missing
    else:
        assert got_missing is None
    plain = ["x", "y"]
    assert batch.distinct_texts(plain, 0)[0] is plain   # distinct str answers: the list itself
    start, stop = len(answers) // 3, len(answers) - len(answers) // 4   # a window: as if sliced
    window = batch.distinct_texts(answers, key, start, stop)
    sliced = batch.distinct_texts(answers[start:stop], key)
    assert window[0] == sliced[0] and window[1].tolist() == sliced[1].tolist() and window[3:] == sliced[3:]
    assert (window[2] is None) == (sliced[2] is None)


def test_distinct_texts_checks_picks_and_dedups_in_one_pass(kernels):
    def texts(answers, key):
        distinct, inverse, missing, odd, _ = kernels.batch.distinct_texts(answers, key)
        return [distinct[i] for i in inverse], missing, odd

    answers = ["a", ["b", "c"], ("d", "e", "f"), [], ["g"], None, ["h", 2]]
    column, missing, odd = texts(answers, 1)
    assert column == ["", "c", "e", "", "", "", ""] and odd == [5, 6]
    assert missing.tolist() == [True, False, False, True, True, False, False]
    column, missing, odd = texts(answers, "*")
    assert column == ["a", "bc", "def", "", "g", "", ""] and missing is None and odd == [5, 6]
    column, missing, odd = texts(answers[:2], -1)
    assert column == ["a", "c"] and missing is None and odd == []
    distinct, inverse, missing, odd, longest = kernels.batch.distinct_texts([], 0)
    assert distinct == [] and len(inverse) == 0 and missing is None and odd == [] and longest == 0


def test_distinct_texts_window_bounds(kernels):
    answers = ["a", ["b"], "a"]
    assert kernels.batch.distinct_texts(answers, 0, 1, 3)[0] == ["b", "a"]
    assert kernels.batch.distinct_texts(answers, 0, 1, 1)[0] == []
    assert kernels.batch.distinct_texts(answers, 0, 2)[0] == ["a"]
    for start, stop in ((-1, 2), (2, 1), (0, 4)):
        with pytest.raises(IndexError):
            kernels.batch.distinct_texts(answers, 0, start, stop)


def test_tune_malloc_once(kernels):
    first = kernels.batch.tune_malloc()
    assert isinstance(first, bool) and kernels.batch.tune_malloc() is first
    assert kernels.batch.malloc_tuned is first


# --- the twin against the compiled module, call by call -------------------------------
def _same_lists(cy_result, py_result, given):
    """Both results hold the same objects where the compiled one returns ``given`` itself."""
    for a, b in zip(cy_result, py_result):
        if isinstance(a, list):
            assert (a is given) == (b is given)


@SETTINGS
@given(answers=st.lists(any_answer, max_size=30), key=st.sampled_from([0, 1, -1, 2, -3, "*", "x", 1.5, None]),
       window=st.tuples(st.integers(-2, 40), st.one_of(st.none(), st.integers(-2, 40))))
@example(answers=["\ud800", ["\U0001F600", "\udfff"], ("\ud800",), "\ud800"], key="*", window=(0, None))
def test_twin_equals_compiled(twins, answers, key, window):
    cy, py = twins
    good = [a for a in answers if _ok(a)]
    strings = [a for a in answers if type(a) is str]
    for name, args in (("check_answers", (answers,)), ("joined_column", (good,)), ("blank_column", (good, key)),
                       ("distinct_texts", (answers, key)), ("distinct_texts", (answers, key, *window)),
                       ("dedup_strings", (strings,)), ("dedup_strings", (answers,)), ("dedup_answers", (good,)),
                       ("dedup_answers", (answers,)), ("longest", (strings,)), ("longest", (good,))):
        if name == "blank_column" and not isinstance(key, int):
            continue
        if name == "dedup_answers" and any(type(b) not in (str, Sub) for a in args[0] if type(a) in (list, tuple) for b in a):
            continue   # unhashable or odd blanks: outside dedup_answers' contract
        cy_call, py_call = getattr(cy.batch, name), getattr(py.batch, name)
        if same(cy_call, py_call, *args)[0] not in ("raised", "int"):
            _same_lists(cy_call(*args), py_call(*args), args[0])


@pytest.mark.parametrize("name", ["check_answers", "joined_column", "dedup_strings", "dedup_answers"])
@pytest.mark.parametrize("bad", [("a", "b"), "ab", 5])
def test_twin_raises_as_compiled_on_bad_lists(twins, name, bad):
    cy, py = twins
    same(getattr(cy.batch, name), getattr(py.batch, name), bad)
    same(cy.batch.blank_column, py.batch.blank_column, bad, 0)
    same(cy.batch.distinct_texts, py.batch.distinct_texts, bad, 0)
