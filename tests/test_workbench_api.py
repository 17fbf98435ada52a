"""The rule workbench's JSON endpoints (``POST /api/workbench/…`` of ``coscore app``) on a
copy of the original CoScore database."""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

import coscore
from coscore.expr.types import check_rule
from coscore.report import agreement, disagreement_order
from coscore.workbench import scorings
from webapp_support import APP_DIR

DEMO = Path(__file__).resolve().parents[1] / "coscore" / "data" / "demo"
LANE_TEXT = (DEMO / "lane-change.rule.json").read_text(encoding="utf-8")
LANE = json.loads(LANE_TEXT)
BROKEN = json.dumps({**LANE, "combos": {**LANE["combos"], "C": {"combo": "T(0) > 3", "score": 1, "mode": "value"}}},
                    indent=2, ensure_ascii=False)


def post(client, name: str, body) -> tuple[int, dict]:
    response = client.post(f"/api/workbench/{name}", json=body)
    assert response.headers["content-type"] == "application/json"
    return response.status_code, response.json()


def asked(client, body: dict) -> tuple[int, dict]:
    """``/api/workbench/dataset``, asked again while it answers 202."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, data = post(client, "dataset", body)
        if status != 202:
            return status, data
        assert data == {"status": "running", "dataset": body["dataset"]}
        time.sleep(0.05)
    raise AssertionError("still scoring after 60 s")


def scored(client, body: dict) -> dict:
    status, data = asked(client, body)
    assert status == 200, data
    return data


def lane_rows() -> list[tuple[str, float]]:
    lines = (DEMO / "lane-change.csv").read_text(encoding="utf-8").split("\n")[1:]
    return [(line.split(",")[0], float(line.split(",")[1])) for line in lines if line]


# -- the page --------------------------------------------------------------------------------


def test_the_page_and_its_files_are_served_beside_the_original_pages(client):
    page = client.get("/workbench")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for testid in ("rule-editor", "diagnostics", "score-range", "save-rule", "score", "explanation", "dataset-select",
                   "agreement", "disagreements"):
        assert f'data-testid="{testid}"' in page.text
    assert "answer-input" in client.get("/workbench/static/workbench.js").text
    assert client.get("/workbench/static/workbench.css").status_code == 200
    assert "http" not in page.text.replace("http://www.w3.org", "")  # nothing from another site
    assert client.get("/").content == (APP_DIR / "templates" / "index.html").read_bytes()


def test_the_catalog_lists_rules_with_their_text_and_datasets_without_their_data(client):
    status, data = post(client, "catalog", {})
    assert status == 200
    assert [d["name"] for d in data["datasets"]] == ["科学实验工具", "科学实验工具（试测）", "test 1", "test 2", "test 3"]
    assert set(data["datasets"][0]) == {"name", "desc", "type", "count", "created"}
    rule = next(r for r in data["rules"] if r["name"] == "test 2")
    assert json.loads(rule["rule"]) == LANE and set(rule) == {"name", "prompt", "rule", "created", "modified"}


# -- check ------------------------------------------------------------------------------------


def test_check_places_a_type_error_in_the_text(client):
    status, data = post(client, "check", {"rule": BROKEN})
    assert status == 200 and not data["ok"] and data["compiles"] and data["errors"] == 1
    (d,) = data["diagnostics"]
    assert (d["path"], d["column"], d["severity"], d["source"]) == ("combos.C.combo", 6, "error", "T(0) > 3")
    assert "orders text against a number" in d["message"]
    assert BROKEN[d["at"]["start"]:d["at"]["end"]] == ">"  # the text is BMP: UTF-16 offsets are indexes
    assert data["score_range"] is None and data["always_fails"]


def test_check_of_a_good_rule_gives_the_range_and_each_combos_contribution(client):
    status, data = post(client, "check", {"rule": LANE_TEXT})
    report = check_rule(coscore.compile(LANE_TEXT))
    assert status == 200 and data["ok"] and data["diagnostics"] == []
    assert data["score_range"] == {"min": 0.0, "max": 10.0, "exact": True}
    assert data["combos"] == report.to_dict()["combos"] and data["range_text"] == "scores exactly 0–10"
    assert data["combos"][2]["values"] == [0.0, 1.0, 2.0]


def test_check_reports_what_does_not_compile_and_blanks_the_data_lacks(client):
    status, data = post(client, "check", {"rule": '{\n  "atoms": }'})
    (d,) = data["diagnostics"]
    assert status == 200 and not data["compiles"] and d["path"] == "rule" and d["at"]["line"] == 2
    one_blank = LANE_TEXT.replace("G(1,T(0))", "G(1,T(1))")
    _, data = post(client, "check", {"rule": one_blank, "blanks": [1, 1]})
    assert data["errors"] == 1 and "blank" in data["diagnostics"][0]["message"]
    _, data = post(client, "check", {"rule": one_blank})
    assert data["ok"]


# -- explain ------------------------------------------------------------------------------------


def test_explain_marks_what_each_atom_matched(client):
    status, data = post(client, "explain", {"rule": LANE_TEXT, "answer": ["开始前进，若有障碍物则避让车道，结束"]})
    assert status == 200 and data["score"] == 9.0
    sm = next(c for c in data["calls"] if c["atom"] == "2")
    assert [s["text"] for s in sm["segments"] if s["mark"] == "hit"] == ["开始", "结束"]
    status, data = post(client, "explain", {"rule": LANE, "answer": "前进"})  # an object and one string work too
    assert status == 200 and data["answer"] == ["前进"]


# -- save ---------------------------------------------------------------------------------------


def test_save_refuses_a_rule_with_an_error_and_saves_a_good_one(client, db):
    status, data = post(client, "save", {"name": "wb", "prompt": "p", "rule": BROKEN})
    assert status == 422 and data["diagnostics"][0]["path"] == "combos.C.combo"
    with sqlite3.connect(db) as connection:
        assert not connection.execute("SELECT 1 FROM rules WHERE name = 'wb'").fetchall()
    status, data = post(client, "save", {"name": "wb", "prompt": "车道变换", "rule": LANE_TEXT})
    assert (status, data) == (200, {"message": "Rule saved successfully", "name": "wb"})
    status, _ = post(client, "save", {"name": "wb", "rule": LANE_TEXT})  # no prompt: the stored one is kept
    assert status == 200
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT prompt, description, rule FROM rules WHERE name = 'wb'").fetchall() == [
            ("车道变换", "车道变换", LANE_TEXT.strip())]
    rules = client.get("/api/getRules").json()  # the original pages see it
    assert any(r["name"] == "wb" for r in rules)


# -- datasets ------------------------------------------------------------------------------------


def test_a_dataset_scored_agrees_with_coscore_report(client):
    data = scored(client, {"dataset": "test 2", "rule": LANE_TEXT, "size": 5})
    rows = lane_rows()
    scores = coscore.compile(LANE).score_many([text.split("-") for text, _ in rows]).scores
    marks = np.array([mark for _, mark in rows])
    expected = agreement(marks, scores)
    assert data["answers"] == 100 and data["labelled"] and data["marked"] == 100 and data["failed"] == 0
    for name in ("qwk", "exact_agreement", "adjacent_agreement", "kappa", "pearson_r", "smd", "rmse"):
        assert data["agreement"][name]["value"] == getattr(expected, name)
    for name in ("qwk", "exact_agreement", "adjacent_agreement", "kappa"):
        lo, hi = data["agreement"][name]["ci"]
        assert lo <= getattr(expected, name) <= hi
    assert data["agreement"]["confusion"] == expected.confusion
    assert sum(data["distributions"]["scores"]) == sum(data["distributions"]["marks"]) == 100
    order = disagreement_order(scores, marks)
    listed = data["disagreements"]
    assert listed["total"] == len(order) and [r["row"] for r in listed["rows"]] == [i + 1 for i in order[:5]]
    first = listed["rows"][0]
    assert first["answer"] == [rows[order[0]][0]] and first["gap"] == abs(first["score"] - first["mark"])
    distinct = data["distinct"]
    assert distinct["total"] == len({text for text, _ in rows}) and distinct["rows"][0]["count"] == 3
    assert data["blanks"] == {"min": 1, "max": 1}


def test_pages_come_from_the_kept_scoring(client, monkeypatch):
    body = {"dataset": "test 2", "rule": LANE_TEXT}
    monkeypatch.setattr(scorings, "WAIT", 0.0)
    scored(client, body)  # 202 first, then done
    status, page = post(client, "rows", {**body, "list": "disagreements", "page": 2, "size": 10})
    assert status == 200 and page["page"] == 2 and len(page["rows"]) == 10 and page["pages"] == 6
    status, last = post(client, "rows", {**body, "list": "distinct", "page": 999, "size": 500})
    assert status == 200 and last["page"] == 0 and len(last["rows"]) == last["total"]
    assert sum(r["count"] for r in last["rows"]) == 100


def test_an_unlabelled_dataset_has_scores_and_no_agreement(client):
    rule = next(r["rule"] for r in client.get("/api/getRules").json() if r["name"] == "实验工具评分规则")
    data = scored(client, {"dataset": "科学实验工具", "rule": rule})
    assert data["labelled"] is False and data["agreement"] is None and data["distributions"]["marks"] is None
    stored = next(d for d in client.get("/api/getData").json() if d["name"] == "科学实验工具")
    answers = stored["data"].split("\n")[1:int(stored["count"]) + 1]
    assert data["answers"] == len(answers) == 11 and data["disagreements"]["total"] == 0
    assert data["distinct"]["total"] == len(set(answers)) and sum(data["distributions"]["scores"]) == 11


def test_failed_answers_are_listed_first_with_their_error(client):
    rule = json.dumps({"atoms": {"0": {"type": "SM", "desc": "前进"}},
                       "combos": {"A": {"combo": "10 / M(0, T(0))", "score": 1, "mode": "value"}}, "comboMode": "ADD"})
    data = scored(client, {"dataset": "test 2", "rule": rule})
    assert data["failed"] > 0
    first = data["disagreements"]["rows"][0]
    assert first["score"] is None and "division by zero" in first["error"]


# -- bad requests ------------------------------------------------------------------------------


@pytest.mark.parametrize("name, body, status, says", [
    ("check", {}, 400, "missing 'rule'"),
    ("check", {"rule": 3}, 400, "'rule' must be"),
    ("check", {"rule": LANE_TEXT, "blanks": [1, 2, 3]}, 400, "'blanks'"),
    ("explain", {"rule": LANE_TEXT, "answer": [1]}, 400, "'answer' must be"),
    ("explain", {"rule": LANE_TEXT, "answer": ["x"] * 101}, 400, "at most 100"),
    ("explain", {"rule": BROKEN.replace("ADD", "SUM"), "answer": ["x"]}, 422, "does not compile"),
    ("save", {"name": " ", "rule": LANE_TEXT}, 400, "'name' must not be empty"),
    ("save", {"name": "x", "rule": LANE_TEXT, "prompt": 3}, 400, "'prompt' must be a string"),
    ("dataset", {"dataset": "nope", "rule": LANE_TEXT}, 404, "no dataset named 'nope'"),
    ("dataset", {"dataset": "test 2", "rule": "{"}, 422, "does not compile"),
    ("dataset", {"dataset": "test 2", "rule": LANE_TEXT, "size": 0}, 400, "'size'"),
    ("rows", {"dataset": "test 2", "rule": LANE_TEXT, "list": "all"}, 400, "'list' must be"),
    ("rows", {"dataset": "test 2", "rule": LANE_TEXT, "list": "distinct", "page": -1}, 400, "'page'"),
])
def test_bad_requests_get_a_json_error_naming_the_problem(client, name, body, status, says):
    got, data = post(client, name, body)
    assert got == status and says in data["error"]


def test_only_json_posts_are_taken(client):
    response = client.post("/api/workbench/check", content=b'{"rule": "{}"}', headers={"content-type": "text/plain"})
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    response = client.post("/api/workbench/check", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "malformed JSON" in response.json()["error"]
    response = client.post("/api/workbench/check", content=b"[]", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "JSON object" in response.json()["error"]
    response = client.get("/api/workbench/check")
    assert response.status_code == 405 and response.json() == {"error": "GET is not allowed on /api/workbench/check"}


def test_a_dataset_whose_length_does_not_fit_its_lines_is_refused(client, db):
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO data VALUES ('short', '', 'labeled', 'text,score\na,1', '5', '2025-01-01 00:00:00')")
    status, data = asked(client, {"dataset": "short", "rule": LANE_TEXT})
    assert status == 422 and "holds 1 lines" in data["error"]


def test_a_scoring_nobody_asks_about_is_stopped(monkeypatch):
    import asyncio
    from types import SimpleNamespace

    source = SimpleNamespace(key=("d", "2025-01-01 00:00:00", "3", "labeled"), name="d")
    kept = scorings.Scorings(SimpleNamespace(cancel=lambda group: None))
    monkeypatch.setattr(scorings, "WAIT", 0.01)
    monkeypatch.setattr(scorings, "ABANDONED", 0.1)
    started: list[str] = []

    async def slow(key, source, rule):
        started.append(rule)
        await asyncio.sleep(30)

    monkeypatch.setattr(kept, "_score", slow)

    async def scenario():
        assert await kept.get(source, "rule 1") is None  # still scoring
        first = next(iter(kept.running.values()))
        assert await kept.get(source, "rule 1") is None and len(started) == 1  # asked again: the same one
        await asyncio.sleep(0.2)
        assert await kept.get(source, "rule 2") is None  # the page moved on
        await asyncio.sleep(0)
        assert first.cancelled() and len(kept.running) == 1 and started == ["rule 1", "rule 2"]
        for task in kept.running.values():
            task.cancel()

    asyncio.run(scenario())
