"""``coscore workbench`` alone: its own store, data files imported with a column mapping
(the teacher's sheet of issue 35: its agreement is ``coscore report``'s), exams listed worst
first, rule versions, the upload's refusals, and the command in an empty folder."""
from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("xlsxwriter")

from starlette.testclient import TestClient

from coscore.cli import main
from coscore.workbench import create_app
from workbench_files import RULE, RULE_TEXT, LiveWorkbench, exam_files, teacher_sheet

MAPPING = {"blanks": ["第1空", "第2空"], "label": "教师A", "label2": "教师B", "group": "班级", "id": "学号"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bench")


@pytest.fixture(scope="module")
def client(folder: Path):
    app = create_app(folder / "store", workers=1, allowed_hosts=frozenset({"127.0.0.1", "localhost"}))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def post(client, name: str, body: dict) -> tuple[int, dict]:
    response = client.post(f"/api/workbench/{name}", json=body)
    return response.status_code, response.json()


def upload(client, path: Path, kind: str = "application/octet-stream"):
    return client.post(f"/workbench/upload?name={path.name}", content=path.read_bytes(), headers={"content-type": kind})


def scored(client, body: dict) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, data = post(client, "dataset", body)
        if status != 202:
            assert status == 200, data
            return data
        time.sleep(0.05)
    raise AssertionError("still scoring after 60 s")


def test_the_teachers_sheet_uploads_maps_and_agrees_with_coscore_report(client, folder, capsys):
    book = teacher_sheet(folder / "期中.xlsx")
    response = upload(client, book)
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["columns"] == ["学号", "班级", "第1空", "第2空", "教师A", "教师B"] and found["header_row"] == 2
    assert found["rows"][0][:4] == ["S000000", "1班", "阻尼器", "大楼模型"] and "title row 1" in found["notes"][0]
    assert found["mapping"]["id"] == "学号" and found["mapping"]["group"] == "班级"
    assert "学号" not in found["mapping"]["blanks"]        # never an identifier as a blank
    status, again = post(client, "preview", {"upload": found["upload"], "rule": RULE_TEXT})
    assert status == 200 and again["mapping"]["blanks"] == [] and "reads 2 blanks" in again["problem"]
    status, refused = post(client, "import", {"upload": found["upload"], "columns": {"label": "教师A"},
                                              "rule": RULE_TEXT})
    assert status == 422 and "学号 (looks like an identifier)" in refused["error"]
    status, imported = post(client, "import", {"upload": found["upload"], "file": book.name, "columns": MAPPING})
    assert status == 200, imported
    assert imported["name"] == "期中" and imported["count"] == 300 and imported["left_out"]["values"] == {"缺考": 12}
    status, catalog = post(client, "catalog", {})
    assert ("期中", 300) in [(d["name"], d["count"]) for d in catalog["datasets"]]
    view = scored(client, {"dataset": "期中", "rule": RULE_TEXT})
    assert view["second_rater"]["n"] == 288 and view["groups"] == 4

    rule = folder / "rule.json"
    rule.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    out = folder / "scored.xlsx"
    assert main(["score", str(rule), str(book), "--blanks", "第1空,第2空", "--label", "教师A", "-o", str(out),
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--label", "教师A", "--rule", str(rule), "--missing-marks", "skip", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    a = view["agreement"]
    assert a["n"] == report["n"] == 288
    assert a["qwk"]["value"] == pytest.approx(report["qwk"], abs=1e-12)
    assert a["exact_agreement"]["value"] == pytest.approx(report["exact_agreement"], abs=1e-12)


def test_an_exam_lists_its_items_worst_first_and_opens_one(client, folder):
    exam, data = exam_files(folder)
    response = upload(client, data)
    status, imported = post(client, "import", {"upload": response.json()["upload"], "file": data.name, "columns": {
        "blanks": ["q1_a"], "label": "m1"}})
    assert status == 200, imported
    status, opened = post(client, "exam", {"text": exam.read_text(encoding="utf-8"), "file": exam.name,
                                           "dataset": "exam"})
    assert status == 200, opened
    items = opened["items"]
    assert items[0]["name"] == "q2" and {i["name"] for i in items} == {"q1", "q2", "q3"}
    assert all(i["n"] == 60 for i in items) and items[0]["flags"] and items[-1]["qwk"]["value"] == 1.0
    q2 = items[0]
    view = scored(client, {"dataset": "exam", "rule": q2["rule"], "columns": {"view": q2["view"]}})
    assert view["agreement"]["qwk"]["value"] == pytest.approx(q2["qwk"]["value"])
    status, catalog = post(client, "catalog", {})
    assert "期中 · q2" in [r["name"] for r in catalog["rules"]] and "exam.yaml" in [e["name"] for e in catalog["exams"]]
    status, refused = post(client, "exam", {"text": "items: [{name: q1, rule: r.json, blanks: [a]}]",
                                            "file": "e.yaml"})
    assert status == 422 and "inline" in refused["error"]


def test_every_save_is_a_version_with_diffs_and_revert(client):
    first = RULE_TEXT
    second = RULE_TEXT.replace('"score": 4', '"score": 3')
    for text in (first, second, second):
        status, saved = post(client, "save", {"name": "第5题", "rule": text})
        assert status == 200, saved
    status, listed = post(client, "versions", {"name": "第5题"})
    assert [v["number"] for v in listed["versions"]] == [2, 1]   # the same text again is no new version
    status, diff = post(client, "diff", {"name": "第5题", "from": 1, "to": 2})
    assert status == 200 and any(x.startswith("-") and '"score": 4' in x for x in diff["lines"])
    assert any(x.startswith("+") and '"score": 3' in x for x in diff["lines"])
    status, reverted = post(client, "revert", {"name": "第5题", "number": 1})
    assert status == 200 and reverted["version"] == 3 and reverted["rule"] == first
    assert post(client, "diff", {"name": "第5题", "from": 1, "to": 9})[0] == 404


def test_uploads_are_refused_plainly(client, folder):
    data = folder / "a.csv"
    data.write_text("text,score\na,1\n", encoding="utf-8")
    assert upload(client, data, "text/plain").status_code == 415
    odd = folder / "a.exe"
    odd.write_bytes(b"MZ")
    response = upload(client, odd)
    assert response.status_code == 415 and "CSV, TSV" in response.json()["error"]
    response = client.post("/workbench/upload?name=a.csv", content=b"x", headers={
        "content-type": "application/octet-stream", "host": "evil.example"})
    assert response.status_code == 421
    broken = folder / "b.xlsx"
    broken.write_bytes(b"not a workbook")
    response = upload(client, broken)
    assert response.status_code == 422 and "b.xlsx" in response.json()["error"]


def test_the_command_serves_the_page_in_an_empty_folder(tmp_path):
    live = LiveWorkbench(tmp_path)
    try:
        with urllib.request.urlopen(live.url + "/") as page:
            assert page.status == 200 and b'data-testid="dataset-file"' in page.read()
    finally:
        said = live.stop()
    assert f"open {live.url}/" in said
    assert (tmp_path / "data-home" / "coscore" / "workbench" / "workbench.sqlite3").is_file()   # the user's data folder


def test_a_stored_dataset_is_mapped_again(client, folder):
    book = teacher_sheet(folder / "again.xlsx", 50)
    status, first = post(client, "import", {"upload": upload(client, book).json()["upload"], "file": book.name,
                                            "columns": MAPPING})
    assert status == 200 and first["name"] == "again" and first["left_out"]["rows"] == 2
    status, again = post(client, "import", {"dataset": "again", "columns": {**MAPPING, "label": "教师B",
                                                                            "label2": None}})
    assert status == 200 and again["count"] == 50 and again["left_out"]["rows"] == 0
    view = scored(client, {"dataset": "again", "rule": RULE_TEXT})
    assert view["agreement"]["n"] == 50 and view["columns"]["label"] == "教师B"


def test_the_command_refuses_a_sheet_whose_blanks_do_not_fit(folder, capsys):
    from support import free_port

    book = teacher_sheet(folder / "refused.xlsx", 20)
    rule = folder / "q5.rule.json"
    rule.write_text(RULE_TEXT, encoding="utf-8")
    status = main(["workbench", str(book), "--rule", str(rule), "--store", str(folder / "cli-store"), "--port",
                   str(free_port()), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and "reads 2 blanks" in err and "with --blanks COL[,COL...]" in err
    assert "学号 (looks like an identifier)" in err
