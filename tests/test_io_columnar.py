"""The columnar file path: every conformance case scored from Parquet and CSV files,
Arrow blank columns in ``score_many``, text round trips of every UTF-8 width, .xlsx,
several files and globs, output options."""
from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coscore
from conftest import load_cases
from coscore.cli import main
from coscore.io import InputError, open_reader, open_writer
from coscore.io.cells import float_texts, quoted
from coscore.pipeline.tables import answers_from_columns


def _groups() -> list[tuple[dict, list[list[str]]]]:
    """The conformance answers grouped by rule and number of blanks (a file has one width)."""
    groups: dict[tuple[str, int], list[list[str]]] = defaultdict(list)
    rules: dict[str, dict] = {}
    for case in load_cases():
        key = json.dumps(case["rule"], sort_keys=True)
        rules[key] = case["rule"]
        groups[(key, len(case["answers"]))].append(case["answers"])
    return [(rules[key], answers) for (key, width), answers in groups.items() if width]


GROUPS = _groups()


def _expected(rule: coscore.Rule, answers: list[list[str]]) -> dict[str, list]:
    batch = rule.score_many(answers)
    out = {"coscore_score": [None if math.isnan(v) else v for v in batch.scores.tolist()]}
    for cid in rule.combo_ids:
        out[f"coscore_combo_{cid}"] = [None if math.isnan(v) else v for v in batch.combos[cid].tolist()]
    out["coscore_error"] = list(batch.errors)
    return out


def _table(answers: list[list[str]]) -> pa.Table:
    width = len(answers[0])
    return pa.table({f"b{i}": pa.array([a[i] for a in answers], pa.string()) for i in range(width)})


def test_every_conformance_case_through_parquet_and_csv_files(tmp_path):
    """Each rule's answers go through one of the two formats, in turn: every case is read
    from a file and its results written to one, and each format has half the rules (one
    command a rule: the command costs more than its answers)."""
    assert sum(len(a) for _, a in GROUPS) == 4433
    for number, (source, answers) in enumerate(GROUPS):
        rule = coscore.compile(source)
        rule_path = tmp_path / "rule.json"
        rule_path.write_text(json.dumps(source, ensure_ascii=False), encoding="utf-8")
        expected = _expected(rule, answers)
        table = _table(answers)
        fmt = ("parquet", "csv")[number % 2]
        if fmt == "parquet":
            pq.write_table(table, tmp_path / "in.parquet")
        else:
            with open(tmp_path / "in.csv", "w", encoding="utf-8", newline="") as f:
                writer = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
                writer.writerow(table.column_names)
                writer.writerows(answers)
        out = tmp_path / f"out.{fmt}"
        assert main(["score", str(rule_path), str(tmp_path / f"in.{fmt}"), "-o", str(out), "--no-progress",
                     "--blanks", ",".join(table.column_names)]) == 0
        if fmt == "parquet":
            got = pq.read_table(out).to_pydict()
            for name, values in expected.items():
                assert got[name] == values, (number, name)
        else:
            rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
            assert [[r[f"b{i}"] for i in range(len(answers[0]))] for r in rows] == answers, number
            for name, values in expected.items():
                text = ["" if v is None else (v if isinstance(v, str) else repr(v)) for v in values]
                assert [r[name] for r in rows] == text, (number, name)


def test_score_many_takes_arrow_blank_columns():
    for source, answers in GROUPS:
        rule = coscore.compile(source)
        want = rule.score_many(answers)
        table = _table(answers)
        for given_ in (table, table.to_batches()[0], list(table.columns), [c.combine_chunks() for c in table.columns]):
            got = rule.score_many(given_)
            assert got.scores.tobytes() == want.scores.tobytes()
            assert got.errors == want.errors
            for cid in rule.combo_ids:
                assert got.combos[cid].tobytes() == want.combos[cid].tobytes()


def test_null_arrow_cells_are_empty_blanks():
    columns = [pa.array(["a", None, ""]), pa.array([None, "b", None], pa.large_string())]
    assert answers_from_columns(columns) == [("a", ""), ("", "b"), ("", "")]
    assert answers_from_columns([pa.nulls(2)]) == ["", ""]
    with pytest.raises(TypeError, match="text"):
        answers_from_columns([pa.array([1, 2])])


# -- text round trips ----------------------------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
#: ASCII, CJK (3 bytes) and astral (4 bytes) characters, the delimiters and quotes.
MIXED = st.text(st.sampled_from([*list('ab ,"\t\n\r'), "中", "文", "，", "🎉", "𠀀", "é"]), max_size=10)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(TEXT, MIXED), st.one_of(st.none(), TEXT, MIXED)), min_size=1, max_size=30),
       st.sampled_from(["csv", "tsv", "parquet", "jsonl"]))
def test_text_round_trips_through_every_format(tmp_path_factory, rows, fmt):
    folder = tmp_path_factory.mktemp("rt")
    first = [a for a, _ in rows]
    second = [b for _, b in rows]
    path = folder / f"t.{fmt}"
    table = pa.table({"a": pa.array(first, pa.string()), "b": pa.array(second, pa.string())})
    from coscore.io import Chunk

    chunk = Chunk(["a", "b"], {"a": table.column("a"), "b": table.column("b")}, range(1, len(rows) + 1), "row")
    with open_writer(path) as writer:
        writer.write(chunk)
    with open_reader(path, chunk_size=7) as reader:
        chunks = list(reader.chunks())
        back = {name: [v for c in chunks for v in c.pylist(name)] for name in reader.columns}
    if fmt in ("csv", "tsv"):  # text files have no null: an empty cell
        second = ["" if v is None else v for v in second]
    assert back == {"a": first, "b": second}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(TEXT, MIXED), max_size=20), st.sampled_from([",", "\t"]), st.booleans())
def test_quoting_matches_the_csv_module_and_reads_back(values, delimiter, alone):
    texts = quoted(pa.array(values, pa.string()), delimiter, alone).to_pylist()
    for value, text in zip(values, texts):
        out = io.StringIO()
        w = csv.writer(out, delimiter=delimiter, lineterminator="\n")
        w.writerow([value] if alone else [value, "x"])
        line = out.getvalue()
        expect = line[:-1] if alone else line[: -len(delimiter + "x\n")]
        if "\r" in value and not expect.startswith('"'):
            assert text == '"' + value.replace('"', '""') + '"'  # quoted here, not by the csv module
        else:
            assert text == expect


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=30))
def test_floats_are_written_as_repr(values):
    expect = [repr(v) for v in values]
    assert float_texts(pa.array(values, pa.float64())).to_pylist() == expect
    many = values * 5  # the same values, formatted once per distinct value
    assert float_texts(pa.array(many, pa.float64())).to_pylist() == expect * 5


# -- formats users have --------------------------------------------------------------------

RULE = {
    "atoms": {"0": {"type": "SM", "desc": "车道"}},
    "combos": {"A": {"combo": "M(0,T(0))>=1", "score": 3, "mode": "logic"}},
    "comboMode": "ADD",
}


def _rule_file(tmp_path):
    path = tmp_path / "rule.json"
    path.write_text(json.dumps(RULE, ensure_ascii=False), encoding="utf-8")
    return str(path)


def test_xlsx_in_and_out(tmp_path):
    rule = _rule_file(tmp_path)
    src = tmp_path / "in.csv"
    src.write_text("id,answer\n1,换车道\n2,=1+1\n3,\n", encoding="utf-8")
    xlsx = tmp_path / "scored.xlsx"
    assert main(["score", rule, str(src), "-o", str(xlsx), "--no-progress"]) == 0
    with open_reader(xlsx) as reader:
        assert reader.columns[:2] == ["id", "answer"]
        chunk = next(reader.chunks())
    assert chunk.pylist("answer") == ["换车道", "=1+1", ""]  # text stays text, never a formula
    assert list(chunk.lines) == [2, 3, 4]
    import zipfile

    sheet = zipfile.ZipFile(xlsx).read("xl/worksheets/sheet1.xml").decode("utf-8")
    assert '<row r="3"><c><v>2</v></c><c t="inlineStr"><is><t>=1+1</t>' in sheet  # the id 2 a number, =1+1 text
    assert '<row r="2"><c><v>1</v></c><c t="inlineStr"><is><t>换车道</t></is></c><c><v>3.0</v></c>' in sheet  # numbers


def test_xlsx_input_scores_like_csv(tmp_path):
    xlsxwriter = pytest.importorskip("xlsxwriter")

    rule = _rule_file(tmp_path)
    book = xlsxwriter.Workbook(str(tmp_path / "in.xlsx"))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["id", "answer"])
    sheet.write_row(1, 0, [1, "换车道"])
    # row 3 stays empty: it is skipped
    sheet.write_row(3, 0, [2, 42])
    book.close()
    out = tmp_path / "out.csv"
    assert main(["score", rule, str(tmp_path / "in.xlsx"), "-o", str(out), "--no-progress"]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        "id,answer,coscore_score,coscore_combo_A,coscore_error",
        "1,换车道,3.0,3.0,",
        "2,42,0.0,0.0,",
    ]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_several_files_and_globs(tmp_path, fmt):
    rule = _rule_file(tmp_path)
    for part in range(3):
        with open_writer(tmp_path / f"part-{part}.{fmt}") as writer:
            from coscore.io import Chunk

            values = [f"{part}-{i}车道" for i in range(4)]
            writer.write(Chunk(["answer"], {"answer": values}, range(1, 5), "row", types={"answer": "str"}))
    out = tmp_path / "out.parquet"
    args = [str(tmp_path / f"part-0.{fmt}"), str(tmp_path / f"part-[12].{fmt}")]
    assert main(["score", rule, *args, "-o", str(out), "--no-progress"]) == 0
    got = pq.read_table(out).to_pydict()
    assert got["answer"] == [f"{p}-{i}车道" for p in range(3) for i in range(4)]
    assert got["coscore_score"] == [3.0] * 12
    with pytest.raises(InputError, match="no file matches"), open_reader(str(tmp_path / f"none-*.{fmt}")):
        pass


def test_files_with_other_columns_are_refused(tmp_path, capsys):
    rule = _rule_file(tmp_path)
    (tmp_path / "a.csv").write_text("answer\nx\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("other\ny\n", encoding="utf-8")
    assert main(["score", rule, str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--no-progress"]) == 2
    assert "b.csv" in capsys.readouterr().err


def test_unknown_output_extension_is_an_error(tmp_path, capsys):
    rule = _rule_file(tmp_path)
    (tmp_path / "a.csv").write_text("answer\nx\n", encoding="utf-8")
    out = tmp_path / "scores.txt"
    assert main(["score", rule, str(tmp_path / "a.csv"), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "scores.txt" in err and "extension" in err and not out.exists()
    assert main(["score", rule, str(tmp_path / "a.csv"), "-o", str(out), "--output-format", "tsv",
                 "--no-progress"]) == 0
    assert out.read_text(encoding="utf-8").startswith("answer\tcoscore_score")


def test_excel_bom_and_decimals(tmp_path):
    rule = {"atoms": {"0": {"type": "SM", "desc": "a"}}, "combos": {"A": {"combo": "1/3", "score": 1, "mode": "value"}},
            "comboMode": "ADD"}
    path = tmp_path / "rule.json"
    path.write_text(json.dumps(rule), encoding="utf-8")
    (tmp_path / "a.csv").write_text("answer\n中文\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    assert main(["score", str(path), str(tmp_path / "a.csv"), "-o", str(out), "--excel", "--decimals", "2",
                 "--no-progress"]) == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfanswer,")
    assert raw.decode("utf-8-sig").splitlines()[1] == "中文,0.33,0.33,"
    assert main(["score", str(path), str(tmp_path / "a.csv"), "-o", str(tmp_path / "o.parquet"), "--excel",
                 "--no-progress"]) == 2


def test_csv_errors_found_by_arrow_name_the_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"id,answer\n" + b"1,ok\n" * 100_000 + b'2,"never closed\n3,x\n')
    with pytest.raises(InputError, match="malformed CSV") as info, open_reader(path) as reader:
        for _ in reader.chunks():
            pass
    assert info.value.line == 100_002


def test_file_benchmark_runs(capsys):
    from benchmarks import files

    assert files.main(["--rows", "2000", "--rules", "lab-tools"]) == 0
    out = capsys.readouterr().out
    assert "CSV->CSV" in out and "Parquet->Parquet" in out and "ratio" in out
