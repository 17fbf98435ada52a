"""Diagnostics placed in the rule's JSON text (coscore/workbench/where.py)."""
from __future__ import annotations

import json
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from coscore.expr.types import check_rule
from coscore.workbench.where import json_error_place, locate


def diag(path: str, column: int | None = None) -> SimpleNamespace:
    return SimpleNamespace(path=path, column=column)


def utf16(text: str, start: int, end: int) -> str:
    """Characters ``start``..``end`` of ``text`` counted as a browser counts them."""
    return text.encode("utf-16-le", "surrogatepass")[2 * start:2 * end].decode("utf-16-le", "surrogatepass")


def test_a_type_error_is_placed_on_its_operator():
    rule = {"atoms": {"0": {"type": "SM", "desc": "开始"}},
            "combos": {"A": {"combo": "T(0) > 3", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    text = json.dumps(rule, indent=2, ensure_ascii=False)
    report = check_rule(coscore.compile(text))
    (place,) = locate(text, report.diagnostics)
    assert utf16(text, place.start, place.end) == ">"
    assert (place.line, place.column) == (10, 22)
    assert text.split("\n")[place.line - 1][place.column - 1] == ">"


def test_keys_values_missing_keys_and_the_whole_rule():
    text = '{"atoms": {"0": {"type": "XX", "desc": "a"}}, "combos": {"A.b": {"score": 1}}, "x": [1, {"y": 2}]}'
    places = locate(text, [diag("atoms.0.type"), diag("combos.A.b"), diag("combos.A.b.combo"), diag("comboMode"),
                           diag("x.1.y"), diag("rule")])
    spans = [None if p is None else text[p.start:p.end] for p in places]
    assert spans == ['"type"', '"A.b"', "{", "{", '"y"', None]
    assert places[3].start == 0  # the rule object lacks comboMode


def test_a_repeated_key_is_the_last_one_as_json_reads_it():
    text = '{"comboMode": "ADD", "comboMode": "MAX"}'
    (place,) = locate(text, [diag("comboMode")])
    assert place.start == text.rindex('"comboMode"')


def test_escapes_and_astral_characters_count_as_one_character():
    text = '{"combos": {"A": {"combo": "\\u00e9\\n\\ud83d\\ude00😀 > 3"}}}'
    places = locate(text, [diag("combos.A.combo", column) for column in range(1, 9)])
    decoded = json.loads(text)["combos"]["A"]["combo"]
    for column, place in enumerate(places, 1):
        raw = utf16(text, place.start, place.end)
        assert (json.loads(f'"{raw}"') if raw != '"' else "") == (decoded[column - 1] if column <= len(decoded) else "")
    assert utf16(text, places[4].start, places[4].end) == " "


def test_a_json_error_is_placed_where_the_text_stops_being_json():
    place = json_error_place('{\n  "atoms": }')
    assert (place.line, place.column, place.start) == (2, 12, 13)
    assert json_error_place("{}") is None
    assert locate("{not json", [diag("comboMode")]) == [None]


# -- any string of any rule-like object, written any way ------------------------------------------

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(["😀", '"', "\\", "\n", "\u2028"]),
                max_size=12)
keys = st.text(alphabet=st.sampled_from("abAB0.é😀 "), min_size=1, max_size=4)
values = st.recursive(texts | st.integers() | st.booleans() | st.none(),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=12)


def strings(value, path=()):
    """Every string in ``value`` with its path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from strings(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from strings(inner, (*path, str(i)))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=4), st.booleans(), st.sampled_from([None, 0, 2]),
       st.data())
def test_every_character_of_every_string_is_found(rule, ascii_only, indent, data):
    text = json.dumps(rule, ensure_ascii=ascii_only, indent=indent)
    found = [(path, value) for path, value in strings(rule) if "." not in "".join(path)]
    if not found:
        return
    path, value = data.draw(st.sampled_from(found))
    column = data.draw(st.integers(1, len(value) + 1))
    (place,) = locate(text, [diag(".".join(path), column)])
    raw = utf16(text, place.start, place.end)
    assert (json.loads(f'"{raw}"') if column <= len(value) else raw) == (value[column - 1] if column <= len(value) else '"')
    lines = text.split("\n")
    assert len("\n".join(lines[:place.line - 1])) + (place.line > 1) + place.column - 1 == len(
        utf16(text, 0, place.start))
