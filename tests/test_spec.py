"""The rule model: reading JSON gives frozen RuleSpec/AtomSpec/ComboSpec dataclasses."""
from __future__ import annotations

import dataclasses

import pytest

from coscore import RuleError
from coscore.diagnostics import json_type
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
