"""The rule model: reading JSON gives frozen RuleSpec/AtomSpec/ComboSpec dataclasses, or one
RuleError listing every problem with its place; warnings for suspicious but valid rules."""
from __future__ import annotations

import dataclasses

import pytest

import coscore
from coscore import RuleError
from coscore.diagnostics import json_type, shorten
from coscore.expr.nodes import Node
from coscore.reading import load, read
from coscore.spec import ATOM_KINDS, AtomSpec, ComboSpec, RuleSpec

RULE = {
    "atoms": {
        "0": {"type": "EM", "desc": "yes,是"},
        "1": {"type": "SM", "desc": "a|!b,~c"},
        "2": {"type": "OP", "desc": "0.6:前进,后退"},
        "3": {"type": "CS", "desc": "0.5:ab"},
    },
    "combos": {"A": {"combo": "G(0, T(0)) + M(1, T(1))", "score": 2, "mode": "value"},
               "B": {"combo": "G(2, T('*')) or G(3, T(0))", "score": 1.5, "mode": "logic"}},
    "comboMode": "MAX",
}


def test_atoms_are_read_into_keys_groups_and_thresholds():
    spec = read(RULE)
    assert isinstance(spec, RuleSpec) and list(spec.atoms) == ["0", "1", "2", "3"]
    assert spec.atoms["0"] == AtomSpec("0", "EM", "yes,是", keys=("yes", "是"))
    assert spec.atoms["1"].groups == (("a", "!b"), ("~c",))
    assert spec.atoms["2"] == AtomSpec("2", "OP", "0.6:前进,后退", keys=("前进", "后退"), threshold=0.6)
    assert spec.atoms["3"].threshold == 0.5 and spec.atoms["3"].keys == ("ab",)
    assert {a.kind for a in spec.atoms.values()} == set(ATOM_KINDS)


def test_combos_keep_rule_order_text_tree_score_and_mode():
    spec = read(RULE)
    assert [c.id for c in spec.combos] == ["A", "B"]
    first = spec.combos[0]
    assert isinstance(first, ComboSpec) and first.text == RULE["combos"]["A"]["combo"]
    assert isinstance(first.tree, Node.__args__) and (first.score, first.mode) == (2, "value")
    assert (spec.combo_mode, spec.dialect, spec.warnings, spec.source) == ("MAX", "coscore", (), RULE)


def test_the_model_is_frozen():
    spec = read(RULE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.combo_mode = "ADD"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.atoms["0"].desc = ""  # type: ignore[misc]


def test_dialect_keyword_and_warnings():
    spec = read({**RULE, "extra": 1, "dialect": "manual"}, dialect=None)
    assert spec.dialect == "manual"
    assert [(w.path, w.severity) for w in spec.warnings] == [("extra", "warning")]
    assert read(RULE, dialect="manual").dialect == "manual"


@pytest.mark.parametrize("source", ['{"atoms": {}}', b'\xef\xbb\xbf{"a": 1}', {"x": 1}])
def test_load_takes_json_text_bytes_or_a_mapping(source):
    assert isinstance(load(source), dict)


@pytest.mark.parametrize(("source", "message"), [("[1]", "a rule is a JSON object, not an array"), (b"\xff", "not UTF-8")])
def test_load_refuses_what_is_not_a_json_object(source, message):
    with pytest.raises(RuleError, match=message):
        load(source)


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "a boolean"), (1.5, "a number"), ("x", "a string"), ([], "an array"), ({}, "an object")],
)
def test_json_values_are_named_as_in_messages(value, name):
    assert json_type(value) == name


def test_long_messages_keep_their_start_and_say_their_length():
    assert shorten("abc") == "abc"
    cut = shorten("x" * 5000, 40)
    assert len(cut) == 40 and cut.startswith("x" * 20) and cut.endswith("… (5,000 characters)")
    assert len(shorten("y" * 10**6)) == 1000


# -- every problem at once, each with its place ---------------------------------------------

def test_malformed_rules_list_every_problem_at_once():
    rule = {
        "atoms": {"0": {"type": "XX", "desc": "a"}, "1": {"type": "OP", "desc": "abc"}, "2": {"type": "CS", "desc": "x:y"}},
        "combos": {
            "A": {"combo": "G(0, T(0))", "score": "5", "mode": "logic"},
            "B": {"combo": "Z(1)", "score": 1, "mode": "both"},
        },
        "comboMode": "SUM",
    }
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(rule)
    paths = [d.path for d in info.value.diagnostics if d.severity == "error"]
    assert paths == [
        "atoms.0.type", "atoms.1.desc", "atoms.2.desc",
        "combos.A.score", "combos.B.combo", "combos.B.mode", "comboMode",
    ]
    assert isinstance(info.value, ValueError)
    assert len(str(info.value).splitlines()) >= 7


@pytest.mark.parametrize(
    "rule, path",
    [
        ({"combos": {}, "comboMode": "ADD"}, "atoms"),
        ({"atoms": {}, "comboMode": "ADD"}, "combos"),
        ({"atoms": {}, "combos": {}}, "comboMode"),
        ({"atoms": {}, "combos": {}, "comboMode": "MAX"}, "combos"),
        ({"atoms": {}, "combos": {"A": {"combo": "1", "mode": "value"}}, "comboMode": "ADD"}, "combos.A.score"),
        ({"atoms": {}, "combos": {"A": {"combo": "1", "score": True, "mode": "value"}}, "comboMode": "ADD"}, "combos.A.score"),
        ({"atoms": {"0": {"type": "OP", "desc": "x:abc"}}, "combos": {}, "comboMode": "ADD"}, "atoms.0.desc"),
        ({"atoms": {"0": {"type": "SM"}}, "combos": {}, "comboMode": "ADD"}, "atoms.0.desc"),
        ({"atoms": [], "combos": {}, "comboMode": "ADD"}, "atoms"),
        ({"atoms": {}, "combos": {}, "comboMode": "ADD", "dialect": "klingon"}, "dialect"),
    ],
)
def test_each_malformed_part_is_named(rule, path):
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(rule)
    assert path in [d.path for d in info.value.diagnostics]


def test_bad_json_gives_line_and_column():
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile('{\n  "atoms": {},\n  "combos": {}\n  "comboMode": "ADD"\n}')
    assert "line 4, column 3" in str(info.value)


def test_too_deep_json_says_where_the_nesting_peaks():
    # strings holding brackets and escaped quotes are skipped when the depth is counted
    deep = "[" * 5000 + "]" * 5000
    text = '{"atoms": {"0": {"type": "EM", "desc": "[\\"[\\\\"}},\n "combos": ' + deep + "}"
    with pytest.raises(coscore.RuleError) as info:
        coscore.compile(text)
    assert "line 2, column 5011: nested too deeply (5,001 levels)" in str(info.value)


def test_warnings_for_suspicious_but_valid_rules():
    rule = coscore.compile(
        {
            "atoms": {"0": {"type": "SM", "desc": "a,,b|"}, "1": {"type": "OP", "desc": "1.5:ab,"}, "2": {"type": "CS", "desc": "0.5: "}},
            "combos": {"A": {"combo": "M(0, T(0)) + M(1, T(0)) + M(2, T(0))", "score": 1, "mode": "value"}},
            "comboMode": "ADD",
        }
    )
    messages = [(w.path, w.message) for w in rule.warnings]
    assert messages.count(("atoms.0.desc", "empty option never matches")) == 2
    assert ("atoms.1.desc", "threshold 1.5 is outside [0, 1]: the atom never hits") in messages
    assert ("atoms.1.desc", "empty key has similarity 0") in messages
    assert ("atoms.2.desc", "empty key has similarity 0") in messages
    assert all(w.severity == "warning" for w in rule.warnings)
