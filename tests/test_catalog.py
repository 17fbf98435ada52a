"""The message catalog (coscore.catalog): every entry in both languages, the Chinese one
not left in English, the same parameters in each; the diagnostics of a corpus of broken
rules, and the workbench's own refusals, all recognised, so a page in Chinese shows none
of them in English."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import coscore
from coscore.catalog import MESSAGES, catalog_json, localize, message, render, said
from coscore.expr.types import check_rule

DEMO = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo"
LANE = json.loads((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"))
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


def with_combo(combo: object, score: object = 1, mode: object = "value", **extra: object) -> str:
    rule = json.loads(json.dumps(LANE))
    rule["combos"]["Z"] = {"combo": combo, "score": score, "mode": mode, **extra}
    return json.dumps(rule, ensure_ascii=False)


def with_atom(kind: object, desc: object, **extra: object) -> str:
    rule = json.loads(json.dumps(LANE))
    rule["atoms"]["z"] = {"type": kind, "desc": desc, **extra}
    return json.dumps(rule, ensure_ascii=False)


#: Broken rules, each giving one or more diagnostics (JSON, the rule's parts, the
#: expression language, what the type pass and the range analysis find).
CORPUS = [
    '{"atoms": {}, "combos": {} "comboMode": "ADD"}', '{"atoms": {}, "combos": {}, "comboMode": "ADD",}',
    '{"atoms": {"0": {"type": "SM", "desc": "a}}, "combos": {}, "comboMode": "ADD"}',
    '{"atoms": {}, "combos": {"A": {"combo": "T(0) == "是"", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}',
    "[1, 2]", '"x"', '{"atoms": [], "combos": 3}', '{"atoms": {}, "combos": {}, "comboMode": "SUM", "extra": 1}',
    '{"combos": {}}', '{"atoms": {}, "combos": {}, "comboMode": "MAX"}', "", "{", "{}x",
    with_atom("XX", "a"), with_atom("OP", "abc"), with_atom("OP", "x:abc"), with_atom("CS", "1.5:abc,"),
    with_atom("SM", "a||b"), with_atom("EM", 3), with_atom("SM", "a", note=1), with_atom("OP", "-0.5:a"),
    with_combo("T(0) > 3"), with_combo("T(0) + 1"), with_combo("1 / 0"), with_combo("-T(0)"), with_combo("T(5)"),
    with_combo("G(9, T(0))"), with_combo("M(0)"), with_combo("M(0, 1)"), with_combo("G(0, T(0)) and"),
    with_combo("foo(1)"), with_combo("bar"), with_combo("(1"), with_combo("1)"), with_combo("()"), with_combo("1 2"),
    with_combo("'abc"), with_combo("0x1 + 01"), with_combo("f'x'"), with_combo("1 if 2"), with_combo("T(0)", score=20),
    with_combo("T(0)", mode="sum"), with_combo("T(0)", score="3"), with_combo("False", mode="logic"),
    with_combo("0"), with_combo("not"), with_combo("1 @ 2"), with_combo("G(T(0), T(0))"), with_combo("1j"),
    with_combo("a.b"), with_combo("*T(0)"), with_combo("M(x=1)"), with_combo("(1, 2)"), with_combo("T"),
    with_combo("b'x'"), with_combo("T(0) < 1 if T(0) else 'x'"), with_combo("1 ** 2"), with_combo("x = 1"),
    with_combo("None"), with_combo("T(0) is 1"), with_combo("[1]"),
]

#: Messages of the servers and the data, as they write them.
SERVER = [
    "the rule does not compile", "no dataset named 'x'", "the rule has 2 errors; it is not saved",
    ("row 50 of the dataset (line 51): the mark '50000' is outside the 0–10 scale of coscore's scores: correct it in "
     "the dataset (a mark on another scale must be rescaled to 0–10), or leave it empty to leave the row unmarked"),
    "the request ran past its 60 s budget and was stopped", "the job was cancelled",
    "nothing to tune: the rule has no combos",
    "no change of a threshold or a score raises QWK on the 100 marked rows (it stays 0.954)",
    ("held-out QWK does not improve with confidence: +0.012 [-0.010, +0.030] (the interval must lie above 0), so the "
     "change found on all rows is not made"),
    "no marked answers: give marks for some of them",
]


def diagnostics(text: str) -> list:
    try:
        rule = coscore.compile(text)
    except coscore.RuleError as exc:
        return list(exc.diagnostics)
    return list(rule.warnings) + check_rule(rule, 1).diagnostics


def test_every_entry_has_both_languages_with_the_same_parameters():
    assert len(MESSAGES) > 150
    for entry in MESSAGES.values():
        assert entry.en.strip() and entry.zh.strip(), entry.id
        assert CJK.search(entry.zh), f"{entry.id}: the Chinese is not Chinese: {entry.zh}"
        assert sorted(set(entry.fields("en"))) == sorted(set(entry.fields("zh"))), entry.id
    assert set(catalog_json()) == set(MESSAGES)


@pytest.mark.parametrize("text", CORPUS)
def test_every_diagnostic_of_a_broken_rule_is_in_the_catalog(text):
    found = diagnostics(text)
    assert found, text
    for d in found:
        recognised = said(d.message)
        assert recognised is not None, f"not in coscore/catalog: {d.message!r}"
        assert render(recognised, "en") == d.message   # the English is the command's text, word for word
        assert CJK.search(render(recognised, "zh")), d.message


@pytest.mark.parametrize("text", SERVER)
def test_the_servers_messages_are_in_the_catalog(text):
    recognised = said(text)
    assert recognised is not None and render(recognised, "en") == text
    assert CJK.search(render(recognised, "zh"))


def test_parameters_that_are_messages_are_nested_and_translated():
    found = said("invalid JSON at line 33, column 5: Expecting ',' delimiter")
    assert found == {"id": "json.invalid", "params": {"line": "33", "column": "5",
                                                      "reason": {"id": "json.expecting_comma", "params": {}}}}
    assert render(found, "zh") == "JSON 无效：第 33 行第 5 列：这里应是逗号 ','"
    assert localize("score 20 is outside the 0–10 scale", "zh") == "分值 20 超出 0–10 分的范围"
    assert localize("'>' orders text against a number: always fails", "zh") == "'>' 把文本和数字比较大小：总是出错"
    assert localize("not a catalog message", "zh") == "not a catalog message"
    assert localize("unknown name 'text'", "zh") == "未知的名称 'text'"      # the user's words stay as written
    assert localize("unknown name 'missing'", "zh") == "未知的名称 'missing'"
    assert message("data.no_dataset", name="'x'") == "no dataset named 'x'"


def test_the_command_speaks_the_catalog_in_either_language(tmp_path, capsys):
    from coscore import cli

    rule = tmp_path / "bad.json"
    rule.write_text(json.dumps({**LANE, "combos": {**LANE["combos"], "C": {"combo": "T(0) > 3", "score": 20,
                                                                           "mode": "value"}}}), encoding="utf-8")
    assert cli.main(["check", str(rule), "--lang", "zh"]) == 1
    out = capsys.readouterr().out
    assert "combos.C.combo, column 6: '>' 把文本和数字比较大小：总是出错" in out
    assert "combos.C.score: warning: 分值 20 超出 0–10 分的范围" in out
    assert cli.main(["check", str(rule), "--json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert {"path": "combos.C.score", "said": {"id": "combo.score_outside_scale", "params": {"score": "20"}}} \
        .items() <= next(d for d in found if d["path"] == "combos.C.score").items()


def _reader_messages(folder: Path) -> list[str]:
    """What the data readers write about a teacher's file, as the command and the workbench
    show it: the header found below a title, the blank columns refused (what the rule reads,
    what the data offers, the columns not taken, how to name them), the marks refused, each
    with its place in the file."""
    from coscore.io import AnswerColumns, InputError
    from coscore.io.header_rows import announcement
    from coscore.labelled import read_table
    from coscore.marks import mark_column

    said_ = [announcement("row", 2, ["学号", "班级", "第1空", "第2空"], 1, "2026 期中 第5题"),
             announcement("line", 3, ["学号"], 2, "期中"), "read as gb18030"]
    columns = ["学号", "班级", "第1空", "第2空", "第3空", "得分"]

    def refusal(names: list[str], need: tuple[int, bool] | None, **options: object) -> None:
        try:
            AnswerColumns.resolve("csv", "期中.csv", names, None, None, need=need, **options)
        except InputError as exc:
            said_.extend([str(exc), exc.problem])
        else:
            raise AssertionError(f"{names} {need}: not refused")

    refusal(columns, (2, False))                                         # skipped, and a marks-like column
    refusal(columns[:4], (3, False), name_them="the Blanks list of the column mapping")
    refusal(columns[:3], (2, True), exclude=["第1空"])                     # at least; none offered but skipped
    refusal(["第1空"], (2, False), header_at=2)
    refusal(["第1空", "第2空"], (1, False))
    refusal(["学号", "班级"], None)                                        # no column left
    for cell in ("inf", "12"):
        data = folder / f"marks-{cell}.csv"
        data.write_text(f"学号,第1空,教师A,教师B\nS1,a,3,{cell}\nS2,b,{cell},4\n", encoding="utf-8")
        try:
            read_table(data, None, ["第1空"], "教师A", ["教师B"], missing_marks="skip")
        except InputError as exc:
            said_.extend([str(exc), exc.problem])
        data.write_text(f"学号,第1空,教师A,教师B\nS1,a,3,{cell}\n", encoding="utf-8")
        table = read_table(data, None, ["第1空"], "教师A", ["教师B"], missing_marks="skip")
        try:
            mark_column(table, "教师B", "skip", "second mark")
        except InputError as exc:
            said_.append(exc.problem)
    data = folder / "absent.csv"
    data.write_text("学号,第1空,教师A\nS1,a,缺考\n", encoding="utf-8")
    try:
        read_table(data, None, ["第1空"], "教师A")
    except InputError as exc:
        said_.extend([str(exc), exc.problem])
    return said_


#: English a Chinese rendering of the readers' messages must not keep (but the command's
#: options it names, ``--header-row``, ``--blanks COL[,COL...]``).
OPTION = re.compile(r"--[a-z-]+( [A-Z][A-Z\[\],.]*)?")
ENGLISH = re.compile(r"header|title|skipped|reads|blank|column|looks like|not taken|finite|outside|correct it|"
                     r"empty the cell|expected a number|read as|the rule")


def test_the_readers_messages_are_in_the_catalog(tmp_path):
    found = _reader_messages(tmp_path)
    assert len(found) >= 20
    for text in found:
        recognised = said(text)
        assert recognised is not None, f"not in coscore/catalog: {text!r}"
        assert render(recognised, "en") == text
        chinese = render(recognised, "zh")
        assert CJK.search(chinese) and not ENGLISH.search(OPTION.sub("", chinese)), (text, chinese)
    refused = said("期中.xlsx: row 2: the rule reads 1 blank, but the data has 3 columns that could be blanks "
                   "(第1空, 第2空, 教师B); not taken: 学号 (looks like an identifier), 班级 (looks like a group): "
                   "name the blank columns, in order, with the Blanks list of the column mapping")
    assert refused is not None and render(refused, "zh") == (
        "期中.xlsx：第 2 行：规则读取 1 个空，但数据中有 3 个可以作为空的列（第1空, 第2空, 教师B）；未采用："
        "学号（看起来是学号等编号）、班级（看起来是班级等分组）：请用列对应中的“空”列表按顺序指定空所在的列")
    assert refused["params"]["problem"]["params"]["skipped"] == [
        {"id": "file.looks_identifier", "params": {"name": "学号"}}, {"id": "file.looks_group", "params": {"name": "班级"}}]
