"""Encodings (issue 26, item 2) and the per-cell limit (issue 25): files in any codec read
as the UTF-8 file is, ``auto`` saying what it chose; cells over the limit refused early, in
one line naming the line and the column; CSV headers of any length."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coscore
from coscore.cli import main
from coscore.io import InputError, open_reader

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"
UNICODE = st.characters(exclude_categories=("Cs",), exclude_characters="\r\n\"\x00,")


def _table(path, **options):
    chosen = []
    with open_reader(path, on_encoding=lambda source, what: chosen.append(what), **options) as reader:
        values = {name: [] for name in reader.columns}
        for chunk in reader.chunks():
            for name in chunk.columns:
                values.setdefault(name, []).extend(chunk.pylist(name))
    return values, chosen


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory):
    """The lane-change answers as a plain CSV (id, answer): realistic Chinese text."""
    lines = (DEMO / "lane-change.csv").read_text(encoding="utf-8").splitlines()[1:]
    text = "id,answer\n" + "".join(f'{i},"{line.split(",", 1)[0]}"\n' for i, line in enumerate(lines))
    path = tmp_path_factory.mktemp("demo") / "utf8.csv"
    path.write_text(text, encoding="utf-8")
    return path, text


@pytest.mark.parametrize("codec, flag, said", [
    ("gb18030", "gb18030", None), ("gb18030", "auto", "gb18030 (guessed by charset-normalizer)"),
    ("gbk", "gb18030", None), ("utf-16", "auto", "utf-16 (byte order mark)"), ("utf-16", "utf-16", None),
    ("utf-8-sig", "auto", "utf-8 (byte order mark)"), ("utf-8-sig", None, None), ("utf-32", "auto", "utf-32 (byte order mark)"),
])
def test_a_file_in_another_encoding_reads_as_the_utf8_file(tmp_path, demo_csv, codec, flag, said):
    path, text = demo_csv
    other = tmp_path / f"{codec}.csv"
    other.write_bytes(text.encode(codec))
    expected, _ = _table(path)
    got, chosen = _table(other, encoding=flag)
    assert got == expected
    assert chosen == ([said] if said else [])


def test_scores_are_identical_whatever_the_encoding(tmp_path, demo_csv):
    path, text = demo_csv
    rule = coscore.compile(DEMO / "lane-change.rule.json")
    expected = rule.score_many([[a] for a in _table(path)[0]["answer"]]).scores.tolist()
    for codec in ("gb18030", "utf-16", "utf-8-sig"):
        other = tmp_path / f"{codec}.csv"
        other.write_bytes(text.encode(codec))
        answers = _table(other, encoding="auto" if codec != "gb18030" else codec)[0]["answer"]
        assert rule.score_many([[a] for a in answers]).scores.tolist() == expected


def test_gbk_without_the_flag_is_one_line_naming_encoding(tmp_path, demo_csv, capsys):
    _, text = demo_csv
    (tmp_path / "gbk.csv").write_bytes(text.encode("gbk"))
    (tmp_path / "rule.json").write_text((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"), encoding="utf-8")
    status = main(["score", str(tmp_path / "rule.json"), str(tmp_path / "gbk.csv"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err
    assert "line 2" in err and "invalid UTF-8" in err and "--encoding" in err


def test_an_undecodable_byte_names_line_and_character(tmp_path):
    (tmp_path / "bad.csv").write_bytes("id,answer\n1,换车道\n2,ab".encode("gb18030") + b"\x81\x20\n")
    with pytest.raises(InputError, match=r"bad.csv: line 3: not gb18030 at character 5 \(bytes 81\).*--encoding"):
        _table(tmp_path / "bad.csv", encoding="gb18030")
    with pytest.raises(InputError, match="unknown encoding"):
        _table(tmp_path / "bad.csv", encoding="no-such-codec")
    (tmp_path / "a.parquet").write_bytes(b"")
    with pytest.raises(InputError, match="is for CSV, TSV, JSON Lines"):
        _table(tmp_path / "a.parquet", encoding="gb18030")


@pytest.mark.parametrize("fmt, body", [
    ("jsonl", '{"id": 1, "answer": "换车道"}\n{"id": 2, "answer": "绕过"}\n'),
    ("coscore", "text,score\n换-车道,3\n绕过,1\n"),
    ("tsv", "id\tanswer\n1\t换车道\n2\t绕过\n"),
])
def test_every_text_format_takes_an_encoding(tmp_path, fmt, body):
    plain = tmp_path / f"plain.{fmt}"
    plain.write_text(body, encoding="utf-8")
    for codec in ("gb18030", "utf-16"):
        other = tmp_path / f"{codec}.{fmt}"
        other.write_bytes(body.encode(codec))
        assert _table(other, fmt=fmt, encoding=codec)[0] == _table(plain, fmt=fmt)[0]


CODECS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "gb18030"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.text(UNICODE, min_size=1, max_size=12), min_size=1, max_size=6),
       codec=st.sampled_from(CODECS), fmt=st.sampled_from(["csv", "jsonl"]))
def test_random_unicode_through_every_encoding(tmp_path, values, codec, fmt):
    if fmt == "csv":
        text = "answer\n" + "".join(f'"{v}"\n' for v in values)
    else:
        text = "".join(json.dumps({"answer": v}, ensure_ascii=False) + "\n" for v in values)
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(text.encode(codec))
    flag = codec if not codec.startswith("utf-8") else "auto"
    assert _table(path, encoding=flag)[0]["answer"] == values


# -- the per-cell limit --------------------------------------------------------------------


def test_a_cell_over_the_limit_names_line_and_column(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("id,answer\n1,ok\n2," + "x" * 5000 + "\n", encoding="utf-8")
    assert _table(path)[0]["answer"][1] == "x" * 5000
    for limit in (100, 4999):
        with pytest.raises(InputError, match=r"line 3, column 'answer': a value longer than"):
            _table(path, max_cell_chars=limit)
    quoted = tmp_path / "quoted.csv"  # a long value spread over many short lines
    quoted.write_text('id,answer\n1,"' + "ab\n" * 3000 + '"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2, column 'answer': a value longer than 1,000 characters"):
        _table(quoted, max_cell_chars=1000)
    jsonl = tmp_path / "long.jsonl"
    jsonl.write_text('{"answer": "ok"}\n{"answer": "' + "y" * 5000 + '"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2, column 'answer'"):
        _table(jsonl, max_cell_chars=100)
    legacy = tmp_path / "long.txt"
    legacy.write_text("text\nok\n" + "z" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 3, column 'text'"):
        _table(legacy, fmt="coscore", max_cell_chars=100)


def test_a_huge_cell_is_refused_before_it_is_read_whole(tmp_path):
    path = tmp_path / "huge.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,answer\n1,ok\n2,")
        for _ in range(40):
            f.write("c" * (1 << 20))
        f.write("\n")
    with pytest.raises(InputError, match=r"line 3, column 'answer': a value longer than 1,000 characters"):
        _table(path, max_cell_chars=1000)


def test_a_csv_header_over_1_mib_works(tmp_path):
    names = [f"column-{'x' * 300}-{i}" for i in range(4000)]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join("v" for _ in names) + "\n", encoding="utf-8")
    assert path.stat().st_size > 1 << 20
    values, _ = _table(path)
    assert list(values) == names and values[names[-1]] == ["v"]
