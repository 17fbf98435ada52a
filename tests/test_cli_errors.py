"""The command never prints a traceback: bad input is one line naming the file and the
place, exit 2, whatever the subcommand; anything unexpected is one line too.

Most cases run the command in process (``coscore.cli.main``) over a sweep of bad files;
the reproducers of issue 12 also run it as a real subprocess.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from coscore import cli
from coscore.cli import score as score_command
from coscore.io.delimited import columnar_csv
from support import coscore_env
from webapp_support import APP_DIR, require_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_SUITE = ROOT / "examples" / "lab-tools-suite"
RULE = {"atoms": {"0": {"type": "EM", "desc": "a"}},
        "combos": {"A": {"combo": "G(0, T(0))", "score": 5, "mode": "logic"}}, "comboMode": "ADD"}
GARBAGE = bytes(random.Random(12).randrange(256) for _ in range(4000))
DEEP = 100_000


def command(*argv: object, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def real_command(*argv: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = coscore_env()
    env.pop("COSCORE_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "coscore", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=120)


def one_line_error(status: int, err: str, *words: str) -> str:
    """Assert exit 2 with one line on stderr holding every word; return the line."""
    assert "Traceback" not in err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A good rule and data file, and bad files of every kind."""
    made: dict[str, Path] = {}

    def make(name: str, content: bytes | str | None) -> None:
        path = tmp_path / name
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        made[name] = path

    make("rule.json", json.dumps(RULE))
    make("good.csv", "id,q1,score\n1,a,5\n2,b,0\n")
    for ext in ("json", "csv", "tsv", "jsonl", "parquet", "xlsx"):
        make(f"garbage.{ext}", GARBAGE)
        make(f"empty.{ext}", b"")
        make(f"folder.{ext}", None)
    make("badutf8.csv", b"id,q1,score\n1,a,5\n2,caf\xe9,0\n")
    make("badutf8.jsonl", b'{"answers": ["a"], "score": 5}\n{"answers": ["caf\xe9"], "score": 0}\n')
    make("deep.jsonl", '{"answers": ["a"], "score": 5}\n{"answers": ' + "[" * DEEP + "]" * DEEP + ', "score": 0}\n')
    make("bigint.jsonl", '{"answers": ["a"], "score": 5}\n{"answers": ["a"], "score": ' + "9" * 5000 + "}\n")
    make("surrogate.jsonl", '{"answers": ["a"], "score": 5}\n{"answers": ["a\\ud800"], "score": 0}\n')
    make("columns.csv", "id,q1,score\n1,a,5\n2,b,0,extra\n")
    make("columns.tsv", "id\tq1\tscore\n1\ta\n")
    make("columns.jsonl", '{"answers": ["a"], "score": 5}\n["a"]\n')
    make("answers.jsonl", '{"answers": {"a": 1}, "score": 5}\n')
    make("deep.json", "[" * DEEP + "]" * DEEP)
    make("bigint.json", '{"atoms": ' + "9" * 5000 + "}")
    return made


# -- the reproducer, through the real command ---------------------------------------------


def test_a_json_lines_row_nested_100000_deep_is_exit_2_with_the_line(files):
    proc = real_command("score", files["rule.json"], files["deep.jsonl"])
    line = one_line_error(proc.returncode, proc.stderr, str(files["deep.jsonl"]), "line 2", "nested too deeply")
    assert line.startswith("coscore: ")


# -- the sweep: every subcommand that reads a data file ------------------------------------

DATA_COMMANDS = {  # (the files' marks are in 'score': --label keeps them out of the answers)
    "score": lambda rule, data: ["score", rule, data, "--label", "score"],
    "check": lambda rule, data: ["check", rule, "--data", data, "--label", "score"],
    "explain": lambda rule, data: ["explain", rule, data, "--row", "1", "--label", "score"],
    "compare": lambda rule, data: ["compare", data, rule, "--label", "score"],
    "report": lambda rule, data: ["report", data, "--label", "score", "--pred", "score"],
    "tune": lambda rule, data: ["tune", rule, data, "--label", "score"],
    "suggest": lambda rule, data: ["suggest", rule, data, "--label", "score"],
}

BAD_DATA = {  # file -> words its message must hold (besides the file's name)
    "missing.csv": ["no such file"],
    "folder.csv": ["is a directory"],
    "folder.jsonl": ["is a directory"],
    "folder.parquet": ["is a directory"],
    "folder.xlsx": ["not a readable .xlsx"],
    "garbage.csv": ["line 1", "invalid UTF-8"],
    "garbage.tsv": ["line 1", "invalid UTF-8"],
    "garbage.jsonl": ["line 1", "invalid UTF-8"],
    "garbage.parquet": ["not a readable Parquet file"],
    "garbage.xlsx": ["not a readable .xlsx"],
    "badutf8.csv": ["line 3", "invalid UTF-8 at character 6 (byte e9)"],
    "badutf8.jsonl": ["line 2", "invalid UTF-8"],
    "empty.csv": ["line 1", "empty"],
    "empty.tsv": ["line 1", "empty"],
    "empty.parquet": ["not a readable Parquet file"],
    "empty.xlsx": ["not a readable .xlsx"],
    "deep.jsonl": ["line 2", "nested too deeply"],
    "bigint.jsonl": ["line 2", "a number with more than"],
    "surrogate.jsonl": ["line 2", "column 'answers'", "surrogate"],
    "columns.csv": ["line 3", "4 fields, but the header has 3"],
    "columns.jsonl": ["line 2", "expected a JSON object"],
    "answers.jsonl": ["line 1", "column 'answers'"],
}


@pytest.mark.parametrize("name", sorted(BAD_DATA))
@pytest.mark.parametrize("subcommand", sorted(DATA_COMMANDS))
def test_bad_data_files_are_one_line_and_exit_2(files, tmp_path, capsys, subcommand, name):
    data = files.get(name, tmp_path / name)
    status, _, err = command(*DATA_COMMANDS[subcommand](files["rule.json"], data), capsys=capsys)
    one_line_error(status, err, str(data), *BAD_DATA[name])


def test_a_short_tsv_row_names_its_line(files, capsys):
    status, _, err = command("score", files["rule.json"], files["columns.tsv"], "--label", "score", capsys=capsys)
    one_line_error(status, err, str(files["columns.tsv"]), "line 2", "2 fields, but the header has 3")


BAD_RULES = {
    "missing.json": ["no such file"],
    "folder.json": ["is a directory"],
    "garbage.json": ["invalid UTF-8"],
    "empty.json": ["invalid JSON"],
    "deep.json": ["line 1, column", "nested too deeply"],
    "bigint.json": ["a number with more than"],
}


@pytest.mark.parametrize("name", sorted(BAD_RULES))
@pytest.mark.parametrize("subcommand", ["score", "explain", "report", "tune", "suggest"])
def test_bad_rule_files_exit_2_naming_the_file(files, tmp_path, capsys, subcommand, name):
    rule = files.get(name, tmp_path / name)
    argv = {"score": ["score", rule, files["good.csv"]], "explain": ["explain", rule, "a"],
            "report": ["report", files["good.csv"], "--label", "score", "--pred", "score", "--rule", rule],
            "tune": ["tune", rule, files["good.csv"], "--label", "score"],
            "suggest": ["suggest", rule, files["good.csv"], "--label", "score"]}[subcommand]
    status, _, err = command(*argv, capsys=capsys)
    assert "Traceback" not in err and status == 2, err
    first = err.strip().splitlines()[0]
    assert str(rule) in first
    assert any(word in err for word in BAD_RULES[name]), err


@pytest.mark.parametrize("name", sorted(BAD_RULES))
def test_check_reports_a_bad_rule_file_without_a_traceback(files, tmp_path, capsys, name):
    rule = files.get(name, tmp_path / name)
    status, out, err = command("check", rule, capsys=capsys)
    assert "Traceback" not in out + err
    assert status in (1, 2)  # 1: the rule has errors (listed on stdout); 2: the file cannot be read
    assert any(word in out + err for word in BAD_RULES[name]), out + err


def test_demo_needs_no_input(capsys):
    status, out, err = command("demo", capsys=capsys)
    assert status == 0 and "Traceback" not in err and out


# -- output files ----------------------------------------------------------------------


def test_output_to_a_folder_is_exit_2(files, capsys):
    status, _, err = command("score", files["rule.json"], files["good.csv"], "-o", files["folder.csv"], "--label",
                             "score", capsys=capsys)
    one_line_error(status, err, str(files["folder.csv"]), "is a directory")
    assert files["folder.csv"].is_dir()


def test_output_through_a_link_or_a_pipe_writes_it_and_keeps_it(files, tmp_path, capsys):
    target = tmp_path / "real.csv"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    status, _, err = command("score", files["rule.json"], files["good.csv"], "--label", "score", "-o", link,
                             capsys=capsys)
    assert status == 0, err
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith("id,q1,score,coscore_score")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.csv"
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
        status, _, err = command("score", files["rule.json"], files["good.csv"], "--label", "score", "-o", fifo,
                                 capsys=capsys)
        assert status == 0, err
        assert reader.communicate(timeout=30)[0].decode().startswith("id,q1,score,coscore_score")
        assert fifo.is_fifo()


# -- long rows are data, not errors ---------------------------------------------------------


def test_a_csv_row_longer_than_the_parsers_block_is_read(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(columnar_csv, "BLOCK_SIZE", 4096)
    data = tmp_path / "long.csv"
    rows = [f"{i},{'a' if i % 3 else 'b'}\n" for i in range(3000)]
    rows[2000] = "2000," + "x" * 100_000 + "\n"
    data.write_text("id,q1\n" + "".join(rows), encoding="utf-8")
    out = tmp_path / "out.csv"
    status, _, err = command("score", files["rule.json"], data, "-o", out, "--chunk-size", "500", capsys=capsys)
    assert status == 0, err
    written = out.read_text(encoding="utf-8").splitlines()
    assert len(written) == 3001
    assert [line.split(",")[:2] for line in written[1:]] == [row.rstrip("\n").split(",") for row in rows]
    assert written[2001].split(",")[2] == "0.0" and written[2].split(",")[2] == "5.0"


# -- expect -------------------------------------------------------------------------------


@pytest.mark.parametrize("target, content, words", [
    ("suite.yaml", GARBAGE, ["suite.yaml", "invalid UTF-8"]),
    ("suite.yaml", b"type: scoring\n# caf\xe9\n", ["suite.yaml:2", "invalid UTF-8"]),
    ("suite.yaml", None, ["suite.yaml", "cannot read"]),
    ("suite.yaml", b"a: " + b"[" * DEEP + b"]" * DEEP + b"\n", ["suite.yaml", "nested more than"]),
    ("suite.yaml", b"a: " + b"x" * (5 << 20) + b"\n", ["suite.yaml", "larger than"]),
    ("expectations.yaml", GARBAGE, ["expectations.yaml", "invalid UTF-8"]),
    ("expectations.yaml", b"a:\n" + b"".join(b"  " * (i + 1) + b"b:\n" for i in range(100)), ["nested more than"]),
    ("data/deep.jsonl", ('{"answers": ' + "[" * DEEP + "]" * DEEP + "}\n").encode(), ["data/deep.jsonl:1", "nested"]),
    ("data/big.jsonl", b'{"answers": ["a"], "mark": ' + b"9" * 5000 + b"}\n", ["data/big.jsonl:1", "digits"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_expect_malformed_suite_files_are_one_line_and_exit_2(tmp_path, capsys, target, content, words):
    suite = Path(shutil.copytree(EXAMPLE_SUITE, tmp_path / "suite"))
    path = suite / target
    if path.exists():
        path.unlink()
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    status, _, err = command("expect", suite, capsys=capsys)
    one_line_error(status, err, "malformed suite", *words)


def test_expect_a_rule_file_nested_too_deeply_fails_that_rule(tmp_path, capsys):
    suite = Path(shutil.copytree(EXAMPLE_SUITE, tmp_path / "suite"))
    (suite / "rules" / "deep.json").write_text("[" * DEEP + "]" * DEEP, encoding="utf-8")
    status, out, err = command("expect", suite, capsys=capsys)
    assert status == 1 and "Traceback" not in err
    assert "rule does not compile" in out and "nested too deeply" in out


# -- servers: startup errors --------------------------------------------------------------


@pytest.fixture
def busy_port():
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_serve_on_a_port_in_use_is_one_line_and_exit_2(busy_port):
    pytest.importorskip("uvicorn")
    proc = real_command("serve", "--port", busy_port)
    one_line_error(proc.returncode, proc.stderr, f"127.0.0.1:{busy_port}", "in use")


@pytest.mark.parametrize("argv, words", [
    (["serve", "--host", "no-such-host.invalid"], ["unknown address"]),
    (["serve", "--cache-size", "-1"], ["--cache-size"]),
])
def test_serve_startup_errors_are_one_line_and_exit_2(capsys, argv, words):
    pytest.importorskip("uvicorn")
    status, _, err = command(*argv, capsys=capsys)
    one_line_error(status, err, "coscore serve", *words)


def test_app_startup_errors_are_one_line_and_exit_2(tmp_path, capsys, busy_port):
    pytest.importorskip("uvicorn")
    app = APP_DIR
    status, _, err = command("app", tmp_path / "missing", capsys=capsys)
    one_line_error(status, err, "coscore app", "not a CoScore app folder")
    require_app()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(GARBAGE)
    status, _, err = command("app", app, "--db", garbage, "--port", "0", capsys=capsys)
    one_line_error(status, err, "coscore app", str(garbage))
    status, _, err = command("app", app, "--db", tmp_path / "x.db", "--port", busy_port, capsys=capsys)
    one_line_error(status, err, "coscore app", f"127.0.0.1:{busy_port}", "in use")


# -- the last resort ----------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_never_a_traceback(files, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("something coscore did not expect\nsecond line")

    monkeypatch.setattr(score_command, "load_rule", broken)
    status, _, err = command("score", files["rule.json"], files["good.csv"], capsys=capsys)
    assert status == cli.EXIT_INTERNAL and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("coscore: unexpected error (KeyError")
    monkeypatch.setenv("COSCORE_TRACEBACK", "1")
    status, _, err = command("score", files["rule.json"], files["good.csv"], capsys=capsys)
    assert status == cli.EXIT_INTERNAL and "Traceback" in err


@pytest.mark.parametrize("error, words", [
    (RecursionError("deep"), ["nested too deeply"]),
    (MemoryError(), ["out of memory"]),
    (PermissionError(13, "Permission denied", "/some/file"), ["/some/file", "Permission denied"]),
])
def test_errors_of_the_input_or_the_system_are_exit_2(files, capsys, monkeypatch, error, words):
    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(score_command, "load_rule", failing)
    status, _, err = command("score", files["rule.json"], files["good.csv"], capsys=capsys)
    one_line_error(status, err, *words)


def test_the_real_command_has_the_last_resort_too(tmp_path):
    """A rule file that a subprocess cannot even read as text: still one line, exit 2."""
    rule = tmp_path / "rule.json"
    rule.write_text(json.dumps(RULE), encoding="utf-8")
    data = tmp_path / "deep.jsonl"
    data.write_text('{"answers": ' + "[" * DEEP + "]" * DEEP + "}\n", encoding="utf-8")
    for argv in (["check", rule, "--data", data], ["explain", rule, data, "--row", "1"],
                 ["compare", data, rule, "--label", "score"]):
        proc = real_command(*argv)
        one_line_error(proc.returncode, proc.stderr, str(data), "line 1", "nested too deeply")


@pytest.mark.parametrize("subcommand", ["tune", "suggest"])
def test_data_without_a_usable_mark_is_one_line(files, tmp_path, capsys, subcommand):
    unmarked = tmp_path / "unmarked.csv"
    unmarked.write_text("id,q1,score\n1,a,\n2,b,\n", encoding="utf-8")
    status, _, err = command(subcommand, files["rule.json"], unmarked, "--label", "score", capsys=capsys)
    one_line_error(status, err, str(unmarked), "no marked answers")
    status, _, err = command(subcommand, files["rule.json"], files["good.csv"], "--label", "mark", capsys=capsys)
    one_line_error(status, err, str(files["good.csv"]), "no such column")
    if subcommand == "tune":
        status, _, err = command("tune", files["rule.json"], files["good.csv"], "--label", "score", capsys=capsys)
        one_line_error(status, err, str(files["good.csv"]), "2 distinct marked answers: too few for 5 folds")
