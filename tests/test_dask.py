"""coscore.dask on a real (local) Dask cluster: two single-threaded worker processes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import coscore  # noqa: E402
import coscore.dask as cdask  # noqa: E402
from coscore.cli import main  # noqa: E402
from coscore.io import InputError  # noqa: E402
from coscore.pipeline.files import Totals  # noqa: E402

DEMO = Path(coscore.__file__).parent / "data" / "demo"
TASKS = ["lab-tools", "lane-change", "shortest-path", "traffic-light"]
#: Where each demo task's rows are cut into the 3 files of its dataset (uneven on purpose).
SPLITS = (0.2, 0.5)


# -- data ---------------------------------------------------------------------------------


def demo_answers(task: str) -> tuple[list[list[str]], list[int]]:
    """The original layout: answer = text before the first comma, blanks split on '-'."""
    lines = (DEMO / f"{task}.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "text,score"
    answers = [line.split(",", 1)[0].split("-") for line in lines[1:]]
    marks = [int(line.rsplit(",", 1)[1]) for line in lines[1:]]
    return answers, marks


def answers_table(answers: list[list[str]], ids: list[str], marks: list[int] | None = None) -> pa.Table:
    """Columns id, b1..bK (null where an answer has fewer blanks) [, score]."""
    width = max(len(a) for a in answers)
    data = {"id": pa.array(ids, pa.string())}
    for j in range(width):
        data[f"b{j + 1}"] = pa.array([a[j] if j < len(a) else None for a in answers], pa.string())
    if marks is not None:
        data["score"] = pa.array(marks, pa.int64())
    return pa.table(data)


def write_dataset(directory: Path, table: pa.Table, cuts: list[int]) -> None:
    directory.mkdir(parents=True)
    bounds = [0, *cuts, table.num_rows]
    for i, (lo, hi) in enumerate(pairwise(bounds)):
        pq.write_table(table.slice(lo, hi - lo), directory / f"part-{i:03d}.parquet")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Per task: (rule dict, answers, dataset directory of 3 files)."""
    root = tmp_path_factory.mktemp("demo")
    out = {}
    for task in TASKS:
        answers, marks = demo_answers(task)
        n = len(answers)
        table = answers_table(answers, [f"{task}-{i}" for i in range(n)], marks)
        write_dataset(root / task, table, [int(n * s) for s in SPLITS])
        rule = json.loads((DEMO / f"{task}.rule.json").read_text(encoding="utf-8"))
        out[task] = (rule, answers, root / task)
    return out


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def assert_matches(result: pd.DataFrame, rule, answers: list[list[str]]) -> None:
    """``result`` (in input order) holds exactly what local score_many gives."""
    rule = coscore.compile(rule) if not isinstance(rule, coscore.Rule) else rule
    batch = rule.score_many(answers)
    assert len(result) == len(answers)
    np.testing.assert_array_equal(result["coscore_score"].to_numpy(dtype="float64"), batch.scores)
    for cid in rule.combo_ids:
        np.testing.assert_array_equal(result[f"coscore_combo_{cid}"].to_numpy(dtype="float64"), batch.combos[cid])
    errors = [None if pd.isna(e) or e == "" else e for e in result["coscore_error"].tolist()]
    assert errors == batch.errors


def read_output(out_dir: Path) -> pd.DataFrame:
    files = sorted(out_dir.glob("*.parquet"), key=lambda p: int(p.name.split(".")[1]))
    return pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)


# -- the module itself ----------------------------------------------------------------------


def test_import_does_not_shadow_dask():
    import dask
    import dask.dataframe

    assert Path(dask.__file__).parent.name == "dask"
    assert Path(dask.__file__).parent != Path(cdask.__file__).parent
    assert cdask.dd is dask.dataframe
    assert coscore.dask is cdask


def test_import_in_a_fresh_interpreter():
    code = ("import coscore.dask, dask, dask.dataframe, os; "
            "assert os.path.dirname(dask.__file__) != os.path.dirname(coscore.dask.__file__); "
            "assert coscore.dask.dd is dask.dataframe; print('ok')")
    root = str(Path(coscore.__file__).parent.parent)
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_score_is_lazy_and_declares_meta():
    pdf = pd.DataFrame({"id": ["a", "b", "c"], "b1": ["笔纸尺", None, "x"]}, index=[10, 20, 30])
    ddf = dd.from_pandas(pdf, npartitions=2)
    rule = json.loads((DEMO / "lab-tools.rule.json").read_text(encoding="utf-8"))

    def refuse(*args, **kwargs):
        raise AssertionError("score() computed something")

    with dask.config.set(scheduler=refuse):
        scored = cdask.score(ddf, rule)
    assert list(scored.columns) == ["id", "b1", "coscore_score", "coscore_combo_A", "coscore_combo_B",
                                   "coscore_combo_C", "coscore_error"]
    assert scored.npartitions == 2 and scored.divisions == ddf.divisions
    assert str(scored.dtypes["coscore_score"]) == "float64"
    assert pd.api.types.is_string_dtype(scored.dtypes["coscore_error"])
    got = scored.compute(scheduler="sync")
    assert list(got.index) == [10, 20, 30]
    assert got.dtypes.equals(scored.dtypes)
    assert_matches(got, rule, [["笔纸尺"], [""], ["x"]])  # a null blank is ""



def test_rule_travels_as_json_in_rule_order():
    rule = {"atoms": {"0": {"type": "EM", "desc": "a"}},
            "combos": {"Z": {"combo": "M(0,T(0))", "score": 1, "mode": "value"},
                       "A": {"combo": "1", "score": 2, "mode": "value"}},
            "comboMode": "ADD"}
    text, dialect, compiled = cdask.rule_payload(rule)
    assert json.loads(text) == rule and list(json.loads(text)["combos"]) == ["Z", "A"]
    assert dialect == "coscore" and compiled.combo_ids == ["Z", "A"]
    assert cdask.rule_payload(compiled)[0] == text
    assert cdask.rule_payload(coscore.compile(rule, dialect="manual"))[1] == "manual"
    with pytest.raises(coscore.RuleError):
        cdask.score(dd.from_pandas(pd.DataFrame({"b": ["x"]}), npartitions=1), {"combos": {}})


def test_bad_columns_are_refused_before_computing():
    rule = json.loads((DEMO / "lab-tools.rule.json").read_text(encoding="utf-8"))
    ddf = dd.from_pandas(pd.DataFrame({"id": ["a"], "b": ["x"], "n": [1]}), npartitions=1)
    with pytest.raises(InputError, match="no such column"):
        cdask.score(ddf, rule, blanks=["nope"])
    with pytest.raises(InputError, match=r"reads 1 blank, but the data has 2 columns .*blanks=\["):
        cdask.score(ddf, rule)  # default blanks: b and n, for a rule that reads one
    with pytest.raises(InputError, match="must hold text"):
        cdask.score(ddf, rule, blanks=["b", "n"])
    with pytest.raises(InputError, match="cannot also be a blank"):
        cdask.score(ddf, rule, blanks=["b", "n"], label="n")
    scored = dd.from_pandas(pd.DataFrame({"b": ["x"], "coscore_score": [1.0]}), npartitions=1)
    with pytest.raises(InputError, match="already has this output column"):
        cdask.score(scored, rule, blanks=["b"])



def test_object_cells_null_is_empty_and_other_values_fail_in_their_row():
    rule = json.loads((DEMO / "lab-tools.rule.json").read_text(encoding="utf-8"))
    with dask.config.set({"dataframe.convert-string": False}):
        pdf = pd.DataFrame({"b": pd.Series(["笔纸尺", None, 5, float("nan")], dtype=object),
                            "c": pd.Series(["x", "y", "z", None], dtype=object)})
        got = cdask.score(dd.from_pandas(pdf, npartitions=2), rule, blanks=["b", "c"]).compute(scheduler="sync")
    assert got["coscore_score"].tolist()[:2] == [2.0, 0.0] and got["coscore_score"].tolist()[3] == 0.0
    assert got["coscore_error"].isna().tolist() == [True, True, False, True]
    assert "blank 0 is int" in got["coscore_error"][2]


# -- on the cluster -------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_api_matches_score_many(client, demo, task):
    rule, answers, directory = demo[task]
    ddf = dd.read_parquet(str(directory / "*.parquet"))
    assert ddf.npartitions == 3
    scored = cdask.score(ddf, rule, label="score", blanks=[c for c in ddf.columns if c.startswith("b")])
    got = client.compute(scored).result()
    assert got["id"].tolist() == [f"{task}-{i}" for i in range(len(answers))]
    assert_matches(got, rule, answers)
    original = pd.concat([pq.read_table(f).to_pandas() for f in sorted(directory.glob("*.parquet"))])
    pd.testing.assert_frame_equal(
        got[list(original.columns)].reset_index(drop=True), original.reset_index(drop=True), check_dtype=False
    )


def test_rule_is_compiled_once_per_worker(client, demo):
    rule, answers, directory = demo["traffic-light"]
    rule = {**rule, "combos": {**rule["combos"], "Z": {"combo": "0", "score": 1, "mode": "value"}}}  # a new rule
    before = client.run(lambda: cdask.compile_count)
    ddf = dd.read_parquet(str(directory / "*.parquet")).repartition(npartitions=12)
    got = client.compute(cdask.score(ddf, rule, label="score")).result()
    assert_matches(got, rule, answers)
    after = client.run(lambda: cdask.compile_count)
    compiled = {addr: after[addr] - before.get(addr, 0) for addr in after}
    assert sum(compiled.values()) >= 1 and all(n <= 1 for n in compiled.values()), compiled


#: A rule that divides by zero for the answers "0", "x", "abc" (F of a non-number is 0).
DIVIDING_RULE = {"atoms": {"0": {"type": "EM", "desc": "x"}},
                 "combos": {"A": {"combo": "M(0,T(0))", "score": 1, "mode": "value"},
                            "B": {"combo": "10/F(0)", "score": 1, "mode": "value"}},
                 "comboMode": "ADD"}


def test_bad_rows_keep_their_error(client):
    rule = DIVIDING_RULE
    texts = ["2", "0", "x", "5", "0.5", "0", "abc", "4", "-1", "0"]
    pdf = pd.DataFrame({"id": [str(i) for i in range(len(texts))], "answer": texts})
    ddf = dd.from_pandas(pdf, npartitions=3)
    got = client.compute(cdask.score(ddf, rule)).result()
    assert got["id"].tolist() == pdf["id"].tolist()
    assert_matches(got, rule, [[t] for t in texts])
    bad = got["coscore_error"].notna()
    assert bad.tolist() == [t in ("0", "x", "abc") for t in texts]
    assert set(got.loc[bad, "coscore_error"]) == {"combos.B: division by zero"}
    assert got.loc[bad, "coscore_score"].isna().all() and got.loc[~bad, "coscore_score"].notna().all()
    assert got.loc[got["answer"] == "x", "coscore_combo_A"].tolist() == [1.0]  # combos done before the failure


def test_score_files_matches_score_many(client, demo, tmp_path):
    rule, answers, directory = demo["lane-change"]
    out = tmp_path / "scored"
    rows = cdask.score_files(
        coscore.compile(rule), str(directory / "*.parquet"), str(out), label="score",
        scheduler=client.scheduler.address,
    )
    assert rows == len(answers)
    got = read_output(out)
    assert list(got.columns) == ["id", "b1", "score", "coscore_score", "coscore_combo_A", "coscore_combo_B",
                                 "coscore_combo_C", "coscore_error"]
    assert got["id"].tolist() == [f"lane-change-{i}" for i in range(len(answers))]
    assert_matches(got, rule, answers)
    with pytest.raises(InputError, match="not empty"):
        cdask.score_files(rule, str(directory), str(out), scheduler=client.scheduler.address)
    with pytest.raises(InputError, match=r"\*\.parquet'?: column 'score': a blank column must hold text"):
        cdask.score_files(rule, str(directory / "*.parquet"), str(tmp_path / "o3"), blanks=["b1", "score"])
    with pytest.raises(InputError, match="no file matches"):
        cdask.score_files(rule, str(tmp_path / "none" / "*.parquet"), str(tmp_path / "o2"))


def test_score_files_keeps_bad_rows_and_counts_them(client, tmp_path):
    texts = ["2", "0", "x", "5", "0.5", "0", "abc", "4", "-1", "0", "7", "0"]
    table = answers_table([[t] for t in texts], [str(i) for i in range(len(texts))])
    write_dataset(tmp_path / "in", table, [4, 8])  # the last file: 2 bad rows of 4
    totals = Totals()
    rows = cdask.score_files(DIVIDING_RULE, str(tmp_path / "in" / "*.parquet"), str(tmp_path / "out"),
                             scheduler=client.scheduler.address, totals=totals)
    assert rows == totals.rows == len(texts) and totals.errors == 6
    got = read_output(tmp_path / "out")
    assert got["id"].tolist() == [str(i) for i in range(len(texts))]
    assert_matches(got, DIVIDING_RULE, [[t] for t in texts])
    assert got["coscore_error"].isna().sum() == len(texts) - 6


def test_score_files_own_local_cluster_with_progress(demo, tmp_path, capfd, monkeypatch):
    rule, answers, directory = demo["traffic-light"]
    cores = min(2, cdask._cores())
    monkeypatch.setattr(cdask, "_cores", lambda: cores)  # a small cluster, whatever the machine
    out = tmp_path / "scored"
    rows = cdask.score_files(rule, str(directory), str(out), blanks=["b1", "b2", "b3", "b4", "b5"], progress=True)
    assert rows == len(answers)
    got = read_output(out)
    assert got["id"].tolist() == [f"traffic-light-{i}" for i in range(len(answers))]
    assert_matches(got, rule, answers)
    captured = capfd.readouterr()
    assert "100% Completed" in captured.err and "Completed" not in captured.out


# -- a worker dies mid-run ---------------------------------------------------------------------


def kill_a_busy_worker(client, running) -> int:
    """SIGKILL a worker process while it is processing a task (its nanny restarts it);
    return its pid."""
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = [addr for addr, keys in client.processing().items() if keys]
        if busy and busy[0] in pids:
            assert running(), "the run finished before a worker could be killed"
            os.kill(pids[busy[0]], signal.SIGKILL)
            return pids[busy[0]]
        time.sleep(0.01)
    raise AssertionError("no worker ever became busy")


def test_worker_killed_during_api_run(client, demo):
    rule, answers, _directory = demo["shortest-path"]
    table = answers_table(answers * 4, [str(i) for i in range(len(answers) * 4)])
    ddf = dd.from_pandas(table.to_pandas(), npartitions=16)
    slow = ddf.map_partitions(lambda df: (time.sleep(0.25), df)[1], meta=ddf._meta)  # ~2 s in all
    future = client.compute(cdask.score(slow, rule))
    killed = kill_a_busy_worker(client, lambda: not future.done())
    got = future.result()
    client.wait_for_workers(2, timeout=60)
    assert killed not in client.run(os.getpid).values()
    assert got["id"].tolist() == [str(i) for i in range(len(answers) * 4)]  # every row, once, in order
    assert_matches(got, rule, answers * 4)


def slow_down_workers(client, seconds: float) -> None:
    """Make every partition take ``seconds`` longer on the workers alive now (0: undo)."""

    def patch():  # a nested function: pickled by value, runs in each worker process
        import time as _time

        import coscore.dask as module

        original = module.__dict__.setdefault("_fast_worker_rule", module._worker_rule)

        def slow(*args):
            _time.sleep(seconds)
            return original(*args)

        module._worker_rule = slow if seconds else original

    client.run(patch)


def test_worker_killed_during_score_files(client, tmp_path):
    """Every row is in the output exactly once: a retried partition rewrites its own file."""
    answers, _ = demo_answers("lab-tools")
    n, files = 24_000, 24
    many = [[f"{answers[i % len(answers)][0]}{i}"] for i in range(n)]  # distinct answers
    cuts = list(range(n // files, n, n // files))
    write_dataset(tmp_path / "in", answers_table(many, [str(i) for i in range(n)]), cuts)
    rule = json.loads((DEMO / "lab-tools.rule.json").read_text(encoding="utf-8"))
    out = tmp_path / "out"
    result: dict = {}

    def run():
        try:
            result["rows"] = cdask.score_files(rule, str(tmp_path / "in"), str(out),
                                               scheduler=client.scheduler.address)
        except BaseException as exc:  # pragma: no cover - reported below
            result["error"] = exc

    slow_down_workers(client, 0.15)  # 24 partitions: about 2 s on two workers
    thread = threading.Thread(target=run)
    thread.start()
    try:
        killed = kill_a_busy_worker(client, thread.is_alive)
    finally:
        thread.join(timeout=120)
        client.wait_for_workers(2, timeout=60)
        slow_down_workers(client, 0)
    assert killed not in client.run(os.getpid).values()
    assert "error" not in result, result.get("error")
    assert result["rows"] == n
    assert len(list(out.glob("*.parquet"))) == files
    got = read_output(out)
    assert got["id"].tolist() == [str(i) for i in range(n)]  # every row exactly once, in order
    assert_matches(got, rule, many)


def test_score_files_refuses_a_cluster_with_another_coscore(client, demo, tmp_path, monkeypatch):
    rule, _, directory = demo["lab-tools"]
    monkeypatch.setattr(coscore, "__version__", "0.0.0-other")
    with pytest.raises(cdask.ClusterError, match=r"has coscore 0\.1\.0, this client 0\.0\.0-other"):
        cdask.score_files(rule, str(directory), str(tmp_path / "out"), label="score",
                          blanks=["b1", "b2", "b3", "b4", "b5"], scheduler=client.scheduler.address)
    assert not (tmp_path / "out").exists()


# -- the command -------------------------------------------------------------------------------


def test_command_engine_dask_matches_score_many(client, demo, tmp_path):
    rule, answers, directory = demo["lane-change"]
    out = tmp_path / "scored"
    command = [sys.executable, "-m", "coscore", "score", str(DEMO / "lane-change.rule.json"),
               str(directory / "*.parquet"), "-o", str(out), "--label", "score",
               "--engine", "dask", "--scheduler", client.scheduler.address]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = read_output(out)
    assert got["id"].tolist() == [f"lane-change-{i}" for i in range(len(answers))]
    assert_matches(got, rule, answers)
    refused = subprocess.run([*command[:-4], "--engine", "dask"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not empty" in refused.stderr
    no_out = subprocess.run([*command[:6], "--engine", "dask"], capture_output=True, text=True, timeout=60)
    assert no_out.returncode == 2 and "-o OUT_DIR" in no_out.stderr


def test_command_engine_dask_scores_an_exam_as_the_local_engine(client, demo, tmp_path):
    """Every item of an exam on the cluster: the same columns and values as ``coscore score EXAM``."""
    _, answers, _ = demo["lane-change"]
    texts = [a[0] if a else None for a in answers]
    directory = tmp_path / "data"
    write_dataset(directory, pa.table({"id": [str(i) for i in range(len(texts))], "q1": texts,
                                       "q2": texts[::-1]}), [len(texts) // 3, 2 * len(texts) // 3])
    rules = tmp_path / "rules"
    rules.mkdir()
    for task in ("lane-change", "traffic-light"):
        (rules / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    exam = tmp_path / "exam.yaml"
    exam.write_text("id: id\nitems:\n"
                    "  - {name: q1, rule: rules/lane-change.rule.json, blanks: [q1]}\n"
                    "  - {name: q2, rule: rules/traffic-light.rule.json, blanks: [q2], weight: 2}\n",
                    encoding="utf-8")
    local = tmp_path / "local.parquet"
    assert main(["score", str(exam), str(directory / "*.parquet"), "-o", str(local), "--combos",
                 "--no-progress"]) == 0
    out = tmp_path / "scored"
    done = subprocess.run([sys.executable, "-m", "coscore", "score", str(exam), str(directory / "*.parquet"),
                           "-o", str(out), "--combos", "--engine", "dask", "--scheduler", client.scheduler.address],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = read_output(out)
    expected = pq.read_table(local).to_pandas()
    assert list(got.columns) == list(expected.columns)
    for name in expected.columns:
        assert got[name].tolist() == expected[name].tolist() or name.endswith("_error"), name
    assert got["total_score"].tolist() == (got["q1_score"] + 2 * got["q2_score"]).tolist()
