"""A ``Texts`` (coscore._fast.texts: texts decoded from Arrow's UTF-8, ASCII read in place)
is a batch each kernel reads as it reads the list of the same ``str``: the same results,
bit for bit, for text of every UTF-8 width, in both implementations (the twins read it as
a sequence of ``str``)."""
from __future__ import annotations

import pickle
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import coscore._fast
from kernels.strategies import SETTINGS_MANY, exact, keys_st, sm_groups_st, sm_wide_groups, small_alphabet

pytestmark = pytest.mark.skipif(coscore._fast.IMPLEMENTATION != "cython", reason="Texts are compiled only")

#: any text Arrow holds (valid UTF-8: no lone surrogates), often of the kernels' alphabets
valid_char = st.characters(codec="utf-8", exclude_categories=("Cs",))
arrow_texts = st.lists(st.text(st.one_of(small_alphabet.filter(lambda c: not "\ud800" <= c <= "\udfff"),
                                         valid_char), max_size=40), max_size=12)


def as_texts(strings: list[str], kind: pa.DataType | None = None):
    """The distinct ``strings`` as a Texts, and as the list of them."""
    table = coscore._fast.modules("cython")["arrow"].BlankColumns([pa.array(strings, kind or pa.string())])
    texts, _, _ = table.texts(0, 0, len(strings))
    return texts, list(dict.fromkeys(strings))


def _calls(kernels, data):
    """Each batch call of a kernel, on a drawn rule."""
    keys = data.draw(keys_st)
    groups = data.draw(st.one_of(sm_groups_st, sm_wide_groups))
    scanner = kernels.substring.SubstringScanner(groups)
    parts = [len(groups) // 2, len(groups) - len(groups) // 2]
    return {
        "OP": kernels.lcs.LcsScorer(keys).best_many,
        "CS": kernels.jaccard.JaccardScorer(keys).best_many,
        "SM": scanner.count_many,
        "SM parts": lambda strings: scanner.count_many_parts(strings, parts),
        "longest": kernels.batch.longest,
    }


@SETTINGS_MANY
@given(data=st.data(), strings=arrow_texts, large=st.booleans())
def test_every_kernel_reads_texts_as_the_list_of_str(kernels, data, strings, large):
    texts, distinct = as_texts(strings, pa.large_string() if large else pa.string())
    for name, call in _calls(kernels, data).items():
        assert exact(call(texts)) == exact(call(distinct)), name


@SETTINGS_MANY
@given(strings=arrow_texts)
def test_texts_are_a_sequence_of_the_same_str(strings):
    texts, distinct = as_texts(strings)
    assert len(texts) == len(distinct)
    assert list(texts) == texts.tolist() == texts[:] == distinct
    assert [texts[i] for i in range(-len(distinct), len(distinct))] == distinct + distinct
    assert texts.lengths().tolist() == [len(s) for s in distinct]
    assert texts.total_length == sum(map(len, distinct))
    assert coscore._fast.longest(texts) == max(map(len, distinct), default=0)
    for text in texts:   # each str in Python's own (narrowest) form: a concatenation keeps it
        assert type(text) is str
        again = text.encode().decode()
        assert sys.getsizeof(text + text) == sys.getsizeof(again + again)
    assert pickle.loads(pickle.dumps(texts)) == distinct
    with pytest.raises(IndexError):
        texts[len(distinct)]


def test_texts_are_made_by_the_reader_only():
    texts, _ = as_texts(["a"])
    with pytest.raises(TypeError):
        type(texts)()
    assert "1 texts" in repr(texts)


def test_texts_outlive_their_arrays_and_reader():
    """The texts keep what they point into alive: ASCII in the Arrow buffer, the rest in
    their own memory, joined blanks in the joined bytes."""
    arrow = coscore._fast.modules("cython")["arrow"]
    values = ["ascii text", "中文 text", "🎉", ""]
    table = arrow.BlankColumns([pa.array(values), pa.array(["x", "y", "z", "w"], pa.large_string())])
    one, _, _ = table.texts(0, 0, 4)
    joined, _, _ = table.texts("*", 0, 4)
    del table
    scorer = coscore._fast.LcsScorer(["text", "中文"])
    assert scorer.best_many(one).tolist() == scorer.best_many(values).tolist()
    assert joined.tolist() == ["ascii textx", "中文 texty", "🎉z", "w"]
    assert np.array_equal(scorer.best_many(joined), scorer.best_many(joined.tolist()))
