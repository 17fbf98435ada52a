"""``POST /v1/exam/score``: an exam's papers scored by ``coscore serve``, each item as
``/v1/score`` scores it, under the service's budgets (an exam's: the sum of its items')."""
from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")

from starlette.testclient import TestClient

import coscore
from coscore.exam import blank_need
from coscore.limits import Limits
from coscore.server import OPENAPI, Service, create_app
from coscore.server.exams import MAX_EXAM_ITEMS, NO_ANSWER

ROOT = Path(__file__).resolve().parents[1]
MAX_RESPONSE = 1_000_000
TIMEOUT = 7.0

SM_RULE = {
    "atoms": {"0": {"type": "SM", "desc": "爱,祖国|国家"}},
    "combos": {
        "A": {"combo": "M(0, T(0))", "score": 2, "mode": "value"},
        "B": {"combo": "1 / Q('*')", "score": 1, "mode": "value"},
    },
    "comboMode": "ADD",
}
TWO_BLANKS = {
    "atoms": {"0": {"type": "SM", "desc": "红灯|红色"}, "1": {"type": "EM", "desc": "等待"}},
    "combos": {"A": {"combo": "G(0, T(0))", "score": 6, "mode": "logic"},
               "B": {"combo": "G(1, T(1))", "score": 4, "mode": "logic"}},
    "comboMode": "ADD",
}
BAD_RULE = {"atoms": {}, "combos": {"A": {"combo": "T(0).upper()", "score": 1, "mode": "logic"}}, "comboMode": "ADD"}


def _exam(*items: tuple, **top: object) -> dict:
    """An inline exam of ``(name, rule, blanks[, weight])`` items."""
    listed = []
    for name, rule, blanks, *weight in items:
        item = {"name": name, "rule": rule, "blanks": list(blanks)}
        if weight:
            item["weight"] = weight[0]
        listed.append(item)
    return {**top, "items": listed}


EXAM = _exam(("q1", SM_RULE, ["q1"], 2), ("q2", TWO_BLANKS, ["q2_a", "q2_b"], 0.5))


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=2, max_response=MAX_RESPONSE, timeout=TIMEOUT)) as client:
        yield client


def _score(client: TestClient, exam: dict, papers: list) -> dict:
    r = client.post("/v1/exam/score", json={"exam": exam, "papers": papers})
    assert r.status_code == 200, r.text[:500]
    return r.json()


# -- scores ------------------------------------------------------------------------------


def test_each_item_equals_v1_score_of_its_rule(client, conformance_cases):
    """Conformance rules as the items of one exam, their cases' answers as the papers
    (papers past an item's cases lack it): every item's result is /v1/score's, exactly."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for case in conformance_cases:
        groups[json.dumps(case["rule"], sort_keys=True)].append(case)
    items: list[tuple[str, dict, list[str], list]] = []
    for cases in sorted(groups.values(), key=lambda cs: cs[0]["id"]):
        try:
            need, any_number = blank_need(coscore.compile(cases[0]["rule"]))
        except coscore.RuleError:
            continue
        if need == 0 and not any_number:  # an item lists at least one blank, and as many as its rule reads
            continue
        name = f"i{len(items)}"
        blanks = [f"{name}_{b}" for b in range(max(need, 1))]
        items.append((name, cases[0]["rule"], blanks, [c["answers"] for c in cases[:25]]))
        if len(items) == 24:
            break
    assert len(items) == 24
    papers: list[dict] = [{} for _ in range(max(len(answers) for *_, answers in items))]
    for name, _, _, answers in items:
        for index, answer in enumerate(answers):
            papers[index][name] = answer
    body = _score(client, _exam(*(item[:3] for item in items)), papers)
    assert len(body["papers"]) == len(papers)
    failed = 0
    for name, rule, _, answers in items:
        r = client.post("/v1/score", json={"rule": rule, "answers": answers})
        assert r.status_code == 200, r.text[:300]
        single = r.json()
        assert body["warnings"][name] == single["warnings"]
        for index, paper in enumerate(body["papers"]):
            got = paper[name]
            if index >= len(answers):
                assert got["error"] == NO_ANSWER and got["score"] is None
                continue
            want = {"score": single["scores"][index],
                    "combos": {cid: values[index] for cid, values in single["combos"].items()},
                    "error": single["errors"][index]}
            assert json.dumps(got) == json.dumps(want), (name, index)  # -0.0 is not 0.0 here
            failed += want["error"] is not None
    assert failed  # the corpus's failing answers are in it too


def test_totals_are_weighted_sums(client):
    papers = [{"q1": ["我爱祖国"], "q2": ["红灯", "等待"]}, {"q1": "国家", "q2": ["红色", ""]},
              {"q1": ["不"], "q2": ["", ""]}]
    body = _score(client, EXAM, papers)
    q1, q2 = coscore.compile(SM_RULE), coscore.compile(TWO_BLANKS)
    scores = [(p["q1"]["score"], p["q2"]["score"]) for p in body["papers"]]
    assert scores == [(q1.score(p["q1"]).score, q2.score(p["q2"]).score) for p in papers]
    assert scores == [(5.0, 10.0), (3.0, 6.0), (1.0, 0.0)]
    assert [p["total"] for p in body["papers"]] == [2 * 5.0 + 0.5 * 10.0, 2 * 3.0 + 0.5 * 6.0, 2 * 1.0]
    assert body["papers"][0] == {"q1": {"score": 5.0, "combos": {"A": 4.0, "B": 1.0}, "error": None},
                                 "q2": {"score": 10.0, "combos": {"A": 6.0, "B": 4.0}, "error": None}, "total": 15.0}
    assert list(body["papers"][0]) == ["q1", "q2", "total"]  # the exam's order, then the total
    assert body["warnings"] == {"q1": [], "q2": []}
    zero = _exam(("q1", SM_RULE, ["q1"], 0), ("q2", TWO_BLANKS, ["q2_a", "q2_b"], 3))
    assert _score(client, zero, papers[:1])["papers"][0]["total"] == 30.0
    assert _score(client, EXAM, []) == {"papers": [], "warnings": {"q1": [], "q2": []}}


def test_a_missing_item_is_that_items_error_and_no_total(client):
    body = _score(client, EXAM, [{"q1": "祖国"}, {}])
    first, empty = body["papers"]
    assert first["q1"]["score"] == 3.0 and first["q1"]["error"] is None
    assert first["q2"] == {"score": None, "combos": {"A": None, "B": None}, "error": NO_ANSWER}
    assert first["total"] is None
    assert empty["q1"]["error"] == empty["q2"]["error"] == NO_ANSWER and empty["total"] is None


def test_a_malformed_answer_fails_only_that_answer(client):
    papers = [{"q1": 5, "q2": ["红灯", "等待"]}, {"q1": ["x", 7], "q2": ["红灯", "等待"]}, {"q1": ["", ""], "q2": {}},
              {"q1": "国家", "q2": ["红灯", "等待"]}]
    body = _score(client, EXAM, papers)
    one, two, three, fine = body["papers"]
    assert one["q1"]["score"] is None and "not int" in one["q1"]["error"]
    assert two["q1"]["score"] is None and "blank 1 is int" in two["q1"]["error"]
    assert three["q1"]["score"] is None and "division by zero" in three["q1"]["error"]
    assert three["q1"]["combos"] == {"A": 0.0, "B": None}
    assert three["q2"]["score"] is None and three["q2"]["error"]
    assert one["q2"]["score"] == two["q2"]["score"] == 10.0
    assert one["total"] is two["total"] is three["total"] is None
    assert fine["total"] == 2 * 3.0 + 0.5 * 10.0


def test_rule_warnings_are_listed_per_item(client):
    warned = {"atoms": {"0": {"type": "SM", "desc": "a,,b"}}, "comboMode": "ADD",
              "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}}
    body = _score(client, _exam(("q1", warned, ["a"]), ("q2", SM_RULE, ["b"])), [{"q1": "a", "q2": "国家"}])
    (warning,) = body["warnings"]["q1"]
    assert warning["severity"] == "warning" and warning["path"].startswith("atoms.0")
    assert body["warnings"]["q2"] == [] and body["papers"][0]["total"] == 4.0


def test_the_long_layout_is_accepted_and_plays_no_part(client):
    exam = _exam(("q1", SM_RULE, ["answer"]), ("q2", TWO_BLANKS, ["answer", "answer_b"]), item_column="item",
                 id="student")
    body = _score(client, exam, [{"q1": "国家", "q2": ["红灯", "x"]}])
    assert body["papers"][0]["total"] == 3.0 + 6.0


# -- the request -------------------------------------------------------------------------


def test_a_paper_naming_no_item_is_400(client):
    r = client.post("/v1/exam/score", json={"exam": EXAM, "papers": [{"q1": "a"}, {"q1": "a", "q9": "b"}]})
    assert r.status_code == 400
    message = r.json()["error"]
    assert "papers[1]" in message and "'q9'" in message and "items: q1, q2" in message
    r = client.post("/v1/exam/score", json={"exam": EXAM, "papers": [{"total": "a"}]})
    assert r.status_code == 400 and "'total'" in r.json()["error"]
    r = client.post("/v1/exam/score", json={"exam": EXAM, "papers": [{"x" * 5000: "a"}]})
    assert r.status_code == 400 and len(r.json()["error"]) <= 1000


@pytest.mark.parametrize("body, what", [
    ({"exam": EXAM, "papers": {"q1": "a"}}, "'papers' must be an array"),
    ({"exam": EXAM, "papers": "x"}, "'papers' must be an array"),
    ({"exam": EXAM, "papers": [{"q1": "a"}, ["a"]]}, "papers[1] must be an object"),
    ({"exam": EXAM, "papers": [None]}, "papers[0] must be an object"),
    ({"exam": EXAM}, "missing 'papers'"),
    ({"papers": []}, "missing 'exam'"),
    ([EXAM], "must be a JSON object"),
])
def test_malformed_requests_are_400(client, body, what):
    r = client.post("/v1/exam/score", json=body)
    assert r.status_code == 400 and what in r.json()["error"], r.text[:300]


def test_malformed_json_is_400(client):
    for content in (b"{bad json", b"", b'{"exam": NaN, "papers": []}', b'{"exam": {"items": ["\\ud800"]}, "papers": []}'):
        r = client.post("/v1/exam/score", content=content, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"], content


def test_an_invalid_exam_is_422_listing_every_problem(client):
    exam = _exam(("q1", BAD_RULE, ["a"]), ("q2", TWO_BLANKS, ["b"]), ("q2", SM_RULE, ["d"], -1))
    r = client.post("/v1/exam/score", json={"exam": exam, "papers": [{"q1": "a"}]})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid exam"
    problems = body["problems"]
    assert all(set(p) == {"where", "message", "line", "severity"} for p in problems)
    where = {p["where"] for p in problems if p["severity"] == "error"}
    assert {"items[0] (q1).rule", "items[1] (q2).blanks", "items[2] (q2).name", "items[2] (q2).weight"} <= where
    (rule,) = [p for p in problems if p["where"] == "items[0] (q1).rule"]
    assert rule["message"].startswith("combos.A.combo, column") and rule["line"] is None
    for exam in ({"items": []}, {"items": "q1"}, {"name": "no items"}, {"items": [{"name": "q1"}]}):
        r = client.post("/v1/exam/score", json={"exam": exam, "papers": []})
        assert r.status_code == 422 and r.json()["error"] == "invalid exam" and r.json()["problems"], exam


@pytest.mark.parametrize("exam", ["midterm.yaml", 42, None, [EXAM]])
def test_an_exam_that_is_not_an_object_is_invalid(client, exam):
    r = client.post("/v1/exam/score", json={"exam": exam, "papers": []})
    assert r.status_code == 422
    (problem,) = r.json()["problems"]
    assert problem["message"].startswith("an exam is a JSON object")


def test_a_rule_given_as_a_path_is_refused_unread(client, tmp_path):
    rule_file = tmp_path / "q1.rule.json"
    rule_file.write_text(json.dumps(SM_RULE), "utf-8")
    for path in (str(rule_file), "/etc/passwd", "../../etc/passwd", "rules/q1.rule.json"):
        exam = {"items": [{"name": "q1", "rule": path, "blanks": ["a"]}]}
        r = client.post("/v1/exam/score", json={"exam": exam, "papers": [{"q1": "国家"}]})
        assert r.status_code == 422, r.text[:300]
        (problem,) = r.json()["problems"]
        assert problem["where"] == "items[0] (q1).rule" and "rules must be inline" in problem["message"]


def test_rules_are_compiled_with_the_services_limits():
    service = Service(limits=Limits(max_atoms=2))
    wide = {"atoms": {str(i): {"type": "EM", "desc": "a"} for i in range(3)}, "comboMode": "ADD",
            "combos": {"A": {"combo": "G(0, T(0))", "score": 1, "mode": "logic"}}}
    body = json.dumps({"exam": _exam(("q1", SM_RULE, ["a"]), ("q2", wide, ["b"])), "papers": []}).encode()
    status, payload, _ = service.handle("exam", body)
    answer = json.loads(payload)
    assert status == 422 and answer["error"] == "invalid exam"
    assert any(p["where"] == "items[1] (q2).rule" and "max_atoms" in p["message"] for p in answer["problems"])


# -- budgets -----------------------------------------------------------------------------


def test_more_items_than_the_cap_are_refused_before_compiling(client):
    items = [(f"q{i}", SM_RULE, [f"c{i}"]) for i in range(MAX_EXAM_ITEMS + 1)]
    start = time.perf_counter()
    r = client.post("/v1/exam/score", json={"exam": _exam(*items), "papers": [{"q0": "国家"}]})
    assert r.status_code == 422, r.text[:300]
    body = r.json()
    assert body["budget"] == "exam_items" and body["limit"] == MAX_EXAM_ITEMS
    assert f"{MAX_EXAM_ITEMS + 1:,} items" in body["error"]
    assert time.perf_counter() - start < 5
    body = _score(client, _exam(*items[:MAX_EXAM_ITEMS]), [{"q0": "国家", "q99": "祖国"}])
    assert body["papers"][0]["q0"]["score"] == 3.0 and body["papers"][0]["q99"]["score"] == 3.0


def test_an_answer_over_the_response_budget_is_refused_before_scoring(client):
    many = {"atoms": {}, "comboMode": "ADD",
            "combos": {f"C{i}": {"combo": "L(0) * 0 + 1", "score": 1, "mode": "value"} for i in range(248)}}
    exam = _exam(("q1", many, ["a"]), ("q2", SM_RULE, ["b"]))
    per_paper = (248 + 2) + (2 + 2)  # each item's combos, its score and its error
    over = MAX_RESPONSE // (2 * per_paper) + 1
    r = client.post("/v1/exam/score", json={"exam": exam, "papers": [{"q1": "x", "q2": "国家"}] * over})
    assert r.status_code == 422, r.text[:300]
    body = r.json()
    assert body["budget"] == "response" and body["limit"] == MAX_RESPONSE
    assert f"{over * per_paper:,} numbers" in body["error"]
    body = _score(client, exam, [{"q1": "x", "q2": "国家"}] * 20)
    assert body["papers"][19]["total"] == 10.0 + 3.0  # a score is at most 10


def test_the_wall_time_budget_is_the_timeout_per_item():
    """In the worker: an exam past timeout × items is stopped between items, 503 naming it."""
    body = json.dumps({"exam": EXAM, "papers": [{"q1": "国家", "q2": ["红灯", "等待"]}] * 50}).encode()
    status, payload, _ = Service(timeout=1e-9).handle("exam", body)
    answer = json.loads(payload)
    assert status == 503, answer
    assert answer["budget"] == "time" and answer["limit"] == pytest.approx(2e-9)
    assert "for each item" in answer["error"]
    status, payload, _ = Service(timeout=10).handle("exam", body)
    assert status == 200 and json.loads(payload)["papers"][49]["total"] == 2 * 3.0 + 0.5 * 10.0
    status, _, _ = Service().handle("exam", body)  # no timeout: no budget
    assert status == 200


def test_the_pool_gives_an_exam_the_timeout_of_the_largest_exam(client, monkeypatch):
    pool = client.app.state.pool
    seen = []
    run = pool.run

    async def spy(kind, payload, **options):
        seen.append((kind, options))
        return await run(kind, payload, **options)

    monkeypatch.setattr(pool, "run", spy)
    assert client.post("/v1/exam/score", json={"exam": EXAM, "papers": []}).status_code == 200
    assert client.post("/v1/score", json={"rule": SM_RULE, "answers": []}).status_code == 200
    assert seen == [("exam", {"timeout": TIMEOUT * MAX_EXAM_ITEMS}), ("score", {})]


def test_messages_are_short(client):
    long = {"atoms": {}, "comboMode": "ADD", "combos": {"A": {"combo": "T(T(0)+T(0)+T(0))", "score": 1,
                                                              "mode": "value"}}}
    body = _score(client, _exam(("q1", long, ["a"])), [{"q1": "x" * 5000}])
    message = body["papers"][0]["q1"]["error"]
    assert len(message) <= 1000 and "characters)" in message
    exam = _exam(("q" * 5000, BAD_RULE, ["a"]))
    r = client.post("/v1/exam/score", json={"exam": exam, "papers": []})
    assert r.status_code == 422
    assert all(len(p["where"]) <= 1000 and len(p["message"]) <= 1000 for p in r.json()["problems"])


# -- the description ---------------------------------------------------------------------


def test_openapi_describes_the_endpoint(client):
    spec = client.get("/openapi.json").json()
    assert spec == json.loads(json.dumps(OPENAPI))
    operation = spec["paths"]["/v1/exam/score"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"]["required"] == ["exam", "papers"]
    assert {"200", "400", "422", "503"} <= set(operation["responses"])
    assert "exam_items" in spec["components"]["schemas"]["BudgetError"]["properties"]["budget"]["enum"]
    schemas = spec["components"]["schemas"]
    refs = set(re.findall(r'"#/components/schemas/(\w+)"', json.dumps(spec)))
    assert refs <= set(schemas) and {"Exam", "Paper", "ItemResult", "ExamErrors"} <= refs


def _docs_section() -> str:
    text = (ROOT / "docs" / "exams.md").read_text(encoding="utf-8")
    start = text.index("<!-- section: exam-service -->")
    return text[start:text.index("<!-- end: exam-service -->", start)]


def test_the_docs_curl_example_answers_what_it_shows(client):
    section = _docs_section()
    (request,) = re.findall(r"curl -s \S+/v1/exam/score .*?-d '(.*?)'", section, re.DOTALL)
    shown = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert shown is not None
    r = client.post("/v1/exam/score", content=request.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text[:300]
    assert r.json() == json.loads(shown.group(1))
