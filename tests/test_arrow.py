"""The Arrow entry of ``score_many``: blank columns read from their UTF-8 buffers
(:class:`coscore._fast.BlankColumns`, compiled and pure Python) score exactly as the
same answers given as Python lists, for text of every UTF-8 width, empty strings and
nulls, chunked and sliced arrays, ``large_string``, dictionary and ``string_view``;
through every atom kind (the compiled reader hands the kernels a ``Texts``, and ``str``
to whatever else reads the text), within the answer budgets, and invalid UTF-8 raises
Python's own error."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from conftest import DEMO
from coscore._fast import modules
from coscore.limits import Limits
from support import examples

#: Characters of every UTF-8 width: ASCII, Latin-1 (2 bytes), CJK (3), astral (4).
WIDTHS = ["a", "b", " ", "-", "é", "ü", "中", "车", "道", "文", "，", "🎉", "𠀀", "\U0010fffd"]
TEXT = st.one_of(
    st.text(st.sampled_from(WIDTHS), max_size=12),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
)
CELL = st.one_of(st.none(), st.just(""), TEXT)

#: Rules reading one blank, another blank, the joined blanks, blank counts and several
#: blanks, so that every way of picking the text goes through the Arrow entry.
RULES = {
    "first": {"atoms": {"0": {"type": "SM", "desc": "车道,a b"}},
              "combos": {"A": {"combo": "M(0,T(0))", "score": 2, "mode": "value"}}, "comboMode": "ADD"},
    "last": {"atoms": {"0": {"type": "OP", "desc": "0.3:中文🎉"}},
             "combos": {"A": {"combo": "G(0,T(-1))", "score": 5, "mode": "logic"}}, "comboMode": "ADD"},
    "second": {"atoms": {"0": {"type": "CS", "desc": "0.2:éü道"}},
               "combos": {"A": {"combo": "G(0,T(1))", "score": 3, "mode": "logic"}}, "comboMode": "ADD"},
    "joined": {"atoms": {"0": {"type": "SM", "desc": "ab,中"}},
               "combos": {"A": {"combo": "M(0,T('*'))*L('*')", "score": 1, "mode": "value"},
                          "B": {"combo": "Q('*')==2", "score": 1, "mode": "logic"}}, "comboMode": "MAX"},
    "both": {"atoms": {"0": {"type": "SM", "desc": "a"}, "1": {"type": "SM", "desc": "中"}},
             "combos": {"A": {"combo": "G(0,T(0)) and G(1,T(1))", "score": 4, "mode": "logic"},
                        "B": {"combo": "L(0)/L(1)", "score": 1, "mode": "value"}}, "comboMode": "ADD"},
    # every atom kind on one text, the SM ones scanned together (only kernels read the text)
    "kernels": {"atoms": {"0": {"type": "SM", "desc": "车道|道,a!b,~é"}, "1": {"type": "SM", "desc": "中,🎉"},
                          "2": {"type": "OP", "desc": "0.1:中文🎉,a b,éü"}, "3": {"type": "CS", "desc": "0:ab中,道"}},
                "combos": {"A": {"combo": "M(0,T('*'))+M(1,T('*'))", "score": 1, "mode": "value"},
                           "B": {"combo": "M(2,T('*'))*M(3,T('*'))", "score": 3, "mode": "value"}}, "comboMode": "ADD"},
    # several blanks, each read only through the kernels: scored from each blank's texts
    "several": {"atoms": {"0": {"type": "SM", "desc": "车道|道,a!b,~é"}, "1": {"type": "OP", "desc": "0.1:中文🎉,a b"},
                          "2": {"type": "CS", "desc": "0:ab中,道"}, "3": {"type": "SM", "desc": "中,🎉"}},
                "combos": {"A": {"combo": "M(0,T(0))+M(3,T(1))", "score": 1, "mode": "value"},
                           "B": {"combo": "G(1,T(-1)) and G(2,T('*'))", "score": 3, "mode": "logic"},
                           "C": {"combo": "M(2,T(1))*M(0,T(2))", "score": 2, "mode": "value"}}, "comboMode": "ADD"},
    "pair": {"atoms": {"0": {"type": "SM", "desc": "车道,a b"}, "1": {"type": "OP", "desc": "0.3:中文🎉,道"}},
             "combos": {"A": {"combo": "M(0,T(0))", "score": 2, "mode": "value"},
                        "B": {"combo": "G(1,T(1))", "score": 3, "mode": "logic"}}, "comboMode": "MAX"},
    # the text read as a str too: an EM atom, a comparison, a join, a measure
    "exact": {"atoms": {"0": {"type": "EM", "desc": "车道,a b,"}, "1": {"type": "SM", "desc": "道"}},
              "combos": {"A": {"combo": "G(0,T(0)) + G(1,T(0))", "score": 2, "mode": "value"}}, "comboMode": "ADD"},
    "strings": {"atoms": {"0": {"type": "SM", "desc": "中中,a"}},
                "combos": {"A": {"combo": "M(0,T(0)+T(0)) + (T(0) == 'a b') + S(0)", "score": 1, "mode": "value"}},
                "comboMode": "ADD"},
}
COMPILED = {name: coscore.compile(source) for name, source in RULES.items()}
COMPILED.update({path.name.removesuffix(".rule.json"): coscore.compile(json.loads(path.read_text(encoding="utf-8")))
                 for path in sorted(DEMO.glob("*.rule.json"))})

IMPLEMENTATIONS = ["python"] + (["cython"] if coscore._fast.IMPLEMENTATION == "cython" else [])


def _same(got: coscore.Batch, want: coscore.Batch) -> None:
    assert got.scores.tobytes() == want.scores.tobytes()
    assert got.errors == want.errors
    assert got.completed == want.completed
    for cid in want.combos:
        assert got.combos[cid].tobytes() == want.combos[cid].tobytes()


def _lists(columns: list[list]) -> list:
    """The answers as Python lists: one-blank answers are their text, others tuples."""
    texts = [["" if v is None else v for v in column] for column in columns]
    return texts[0] if len(texts) == 1 else list(zip(*texts))


#: The Arrow types a blank column may have: text, or a dictionary of text (each index width).
TEXT_TYPES = [pa.string(), pa.large_string()] + ([pa.string_view()] if hasattr(pa, "string_view") else [])
KINDS = TEXT_TYPES + [pa.dictionary(index, value) for index in (pa.int8(), pa.int32(), pa.int64(), pa.uint16())
                      for value in TEXT_TYPES]


def _make(values: list, kind: pa.DataType, spare: bool = False) -> pa.Array:
    """``values`` as an array of ``kind``; a dictionary holds each distinct value once
    (with ``spare``, also values no row uses, one of them repeated, and a null entry that
    some null rows point at)."""
    if not pa.types.is_dictionary(kind):
        return pa.array(values, kind)
    entries = list(dict.fromkeys(v for v in values if v is not None))
    position = {v: i for i, v in enumerate(entries)}
    first = entries[0] if entries else None
    if spare:   # the first value twice: rows of it point at either copy
        entries = ["unused", *entries, first if entries else "x", None]
        position = {v: i + 1 for v, i in position.items()}
    null_entry, copy = (len(entries) - 1, len(entries) - 2) if spare else (None, None)
    indices = [(null_entry if i % 2 else None) if v is None else copy if spare and v == first and i % 2
               else position[v] for i, v in enumerate(values)]
    return pa.DictionaryArray.from_arrays(pa.array(indices, kind.index_type), pa.array(entries, kind.value_type))


@st.composite
def arrow_column(draw, values: list):
    """``values`` as an Arrow column of some layout: string, large_string, string_view
    or a dictionary of them; one array or chunked (cut anywhere), sliced out of a longer
    array (offset != 0)."""
    kind = draw(st.sampled_from(KINDS))
    spare = draw(st.booleans())
    layout = draw(st.sampled_from(["array", "chunked", "sliced", "sliced chunks"]))
    if layout == "array":
        return _make(values, kind, spare)
    if layout == "sliced":
        before, after = draw(st.lists(CELL, max_size=3)), draw(st.lists(CELL, max_size=3))
        return _make(before + values + after, kind, spare).slice(len(before), len(values))
    cuts = sorted(draw(st.lists(st.integers(0, len(values)), max_size=3)))
    pieces = [values[a:b] for a, b in zip([0, *cuts], [*cuts, len(values)])]
    if layout == "sliced chunks":
        return pa.chunked_array([_make(["pad", *p, "pad"], kind, spare).slice(1, len(p)) for p in pieces], kind)
    return pa.chunked_array([_make(p, kind, spare) for p in pieces], kind)


@st.composite
def blank_columns(draw, max_width: int = 3):
    width = draw(st.integers(1, max_width))
    rows = draw(st.integers(0, 40))
    pool = draw(st.lists(CELL, min_size=1, max_size=8))   # repeated texts: deduplication
    columns = [draw(st.lists(st.one_of(st.sampled_from(pool), CELL), min_size=rows, max_size=rows))
               for _ in range(width)]
    return columns, [draw(arrow_column(c)) for c in columns]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blank_columns(), st.sampled_from(sorted(COMPILED)), st.sampled_from([None, 1, 3, 7]), st.sampled_from([1, 2]))
def test_arrow_columns_score_as_the_same_lists(data, name, chunk_size, jobs):
    values, columns = data
    rule = COMPILED[name]
    want = rule.score_many(_lists(values), chunk_size=chunk_size)
    _same(rule.score_many(columns, jobs=jobs, chunk_size=chunk_size), want)
    if columns:
        _same(rule.score_many(pa.table({f"b{i}": c for i, c in enumerate(columns)}), chunk_size=chunk_size), want)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=blank_columns(max_width=4), key=st.sampled_from([0, 1, 2, -1, -2, 5, -5, "*"]), cut=st.data())
def test_blank_columns_pick_and_deduplicate_every_text(implementation, data, key, cut):
    values, columns = data
    table = modules(implementation)["arrow"].BlankColumns(columns)
    n = len(values[0])
    start = cut.draw(st.integers(0, n))
    stop = cut.draw(st.integers(start, n))
    texts = [["" if v is None else v for v in column[start:stop]] for column in values]
    width = len(texts)
    if key == "*":
        rows, missing = ["".join(blanks) for blanks in zip(*texts)], None
    elif -width <= key < width:
        rows, missing = texts[key], None
    else:
        rows, missing = [""] * (stop - start), [True] * (stop - start) or None
    distinct, inverse, lacking = table.texts(key, start, stop)
    assert [distinct[i] for i in inverse] == rows
    assert len(distinct) == len(list(distinct))
    distinct = list(distinct)   # a Texts (compiled) or a list (pure Python) of str
    for text in distinct:   # each str in Python's own (narrowest) form: a concatenation keeps the form
        again = text.encode().decode()
        assert sys.getsizeof(text + text) == sys.getsizeof(again + again)
    assert distinct == list(dict.fromkeys(rows))   # each once, in first-occurrence order
    assert (None if lacking is None else lacking.tolist()) == missing
    whole = texts[0] if width == 1 else list(zip(*texts))
    distinct, inverse = table.answers(start, stop)
    assert [distinct[i] for i in inverse] == whole
    assert distinct == list(dict.fromkeys(whole))
    if stop > start:
        assert table.answer(start) == whole[0]


def test_the_two_implementations_agree_on_order():
    columns = [pa.chunked_array([pa.array(["b", None, "a"]), pa.array(["b", "中", "", "a"])]),
               pa.array(["x", "y", "x", "x", "y", None, "x"], pa.large_string())]
    results = [modules(i)["arrow"].BlankColumns(columns) for i in IMPLEMENTATIONS]
    for key in (0, 1, -1, "*", 3):
        found = [t.texts(key, 1, 7) for t in results]
        for distinct, inverse, missing in found[1:]:
            assert list(distinct) == list(found[0][0])
            assert inverse.tolist() == found[0][1].tolist()
            assert (missing is None) == (found[0][2] is None)
    answers = [t.answers(0, 7) for t in results]
    assert all(a[0] == answers[0][0] and a[1].tolist() == answers[0][1].tolist() for a in answers)


def test_other_text_layouts_are_read_as_text():
    rule = COMPILED["first"]
    values = ["车道", None, "a b", "车道", ""]
    want = rule.score_many(_lists([values]))
    layouts = [pa.array(values).dictionary_encode(), pa.array(values, pa.large_string())]
    if hasattr(pa, "string_view"):
        layouts.append(pa.array(values, pa.string_view()))
    for column in layouts:
        _same(rule.score_many([column]), want)
    _same(rule.score_many([pa.nulls(3)]), rule.score_many(["", "", ""]))


def test_dictionaries_and_views_that_point_past_their_values_are_refused():
    """Codes and views are read in C without a check per row: an array that points past
    its values (built unchecked) is refused whole, never read out of bounds."""
    if "cython" not in IMPLEMENTATIONS:
        pytest.skip("the compiled kernels are not available")
    columns = modules("cython")["arrow"]
    codes = pa.DictionaryArray.from_arrays(pa.array([0, 5, None], pa.int32()), pa.array(["a"]), safe=False)
    with pytest.raises(ValueError, match="codes must be among its 1 values"):
        columns.BlankColumns([codes])
    with pytest.raises(ValueError, match="codes must be among"):
        COMPILED["first"].score_many([codes])
    nulls = pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int32()), pa.array([], pa.string()))
    assert columns.BlankColumns([nulls]).texts(0, 0, 2)[1].tolist() == [0, 0]
    if not hasattr(pa, "string_view"):
        return
    good = pa.array(["short", "a text longer than twelve bytes", None], pa.string_view())
    validity, views, data = good.buffers()
    for field, value in ((2, 7), (3, 1 << 20), (0, -40)):   # no buffer 7; past the data; a negative length
        spoilt = bytearray(views.to_pybytes())
        spoilt[16 + 4 * field:16 + 4 * field + 4] = value.to_bytes(4, "little", signed=True)
        bad = pa.Array.from_buffers(pa.string_view(), 3, [validity, pa.py_buffer(bytes(spoilt)), data])
        with pytest.raises(ValueError, match="views point past"):
            columns.BlankColumns([bad])


def test_columns_that_are_not_text_or_of_different_lengths_are_refused():
    rule = COMPILED["both"]
    with pytest.raises(TypeError, match="text"):
        rule.score_many([pa.array([1, 2]), pa.array(["a", "b"])])
    with pytest.raises(ValueError, match="differ in length"):
        rule.score_many([pa.array(["a"]), pa.array(["a", "b"])])
    for implementation in IMPLEMENTATIONS:
        with pytest.raises(TypeError):
            modules(implementation)["arrow"].BlankColumns([pa.array([1.5])])
        table = modules(implementation)["arrow"].BlankColumns([pa.array(["a"])])
        with pytest.raises(IndexError):
            table.texts(0, 0, 2)
        with pytest.raises(ValueError):
            table.texts("x", 0, 1)


def test_many_rows_and_repeats_score_as_lists():
    """Several chunks, threads, a hash table of many entries, most texts repeated."""
    rng = np.random.default_rng(7)
    pool = ["", "车道", "换车道 a", "a b", "éü道🎉", "中文" * 30, *(f"answer {i} 中" for i in range(500))]
    values = [pool[i] for i in rng.integers(0, len(pool), 20_000)]
    second = [pool[i] for i in rng.integers(0, len(pool), 20_000)]
    columns = [pa.array(values), pa.chunked_array([pa.array(second[:12345]), pa.array(second[12345:])])]
    for name in ("first", "joined", "both", "several", "pair", "lab-tools", "lane-change"):
        rule = COMPILED[name]
        want = rule.score_many(list(zip(values, second)))
        _same(rule.score_many(columns, jobs=2, chunk_size=5000), want)   # four chunks, the second cut


def test_only_rules_that_read_text_outside_the_kernels_get_str():
    """The Texts of the compiled reader go to the kernels as they are when only SM, OP and
    CS atom calls read the text; an EM atom, a comparison, a join or a measure get ``str``."""
    def kernel_texts(name):
        return COMPILED[name].plan.columnar.kernel_texts

    assert all(kernel_texts(name) for name in ("first", "last", "second", "kernels", "several", "pair", "lab-tools",
                                                "lane-change"))
    assert not any(kernel_texts(name) for name in ("joined", "both", "exact", "strings"))


def test_rules_reading_several_blanks_through_the_kernels_read_each_blank_in_c():
    """Such a rule's answers are deduplicated on each blank's texts (no ``str`` made);
    a rule that reads a blank otherwise, or one blank, is not."""
    def keys(name):
        return COMPILED[name].plan.keys

    assert set(keys("several")) == {"*", -1, 0, 1, 2}
    assert set(keys("pair")) == {0, 1}
    assert not any(keys(name) for name in ("first", "both", "joined", "exact", "strings", "kernels"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blank_columns(max_width=3), st.sampled_from(["kernels", "exact", "strings", "first", "joined", "several"]),
       st.sampled_from([{"max_work": 40}, {"max_work": 400}, {"max_built_chars": 12}, {"max_atom_calls": 2}]))
def test_arrow_columns_keep_the_answer_budgets_as_lists(data, name, budget):
    values, columns = data
    rule = coscore.compile(RULES[name], limits=Limits(**budget))
    _same(rule.score_many(columns, chunk_size=5), rule.score_many(_lists(values), chunk_size=5))


@pytest.mark.parametrize("bad_row", [0, 4, 10, 15])
def test_a_chunk_read_ahead_raises_its_error_when_its_turn_comes(bad_row):
    """With one worker the next chunk's texts are read while this one is scored: invalid
    UTF-8 in any chunk raises the error one read of the whole column raises."""
    cells = [f"答案{i % 4}".encode() for i in range(16)]
    cells[bad_row] = b"ok\xff"
    column = _utf8_array(cells, pa.string())
    rule = COMPILED["kernels"]
    with pytest.raises(UnicodeDecodeError) as whole:
        rule.score_many([column])
    for chunk_size in (1, 3, 5):
        with pytest.raises(UnicodeDecodeError) as chunked:
            rule.score_many([column], chunk_size=chunk_size)
        assert str(chunked.value) == str(whole.value)


def _utf8_array(cells: list[bytes], kind: pa.DataType) -> pa.Array:
    """A string array of the bytes as they are (Arrow checks no UTF-8 here)."""
    offsets = np.cumsum([0, *map(len, cells)], dtype=np.int64 if kind == pa.large_string() else np.int32)
    return pa.Array.from_buffers(kind, len(cells), [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(cells))])


#: bytes that are often almost UTF-8: valid sequences, cut, with a byte changed, or any bytes
UTF8ISH = st.one_of(
    st.binary(max_size=12),
    st.text(st.sampled_from([*WIDTHS, "\x7f", "\x80", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
                             "\U00010000"]), max_size=6).map(lambda t: t.encode()),
    st.tuples(st.text(st.sampled_from(WIDTHS), min_size=1, max_size=6), st.integers(0, 40), st.integers(0, 255))
    .map(lambda c: (lambda b: b[: c[1] % (len(b) + 1)] + bytes([c[2]]) + b[c[1] % (len(b) + 1) + 1:])(c[0].encode())),
    st.sampled_from([b"\xc0\x80", b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf",
                     b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xe4\xb8", b"\xf0\x9f\x8e", b"a\x80b"]),
)


def _decoded(cells: list[bytes]):
    """What Python's decoder makes of the cells: their str, or the first error (repr)."""
    try:
        return [c.decode("utf-8") for c in cells]
    except UnicodeDecodeError as exc:
        return repr(exc)


def _read_as_python(implementation: str, column: pa.Array, cells: list[bytes]):
    """Check that the reader gives what Python's decoder makes of the cells (of
    ``column``), by texts and by answers; returns that."""
    reader = modules(implementation)["arrow"].BlankColumns   # the twin decodes as it is made
    want = _decoded(list(dict.fromkeys(cells)))
    for read in (lambda: list(reader([column]).texts(0, 0, len(cells))[0]),
                 lambda: reader([column]).answers(0, len(cells))[0]):
        try:
            got = read()
        except UnicodeDecodeError as exc:
            got = repr(exc)
        assert got == want
        if isinstance(got, list):
            # each str in Python's own (narrowest) form: a concatenation keeps the form (and
            # drops what a str caches, such as the shared one-character str's UTF-8)
            assert [sys.getsizeof(t + t) for t in got] == [sys.getsizeof(t + t) for t in want]
    return want


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(cells=st.lists(UTF8ISH, min_size=1, max_size=4), large=st.booleans())
def test_utf8_is_read_as_python_reads_it(implementation, cells, large):
    """Valid UTF-8 gives Python's ``str`` of it (its narrowest form); invalid UTF-8 raises
    the ``UnicodeDecodeError`` Python raises for the first cell that has it."""
    column = _utf8_array(cells, pa.large_string() if large else pa.string())
    want = _read_as_python(implementation, column, cells)
    if isinstance(want, str):
        with pytest.raises(UnicodeDecodeError):
            coscore.compile(RULES["kernels"]).score_many([column])


#: long texts, mostly runs of 3-byte characters (read 16 bytes at a time), mixed with every
#: other width, then maybe spoilt at one place: a byte changed, cut out or put in, or a
#: 3-byte form that is not one (overlong, surrogate) put in a run
RUNS = st.tuples(
    st.lists(st.one_of(st.text(st.sampled_from(["中", "车", "，", "\u0800", "\uffff", "\ue000", "\ud7ff"]), max_size=40),
                       st.text(st.sampled_from([*WIDTHS, "\x00", "\x7f", "\u07ff"]), max_size=3)), max_size=6)
    .map(lambda parts: "".join(parts).encode()),
    st.sampled_from(["keep", "change", "cut", "insert", "overlong", "surrogate"]),
    st.integers(0, 400), st.integers(0, 255),
).map(lambda c: _spoilt(*c))


def _spoilt(data: bytes, how: str, at: int, byte: int) -> bytes:
    at = at % (len(data) + 1)
    put = {"insert": bytes([byte]), "overlong": b"\xe0\x9f\xbf", "surrogate": b"\xed\xa0\x80"}.get(how)
    if put is not None:
        return data[:at] + put + data[at:]
    if how == "keep" or at == len(data):
        return data
    return data[:at] + (bytes([byte]) if how == "change" else b"") + data[at + 1:]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(cells=st.lists(RUNS, min_size=1, max_size=4), start=st.integers(0, 3))
def test_long_runs_of_every_width_are_read_as_python_reads_them(implementation, cells, start):
    """Texts longer than a SIMD block, each cut anywhere (a sliced array too): Python's
    ``str`` of them, or the ``UnicodeDecodeError`` Python raises."""
    _read_as_python(implementation, _utf8_array([b"x"] * start + cells, pa.string()).slice(start), cells)


#: texts of the Basic Multilingual Plane only (1-, 2- and 3-byte forms, read 16 bytes at a
#: time by the block decoder when the CPU has AVX2), of every length around a block's, then
#: maybe spoilt at one place: a byte changed, cut out or put in, an overlong 2- or 3-byte
#: form, a surrogate, a lead without its continuation bytes
BMP = st.tuples(
    st.text(st.sampled_from(["a", " ", "\x00", "\x7f", "é", "\u0100", "\u07ff", "\u0800", "中", "，", "\ud7ff",
                             "\ue000", "\uffff"]), max_size=60).map(str.encode),
    st.sampled_from(["keep", "keep", "change", "cut", "insert", "overlong", "overlong2", "surrogate", "lead"]),
    st.integers(0, 200), st.integers(0, 255),
).map(lambda c: _spoilt(*c) if c[1] not in ("overlong2", "lead") else
      _spoilt(c[0], "keep", 0, 0)[: c[2] % (len(c[0]) + 1)] + (b"\xc1\xbf" if c[1] == "overlong2" else b"\xe4")
      + c[0][c[2] % (len(c[0]) + 1):])


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(cells=st.lists(BMP, min_size=1, max_size=5), start=st.integers(0, 2))
def test_texts_of_the_basic_plane_are_read_as_python_reads_them(implementation, cells, start):
    """Texts without 4-byte forms, of any length (a sliced array too): Python's ``str`` of
    them, or the ``UnicodeDecodeError`` Python raises."""
    _read_as_python(implementation, _utf8_array([b"x"] * start + cells, pa.string()).slice(start), cells)


def test_the_columns_page_examples_run():
    """docs/columns.md's Python examples run as written."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "columns.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/columns.md", "exec"), {})  # noqa: S102 - the project's own docs


def test_score_chunks_takes_a_list_of_arrow_arrays_as_the_blank_columns():
    """A list of Arrow arrays is the blank columns, for score_chunks as for score_many (it
    was read as a stream of one-blank tables)."""
    rule = coscore.compile({"atoms": {"0": {"type": "SM", "desc": "a"}},
                            "combos": {"A": {"combo": "M(0,T(0))+M(0,T(1))", "score": 1, "mode": "value"}},
                            "comboMode": "ADD"})
    columns = [pa.array(["a", "b", None]), pa.array(["a", "a", "b"])]
    batches = list(rule.score_chunks(columns, chunk_size=2))
    assert [len(b) for b in batches] == [2, 1]
    assert [s for b in batches for s in b.scores.tolist()] == rule.score_many(columns).scores.tolist() == [2.0, 1.0, 0.0]
