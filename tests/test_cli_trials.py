"""The command after the trials of issue 25: every message that quotes input is short, an
output never replaces an input (links followed to the file they lead to), SIGTERM and
SIGHUP stop a run like Ctrl-C, what the demo suggests runs, a forgotten ``--label`` is
warned about, ``coscore app`` takes the folder above ``app/``, and errors speak of files
and flags.

Most cases run the command in process (``coscore.cli.main``); signals are sent to real
subprocesses.
"""
from __future__ import annotations

import contextlib
import csv
import gc
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coscore import cli, demo
from coscore.cli.app import app_folder
from coscore.cli.signals import Stopped, stop_on_signals
from coscore.diagnostics import MESSAGE_LIMIT
from support import coscore_env, wait_until

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "coscore" / "data" / "demo"
RULE = {"atoms": {"0": {"type": "SM", "desc": "a"}},
        "combos": {"A": {"combo": "M(0, T(0))", "score": 5, "mode": "value"}}, "comboMode": "ADD"}


def run(*argv: object, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write_rule(path: Path, combo: str = "M(0, T(0))", **combos: str) -> Path:
    rule = json.loads(json.dumps(RULE))
    rule["combos"]["A"]["combo"] = combo
    for name, text in combos.items():
        rule["combos"][name] = {"combo": text, "score": 1, "mode": "logic"}
    path.write_text(json.dumps(rule), encoding="utf-8")
    return path


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def longest_line(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


# -- 1. every message that quotes input is shortened ----------------------------------------


def test_an_answers_error_cell_is_short(tmp_path, capsys):
    """Issue 25's reproducer: T(T(0)) on a 1,000,000-character blank."""
    rule = write_rule(tmp_path / "r.json", "T(T(0))")
    data = write_csv(tmp_path / "one.csv", ["id", "answer"], [[1, "y" * 1_000_000]])
    for out in (tmp_path / "out.csv", tmp_path / "out.jsonl"):
        status, _, err = run("score", rule, data, "-o", out, capsys=capsys)
        assert status == 0 and len(err) <= MESSAGE_LIMIT + 1, err
        text = out.read_text(encoding="utf-8")
        cell = (next(csv.DictReader(text.splitlines())) if out.suffix == ".csv"
                else json.loads(text))["coscore_error"]
        assert cell.startswith("combos.A:") and len(cell) <= MESSAGE_LIMIT


def test_a_combo_building_huge_atom_ids_writes_a_small_file(tmp_path, capsys):
    """Issue 25's reproducer: G(T(0)*1000, 1) on a 1 MB CSV of 100 rows wrote 1.0 GB."""
    rule = write_rule(tmp_path / "r.json", "G(T(0)*1000, 1)")
    data = write_csv(tmp_path / "big.csv", ["id", "answer"], [[i, "x" * 10_000] for i in range(100)])
    out = tmp_path / "out.csv"
    status, _, err = run("score", rule, data, "-o", out, capsys=capsys)
    assert status == 0, err
    assert data.stat().st_size > 1_000_000 and out.stat().st_size < 2_000_000
    status, out_text, _ = run("check", rule, capsys=capsys)
    assert status == 1 and "it must be an atom id" in out_text and "invalid (1 error" in out_text


def big(n: int, letter: str = "x") -> str:
    return letter * n


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    made = {"rule": write_rule(tmp_path / "r.json"),
            "data": write_csv(tmp_path / "d.csv", ["id", "answer"], [[1, "a"], [2, "b"]])}
    many = json.loads(json.dumps(RULE))
    many["combos"] = {big(5000, str(i)): {"combo": "Y(0) + " + big(3000, "1"), "score": 1, "mode": "logic"}
                      for i in range(20)}
    (tmp_path / "many.json").write_text(json.dumps(many), encoding="utf-8")
    made["many"] = tmp_path / "many.json"
    made["wide"] = write_csv(tmp_path / "w.csv", [f"c{i}{big(100, 'W')}" for i in range(100)], [["x"] * 100])
    made["scored"] = tmp_path / "s.csv"
    write_csv(made["scored"], ["id" + big(5000, "B"), "answer", "mark", "school", "coscore_score"],
              [[f"id{i}{big(5000, 'B')}", big(5000, "a" if i % 2 else "x"), i % 10, big(5000, "S"), i % 3]
               for i in range(12)])
    return made


@pytest.mark.parametrize("argv", [
    ["score", "{many}", "{data}"],
    ["score", "{rule}", "{data}", "--blanks", big(5000, "q")],
    ["score", "{rule}", "{data}", "--format", big(5000, "q")],
    ["score", "{rule}", "{data}", "--label", big(5000, "L")],
    ["score", "{rule}", big(3000, "n") + ".csv"],
    ["score", "{rule}", "{data}", "--chunk-size", big(5000, "9") + "x"],
    ["report", "{wide}", "--label", big(3000, "L")],
    ["compare", "{wide}", "--label", "c0" + big(100, "W"), big(3000, "S")],
    ["explain", "{rule}", "{data}", "--id", big(3000, "i")],
    ["check", "{rule}", "--data", "{wide}", "--blanks", big(3000, "b")],
])
def test_every_error_line_is_short(inputs, capsys, argv):
    status, _, err = run(*[a.format(**inputs) for a in argv], capsys=capsys)
    assert status == 2 and "Traceback" not in err
    assert longest_line(err) <= MESSAGE_LIMIT, err[:300]


def test_an_invalid_rule_lists_a_few_problems_briefly(inputs, capsys):
    status, _, err = run("score", inputs["many"], inputs["data"], capsys=capsys)
    assert status == 2 and len(err) <= MESSAGE_LIMIT + 1
    shown = err.count("unknown operator 'Y'")
    assert 1 <= shown <= 5 and f"… and {20 - shown} more" in err


@pytest.mark.parametrize("argv", [
    ["check", "{many}"],
    ["report", "{scored}", "--label", "mark", "--rule", "{rule}", "--by", "school", "--blanks", "answer"],
    ["compare", "{scored}", "--label", "mark", "{rule}", "--blanks", "answer"],
    ["explain", "{rule}", "{scored}", "--label", "mark", "--row", "1", "--blanks", "answer"],
])
def test_every_report_line_is_short(inputs, capsys, argv):
    status, out, err = run(*[a.format(**inputs) for a in argv], capsys=capsys)
    assert status in (0, 1), err
    assert out and longest_line(out) <= MESSAGE_LIMIT and longest_line(err) <= MESSAGE_LIMIT


# -- 3. an output never replaces an input ---------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path, inputs: dict[str, Path]) -> dict[str, Path]:
    data = inputs["data"]
    (tmp_path / "sym.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    return {**inputs, "sym": tmp_path / "sym.csv", "hard": tmp_path / "hard.csv"}


@pytest.mark.parametrize("data, out", [
    (["{data}"], "{sym}"),                       # ln -s in.csv out.csv
    (["{data}"], "{hard}"),                      # a hard link
    (["{data}"], "{dotted}"),                    # ./x for x
    (["{other}", "{data}"], "{data}"),           # one of several DATA files
    (["{glob}"], "{data}"),                      # a glob matching it
    (["{data}"], "{rule}"),                      # the rule file
])
def test_an_output_that_is_an_input_is_refused_before_writing(linked, tmp_path, capsys, monkeypatch, data, out):
    monkeypatch.chdir(tmp_path)
    other = write_csv(tmp_path / "other.csv", ["id", "answer", "mark"], [[3, "c", 1]])
    names = {**linked, "other": other, "dotted": f"./{linked['data'].name}", "glob": str(tmp_path / "d*.csv")}
    before = {p: p.read_bytes() for p in (linked["data"], linked["rule"])}
    argv = ["score", linked["rule"], *[d.format(**names) for d in data], "-o", out.format(**names)]
    status, _, err = run(*argv, capsys=capsys)
    assert status == 2 and "names an input file" in err and len(err.splitlines()) == 1, err
    assert {p: p.read_bytes() for p in before} == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_standard_input_redirected_from_the_output_is_refused(inputs, tmp_path):
    before = inputs["data"].read_bytes()
    with open(inputs["data"], "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "coscore", "score", str(inputs["rule"]), "-", "--format", "csv",
                               "-o", str(inputs["data"])], stdin=stdin, capture_output=True, text=True, cwd=ROOT,
                              env=_env(), timeout=120)
    assert done.returncode == 2 and "<stdin>" in done.stderr
    assert inputs["data"].read_bytes() == before


def test_an_html_page_over_an_input_is_refused(inputs, capsys):
    write_csv(inputs["scored"], ["id", "answer", "mark", "coscore_score"], [[1, "a", 5, 5.0], [2, "b", 0, 0.0]])
    before = inputs["scored"].read_bytes()
    status, _, err = run("report", inputs["scored"], "--label", "mark", "--html", inputs["scored"], capsys=capsys)
    assert status == 2 and "--html names an input file" in err and inputs["scored"].read_bytes() == before
    status, _, err = run("compare", inputs["data"], "--label", "mark", inputs["rule"], "--html", inputs["rule"],
                         capsys=capsys)
    assert status == 2 and "--html names an input file" in err


def test_output_through_a_link_replaces_its_target_from_beside_it(inputs, tmp_path, capsys, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "scores.csv"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    made = []
    real_mkstemp = __import__("tempfile").mkstemp

    def mkstemp(*args, **kwargs):
        made.append(kwargs.get("dir"))
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr("tempfile.mkstemp", mkstemp)
    bad = write_csv(tmp_path / "bad.csv", ["id", "answer"], [[1, "a"]])
    bad.write_text(bad.read_text(encoding="utf-8") + "2\n", encoding="utf-8")  # a short row: fails mid-run
    status, _, err = run("score", inputs["rule"], bad, "-o", link, capsys=capsys)
    assert status == 2 and target.read_text(encoding="utf-8") == "old\n"  # a failed run leaves the target
    status, _, err = run("score", inputs["rule"], inputs["data"], "-o", link, capsys=capsys)
    assert status == 0, err
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith("id,answer,coscore_score")
    assert made and all(Path(d) == elsewhere.resolve() for d in made)
    assert target.stat().st_mode & 0o777 == 0o640  # the file replaced keeps its permissions
    assert sorted(p.name for p in elsewhere.iterdir()) == ["scores.csv"]


def test_a_dangling_link_gets_its_target_made(inputs, tmp_path, capsys):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "new.csv")
    status, _, err = run("score", inputs["rule"], inputs["data"], "-o", link, capsys=capsys)
    assert status == 0, err
    assert link.is_symlink() and (tmp_path / "new.csv").read_text(encoding="utf-8").startswith("id,")


def test_a_device_is_written_through(inputs, capsys):
    status, _, err = run("score", inputs["rule"], inputs["data"], "-o", os.devnull, "--output-format", "csv",
                         capsys=capsys)
    assert status == 0, err


# -- 4. SIGTERM and SIGHUP behave like Ctrl-C ------------------------------------------------


def _env() -> dict[str, str]:
    env = coscore_env()
    env.pop("COSCORE_TRACEBACK", None)
    return env


SIGNALS = [s for s in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, s)]


@contextlib.contextmanager
def heeded(signum: int) -> Iterator[None]:
    """Within the block, ``signum`` is not ignored by this process, nor by the processes it starts
    (they inherit an ignored signal: under ``nohup`` SIGHUP is, SIGINT in a shell's background
    job), so that coscore handles it; what was there before is put back after."""
    before = signal.getsignal(signum)
    if before is signal.SIG_IGN:
        signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signum, before)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("name", SIGNALS)
@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".jsonl", ".parquet"])
def test_a_signal_mid_run_leaves_nothing_and_prints_one_line(tmp_path, name, suffix):
    """The run reads JSON Lines from a pipe that stays open: it has written chunks to its
    temporary output and waits for more when the signal comes."""
    rule = write_rule(tmp_path / "r.json")
    out = tmp_path / f"out{suffix}"
    signum = getattr(signal, name)
    with heeded(signum):   # the run inherits how the signal is handled: not ignored, as in a terminal
        proc = subprocess.Popen([sys.executable, "-m", "coscore", "score", str(rule), "-", "--format", "jsonl",
                                 "--chunk-size", "50", "-o", str(out)], stdin=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=ROOT, env=_env())
    assert proc.stdin is not None
    rows = "".join(json.dumps({"id": i, "answer": "ab" * (i % 7)}) + "\n" for i in range(500))
    proc.stdin.write(rows.encode())
    proc.stdin.flush()

    def written() -> bool:
        """The temporary output is there and, for a format written as it goes (CSV, JSON
        Lines), holds the chunks scored so far."""
        assert proc.poll() is None, "the run ended before the signal"
        temporary = [p for p in tmp_path.iterdir() if p.name.startswith(f".{out.name}.")]
        return bool(temporary) and (suffix in (".parquet", ".xlsx") or temporary[0].stat().st_size > 0)

    wait_until(written, 60, "the run to write its temporary output")
    if suffix in (".parquet", ".xlsx"):   # they hold what they write until the end: nothing to wait on
        time.sleep(0.3)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    proc.stdin.close()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 128 + signum, err
    assert lines == ["coscore: interrupted" + ("" if name == "SIGINT" else f" ({name})")], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.fixture
def unraisable(monkeypatch) -> list[BaseException]:
    """What would be printed as 'Exception ignored in: …'."""
    seen: list[BaseException] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))
    return seen


def test_a_signal_that_lands_in_a_finalizer_still_stops_the_run(unraisable):
    """A finalizer cannot raise; the signal it swallowed is delivered again, and nothing
    says 'Exception ignored'."""
    class Finalized:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGTERM)  # the handler runs here, inside the finalizer

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped) as stopped, stop_on_signals():
        Finalized()
        for _ in range(10_000):
            time.sleep(0.001)
    assert stopped.value.signum == signal.SIGTERM
    assert unraisable == []
    assert signal.getsignal(signal.SIGTERM) is before


def test_finalizers_of_an_abandoned_output_say_nothing(unraisable):
    class Broken:
        def __init__(self) -> None:
            self.me = self  # a cycle: collected by the collector, after the stop

        def __del__(self) -> None:
            raise ValueError("I/O operation on closed file")

    with heeded(signal.SIGHUP), pytest.raises(Stopped), stop_on_signals():
        Broken()
        signal.raise_signal(signal.SIGHUP)
        time.sleep(5)
    assert unraisable == []
    Broken()
    gc.collect()  # once the run is over, a failing finalizer is reported again
    assert [type(e) for e in unraisable] == [ValueError]


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_signal_ignored_by_whoever_started_the_run_stays_ignored():
    """Under ``nohup`` (SIGHUP ignored) a hang-up does not stop the run."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_on_signals():
            signal.raise_signal(signal.SIGHUP)
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_run_in_process_gets_its_handlers_back(inputs, capsys):
    handlers = {s: signal.getsignal(getattr(signal, s)) for s in SIGNALS}
    run("score", inputs["rule"], inputs["data"], capsys=capsys)
    assert {s: signal.getsignal(getattr(signal, s)) for s in SIGNALS} == handlers


# -- 5. what the demo suggests runs ----------------------------------------------------------


@pytest.mark.parametrize("html", [True, False])
def test_every_command_the_demo_prints_runs(tmp_path, capsys, monkeypatch, html):
    if html:
        pytest.importorskip("matplotlib")
    monkeypatch.setattr(demo, "html_reports", lambda: html)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run("demo", capsys=capsys)
    assert status == 0
    printed = out.split("Next, see why an answer gets its score, or score a file yourself:\n")[1].splitlines()
    commands = [line.strip() for line in printed if line.strip().startswith("coscore ")]
    assert len(commands) == 3 and ("--html" in commands[-1]) == html
    assert ("pip install matplotlib" in out) != html
    for line in commands:
        status, _, err = run(*shlex.split(line)[1:], capsys=capsys)
        assert status == 0, (line, err)
    assert (tmp_path / "scored.csv").is_file() and (tmp_path / "report.html").is_file() == html


def test_the_demo_knows_whether_html_reports_work():
    assert demo.html_reports() == (__import__("importlib").util.find_spec("matplotlib") is not None)


# -- 6. habits: a forgotten --label, the app folder, errors worded for the command ------------


@pytest.mark.parametrize("name", ["mark", "Score", "LABEL", "grade", "human", "成绩"])
def test_a_mark_column_is_never_taken_as_a_blank_silently(tmp_path, capsys, name):
    """A rule reading one blank is refused two default columns, with the hint to give
    --label; a rule reading any number ('*') takes them, with a warning."""
    rule = write_rule(tmp_path / "r.json")
    data = write_csv(tmp_path / "d.csv", ["id", "answer", name], [[1, "a", 5]])
    hint = f"--label {shlex.quote(name)}"
    status, _, err = run("score", rule, data, "-o", tmp_path / "o.csv", capsys=capsys)
    assert status == 2 and hint in err and "reads 1 blank" in err and not (tmp_path / "o.csv").exists()
    status, _, err = run("score", rule, data, "--label", name, "-o", tmp_path / "o.csv", capsys=capsys)
    assert status == 0 and "warning" not in err
    status, _, err = run("score", rule, data, "--blanks", f"answer,{name}", "-o", tmp_path / "o.csv", capsys=capsys)
    assert status == 0 and "warning" not in err
    status, out, err = run("check", rule, "--data", data, capsys=capsys)
    assert status == 1 and hint in out + err
    status, _, err = run("explain", rule, data, "--row", "1", capsys=capsys)
    assert status == 2 and hint in err
    joined = write_rule(tmp_path / "all.json", "M(0, T('*'))")
    status, _, err = run("score", joined, data, "-o", tmp_path / "o.csv", capsys=capsys)
    assert status == 0 and hint in err and "warning" in err, err


def test_no_warning_for_ordinary_columns(tmp_path, capsys):
    rule = write_rule(tmp_path / "r.json", "M(0, T(0)) + M(0, T(1))")
    data = write_csv(tmp_path / "d.csv", ["id", "q1", "marks_note"], [[1, "a", "x"]])
    status, _, err = run("score", rule, data, "-o", tmp_path / "o.csv", capsys=capsys)
    assert status == 0 and err == ""


def _app(folder: Path) -> Path:
    for part in ("templates", "static"):
        (folder / part).mkdir(parents=True)
    return folder


def test_the_app_folder_or_the_folder_above_it(tmp_path):
    app = _app(tmp_path / "repo" / "app")
    assert app_folder(str(app)) == (app, None)
    assert app_folder(str(tmp_path / "repo")) == (app, None)
    _, problem = app_folder(str(tmp_path))
    assert problem is not None and f"try: coscore app {tmp_path / 'repo' / 'app'}" in problem
    _, problem = app_folder(str(app / "static"))
    assert problem is not None and f"try: coscore app {app}" in problem
    _, problem = app_folder(str(tmp_path / "missing"))
    assert problem is not None and "not a CoScore app folder" in problem


def test_coscore_app_accepts_the_folder_above_app(tmp_path, capsys):
    pytest.importorskip("uvicorn")
    _app(tmp_path / "repo" / "app")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\0not a database" * 100)
    status, _, err = run("app", tmp_path / "repo", "--db", garbage, "--port", "0", capsys=capsys)
    assert status == 2 and str(garbage) in err and "app folder" not in err  # the folder was taken
    status, _, err = run("app", tmp_path, capsys=capsys)
    assert status == 2 and "try: coscore app" in err and len(err.splitlines()) == 1


def test_swapping_rule_and_data_speaks_of_files_not_python(inputs, capsys):
    for argv in (["score", inputs["data"], inputs["rule"]], ["check", inputs["data"]],
                 ["explain", inputs["data"], "x"]):
        status, out, err = run(*argv, capsys=capsys)
        said = out + err
        assert status in (1, 2) and "pathlib" not in said and "Path" not in said, said
        assert "is not a rule file" in said and "give the rule file first" in said


def test_a_rule_over_a_budget_names_the_flag(inputs, capsys):
    status, _, err = run("score", inputs["rule"], inputs["data"], "--max-rule-atoms", "0", capsys=capsys)
    assert status == 2  # 0 is not a budget
    two = json.loads(json.dumps(RULE))
    two["atoms"]["1"] = {"type": "EM", "desc": "b"}
    inputs["rule"].write_text(json.dumps(two), encoding="utf-8")
    status, _, err = run("score", inputs["rule"], inputs["data"], "--max-rule-atoms", "1", capsys=capsys)
    assert status == 2 and "--max-rule-atoms" in err and "max_atoms" not in err, err
    status, out, _ = run("check", inputs["rule"], "--max-rule-atoms", "1", capsys=capsys)
    assert status == 1 and "--max-rule-atoms" in out and "max_atoms" not in out
