"""The budgets of a search (``tune``, ``suggest``): time, memory and cancel, each ending in
one line with the best result so far (library, command and workbench job); their flags
and the other options validated; marks that are not finite numbers refused."""
from __future__ import annotations

import json
import math
import random
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from coscore.labelled import read_table
from coscore.marks import marks_array
from coscore.search_budget import SearchBudget, SearchStopped
from coscore.suggest import suggest
from coscore.tune import tune
from coscore.tune import tuning as tuning_module
from test_cli import DEMO, run, text


def _demo(task: str) -> tuple[Path, list, np.ndarray]:
    table = read_table(DEMO / f"{task}.csv", "coscore", None, "score")
    return DEMO / f"{task}.rule.json", list(table.answers), table.marks


def _hostile(rows: int) -> tuple[dict, list[str], list[float]]:
    """The attack's shape, smaller: 40 OP/CS atoms, 40 combos, random answers and marks."""
    rng = random.Random(5)
    letters = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉"
    atoms = {str(i): {"type": "OP" if i % 2 else "CS", "desc": "0.5:" + "".join(rng.choices(letters[:14], k=6))}
             for i in range(40)}
    combos = {f"C{i}": {"combo": f"G({i}, T(0))", "score": 1, "mode": "value"} for i in range(40)}
    answers = ["".join(rng.choices(letters, k=rng.randint(5, 30))) for _ in range(rows)]
    marks = [float(min(10, sum(ch in a for ch in "甲乙丙丁戊"))) for a in answers]
    return {"atoms": atoms, "combos": combos, "comboMode": "ADD"}, answers, marks


def test_a_budget_is_checked_and_validated():
    for bad in ({"seconds": 0}, {"seconds": math.nan}, {"seconds": -1.0}, {"seconds": True}, {"memory": 0},
                {"memory": 1.5}):
        with pytest.raises(ValueError, match="SearchBudget"):
            SearchBudget(**bad)
    SearchBudget(seconds=None, memory=None).start().check()
    meter = SearchBudget(seconds=1e-9).start()
    time.sleep(0.001)   # past the budget, however fast the clock is read
    with pytest.raises(SearchStopped) as stopped:
        meter.check()
    assert stopped.value.budget == "time" and stopped.value.limit == 1e-9
    event = threading.Event()
    meter = SearchBudget(cancel=event).start()
    meter.check()
    event.set()
    meter.stage = "the search on all rows"
    with pytest.raises(SearchStopped, match="was cancelled during the search on all rows") as stopped:
        meter.check()
    assert stopped.value.budget == "cancelled"
    meter = SearchBudget(memory=1 << 20).start()
    meter.base -= 2 << 20   # as if the search had grown by 2 MiB (freed memory may be reused, not grown)
    with pytest.raises(SearchStopped, match="memory budget of 1 MiB"):
        meter.check()


def test_tune_stops_at_its_budget_with_the_best_so_far():
    rule, answers, marks = _hostile(1500)
    started = time.monotonic()
    with pytest.raises(SearchStopped) as stopped:
        tune(rule, answers, marks, drop=True, budget=SearchBudget(seconds=0.5))
    assert time.monotonic() - started < 15
    stop = stopped.value
    assert stop.budget == "time" and stop.what == "tune" and str(stop).startswith("tune stopped at its time budget")
    assert stop.stage and stop.partial.get("metric", "qwk") == "qwk"
    event = threading.Event()
    event.set()
    with pytest.raises(SearchStopped, match="tune was cancelled"):
        tune(rule, answers, marks, budget=SearchBudget(cancel=event))


def test_a_tune_stopped_in_the_cross_validation_names_what_the_search_found(monkeypatch):
    rule, answers, marks = _demo("traffic-light")
    expected = tune(rule, answers, marks)
    assert expected.proposed

    def stop(*args, **kwargs):
        raise SearchStopped("time", 2.0, "the cross-validation (fold 1 of 5)")

    monkeypatch.setattr(tuning_module, "cross_validate", stop)
    with pytest.raises(SearchStopped) as stopped:
        tune(rule, answers, marks)
    found = stopped.value
    assert found.stage == "the cross-validation (fold 1 of 5)"
    assert found.partial["changes"] == [c.to_dict() for c in expected.proposed]
    assert found.partial["in_sample"] > found.partial["before"]
    assert "not checked held out, so the rule is unchanged" in str(found)
    assert f"on the {len(answers):,} marked rows with {len(expected.proposed)} change" in str(found)


def test_suggest_stops_at_its_budget_with_the_phrases_so_far(monkeypatch):
    rule, answers, marks = _demo("lane-change")
    event = threading.Event()
    event.set()
    with pytest.raises(SearchStopped, match="suggest was cancelled during the scoring of the marked answers: "
                                            "nothing found yet"):
        suggest(rule, answers, marks, budget=SearchBudget(cancel=event))
    import coscore.suggest as suggest_module

    def stop(*args, **kwargs):
        raise SearchStopped("memory", 1 << 30)

    monkeypatch.setattr(suggest_module, "missed", stop)
    with pytest.raises(SearchStopped) as stopped:
        suggest(rule, answers, marks)
    assert "during the search for missed answers: best so far:" in str(stopped.value)
    assert "phrases of high marks" in str(stopped.value) and stopped.value.partial["phrases"]


def test_options_out_of_range_and_marks_that_are_not_finite_are_refused():
    rule, answers, marks = _demo("traffic-light")
    for bad in ({"folds": 1}, {"folds": 101}, {"folds": 2.5}, {"resamples": 0}, {"resamples": 100_000_001},
                {"seed": -1}):
        with pytest.raises(ValueError, match="must be a whole number"):
            tune(rule, answers, marks, **bad)
    for bad in ({"min_z": math.nan}, {"min_z": -1}, {"min_z": math.inf}, {"similar": 1.5}, {"top": 0},
                {"limit": 0}, {"min_rows": 0}):
        with pytest.raises(ValueError, match="must be"):
            suggest(rule, answers, marks, **bad)
    infinite = list(marks)
    infinite[4] = math.inf
    for search in (tune, suggest):
        with pytest.raises(ValueError, match="the mark of row 5 is inf, not a finite number"):
            search(rule, answers, infinite)
        with pytest.raises(ValueError, match="the mark of row 2 is '缺考', not a number"):
            search(rule, answers[:3], [1, "缺考", None])
    assert np.isnan(marks_array([None, math.nan, 2])[:2]).all()
    with pytest.raises(ValueError, match="row 1 is -inf"):
        marks_array([-10**400])


def test_the_commands_stop_in_one_line_and_validate_their_flags(tmp_path):
    rule, answers, marks = _hostile(800)
    rule_file, data = tmp_path / "r.json", tmp_path / "d.csv"
    rule_file.write_text(json.dumps(rule, ensure_ascii=False), encoding="utf-8")
    data.write_text("answer,mark\n" + "".join(f"{a},{m:g}\n" for a, m in zip(answers, marks)), encoding="utf-8")
    out = tmp_path / "tuned.json"
    proc = run("tune", rule_file, data, "--label", "mark", "--drop", "--max-seconds", "0.2", "-o", out)
    printed, err = text(proc)
    assert proc.returncode == 1 and printed == "" and not out.exists()
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("coscore: tune stopped at its time budget of 0.2 s during ")
    assert err.rstrip().endswith("(give more with --max-seconds)")
    proc = run("tune", rule_file, data, "--label", "mark", "--max-seconds", "0.2", "--json")
    assert proc.returncode == 1 and json.loads(text(proc)[0])["stopped"]["budget"] == "time"
    proc = run("suggest", rule_file, data, "--label", "mark", "--max-memory", "1K")
    assert proc.returncode in (0, 1)   # 1 KiB: stopped as soon as the memory grows at all
    if proc.returncode == 1:
        assert "memory budget of 1 KiB" in text(proc)[1] and "--max-memory" in text(proc)[1]
    for command, flag, value, said in (("tune", "--resamples", "100000000", "expected 1 to 100,000 resamples"),
                                       ("tune", "--folds", "1000", "expected 2 to 100 folds"),
                                       ("tune", "--max-seconds", "nan", "expected a positive number of seconds"),
                                       ("tune", "--max-memory", "0", "expected a positive size in bytes"),
                                       ("suggest", "--max-seconds", "inf", "expected a positive number of seconds"),
                                       ("suggest", "--min-z", "nan", "expected a finite number of at least 0"),
                                       ("compare", "--resamples", "100000000", "expected 1 to 100,000 resamples")):
        inputs = [data, rule_file] if command == "compare" else [rule_file, data]
        proc = run(command, *inputs, "--label", "mark", flag, value)
        assert proc.returncode == 2 and said in text(proc)[1], (command, flag, text(proc)[1])


def test_the_workbench_job_answers_the_best_so_far():
    import pyarrow as pa

    from coscore.http.rules import Compiler
    from coscore.workbench.assist_jobs import tune_job

    rule, answers, marks = _hostile(1500)
    answers_table = SimpleNamespace(blanks=pa.table({"answer": answers}), marks=np.asarray(marks))
    payload = (json.dumps(rule), SimpleNamespace(load=lambda: answers_table), {"drop": True, "seconds": 0.3})
    from coscore.http.responses import ApiError

    with pytest.raises(ApiError) as refused:
        tune_job(Compiler(), payload)
    assert refused.value.status == 422 and refused.value.extra["budget"] == "time"
    assert refused.value.message.startswith("tune stopped at its time budget of 0.3 s")
    assert isinstance(refused.value.extra["best_so_far"], dict)
