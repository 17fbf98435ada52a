"""Issue 35's messages: swapped arguments told for any data file; ``check`` lists every
combo's problem at once; suggest merges the fragments of one phrase; the service says what
the type pass finds before answers fail, and a failing answer says what the rule compares."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import coscore
from conftest import assert_batch_matches_score
from coscore import cli
from coscore.compat import Rule as CompatRule
from coscore.expr import types as expr_types
from coscore.expr.failures import unparse
from coscore.expr.parse import parse
from coscore.http import rules as http_rules
from coscore.server.endpoints import Service
from coscore.suggest.phrases import find

RULE = {"atoms": {"0": {"type": "EM", "desc": "a"}},
        "combos": {"A": {"combo": "G(0, T(0))", "score": 5, "mode": "logic"}}, "comboMode": "ADD"}


def command(*argv: object, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _rule(*combos: str, mode: str = "logic", atoms: dict | None = None) -> dict:
    return {"atoms": atoms if atoms is not None else {"0": {"type": "EM", "desc": "a"}},
            "combos": {chr(65 + i): {"combo": c, "score": 1, "mode": mode} for i, c in enumerate(combos)},
            "comboMode": "ADD"}


# -- 1. a data file given where the rule goes --------------------------------------------------


@pytest.fixture
def data_files(tmp_path: Path) -> dict[str, Path]:
    """The same answers as every kind of data file, and a good rule."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = {"rule": tmp_path / "rule.json"}
    files["rule"].write_text(json.dumps(RULE), encoding="utf-8")
    text = "id,q1,score\n1,我爱祖国,5\n2,a,0\n"
    files["utf8.csv"] = tmp_path / "utf8.csv"
    files["utf8.csv"].write_text(text, encoding="utf-8")
    files["gbk.csv"] = tmp_path / "gbk.csv"
    files["gbk.csv"].write_bytes(text.encode("gbk"))
    files["gbk.txt"] = tmp_path / "gbk.txt"   # no data extension: told from its bytes
    files["gbk.txt"].write_bytes(text.encode("gbk"))
    files["utf8.tsv"] = tmp_path / "utf8.tsv"
    files["utf8.tsv"].write_text(text.replace(",", "\t"), encoding="utf-8")
    files["rows.jsonl"] = tmp_path / "rows.jsonl"
    files["rows.jsonl"].write_text('{"answers": ["a"], "score": 5}\n{"answers": ["b"], "score": 0}\n',
                                   encoding="utf-8")
    files["one.jsonl"] = tmp_path / "one.jsonl"   # one row: a JSON object, but no rule
    files["one.jsonl"].write_text('{"answers": ["a"], "score": 5}\n', encoding="utf-8")
    files["answers.parquet"] = tmp_path / "answers.parquet"
    pq.write_table(pa.table({"id": [1, 2], "q1": ["a", "b"], "score": [5, 0]}), files["answers.parquet"])
    files["answers.xlsx"] = tmp_path / "answers.xlsx"
    with zipfile.ZipFile(files["answers.xlsx"], "w") as book:   # what matters here: a zip's first bytes
        book.writestr("[Content_Types].xml", "<Types/>")
    files["workbook"] = tmp_path / "workbook"   # an .xlsx under another name
    files["workbook"].write_bytes(files["answers.xlsx"].read_bytes())
    return files


DATA_KINDS = {
    "utf8.csv": "a CSV file", "gbk.csv": "a CSV file", "utf8.tsv": "a TSV file", "rows.jsonl": "a JSON Lines file",
    "one.jsonl": "a JSON Lines file", "answers.parquet": "a Parquet file", "answers.xlsx": "an Excel workbook",
    "workbook": "a zip file such as an Excel workbook", "gbk.txt": "text in an encoding other than UTF-8",
}

SWAPPED = {  # command -> (argv with the data file X given as the rule, how the line says it is called)
    "score": (lambda rule, x: ["score", x, rule], "coscore score RULE DATA"),
    "check": (lambda rule, x: ["check", x], "coscore check RULE --data DATA"),
    "explain": (lambda rule, x: ["explain", x, rule, "--row", "1"], "coscore explain RULE DATA"),
    "tune": (lambda rule, x: ["tune", x, rule, "--label", "score"], "coscore tune RULE DATA"),
    "suggest": (lambda rule, x: ["suggest", x, rule, "--label", "score"], "coscore suggest RULE DATA"),
    "report": (None, "--rule takes the rule that scored SCORED"),   # SCORED is a good file, --rule the data
    "compare": (lambda rule, x: ["compare", rule, "--label", "score", x], "coscore compare DATA --label COL SCORER"),
}


@pytest.mark.parametrize("name", sorted(DATA_KINDS))
@pytest.mark.parametrize("subcommand", sorted(SWAPPED))
def test_a_data_file_given_as_the_rule_says_the_rule_comes_first(data_files, capsys, subcommand, name):
    argv, called = SWAPPED[subcommand]
    data = data_files[name]
    if argv is None:
        status, _, err = command(*["report", data_files["utf8.csv"], "--label", "score", "--pred", "score",
                                   "--rule", data], capsys=capsys)
    else:
        status, _, err = command(*argv(data_files["rule"], data), capsys=capsys)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"coscore: {data} is not a rule file but {DATA_KINDS[name]}"), lines[0]
    assert called in lines[0] and "invalid UTF-8" not in lines[0] and "pathlib" not in lines[0]


def test_a_gbk_csv_as_the_rule_no_longer_speaks_of_utf8(data_files, capsys):
    """The issue's case: the same CSV, UTF-8 or GBK, gets the same advice."""
    said = [command("score", data_files[name], data_files["rule"], capsys=capsys)[2] for name in ("utf8.csv", "gbk.csv")]
    assert said[0].replace("utf8.csv", "X") == said[1].replace("gbk.csv", "X")
    assert "give the rule file first, then the data: coscore score RULE DATA" in said[1]


def test_what_may_be_a_rule_keeps_its_own_messages(tmp_path, capsys):
    """A rule is still read as one: a valid rule in a file named .csv compiles; a .json file
    in another encoding, UTF-16 text and invalid JSON keep the messages they had."""
    named_csv = tmp_path / "rule.csv"
    named_csv.write_text(json.dumps(RULE), encoding="utf-8")
    assert command("check", named_csv, capsys=capsys)[0] == 0
    gbk_rule = tmp_path / "gbk.json"
    gbk_rule.write_bytes(json.dumps({**RULE, "atoms": {"0": {"type": "EM", "desc": "是"}}},
                                    ensure_ascii=False).encode("gbk"))
    status, _, err = command("score", gbk_rule, named_csv, capsys=capsys)
    assert status == 2 and "invalid UTF-8; a rule file must be UTF-8 encoded" in err
    utf16 = tmp_path / "rule.txt"
    utf16.write_bytes(json.dumps(RULE).encode("utf-16"))
    status, _, err = command("score", utf16, named_csv, capsys=capsys)
    assert status == 2 and "invalid UTF-8" in err
    broken = tmp_path / "broken.json"
    broken.write_text('{"atoms": {}, }', encoding="utf-8")
    status, out, _ = command("check", broken, capsys=capsys)
    assert status == 1 and "invalid JSON at line 1" in out


def test_an_exam_items_rule_that_is_data_is_not_told_to_swap(data_files):
    """Only the command's own RULE argument gets the advice of how to call the command."""
    from coscore.cli.rules import read_rule_text

    with pytest.raises(cli.UsageError) as caught:
        read_rule_text(str(data_files["gbk.csv"]))
    assert str(caught.value).endswith("(a rule is a JSON object)")


# -- 2. check lists every combo's problem ------------------------------------------------------


def test_check_lists_every_combos_syntax_error(tmp_path, capsys):
    rule = tmp_path / "two.json"
    rule.write_text(json.dumps(_rule("G(0, T(0)) and", "G(0, T(0))", "T(0) = '是'")), encoding="utf-8")
    status, out, _ = command("check", rule, capsys=capsys)
    assert status == 1 and "combos.A.combo, column 15: unexpected end of expression" in out
    assert "combos.C.combo, column 6: '=' is not allowed (to compare, use '==')" in out
    assert out.strip().endswith("invalid (2 errors, 0 warnings)")
    status, out, _ = command("check", rule, "--json", capsys=capsys)
    assert [d["path"] for d in json.loads(out)["diagnostics"]] == ["combos.A.combo", "combos.C.combo"]


def test_a_syntax_error_no_longer_hides_another_combos_type_error(tmp_path, capsys):
    """The teacher's case: A has a syntax error, B compares a blank with a number."""
    rule = tmp_path / "mixed.json"
    rule.write_text(json.dumps(_rule("G(0, T(0)) and", "T(1) > 60", "G(0, T(0))")), encoding="utf-8")
    status, out, _ = command("check", rule, "--json", capsys=capsys)
    found = json.loads(out)
    assert status == 1 and found["errors"] == 2
    assert [(d["path"], d["severity"]) for d in found["diagnostics"]] == [("combos.A.combo", "error"),
                                                                           ("combos.B.combo", "error")]
    assert "orders text against a number" in found["diagnostics"][1]["message"]
    with pytest.raises(coscore.RuleError) as caught:   # compile itself lists what it always did
        coscore.compile(_rule("G(0, T(0)) and", "T(1) > 60", "G(0, T(0))"))
    assert [d.path for d in caught.value.diagnostics] == ["combos.A.combo"]
    assert [d.path for d in expr_types.combo_findings(caught.value)] == ["combos.B.combo"]


def test_combo_findings_skip_combos_of_atoms_that_were_not_read():
    rule = _rule("G(1, T(0)) > 'x'", "T(0) * 1.5", atoms={"1": {"type": "OP", "desc": "no threshold"}})
    with pytest.raises(coscore.RuleError) as caught:
        coscore.compile(rule)
    assert [d.path for d in caught.value.diagnostics] == ["atoms.1.desc"]
    assert [d.path for d in expr_types.combo_findings(caught.value)] == ["combos.B.combo"]
    assert expr_types.combo_findings(coscore.RuleError([])) == []   # nothing read: nothing more


def test_every_combo_with_a_bare_quote_is_listed_with_its_place(tmp_path, capsys):
    text = ('{"atoms": {},\n "combos": {"A": {"combo": "T(0) == "是"", "score": 1, "mode": "logic"},\n'
            '            "B": {"combo": "T(1) == "否"", "score": 1, "mode": "logic"}},\n "comboMode": "ADD"}\n')
    with pytest.raises(coscore.RuleError) as caught:
        coscore.compile(text)
    lines = [str(d) for d in caught.value.diagnostics]
    assert len(lines) == 2 and lines[0].startswith("rule: invalid JSON at line 2, column 37: this '\"' inside")
    assert lines[1].startswith("rule: invalid JSON at line 3, column 37:") and "write \\\"" in lines[1]
    rule = tmp_path / "quotes.json"
    rule.write_text(text, encoding="utf-8")
    status, out, _ = command("check", rule, capsys=capsys)
    assert status == 1 and out.count("inside a combo ends its text early") == 2


@pytest.mark.parametrize(("text", "message"), [
    ('{"combo": "a"}x', "invalid JSON at line 1, column 15: Extra data"),
    ('{"combos": {"A": {"combo": "T(0)"  "score": 1}}}', "invalid JSON at line 1, column 36: Expecting ',' delimiter"),
    ("", "invalid JSON at line 1, column 1: Expecting value (to compile a file, pass a pathlib.Path)"),
])
def test_other_json_errors_keep_their_one_message(text, message):
    with pytest.raises(coscore.RuleError) as caught:
        coscore.compile(text)
    assert [d.message for d in caught.value.diagnostics] == [message]


# -- 3. suggest merges the fragments of one phrase ----------------------------------------------


def test_overlapping_fragments_of_one_phrase_are_merged():
    rule = coscore.compile(_rule("G(0, T(0))", atoms={"0": {"type": "EM", "desc": "zzz"}}))
    answers = [["因为资源十分紧张"]] * 6 + [["不知道"]] * 6
    kept, covered = find(answers, np.array([5.0] * 6 + [0.0] * 6), rule)
    assert [p.phrase for p in kept] == ["不知道", "因为资源十分紧张"] and covered == 0
    assert kept[1].rows == list(range(6)) and kept[1].high == 6


def test_fragments_of_different_rows_stay_apart():
    """资源十分 is in rows that 源十分紧 is not: they are not one phrase."""
    rule = coscore.compile(_rule("G(0, T(0))", atoms={"0": {"type": "EM", "desc": "zzz"}}))
    answers = [["资源十分紧"]] * 5 + [["资源十分少"]] * 4 + [["不知道"]] * 9
    kept, _ = find(answers, np.array([5.0] * 9 + [0.0] * 9), rule, min_z=1.0)
    phrases = [p.phrase for p in kept]
    assert "资源十分" in phrases and "资源十分紧" not in phrases


def test_a_merged_phrase_an_atom_names_is_covered():
    rule = coscore.compile(_rule("G(0, T(0))", atoms={"0": {"type": "SM", "desc": "资源十分紧"}}))
    answers = [["资源十分紧"]] * 6 + [["不知道"]] * 6
    kept, covered = find(answers, np.array([5.0] * 6 + [0.0] * 6), rule)
    assert [p.phrase for p in kept] == ["不知道"] and covered == 1


# -- 4. the service says before it fails; a failing answer says what the rule compares ----------


@pytest.mark.parametrize(("combo", "error"), [
    ("T(0) > 3", "combos.A: cannot compare text with a number ('>' between T(0), a text, and 3)"),
    ("3 < T(0)", "combos.A: cannot compare a number with text ('<' between 3 and T(0), a text)"),
    ("1 < 2 < T(0)", "combos.A: cannot compare a number with text ('<' between 2 and T(0), a text)"),
    ("G(0, T(0)) > 'a'", ("combos.A: cannot compare a truth value with text ('>' between G(0, T(0)), "
                          "a truth value, and 'a')")),
    ("T(0) + 1 > 0", "combos.A: cannot add text and a number ('+' between T(0), a text, and 1)"),
    ("1 + 2 - T(0)", "combos.A: cannot subtract text from a number ('-' between 1 + 2, a number, and T(0), a text)"),
    ("F(0) / T(0)", "combos.A: cannot divide a number by text ('/' between F(0), a number, and T(0), a text)"),
    ("T(0) * 1.5", ("combos.A: text repeats only by a whole number, not by a decimal number ('*' between T(0), "
                    "a text, and 1.5)")),
    ("T(0) * T(1)", "combos.A: cannot multiply text by text ('*' between T(0), a text, and T(1), a text)"),
    ("-T(0)", "combos.A: cannot negate text ('-' of T(0), a text)"),
    ("X(T(0), 1)", "combos.A: cannot compare text with a number (X takes the larger of T(0), a text, and 1)"),
    ("X(1, T(0), 2)", "combos.A: cannot compare a number with text (X takes the largest of 1, T(0), a text, and 2)"),
    ("U(T(0), 3)", "combos.A: cannot compare text with a number (U compares T(0), a text, with 3)"),
    ("not (Q(1) or T(0) >= 1.5)", "combos.A: cannot compare text with a number ('>=' between T(0), a text, and 1.5)"),
])
def test_a_failing_operator_is_worded_in_the_rules_terms(combo, error):
    rule = coscore.compile(_rule(combo))
    answers = [["abc", "d"], ["abc", "d"], ["x", ""], "abc"]
    outcome = rule.score(answers[0])
    assert outcome.error == error and outcome.score is None
    assert_batch_matches_score(rule, answers, rule.score_many(answers))
    assert_batch_matches_score(rule, answers, rule.score_many(answers, jobs=2))


def test_only_the_words_change_not_where_an_answer_fails():
    """The failing combo, the combos before it and the errors of other kinds are as they were."""
    rule = coscore.compile(_rule("G(0, T(0))", "1 / L(0)", "T(0) > 3", "T(5)"))
    failed = rule.score(["a"])
    assert failed.combos == {"A": 1.0} and failed.error == "combos.B: division by zero"
    failed = rule.score(["一"])
    assert failed.combos == {"A": 0.0, "B": 1.0} and failed.error.startswith("combos.C: cannot compare text")
    failed = coscore.compile(_rule("T(5)", "T(0) > 3")).score(["一"])
    assert failed.error == "combos.A: blank 5 does not exist (the answer has 1 blank)"
    value_mode = coscore.compile(_rule("T(0)", mode="value"))
    assert value_mode.score(["a"]).error == "combos.A: a value-mode combo must give a number, not a string"
    numpy_blank = coscore.compile(_rule("T(0) > 3")).score([np.str_("a")])
    assert numpy_blank.error == "combos.A: blank 0 is str_, not a string"


def test_the_drop_in_paths_keep_pythons_words_and_classes():
    rule = _rule("T(0) > 3")
    with pytest.raises(TypeError, match=r"'>' not supported between instances of 'str' and 'int'"):
        CompatRule(rule).calculate(["5"])
    service = Service()
    status, data, _ = service.handle("testRule", json.dumps({"rule": rule, "answer": ["5"]}).encode())
    assert status == 422 and json.loads(data) == {
        "error": "combos.A: '>' not supported between instances of 'str' and 'int'", "exception": "TypeError"}


def test_unparse_writes_expressions_as_a_rule_would():
    for text in ("T(0) > 3", "G(1, T('*')) and not Q(0)", "-(F(0) + 1) * 2", "1 - (2 - 3)", "(1 < 2) < 3",
                 "X(1, 2.5, True)", "1 if T(0) == 'a' else 2", "not (Q(0) or Q(1))"):
        assert unparse(parse(text)) == text


def _ask(service: Service, kind: str, body: dict) -> tuple[int, dict]:
    status, data, _ = service.handle(kind, json.dumps(body).encode())
    return status, json.loads(data)


def test_v1_score_says_what_check_finds_before_answers_fail():
    """The issue's case: 200 with ``warnings: []`` and Python's words per answer."""
    service = Service()
    rule = _rule("T(0) > 3")
    status, scored = _ask(service, "score", {"rule": rule, "answers": [["5"], ["x"]]})
    _, checked = _ask(service, "check", {"rule": rule})
    assert status == 200 and checked["valid"] is False
    assert scored["warnings"] == checked["diagnostics"] and scored["warnings"][0]["severity"] == "error"
    assert "orders text against a number" in scored["warnings"][0]["message"]
    assert scored["errors"] == ["combos.A: cannot compare text with a number ('>' between T(0), a text, and 3)"] * 2
    assert "warningsOmitted" not in scored
    _, explained = _ask(service, "explain", {"rule": rule, "answer": ["5"]})
    assert explained["warnings"] == checked["diagnostics"] and explained["error"] == scored["errors"][0]
    exam = {"items": [{"name": "q1", "rule": rule, "blanks": ["a"]}, {"name": "q2", "rule": RULE, "blanks": ["b"]}]}
    _, papers = _ask(service, "exam", {"exam": exam, "papers": [{"q1": ["5"], "q2": ["a"]}]})
    assert papers["warnings"]["q1"] == checked["diagnostics"] and papers["warnings"]["q2"] == []
    assert papers["papers"][0]["q1"]["error"] == scored["errors"][0] and "warningsOmitted" not in papers


def test_a_valid_rules_warnings_are_unchanged_in_v1_score():
    service = Service()
    rule = {"atoms": {"0": {"type": "SM", "desc": "a,,b"}},
            "combos": {"A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"}}, "comboMode": "ADD"}
    _, scored = _ask(service, "score", {"rule": rule, "answers": [["a"]]})
    _, checked = _ask(service, "check", {"rule": rule})
    assert checked["valid"] is True and scored["warnings"] == checked["diagnostics"]
    assert scored["warnings"][0]["path"] == "atoms.0.desc" and scored["scores"] == [2.0]


def test_the_type_pass_runs_once_per_compiled_rule(monkeypatch):
    calls = []
    real = http_rules.check_rule
    monkeypatch.setattr(http_rules, "check_rule", lambda rule: calls.append(rule) or real(rule))
    service = Service()
    rule = _rule("T(0) > 3")
    for kind, body in [("score", {"rule": rule, "answers": [["1"]]}), ("check", {"rule": rule}),
                       ("explain", {"rule": rule, "answer": ["1"]}), ("score", {"rule": rule, "answers": []})]:
        assert service.handle(kind, json.dumps(body).encode())[0] == 200
    assert len(calls) == 1
    _ask(service, "score", {"rule": _rule("T(0) > 4"), "answers": []})
    assert len(calls) == 2


def test_many_findings_are_listed_up_to_a_bound_errors_first():
    service = Service()
    combos = {f"C{i}": {"combo": "0", "score": 1, "mode": "value"} for i in range(300)}  # each never counts
    combos["Z"] = {"combo": "T(0) > 3", "score": 1, "mode": "logic"}
    rule = {"atoms": {}, "combos": combos, "comboMode": "ADD"}
    _, scored = _ask(service, "score", {"rule": rule, "answers": [["1"]]})
    _, checked = _ask(service, "check", {"rule": rule})
    assert len(scored["warnings"]) == http_rules.MAX_LISTED
    assert scored["warningsOmitted"] == len(checked["diagnostics"]) - http_rules.MAX_LISTED > 0
    assert scored["warnings"][0]["path"] == "combos.Z.combo" and scored["warnings"][0]["severity"] == "error"


def test_v1_check_lists_the_type_errors_beside_the_syntax_errors():
    _, checked = _ask(Service(), "check", {"rule": _rule("G(0, T(0)) and", "T(1) > 60")})
    assert checked["valid"] is False and checked["combos"] == []
    assert [d["path"] for d in checked["diagnostics"]] == ["combos.A.combo", "combos.B.combo"]


def test_explain_words_a_combos_failure_as_the_outcome_does():
    from coscore.explain import explain

    rule = coscore.compile(_rule("G(0, T(0))", "T(0) > 3"))
    shown = explain(rule, ["5"])
    failing = {c.id: c for c in shown.combos}["B"]
    assert failing.expression_error == "cannot compare text with a number ('>' between T(0), a text, and 3)"
    assert shown.error == f"combos.B: {failing.expression_error}"
