"""The exam file (coscore.exam): YAML and JSON read with lines, every refusal naming the place
and the line, the YAML 1.1 trap for column names, the JSON Schema agreeing with coscore's own
checks, the blanks each item lists against those its rule reads, and load_exam raising
ExamError and nothing else whatever it is given."""
from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import tempfile
import textwrap
import time
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from coscore.exam import (
    Exam,
    ExamError,
    ExamItem,
    ExamProblem,
    ExamSpec,
    blank_need,
    is_exam_file,
    load_exam,
    read_exam,
)
from coscore.exam.file import MAX_BYTES, MAX_DEPTH, MAX_VALUES
from support import examples

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"


def rule_reading(*combos: str) -> dict:
    """An inline rule whose combos are ``combos`` (logic mode, one EM atom ``0`` on "a")."""
    return {"atoms": {"0": {"type": "EM", "desc": "a"}},
            "combos": {chr(65 + i): {"combo": c, "score": 1, "mode": "logic"} for i, c in enumerate(combos)},
            "comboMode": "ADD"}


T0 = rule_reading("G(0, T(0))")


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problems_of(source, **options) -> list[ExamProblem]:
    with pytest.raises(ExamError) as info:
        load_exam(source, **options)
    assert info.value.problems
    return info.value.problems


def the_problem(source, **options) -> ExamProblem:
    found = problems_of(source, **options)
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    """The demo rules in ``tmp_path/rules``."""
    folder = tmp_path / "rules"
    folder.mkdir()
    for path in DEMO.glob("*.rule.json"):
        shutil.copy(path, folder / path.name)
    return folder


# -- reading ----------------------------------------------------------------------------------

EXAM_YAML = """
    name: 2026 science midterm
    id: 学号
    items:
      - name: q1
        rule: rules/lab-tools.rule.json
        blanks: [q1]
        label: q1_mark
        label2: q1_mark2
      - name: q2
        rule:
          atoms:
            0: {type: SM, desc: "红灯|红色"}
          combos:
            A: {combo: "G(0, T(0)) and not Q(1)", score: 5, mode: logic}
          comboMode: ADD
        blanks: [q2_a, q2_b]
        weight: 2.5
    """


def test_a_yaml_exam_with_file_and_inline_rules(tmp_path, rules):
    exam = load_exam(write(tmp_path, "exam.yaml", EXAM_YAML))
    assert isinstance(exam, Exam)
    assert (exam.name, exam.id, exam.item_column, exam.layout) == ("2026 science midterm", "学号", None, "wide")
    assert exam.source == str(tmp_path / "exam.yaml")
    q1, q2 = exam.items
    assert isinstance(q1, ExamItem) and isinstance(q1.rule, coscore.Rule)
    assert (q1.name, q1.blanks, q1.label, q1.label2, q1.weight) == ("q1", ("q1",), "q1_mark", "q1_mark2", 1.0)
    assert q1.rule_path == str(tmp_path / "rules" / "lab-tools.rule.json")
    assert (q2.name, q2.blanks, q2.label, q2.weight, q2.rule_path) == ("q2", ("q2_a", "q2_b"), None, 2.5, None)
    assert q2.rule.score(["红灯", "x"]).score == 5.0 and q2.rule.score(["红灯", ""]).score == 0.0  # Q: empty
    assert exam.item("q2") is q2 and exam.names == ("q1", "q2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        exam.name = "other"  # type: ignore[misc]


def test_the_same_exam_as_json_and_as_a_mapping(tmp_path, rules, monkeypatch):
    as_yaml = load_exam(write(tmp_path, "exam.yaml", EXAM_YAML))
    data = yaml.safe_load(textwrap.dedent(EXAM_YAML))
    data["items"][1]["rule"]["atoms"] = {"0": data["items"][1]["rule"]["atoms"][0]}
    as_json = load_exam(write(tmp_path, "exam.json", json.dumps(data, ensure_ascii=False, indent=1)))
    as_mapping = load_exam(data, base=tmp_path)
    monkeypatch.chdir(tmp_path)
    from_cwd = load_exam(data)
    for exam in (as_json, as_mapping, from_cwd):
        assert [(i.name, i.blanks, i.label, i.label2, i.weight) for i in exam.items] == \
            [(i.name, i.blanks, i.label, i.label2, i.weight) for i in as_yaml.items]
        assert exam.items[1].rule.score(["红色", "x"]).score == 5.0
    assert as_mapping.source is None
    assert as_mapping.items[0].rule_path == os.path.join(tmp_path, "rules/lab-tools.rule.json")
    assert from_cwd.items[0].rule_path == "rules/lab-tools.rule.json"
    assert load_exam(tmp_path / "exam.yaml").items[0].name == "q1"  # a pathlib.Path


def test_read_exam_validates_the_structure_without_compiling(tmp_path, rules):
    write(tmp_path, "rules/bad.rule.json", '{"atoms": {}, "combos": {"A": {"combo": "T(0).x", "score": 1, '
          '"mode": "logic"}}, "comboMode": "ADD"}')
    path = write(tmp_path, "exam.yaml", """
        item_column: item
        items:
          - {name: q1, rule: rules/bad.rule.json, blanks: [answer]}
          - {name: q2, rule: {atoms: {}, combos: {A: {combo: "Q(0)", score: 1, mode: logic}}, comboMode: ADD},
             blanks: [answer], weight: 0}
        """)
    spec = read_exam(path)
    assert isinstance(spec, ExamSpec) and spec.layout == "long" and spec.item_column == "item"
    q1, q2 = spec.items
    assert q1.rule == (tmp_path / "rules/bad.rule.json").read_text()
    assert q1.rule_path == str(tmp_path / "rules/bad.rule.json")
    assert q2.rule == {"atoms": {}, "combos": {"A": {"combo": "Q(0)", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}
    assert q2.rule_path is None and q2.weight == 0.0
    assert (q1.line, q2.line) == (3, 4)
    problem = the_problem(path)  # compiling finds the rule's problem
    assert problem.where == "items[0] (q1).rule" and problem.line == 3
    assert problem.message.startswith("rules/bad.rule.json: combos.A.combo, column 5: ")


def test_items_that_share_a_rule_file_share_its_compiled_rule(tmp_path, rules):
    path = write(tmp_path, "exam.yaml", """
        item_column: item
        items:
          - {name: q1, rule: rules/lane-change.rule.json, blanks: [answer]}
          - {name: q2, rule: rules/lane-change.rule.json, blanks: [answer], label: mark}
          - {name: q3, rule: rules/lab-tools.rule.json, blanks: [answer], label: mark}
        """)
    q1, q2, q3 = load_exam(path).items
    assert q1.rule is q2.rule and q1.rule is not q3.rule
    assert q2.rule.score(["选择甲"]).score == coscore.compile(DEMO / "lane-change.rule.json").score(["选择甲"]).score


def test_yaml_names_are_read_as_written(tmp_path):
    """YAML 1.1 reads no/yes/on as booleans and 1 as a number: a column or item named so keeps its text."""
    path = write(tmp_path, "exam.yaml", """
        id: no
        items:
          - name: 1
            rule: {atoms: {}, combos: {A: {combo: "T(-9) == ''", score: 1, mode: logic}}, comboMode: ADD}
            blanks: [yes, 1, on, off, 1.50, 0x1F, 2026-01-01, .inf, !!str 7]
            label: NO
          - name: yes
            rule: {atoms: {}, combos: {A: {combo: "T(0) == ''", score: 1, mode: logic}}, comboMode: ADD}
            blanks: ['off_']
        """)
    exam = load_exam(path)
    assert exam.id == "no" and exam.names == ("1", "yes")
    assert exam.items[0].blanks == ("yes", "1", "on", "off", "1.50", "0x1F", "2026-01-01", ".inf", "7")
    assert exam.items[0].label == "NO" and exam.items[1].blanks == ("off_",)


def test_an_inline_rule_gets_yaml_types_text_keys_and_its_order(tmp_path):
    path = write(tmp_path, "exam.yaml", """
        items:
          - name: q1
            blanks: [a]
            rule:
              atoms:
                0: {type: EM, desc: "1"}
                1: {type: OP, desc: "0.5:abc"}
              combos:
                B: {combo: "G(0, T(0))", score: 2, mode: logic}
                A: {combo: "M(1, T(0))", score: 1.5, mode: value}
              comboMode: MAX
        """)
    rule = read_exam(path).items[0].rule
    assert rule == {"atoms": {"0": {"type": "EM", "desc": "1"}, "1": {"type": "OP", "desc": "0.5:abc"}},
                    "combos": {"B": {"combo": "G(0, T(0))", "score": 2, "mode": "logic"},
                               "A": {"combo": "M(1, T(0))", "score": 1.5, "mode": "value"}},
                    "comboMode": "MAX"}
    assert isinstance(rule, dict) and list(rule["combos"]) == ["B", "A"]
    assert type(rule["combos"]["B"]["score"]) is int and type(rule["combos"]["A"]["score"]) is float
    assert load_exam(path).items[0].rule.combo_ids == ["B", "A"]


# -- refusals, each with its place and line ------------------------------------------------------

GOOD_ITEM = "rule: {atoms: {}, combos: {A: {combo: \"T(0) == ''\", score: 1, mode: logic}}, comboMode: ADD}"

REFUSALS = [
    # (the exam, where, line, part of the message); <rule> stands for a good inline rule
    ("[1, 2]", "", 1, "an exam is a mapping with items, not a list"),
    ("name: x", "items", 1, "missing: list the exam's items"),
    ("items: {q1: 1}", "items", 1, "must be a list of items, not a mapping"),
    ("items: []", "items", 1, "is empty: an exam has at least one item"),
    ("itemz: []\nitems:\n  - {name: q1, blanks: [a], <rule>}", "", 1,
     "unknown key 'itemz' (did you mean 'items'? an exam's keys are name, id, item_column, items)"),
    ("items:\n  - q1", "items[0]", 2, "an item is a mapping with name, rule and blanks, not text"),
    ("items:\n  - {blanks: [a], <rule>}", "items[0].name", 2, "missing: give the item a name"),
    ("items:\n  - {name: '', blanks: [a], <rule>}", "items[0].name", 2, "is empty: give the item's name"),
    ("items:\n  - {name: , blanks: [a], <rule>}", "items[0].name", 2, "is empty (null)"),
    ("items:\n  - {name: [q1], blanks: [a], <rule>}", "items[0].name", 2, "must be the item's name (text), not a list"),
    ("items:\n  - {name: total, blanks: [a], <rule>}", "items[0].name", 2, "'total' is reserved"),
    ("items:\n  - name: q1\n    blanks: [a]", "items[0] (q1).rule", 2, "missing: give the item's rule file"),
    ("items:\n  - name: q1\n    blanks: [a]\n    rule: 5", "items[0] (q1).rule", 4,
     "must be the path of the item's rule file or the rule itself (a mapping), not a number"),
    ("items:\n  - name: q1\n    blanks: [a]\n    rule: ''", "items[0] (q1).rule", 4, "is empty"),
    ("items:\n  - name: q1\n    blanks: [a]\n    rule: nowhere.json", "items[0] (q1).rule", 4,
     "nowhere.json: cannot read it: no such file"),
    ("items:\n  - name: q1\n    <rule>", "items[0] (q1).blanks", 2, "missing: list the item's blank columns"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: q1_a", "items[0] (q1).blanks", 4,
     "must be a list of columns: write [q1_a] (a list, even of one column)"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: []", "items[0] (q1).blanks", 4, "is empty"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: {a: 1}", "items[0] (q1).blanks", 4,
     "must be a list of columns, not a mapping"),
    ("items:\n  - name: q1\n    <rule>\n    blanks:\n      - a\n      - a", "items[0] (q1).blanks[1]", 6,
     "column 'a' is listed twice"),
    ("items:\n  - name: q1\n    <rule>\n    blanks:\n      - a\n      - [b]", "items[0] (q1).blanks[1]", 6,
     "must be a column name (text), not a list"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: ['']", "items[0] (q1).blanks[0]", 4, "is empty"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label:", "items[0] (q1).label", 5, "is empty (null)"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label2: m2", "items[0] (q1).label2", 5,
     "is given without label"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: m\n    label2: m", "items[0] (q1).label2", 6,
     "column 'm' is also label"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    lable: m", "items[0] (q1)", 5,
     "unknown key 'lable' (did you mean 'label'? an item's keys are name, rule, blanks, label, label2, weight)"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: '2'", "items[0] (q1).weight", 5,
     "must be a number (0 or more), not text"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: yes", "items[0] (q1).weight", 5,
     "must be a number (0 or more), not true/false"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: -1", "items[0] (q1).weight", 5,
     "must be 0 or more, not -1"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: .inf", "items[0] (q1).weight", 5,
     "must be a finite number"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: .nan", "items[0] (q1).weight", 5,
     "must be a finite number"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    weight: 1.0e+400", "items[0] (q1).weight", 5,
     "must be a finite number"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n  - name: q1\n    <rule>\n    blanks: [b]",
     "items[1] (q1).name", 5, "'q1' is also the name of items[0] (q1): item names must be unique"),
    # the wide layout: each column belongs to one item, and is a blank or a mark column
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n  - name: q2\n    <rule>\n    blanks: [a]",
     "items[1] (q2).blanks[0]", 7, "column 'a' is also a blank of items[0] (q1): in the wide layout"),
    ("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n  - name: q2\n    <rule>\n    blanks: [b]\n    label: a",
     "items[1] (q2).label", 8,
     "column 'a' is a blank of items[0] (q1): a column cannot be both a blank and a mark column"),
    (("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: m\n"
      "  - name: q2\n    <rule>\n    blanks: [b]\n    label: n\n    label2: m"), "items[1] (q2).label2", 10,
     "column 'm' is also the label of items[0] (q1): in the wide layout each item has its own mark columns"),
    (("items:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: m\n"
      "  - name: q2\n    <rule>\n    blanks: [b]\n    label: m"), "items[1] (q2).label", 9,
     "column 'm' is also the label of items[0] (q1): in the wide layout each item has its own mark columns"),
    ("id: sid\nitems:\n  - name: q1\n    <rule>\n    blanks: [sid]", "items[0] (q1).blanks[0]", 5,
     "column 'sid' is the exam's id: it cannot be a blank"),
    ("id: sid\nitems:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: sid", "items[0] (q1).label", 6,
     "column 'sid' is the exam's id: it cannot be a mark column"),
    # the long layout: the item column is neither a blank nor a mark column, nor the id
    ("item_column: item\nitems:\n  - name: q1\n    <rule>\n    blanks: [item]", "items[0] (q1).blanks[0]", 5,
     "column 'item' is the exam's item_column: it cannot be a blank"),
    ("item_column: item\nitems:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: item",
     "items[0] (q1).label", 6, "column 'item' is the exam's item_column: it cannot be a mark column"),
    ("item_column: who\nid: who\nitems:\n  - name: q1\n    <rule>\n    blanks: [a]", "item_column", 1,
     "column 'who' is also the id column"),
    ("item_column: item\nitems:\n  - name: q1\n    <rule>\n    blanks: [a]\n    label: a",
     "items[0] (q1).label", 6, "column 'a' is a blank of items[0] (q1)"),
    # what the file holds
    ("items:\n  - name: q1\n    name: q2\n    <rule>\n    blanks: [a]", "", 3,
     "duplicate key 'name' (first on line 2): give each key once"),
    ("items:\n  - &first {name: q1, blanks: [a], <rule>}", "", 2,
     "anchor &first: anchors and aliases are not allowed"),
    ("items:\n  - name: !!python/name:os.system q1\n    blanks: [a]\n    <rule>", "", 2,
     "tag tag:yaml.org,2002:python/name:os.system is not allowed"),
    ("items:\n  - name: !custom q1\n    blanks: [a]\n    <rule>", "", 2, "tag !custom is not allowed"),
    ("items:\n  - name: q1\n    blanks: !!set {a}\n    <rule>", "", 3, "tag tag:yaml.org,2002:set is not allowed"),
    ("items:\n  - name: q1\n    blanks: [a]\n    weight: !!int x1\n    <rule>", "", 4, "'x1' is not a valid int"),
    ("items:\n  - name: q1\n   blanks: [a]", "", 3, "not valid YAML at column 4"),
    ("a: 1\n---\nb: 2", "", 2, "not valid YAML at column 1: expected a single document in the stream"),
    ("items:\n  - name: q1\x00", "", 2, "not valid YAML: unacceptable character"),
    ("# nothing", "", None, "empty: an exam file is a mapping with items"),
    ("", "", None, "empty: an exam file is a mapping with items"),
]


@pytest.mark.parametrize("text, where, line, message", REFUSALS,
                         ids=[f"{r[1] or 'file'}:{r[3][:40]}" for r in REFUSALS])
def test_every_refusal_names_the_place_and_the_line(tmp_path, text, where, line, message):
    path = write(tmp_path, "exam.yaml", text.replace("<rule>", GOOD_ITEM))
    found = problems_of(path)
    matching = [p for p in found if message in p.message]
    assert matching, found
    assert (matching[0].where, matching[0].line, matching[0].severity) == (where, line, "error"), found


def test_aliases_are_refused_and_never_expanded(tmp_path):
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)) + "items: *i\n"
    path = write(tmp_path, "laughs.yaml", laughs)
    start = time.perf_counter()
    found = problems_of(path)
    assert time.perf_counter() - start < 2
    assert any(p.message.startswith("alias *a: anchors and aliases are not allowed") and p.line == 2 for p in found)
    assert any(p.message.startswith("anchor &a:") and p.line == 1 for p in found)
    shared = write(tmp_path, "shared.yaml", f"""
        items:
          - name: q1
            {GOOD_ITEM}
            blanks: &cols [a]
          - name: q2
            {GOOD_ITEM}
            blanks: *cols
        """)
    lines = {(p.line, p.message.split(":")[0]) for p in problems_of(shared)}
    assert {(4, "anchor &cols"), (7, "alias *cols")} <= lines


@pytest.mark.parametrize("fast", [True, False])
def test_a_yaml_file_of_too_many_values_is_refused_quickly(tmp_path, monkeypatch, fast):
    """Reading YAML costs some microseconds a value: a file of tiny values is cut off at
    MAX_VALUES, with libyaml's parser and with PyYAML's own alike. (PyYAML's own parser, ten
    times slower, is cut off at a tenth of it: the count is the same code; libyaml's run
    shows the limit itself.)"""
    from coscore.exam import file

    limit = MAX_VALUES
    if not fast:
        monkeypatch.setattr(file, "_FastExamLoader", None)
        limit = MAX_VALUES // 10
        monkeypatch.setattr(file, "MAX_VALUES", limit)
    elif file._FastExamLoader is None:
        pytest.skip("libyaml is not installed")
    rows = limit // 10 + 10
    path = write(tmp_path, "many.yaml", "items:\n" + "  - [a, b, c, d, e, f, g, h, i]\n" * rows)
    start = time.perf_counter()
    found = problems_of(path)
    assert any(f"more than {limit:,} values" in p.message for p in found), found
    assert time.perf_counter() - start < (30 if fast else 10)


def test_duplicate_keys_are_refused_in_json_too(tmp_path):
    path = write(tmp_path, "exam.json", '{"items": [\n  {"name": "q1",\n   "name": "q2", "blanks": ["a"],\n'
                 '   "rule": {"atoms": {}, "combos": {}, "comboMode": "ADD"}}],\n "items": []}')
    found = problems_of(path)
    assert [(p.where, p.line, p.message) for p in found if "duplicate" in p.message] == [
        ("", 3, "duplicate key 'name' (first on line 2): give each key once"),
        ("", 5, "duplicate key 'items' (first on line 1): give each key once")]


@pytest.mark.parametrize("text, line, message", [
    ('{"items": [1,]}', 1, "not valid JSON at column 14: expecting a value"),
    ('{"items":\n  [{"name": "q1"}\n  {"name": "q2"}]}', 3, "not valid JSON at column 3: expecting ',' or ']'"),
    ('{"items": []} x', 1, "not valid JSON at column 15: extra data after the top-level value"),
    ('{items: []}', 1, "not valid JSON at column 2: expecting a key in double quotes"),
    ('{"items": "\x01"}', 1, "not valid JSON at column 12: Invalid control character at"),
    ('{"items": [' + "9" * 5000 + "]}", 1, "a number with too many digits"),
    ('[' * 100 + ']' * 100, 1, f"nested more than {MAX_DEPTH} levels deep"),
])
def test_json_syntax_errors_name_line_and_column(tmp_path, text, line, message):
    problem = the_problem(write(tmp_path, "exam.json", text))
    assert (problem.where, problem.line) == ("", line) and message in problem.message, problem


def test_json_values_are_typed(tmp_path):
    """Unlike YAML's plain scalars, a JSON number is not a name."""
    path = write(tmp_path, "exam.json", json.dumps({"items": [{"name": 1, "blanks": [True], "rule": T0}]}, indent=1))
    assert [(p.where, p.line, p.message) for p in problems_of(path)] == [
        ("items[0].name", 4, "must be the item's name (text), not a number"),
        ("items[0].blanks[0]", 6, "must be a column name (text), not true/false")]


def test_nesting_size_and_encoding_limits(tmp_path):
    deep = "items:\n  - name: q1\n    blanks: [a]\n    rule: " + "[" * 200 + "]" * 200
    problem = the_problem(write(tmp_path, "deep.yaml", deep))
    assert (problem.line, problem.message) == (4, f"nested more than {MAX_DEPTH} levels deep")
    very_deep = "[" * 200_000 + "]" * 200_000  # no RecursionError, no crash
    assert the_problem(write(tmp_path, "very.yaml", very_deep)).message == f"nested more than {MAX_DEPTH} levels deep"
    assert the_problem(write(tmp_path, "very.json", very_deep)).message.endswith(
        f"nested more than {MAX_DEPTH} levels deep")
    big = write(tmp_path, "big.yaml", b"items: []\n" + b"#" * MAX_BYTES)
    assert the_problem(big).message == "larger than 16 MiB: not an exam file"
    latin = write(tmp_path, "latin.yaml", "items:\n  - name: caf\xe9\n".encode("latin-1"))
    assert (the_problem(latin).line, the_problem(latin).message) == (
        2, "invalid UTF-8 (byte e9); an exam file must be UTF-8 encoded")
    bom = write(tmp_path, "bom.yaml", "\ufeffitems:\n  - {name: q1, blanks: [a], " + GOOD_ITEM + "}\n")
    assert load_exam(bom).names == ("q1",)


def test_files_that_cannot_be_read(tmp_path):
    assert the_problem(tmp_path / "missing.yaml").message == "cannot read it: no such file"
    (tmp_path / "folder.yaml").mkdir()
    assert the_problem(tmp_path / "folder.yaml").message == "is a folder, not an exam file"


def test_too_many_items(tmp_path):
    items = [{"name": f"q{i}", "blanks": [f"a{i}"], "rule": T0} for i in range(1001)]
    problem = the_problem({"items": items})
    assert problem.where == "items"
    assert problem.message == "1,001 items: an exam has at most 1,000 (only the first 1,000 are checked)"
    assert len(load_exam({"items": items[:1000]}).items) == 1000


# -- rules ---------------------------------------------------------------------------------------


def test_rule_files_that_cannot_be_used(tmp_path, rules):
    write(tmp_path, "rules/text.rule.json", "not json")
    write(tmp_path, "rules/list.rule.json", "[1]")
    latin = '{"atoms": {}, "combos": {}, "comboMode": "ADD", "x": "\xe9"}'.encode("latin-1")
    write(tmp_path, "rules/latin.rule.json", latin)
    (tmp_path / "rules/folder.rule.json").mkdir()
    path = write(tmp_path, "exam.yaml", """
        items:
          - {name: q1, rule: rules/missing.rule.json, blanks: [a]}
          - {name: q2, rule: rules/text.rule.json, blanks: [b]}
          - {name: q3, rule: rules/list.rule.json, blanks: [c]}
          - {name: q4, rule: rules/latin.rule.json, blanks: [d]}
          - {name: q5, rule: rules/folder.rule.json, blanks: [e]}
          - {name: q6, rule: rules/lab-tools.rule.json, blanks: [f]}
        """)
    assert [(p.where, p.line, p.message) for p in problems_of(path)] == [
        ("items[0] (q1).rule", 2, "rules/missing.rule.json: cannot read it: no such file"),
        ("items[1] (q2).rule", 3, "rules/text.rule.json: rule: invalid JSON at line 1, column 1: Expecting value"),
        ("items[2] (q3).rule", 4, ("rules/list.rule.json: rule: a rule file holds a JSON object (atoms, combos, "
                                   "comboMode), not an array")),
        ("items[3] (q4).rule", 5, ("rules/latin.rule.json: invalid UTF-8 at line 1 (byte e9); a rule file must be "
                                   "UTF-8 encoded")),
        ("items[4] (q5).rule", 6, "rules/folder.rule.json: is a folder, not a rule file")]


def test_an_invalid_rules_diagnostics_are_its_items_problems(tmp_path, rules):
    write(tmp_path, "rules/q2.rule.json", json.dumps(rule_reading("T(0).upper() == 'A'", "G(7, T(0))")))
    path = write(tmp_path, "exam.yaml", """
        items:
          - name: q1
            rule: rules/lab-tools.rule.json
            blanks: [q1]
          - name: q2
            rule: rules/q2.rule.json
            blanks: [q2]
          - name: q3
            blanks: [q3]
            rule:
              atoms: {}
              combos:
                A: {combo: "T(0) == 'x'", score: 1, mode: logic}
                B:
                  combo: "T(0) +* 2"
                  score: 1
                  mode: logic
              comboMode: ADD
        """)
    with pytest.raises(ExamError) as caught:
        load_exam(path)
    error = caught.value
    assert error.source == str(path)
    assert [(p.where, p.line, p.message) for p in error.problems] == [
        ("items[1] (q2).rule", 6, "rules/q2.rule.json: combos.A.combo, column 5: attribute access is not allowed"),
        ("items[1] (q2).rule", 6, "rules/q2.rule.json: combos.B.combo, column 3: atom '7' does not exist (atoms: 0)"),
        ("items[2] (q3).rule", 15, "combos.B.combo, column 7: starred arguments are not allowed"),
    ]
    assert str(error).splitlines() == [p.located(str(path)) for p in error.problems]
    assert str(error).splitlines()[0] == (f"{path}:6: items[1] (q2).rule: rules/q2.rule.json: combos.A.combo, "
                                          "column 5: attribute access is not allowed")


def test_every_problem_is_reported_at_once_one_per_line(tmp_path, rules):
    path = write(tmp_path, "exam.yaml", """
        nme: midterm
        items:
          - name: q1
            rule: rules/lab-tools.rule.json
            blanks: q1
          - name: q2
            rule: {atoms: {}, combos: {A: {combo: "Z", score: 1, mode: logic}}, comboMode: ADD}
            blanks: [q2]
            weight: -2
          - name: q3
            rule: rules/lane-change.rule.json
            blanks: [q3_a, q3_b]
        """)
    with pytest.raises(ExamError) as caught:
        load_exam(path)
    error = caught.value
    assert [line.split(": ", 2)[:2] for line in str(error).splitlines()] == [
        [f"{path}:1", "unknown key 'nme' (did you mean 'name'? an exam's keys are name, id, item_column, items)"],
        [f"{path}:5", "items[0] (q1).blanks"],
        [f"{path}:7", "items[1] (q2).rule"],
        [f"{path}:9", "items[1] (q2).weight"],
        [f"{path}:12", "items[2] (q3).blanks"],
    ]
    assert all(p.severity == "error" for p in error.problems) and error.errors == error.problems


def test_rule_paths_refused_where_rules_must_be_inline(tmp_path, rules):
    path = write(tmp_path, "exam.yaml", f"""
        items:
          - {{name: q1, rule: rules/lab-tools.rule.json, blanks: [a]}}
          - {{name: q2, blanks: [b], {GOOD_ITEM}}}
        """)
    problem = the_problem(path, allow_files=False)
    assert (problem.where, problem.line) == ("items[0] (q1).rule", 2)
    assert problem.message == "rules must be inline here: give the rule itself (a mapping), not the path " \
                              "'rules/lab-tools.rule.json'"
    assert the_problem({"items": [{"name": "q1", "rule": "x.json", "blanks": ["a"]}]},
                       allow_files=False).message.startswith("rules must be inline here")
    assert load_exam({"items": [{"name": "q1", "rule": T0, "blanks": ["a"]}]}, allow_files=False).names == ("q1",)


# -- the blanks each rule reads -------------------------------------------------------------------


@pytest.mark.parametrize("combos, need", [
    (["G(0, T(0))"], (1, False)),
    (["G(0, T(2))", "L(1) > 1"], (3, False)),
    (["T(-2) == 'a'"], (2, False)),
    (["Q(0) or F(4) > 1"], (5, False)),  # F(4) runs only sometimes: it is read all the same
    (["T(3) == 'a' if Q(0) else S(1) > 2"], (4, False)),
    (["G(0, T('*'))"], (0, True)),
    (["G(0, T('*')) and Q(1)"], (2, True)),
    (["T(1 + 1) == 'a'"], (0, True)),
    (["T(True) == 'a'"], (2, False)),  # True is 1, as the evaluator reads it
    (["1 > 0"], (0, False)),
])
def test_blank_need(combos, need):
    rule = coscore.compile(rule_reading(*combos))
    assert blank_need(rule) == need


def test_blank_need_of_the_demo_rules():
    assert {p.name: blank_need(coscore.compile(p)) for p in sorted(DEMO.glob("*.rule.json"))} == {
        "lab-tools.rule.json": (1, False), "lane-change.rule.json": (1, False),
        "shortest-path.rule.json": (0, True), "traffic-light.rule.json": (0, True)}


@pytest.mark.parametrize("combo, blanks, message", [
    ("G(0, T(1))", ["a"], "lists 1 blank ('a'), but its rule reads 2 blanks (T(0)…T(1)): list 2 columns"),
    ("G(0, T(0))", ["a", "b", "c"], ("lists 3 blanks ('a', 'b', 'c'), but its rule reads 1 blank (T(0)): columns "
                                     "'b', 'c' would never be read; list 1 column")),
    ("G(0, T(1)) and Q('*')", ["a"], ("lists 1 blank ('a'), but its rule reads at least 2 blanks (T(0)…T(1), and any "
                                      "number with '*'): list 2 columns or more")),
    ("1 > 0", ["a"], "lists 1 blank ('a'), but its rule reads no blank: column 'a' would never be read"),
])
def test_an_item_lists_the_blanks_its_rule_reads(tmp_path, combo, blanks, message):
    problem = the_problem({"items": [{"name": "q1", "rule": rule_reading(combo), "blanks": blanks}]})
    assert (problem.where, problem.line, problem.message) == ("items[0] (q1).blanks", None, message)
    text = yaml.safe_dump({"items": [{"name": "q1", "rule": rule_reading(combo), "blanks": blanks}]}, sort_keys=False)
    line = text.splitlines().index("  blanks:") + 1
    assert the_problem(write(tmp_path, "exam.yaml", text)).line == line


@pytest.mark.parametrize("combo, blanks", [
    ("G(0, T(1))", ["a", "b"]),
    ("G(0, T('*'))", ["a"]),
    ("G(0, T('*'))", ["a", "b", "c"]),
    ("G(0, T(1)) or L('*') > 2", ["a", "b", "c", "d"]),
])
def test_rules_reading_any_number_take_more(combo, blanks):
    exam = load_exam({"items": [{"name": "q1", "rule": rule_reading(combo), "blanks": blanks}]})
    assert exam.items[0].blanks == tuple(blanks)


# -- the package's face -------------------------------------------------------------------------


def test_exported_from_coscore():
    assert coscore.load_exam is load_exam and coscore.Exam is Exam and coscore.ExamItem is ExamItem
    assert coscore.ExamError is ExamError and issubclass(ExamError, ValueError)
    assert {"load_exam", "Exam", "ExamItem", "ExamError"} <= set(coscore.__all__) <= set(dir(coscore))
    import coscore.exam as package

    assert set(package.__all__) >= {"load_exam", "read_exam", "Exam", "ExamItem", "ExamError", "ExamProblem",
                                         "is_exam_file", "blank_need"}


def test_exam_item_lookup_and_problems():
    exam = load_exam({"name": "m", "items": [{"name": "q1", "rule": T0, "blanks": ["a"]},
                                             {"name": "q2", "rule": T0, "blanks": ["b"]}]})
    assert exam.item("q1").blanks == ("a",) and exam.layout == "wide"
    with pytest.raises(ExamError) as caught:
        exam.item("q3")
    error = caught.value
    assert str(error) == "<exam>: items: no item is called 'q3' (items: q1, q2)"
    problem = ExamProblem("items[0] (q1).rule", "combos.A: x", 3, "warning")
    assert str(problem) == "items[0] (q1).rule: warning: combos.A: x"
    assert problem.located("e.yaml") == "e.yaml:3: items[0] (q1).rule: warning: combos.A: x"
    assert problem.to_dict() == {"where": "items[0] (q1).rule", "message": "combos.A: x", "line": 3,
                                 "severity": "warning"}
    assert str(ExamProblem("", "two\nlines")) == "two lines"


def test_is_exam_file(tmp_path):
    assert is_exam_file(tmp_path / "missing.yaml") and is_exam_file(str(tmp_path / "x.YML"))
    assert is_exam_file(write(tmp_path, "exam.json", '{"items": []}'))
    assert not is_exam_file(DEMO / "lab-tools.rule.json")
    assert not is_exam_file(tmp_path / "missing.json")
    assert not is_exam_file(write(tmp_path, "list.json", '[{"items": 1}]'))
    assert not is_exam_file(write(tmp_path, "bad.json", "{items"))
    assert not is_exam_file(write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000))
    assert not is_exam_file(write(tmp_path, "exam.csv", "items\n"))
    (tmp_path / "folder.json").mkdir()
    assert not is_exam_file(tmp_path / "folder.json")
    assert not is_exam_file(b"\x00")  # type: ignore[arg-type]


# -- the schema ----------------------------------------------------------------------------------

SCHEMA = json.loads((resources.files("coscore.exam") / "exam.schema.json").read_text(encoding="utf-8"))
ITEM = {"name": "q1", "rule": "lab-tools.rule.json", "blanks": ["q1"]}


def item(**changes) -> dict:
    return {k: v for k, v in {**ITEM, **changes}.items() if v is not ...}


#: (the exam, whether it is valid): the schema and coscore decide alike
STRUCTURES = [
    ({"items": [ITEM]}, True),
    ({"name": "m", "id": "sid", "items": [item(label="m1", label2="m2", weight=0.5),
                                          item(name="q2", rule=T0, blanks=["a", "b"], weight=0)]}, True),
    ({"item_column": "item", "items": [item(blanks=["answer"], label="mark"),
                                       item(name="q2", rule="lane-change.rule.json", blanks=["answer"], label="mark")]},
     True),
    ({"items": [item(rule={})]}, True),
    ({}, False),
    ([ITEM], False),
    ({"items": []}, False),
    ({"items": ITEM}, False),
    ({"items": [item(name=f"q{i}", blanks=[f"a{i}"]) for i in range(1001)]}, False),
    ({"items": [ITEM], "nme": "m"}, False),
    ({"items": [ITEM], "name": ""}, False),
    ({"items": [ITEM], "name": 3}, False),
    ({"items": [ITEM], "id": ""}, False),
    ({"items": [ITEM], "item_column": None}, False),
    ({"items": ["q1"]}, False),
    ({"items": [item(name=...)]}, False),
    ({"items": [item(name="")]}, False),
    ({"items": [item(name=1)]}, False),
    ({"items": [item(name="total")]}, False),
    ({"items": [item(rule=...)]}, False),
    ({"items": [item(rule="")]}, False),
    ({"items": [item(rule=5)]}, False),
    ({"items": [item(rule=[T0])]}, False),
    ({"items": [item(blanks=...)]}, False),
    ({"items": [item(blanks="q1")]}, False),
    ({"items": [item(blanks=[])]}, False),
    ({"items": [item(blanks=["a", "a"])]}, False),
    ({"items": [item(blanks=["a", 1])]}, False),
    ({"items": [item(blanks=[""])]}, False),
    ({"items": [item(label=None)]}, False),
    ({"items": [item(label="")]}, False),
    ({"items": [item(label2="m2")]}, False),
    ({"items": [item(weight=True)]}, False),
    ({"items": [item(weight="1")]}, False),
    ({"items": [item(weight=-0.5)]}, False),
    ({"items": [item(lable="m")]}, False),
]

#: valid by the schema, refused by coscore: what a schema cannot say
BEYOND_THE_SCHEMA = [
    {"items": [ITEM, item(blanks=["q2"])]},                                        # names unique
    {"items": [ITEM, item(name="q2")]},                                            # wide: a blank of one item
    {"items": [ITEM, item(name="q2", blanks=["q2"], label="q1")]},                 # a blank or a mark column
    {"items": [item(label="m"), item(name="q2", blanks=["q2"], label="m")]},       # wide: marks of one item
    {"items": [item(label="m", label2="m")]},
    {"id": "q1", "items": [ITEM]},
    {"id": "x", "item_column": "x", "items": [ITEM]},
    {"item_column": "q1", "items": [ITEM]},
    {"items": [item(weight=math.nan)]},
]


def test_the_schema_is_shipped_and_valid():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert '"exam/*.json"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert set(SCHEMA["properties"]) == {"name", "id", "item_column", "items"}
    assert set(SCHEMA["$defs"]["item"]["properties"]) == {"name", "rule", "blanks", "label", "label2", "weight"}


@pytest.mark.parametrize("example, valid", STRUCTURES, ids=[str(i) for i in range(len(STRUCTURES))])
def test_the_schema_and_coscore_agree(example, valid):
    from jsonschema import Draft202012Validator

    assert Draft202012Validator(SCHEMA).is_valid(example) is valid
    try:
        read_exam(example, base=DEMO)
        accepted = True
    except ExamError:
        accepted = False
    assert accepted is valid


@pytest.mark.parametrize("example", BEYOND_THE_SCHEMA, ids=[str(i) for i in range(len(BEYOND_THE_SCHEMA))])
def test_what_only_coscore_checks(example):
    from jsonschema import Draft202012Validator

    assert Draft202012Validator(SCHEMA).is_valid(example)
    with pytest.raises(ExamError):
        read_exam(example, base=DEMO)


# -- nothing but ExamError -----------------------------------------------------------------------


class _Failing(Mapping):
    def __getitem__(self, key):
        raise RuntimeError("no")

    def __iter__(self) -> Iterator:
        raise RuntimeError("cannot iterate")

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize("source", [None, 42, b"items: []", ["items"], _Failing(), {"items": _Failing()},
                                    {"items": [{"name": "q1", "blanks": ["a"], "rule": _Failing()}]},
                                    {1: 2, "items": [{"name": "q1", "blanks": ["a"], "rule": T0, 3.5: None}]},
                                    {"items": [{"name": "q1", "blanks": [["a"]] * 3, "rule": T0,
                                                "weight": 10 ** 400}]}])
def test_whatever_it_is_given_only_exam_error(source):
    problems_of(source)


def test_a_rule_that_holds_itself():
    rule: dict = {"comboMode": "ADD", "combos": {}}
    rule["atoms"] = rule
    problems_of({"items": [{"name": "q1", "blanks": ["a"], "rule": rule}]})


SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6) | st.sampled_from(["items", "rule", "atoms", "combos"]),
                                        inner, max_size=4), max_leaves=20)
RULES = st.sampled_from([T0, rule_reading("G(0, T('*'))"), rule_reading("T(2) == 1"), {"atoms": 1}]) | VALUES
ITEMS = st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["q1", "q2", "total", ""]) | VALUES, "rule": RULES,
    "blanks": st.lists(st.sampled_from(["a", "b", "c", "id"]) | VALUES, max_size=4) | VALUES,
    "label": st.sampled_from(["a", "m"]) | VALUES, "label2": st.sampled_from(["m", "n"]) | VALUES,
    "weight": SCALARS, "extra": VALUES})
EXAMS = st.fixed_dictionaries({}, optional={"items": st.lists(ITEMS, max_size=4) | VALUES, "id": SCALARS,
                                            "item_column": st.sampled_from(["item", "a"]) | SCALARS,
                                            "name": SCALARS, "other": VALUES}) | VALUES


def _either(source, **options) -> None:
    try:
        assert isinstance(load_exam(source, **options), Exam)
    except ExamError as error:
        assert error.problems and all(isinstance(p, ExamProblem) for p in error.problems)
        assert len(str(error).splitlines()) == len(error.problems)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXAMS)
def test_random_structures_give_an_exam_or_exam_error(value):
    with tempfile.TemporaryDirectory() as folder:
        _either(value, base=folder)
        try:
            text = yaml.safe_dump(value, allow_unicode=True)
        except yaml.YAMLError:
            return
        path = Path(folder) / "exam.yaml"
        path.write_text(text, encoding="utf-8")
        _either(path)
        try:
            path = Path(folder) / "exam.json"
            path.write_text(json.dumps(value), encoding="utf-8")
        except ValueError:
            return
        _either(path)


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
       st.sampled_from([".yaml", ".json"]))
def test_random_bytes_give_exam_error(data, suffix):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"exam{suffix}"
        path.write_bytes(data)
        _either(path)
        is_exam_file(path)


YAMLISH = st.lists(st.sampled_from(["items:", "\n", "  - ", "name: q1", "rule:", "{", "}", "[", "]", ", ", "blanks:",
                                    "&a ", "*a", "!!str ", "!x ", "'", '"', "#", "---", ":", "? ", "|", ">", "\t",
                                    "weight: 1e9", "label: no", "0", "atoms: {}", "combos: {}", "comboMode: ADD"]),
                   max_size=40).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(YAMLISH)
def test_yaml_like_text_gives_an_exam_or_exam_error(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "exam.yaml"
        path.write_text(text, encoding="utf-8")
        _either(path)


# -- the documentation ---------------------------------------------------------------------------


def test_the_exam_file_section_of_the_docs_runs_as_written(tmp_path, rules, monkeypatch, capsys):
    """docs/exams.md's exam-file section: its YAML files written, its Python run (each
    ``print(...)  # output`` prints that), its ``coscore check`` sessions print what they show."""
    from coscore.cli import main

    text = (ROOT / "docs" / "exams.md").read_text(encoding="utf-8")
    section = text.split("<!-- section: exam-file -->", 1)[1].split("<!-- end: exam-file -->", 1)[0]
    monkeypatch.chdir(tmp_path)
    written = []
    for block in re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL):
        block = textwrap.dedent(block)
        name = block.splitlines()[0].removeprefix("# ").strip()
        (tmp_path / name).write_text(block, encoding="utf-8")
        written.append(name)
    assert written == ["midterm.yaml", "midterm-long.yaml", "broken.yaml"]
    for name in ("midterm.yaml", "midterm-long.yaml"):
        assert load_exam(name).items
    for block in re.findall(r"```json\n(.*?)```", section, flags=re.DOTALL):
        (tmp_path / "midterm.json").write_text(block, encoding="utf-8")
        assert load_exam("midterm.json").names == ("q1",) and is_exam_file("midterm.json")
    for code in re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL):
        exec(compile(code, "docs/exams.md", "exec"), {})  # noqa: S102 - the project's own docs
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
        assert printed == expected
    sessions = re.findall(r"```console\n\$ coscore (.*?)\n(.*?)```", section, flags=re.DOTALL)
    assert len(sessions) == 2
    for command, output in sessions:
        main(command.split())
        assert capsys.readouterr().out == output
