"""``coscore app``: every route of the original CoScore server, on a copy of its database."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

from coscore.webapp import create_app
from webapp_support import APP_DIR, DATABASE, LiveApp, copy_database, require_app, wait_for_task

TIME = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"
DATA_KEYS = ["name", "desc", "type", "data", "count", "created"]
RULE_KEYS = ["name", "prompt", "desc", "rule", "created", "modified"]
TASK_KEYS = ["data_name", "rule_name", "task_name", "status", "created", "executed", "result"]
LANE_RULE = (Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo" / "lane-change.rule.json").read_text(
    encoding="utf-8")
DIVIDE_RULE = {"atoms": {"0": {"type": "SM", "desc": "爱"}},
               "combos": {"A": {"combo": "G(0, T(0))", "score": 2, "mode": "logic"},
                          "B": {"combo": "1 / L(0)", "score": 1, "mode": "value"}},
               "comboMode": "ADD"}


def stored(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql).fetchall()


# -- pages ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path, template", [("/", "index"), ("/data", "data"), ("/rules", "rules"),
                                            ("/tasks", "tasks"), ("/manual", "manual")])
def test_pages_are_the_templates(client, path, template):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.content == (APP_DIR / "templates" / f"{template}.html").read_bytes()


def test_static_files_and_a_missing_template(client):
    response = client.get("/static/tasks.js")
    assert response.status_code == 200 and response.content == (APP_DIR / "static" / "tasks.js").read_bytes()
    assert client.get("/settings").status_code == 404  # this copy of the app has no settings.html
    assert client.get("/static/nothing.js").status_code == 404


# -- datasets ------------------------------------------------------------------------------


def test_get_data_is_the_stored_rows(client, db):
    datasets = client.get("/api/getData").json()
    assert [list(d) for d in datasets] == [DATA_KEYS] * 5
    rows = stored(db, "SELECT name, description, type, data, length, create_time FROM data")
    assert [tuple(d.values()) for d in datasets] == rows
    one = client.post("/api/getDataByName", json={"name": "test 1"}).json()
    assert one == next(d for d in datasets if d["name"] == "test 1")


def test_create_and_delete_data(client, db):
    body = {"name": "new", "desc": "d", "type": "labeled", "data": "text,score\n爱国,2\n不,0", "ulength": 2}
    assert client.post("/api/createData", json=body).json() == {"message": "Dataset created successfully"}
    created = client.post("/api/getDataByName", json={"name": "new"}).json()
    assert created["count"] == "2" and created["data"] == body["data"] and created["desc"] == "d"
    assert __import__("re").match(TIME, created["created"])
    assert stored(db, "SELECT length, typeof(length) FROM data WHERE name = 'new'") == [("2", "text")]
    assert client.post("/api/createData", json=body).status_code == 409
    assert client.post("/api/deleteData", json={"name": "new"}).json() == {"message": "Dataset deleted successfully"}
    assert client.post("/api/getDataByName", json={"name": "new"}).status_code == 404


# -- rules ---------------------------------------------------------------------------------


def test_rules_save_update_delete(client, db):
    rules = client.get("/api/getRules").json()
    assert [list(r) for r in rules] == [RULE_KEYS] * 4
    assert [r["rule"] for r in rules] == [row[0] for row in stored(db, "SELECT rule FROM rules")]
    prompt = "a prompt that is longer than twenty characters"
    fenced = "```json\n" + LANE_RULE + "\n```"
    saved = client.post("/api/saveRule", json={"name": "lane", "prompt": prompt, "rule": fenced})
    assert saved.json() == {"message": "Rule saved successfully"}
    rule = next(r for r in client.get("/api/getRules").json() if r["name"] == "lane")
    assert rule["rule"] == LANE_RULE.strip() and rule["desc"] == prompt[:20] + "..."
    assert rule["created"] == rule["modified"]
    client.post("/api/saveRule", json={"name": "lane", "prompt": "short", "rule": LANE_RULE})
    again = [r for r in client.get("/api/getRules").json() if r["name"] == "lane"]
    assert len(again) == 1 and again[0]["desc"] == "short" and again[0]["created"] == rule["created"]
    assert client.post("/api/deleteRule", json={"name": "lane"}).json() == {"message": "Rule deleted successfully"}
    assert client.post("/api/deleteRule", json={"name": "lane"}).status_code == 404


def test_save_rule_refuses_a_rule_that_does_not_compile(client):
    bad = json.dumps({"atoms": {"0": {"type": "SM", "desc": "a"}},
                      "combos": {"A": {"combo": "G(0, T(0)) +", "score": 1, "mode": "logic"}}, "comboMode": "ADD"})
    response = client.post("/api/saveRule", json={"name": "bad", "prompt": "", "rule": bad})
    assert response.status_code == 422
    diagnostic = response.json()["diagnostics"][0]
    assert diagnostic["path"] == "combos.A.combo" and isinstance(diagnostic["column"], int)
    assert "bad" not in [r["name"] for r in client.get("/api/getRules").json()]
    response = client.post("/api/saveRule", json={"name": "bad", "prompt": "", "rule": "{not json"})
    assert response.status_code == 422 and response.json()["diagnostics"]


def test_test_rule_answers_like_the_original(client):
    rule = json.loads(LANE_RULE)
    response = client.post("/api/testRule", json={"rule": rule, "answer": ["前进，如果有障碍就变换车道"]})
    body = response.json()
    assert list(body) == ["score", "debugInfo"] and list(body["debugInfo"]) == ["A", "B", "C"]


# -- tasks ---------------------------------------------------------------------------------


def test_tasks_are_the_stored_rows(client, db):
    tasks = client.get("/api/getTasks").json()
    assert [list(t) for t in tasks] == [TASK_KEYS] * 5
    assert [tuple(t.values()) for t in tasks] == stored(
        db, "SELECT data_name, rule_name, task_name, status, create_time, executed_time, result FROM tasks")


def test_create_task_completes_in_the_background(client):
    body = {"data_name": "test 2", "rule_name": "test 2", "task_name": "again"}
    assert client.post("/api/createTask", json=body).json() == {"message": "Task created successfully"}
    task = wait_for_task(client, "again")
    original = next(t for t in client.get("/api/getTasks").json() if t["task_name"] == "test 2")
    assert task["status"] == "completed" and task["result"] == original["result"]
    assert __import__("re").match(TIME, task["executed"])
    assert client.post("/api/createTask", json=body).status_code == 409
    assert client.post("/api/deleteTask", json={"task_name": "again"}).json() == {
        "message": "Task deleted successfully"}
    assert "again" not in [t["task_name"] for t in client.get("/api/getTasks").json()]


def test_rerunning_the_stored_tasks_gives_the_stored_results(tmp_path):
    db = copy_database(tmp_path)
    before = stored(db, "SELECT task_name, status, result FROM tasks")
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE tasks SET status = 'running', result = NULL")
    with TestClient(create_app(APP_DIR, db)) as client:  # running tasks are finished at start
        after = {t["task_name"]: wait_for_task(client, t["task_name"]) for t in client.get("/api/getTasks").json()}
    completed = [(name, result) for name, status, result in before if status == "completed"]
    assert len(completed) == 4
    for name, result in completed:
        assert after[name]["status"] == "completed"
        assert after[name]["result"] == result, name  # byte for byte
    failed = after["任务测试"]
    assert failed["status"] == "failed"
    assert failed["result"] == "the rule '测试规则' does not exist (it was deleted or renamed)"


def test_a_failed_task_says_which_answer_failed(client):
    client.post("/api/saveRule", json={"name": "divide", "prompt": "", "rule": json.dumps(DIVIDE_RULE)})
    client.post("/api/createData", json={"name": "three", "desc": "", "type": "unlabeled",
                                         "data": "text\n我爱你\nabc\n你好", "ulength": 3})
    client.post("/api/createTask", json={"data_name": "three", "rule_name": "divide", "task_name": "t"})
    task = wait_for_task(client, "t")
    assert task["status"] == "failed"
    assert task["result"] == "answer 2 (line 3 of the data, 'abc') cannot be scored: combos.B: division by zero"


def test_answers_are_split_as_the_original_splits_them(client):
    rule = {"atoms": {"0": {"type": "EM", "desc": "b"}},
            "combos": {"A": {"combo": "G(0, T(1))", "score": 3, "mode": "logic"},
                       "B": {"combo": "M(0, T(0))", "score": 1.5, "mode": "value"}}, "comboMode": "ADD"}
    client.post("/api/saveRule", json={"name": "blanks", "prompt": "", "rule": json.dumps(rule)})
    client.post("/api/createData", json={"name": "dash", "desc": "", "type": "labeled",
                                         "data": "text,score\na-b,1\nb-a-c,2\nb-b,3\nignored", "ulength": 3})
    client.post("/api/createTask", json={"data_name": "dash", "rule_name": "blanks", "task_name": "split"})
    task = wait_for_task(client, "split")
    assert task["result"] == ('{"scores": [3.0, 1.5, 4.5], "logs": [{"A": 3, "B": 0.0}, {"A": 0, "B": 1.5}, '
                              '{"A": 3, "B": 1.5}]}')


# -- bad requests --------------------------------------------------------------------------


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/createTask", b"{bad json", 400, "malformed JSON"),
    ("/api/createTask", b"", 400, "empty"),
    ("/api/createTask", b"[1, 2]", 400, "JSON object"),
    ("/api/createTask", {"data_name": "test 1"}, 400, "'rule_name', 'task_name'"),
    ("/api/createTask", {"data_name": 1, "rule_name": "x", "task_name": "y"}, 400, "'data_name' must be a string"),
    ("/api/createTask", {"data_name": "nope", "rule_name": "test 1", "task_name": "y"}, 404, "no dataset named 'nope'"),
    ("/api/createTask", {"data_name": "test 1", "rule_name": "nope", "task_name": "y"}, 404, "no rule named 'nope'"),
    ("/api/createTask", {"data_name": "test 1", "rule_name": "test 1", "task_name": "test 1"}, 409, "already"),
    ("/api/createData", {"name": "x", "desc": "", "type": "other", "data": "text\na", "ulength": 1}, 400, "'type'"),
    ("/api/createData", {"name": "x", "desc": "", "type": "unlabeled", "data": "text\na", "ulength": 5}, 400,
     "'ulength' is 5"),
    ("/api/createData", {"name": "x", "desc": "", "type": "unlabeled", "data": "text\na", "ulength": True}, 400,
     "'ulength' must be"),
    ("/api/getDataByName", {"name": "nope"}, 404, "no dataset named"),
    ("/api/deleteData", {"name": ["x"]}, 400, "'name' must be a string, not an array"),
    ("/api/deleteTask", {"task_name": "nope"}, 404, "no task named"),
    ("/api/saveRule", {"name": "x", "prompt": "p"}, 400, "missing 'rule'"),
    ("/api/testRule", {"rule": {"atoms": {}, "combos": {}, "comboMode": "SUM"}, "answer": ["a"]}, 422, "invalid rule"),
    ("/api/nothing", {}, 404, "no route"),
])
def test_bad_requests_get_a_json_error_naming_the_problem(client, path, body, status, words):
    response = client.post(path, content=body) if isinstance(body, bytes) else client.post(path, json=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    assert words in response.json()["error"]


def test_wrong_method_and_over_size_body(db):
    with TestClient(create_app(APP_DIR, db, max_body=1000)) as client:
        response = client.get("/api/createTask")
        assert response.status_code == 405 and "GET is not allowed" in response.json()["error"]
        response = client.post("/api/createData", json={"name": "x", "desc": "", "type": "unlabeled",
                                                        "data": "text\n" + "a\n" * 1000, "ulength": 1000})
        assert response.status_code == 413 and "limit" in response.json()["error"]


# -- the database --------------------------------------------------------------------------


def test_a_new_database_has_the_original_schema(tmp_path):
    require_app()
    create_app(APP_DIR, tmp_path / "new.db")
    schema = "SELECT name, sql FROM sqlite_master ORDER BY name"
    assert stored(tmp_path / "new.db", schema) == stored(DATABASE, schema)
    assert stored(tmp_path / "new.db", "PRAGMA journal_mode") == [("wal",)]


def test_concurrent_requests_and_tasks_never_see_a_locked_database(tmp_path):
    httpx = pytest.importorskip("httpx")
    db = copy_database(tmp_path)
    app = LiveApp(db)
    failures: list = []
    try:
        def worker(k: int) -> None:
            with httpx.Client(base_url=app.url, timeout=60) as http:
                for i in range(8):
                    name = f"c{k}-{i}"
                    requests = [
                        ("/api/createData", {"name": name, "desc": "", "type": "unlabeled", "data": "text\na\nb",
                                             "ulength": 2}),
                        ("/api/saveRule", {"name": name, "prompt": "", "rule": LANE_RULE}),
                        ("/api/createTask", {"data_name": "test 2", "rule_name": "test 2", "task_name": name}),
                        ("/api/deleteData", {"name": name}),
                    ]
                    for path, body in requests:
                        response = http.post(path, json=body)
                        if response.status_code != 200:
                            failures.append((path, response.status_code, response.text))
                    for path in ("/api/getTasks", "/api/getRules", "/api/getData"):
                        response = http.get(path)
                        if response.status_code != 200:
                            failures.append((path, response.status_code, response.text))

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with httpx.Client(base_url=app.url, timeout=60) as http:
            deadline = time.monotonic() + 120
            while any(t["status"] == "running" for t in http.get("/api/getTasks").json()):
                assert time.monotonic() < deadline
                time.sleep(0.1)
            tasks = http.get("/api/getTasks").json()
    finally:
        output = app.stop()
    assert failures == []
    assert "locked" not in output
    reference = next(t["result"] for t in tasks if t["task_name"] == "test 2")
    mine = [t for t in tasks if t["task_name"].startswith("c")]
    assert len(mine) == 32 and all(t["status"] == "completed" and t["result"] == reference for t in mine)


# -- the command -----------------------------------------------------------------------------


def test_the_command_refuses_a_folder_that_is_not_an_app(tmp_path, capsys):
    from coscore.cli import main

    assert main(["app", str(tmp_path)]) == 2
    assert "is not a CoScore app folder" in capsys.readouterr().err
    require_app()
    assert main(["app", str(APP_DIR), "--db", str(tmp_path / "no" / "such.db")]) == 2
    assert "unable to open database file" in capsys.readouterr().err


def test_a_stored_rule_that_does_not_compile_never_reaches_a_task(tmp_path):
    db = copy_database(tmp_path)
    broken = '{"atoms": {}, "combos": {"A": {"combo": "T(0).upper()", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}'
    with sqlite3.connect(db) as connection:  # as the original server would have saved it
        connection.execute("INSERT INTO rules VALUES ('old', '', '', ?, '2025-01-01 00:00:00', '2025-01-01 00:00:00')",
                           (broken,))
        connection.execute("INSERT INTO tasks VALUES ('test 1', 'old', 'left running', 'running', "
                           "'2025-01-01 00:00:00', NULL, NULL)")
    with TestClient(create_app(APP_DIR, db)) as client:
        response = client.post("/api/createTask", json={"data_name": "test 1", "rule_name": "old", "task_name": "n"})
        assert response.status_code == 422 and response.json()["diagnostics"][0]["path"] == "combos.A.combo"
        task = wait_for_task(client, "left running")
    assert task["status"] == "failed"
    assert task["result"].startswith("the rule 'old' does not compile: combos.A.combo, column ")


def test_two_tasks_score_at_the_same_time(tmp_path):
    from coscore.webapp import Store, TaskRunner

    both = threading.Barrier(2, timeout=30)  # broken (an error) if the second task waits for the first

    class Meeting(TaskRunner):
        def score(self, data_name: str, rule_name: str) -> str:
            both.wait()
            return super().score(data_name, rule_name)

    store = Store(copy_database(tmp_path))
    runner = Meeting(store)
    first, second = (runner.submit(store.add_task("test 1", "test 1", name), "test 1", "test 1") for name in "ab")
    assert first.result(60) == second.result(60) == "completed"
    runner.close()
