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


# -- codecs that are not text encodings (issue 35, item 7) ----------------------------------

NOT_TEXT = ["idna", "IDNA", "rot13", "rot_13", "base64", "zlib_codec", "zlib", "hex", "uu", "bz2", "quopri",
            "punycode", "undefined", "unicode_escape", "raw_unicode_escape"]


@pytest.mark.parametrize("codec", NOT_TEXT)
def test_a_codec_that_is_not_a_text_encoding_is_refused(tmp_path, codec):
    path = tmp_path / "a.csv"
    path.write_text("id,answer\n1,换车道\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        _table(path, encoding=codec)
    message = str(caught.value)
    assert message.startswith(f"{path}: --encoding {codec!r} is not ")
    assert "utf-8" in message and "gb18030" in message and "auto" in message and "\n" not in message
    from coscore.io.delimited.delimited import DelimitedReader

    with pytest.raises(InputError, match="is not a"):  # a reader made directly refuses it too
        DelimitedReader(path, encoding=codec)


@pytest.mark.parametrize("codec", ["idna", "rot13", "base64", "zlib_codec", "hex", "uu", "bz2", "undefined"])
def test_the_command_refuses_such_a_codec_in_one_line(tmp_path, capsys, codec):
    (tmp_path / "rule.json").write_text((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "a.csv").write_text("id,answer\n1,换车道\n", encoding="utf-8")
    status = main(["score", str(tmp_path / "rule.json"), str(tmp_path / "a.csv"), "--encoding", codec,
                   "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err and "internal error" not in err and "report it" not in err
    assert f"--encoding {codec!r}" in err and "gb18030" in err


def test_a_codec_failing_otherwise_while_decoding_is_one_line(tmp_path):
    """A codec may raise another error than UnicodeDecodeError: still the file and the line."""
    import codecs

    from coscore.io.encodings import Transcoded

    class Odd(codecs.IncrementalDecoder):
        def decode(self, data, final=False):
            raise UnicodeError("this codec cannot")

    info = codecs.CodecInfo(None, None, incrementaldecoder=Odd, name="odd-test")
    codecs.register(lambda name: info if name == "odd_test" else None)
    import io

    stream = Transcoded(io.BytesIO(b"def"), "odd_test", "x.csv", b"abc")
    with pytest.raises(InputError, match=r"x.csv: line 1: cannot be read as odd_test \(this codec cannot\)"):
        stream.read()


# -- CR-only line ends (issue 35, item 7) ---------------------------------------------------

CR_TEXT = "id,answer,mark\r1,换车道,3\r2,\"绕过\r路口\",1\r3,中文🎉,0\r"


@pytest.mark.parametrize("codec, flag", [("utf-8", None), ("utf-8-sig", None), ("gb18030", "gb18030"),
                                         ("utf-16", "utf-16"), ("utf-16", "auto")])
def test_a_csv_with_cr_line_ends_reads_as_universal_newlines_read_it(tmp_path, codec, flag):
    path = tmp_path / "mac.csv"
    path.write_bytes(CR_TEXT.encode(codec))
    values, _ = _table(path, encoding=flag)
    assert values == {"id": ["1", "2", "3"], "answer": ["换车道", "绕过\n路口", "中文🎉"], "mark": ["3", "1", "0"]}
    with open_reader(path, encoding=flag) as reader:
        assert [line for chunk in reader.chunks() for line in chunk.lines] == [2, 3, 5]
    tsv = tmp_path / "mac.tsv"
    tsv.write_bytes(CR_TEXT.replace(",", "\t").encode(codec))
    assert _table(tsv, encoding=flag)[0] == values


def test_cr_line_ends_in_json_lines_the_coscore_layout_and_stdin(tmp_path, monkeypatch, capsys):
    jsonl = tmp_path / "mac.jsonl"
    jsonl.write_bytes('{"id": 1, "answers": ["换", "车道"]}\r{"id": 2, "answers": ["绕过", ""]}\r'.encode())
    assert _table(jsonl)[0]["answers"] == [["换", "车道"], ["绕过", ""]]
    legacy = tmp_path / "mac.txt"
    legacy.write_bytes("text,score\r换-车道,3\r绕过,1\r".encode())
    assert _table(legacy, fmt="coscore")[0] == {"text": ["换-车道", "绕过"], "score": ["3", "1"]}
    (tmp_path / "rule.json").write_text((DEMO / "lane-change.rule.json").read_text(encoding="utf-8"), encoding="utf-8")
    lf = tmp_path / "unix.csv"
    lf.write_text("id,answer\n1,变换车道后停车\n2,不知道\n", encoding="utf-8")
    assert main(["score", str(tmp_path / "rule.json"), str(lf), "--no-progress"]) == 0
    expected = capsys.readouterr().out
    mac = tmp_path / "mac.csv"
    mac.write_bytes(lf.read_bytes().replace(b"\n", b"\r"))
    assert main(["score", str(tmp_path / "rule.json"), str(mac), "--no-progress"]) == 0
    assert capsys.readouterr().out == expected
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(mac.read_bytes())))
    assert main(["score", str(tmp_path / "rule.json"), "-", "--format", "csv", "--no-progress"]) == 0
    assert capsys.readouterr().out == expected


def test_cr_line_ends_that_turn_to_lf_are_refused_naming_the_line(tmp_path):
    """A file whose first 64 KiB end their lines with CR alone and that holds an LF further
    on mixes its line ends: no reading of it is safe."""
    rows = "".join(f"{i},换车道\r" for i in range(6000))
    path = tmp_path / "mixed.csv"
    for fmt, header in (("csv", "id,answer"), ("jsonl", "{}"), ("coscore", "text")):
        path.write_bytes((header + "\r" + rows + "6000,x\n6001,y\n").encode())
        with pytest.raises(InputError, match=r"mixed.csv: line 6002: the file ends its lines with a carriage return "
                           r"alone .*mixed; save it again with one kind of line end"):
            _table(path, fmt=fmt)


def test_a_cr_alone_in_a_file_of_lf_lines_is_a_line_end_for_both_csv_parsers(tmp_path):
    """Arrow's parser ends a line at a CR alone: the line-by-line reader (which finds the
    line numbers and the errors) does too, so the two agree."""
    path = tmp_path / "some.csv"
    path.write_bytes("id,answer\n1,换车道\r2,绕过\n3,\"a\rb\"\n".encode())
    values, _ = _table(path)
    assert values == {"id": ["1", "2", "3"], "answer": ["换车道", "绕过", "a\rb"]}
    with open_reader(path) as reader:
        assert [line for chunk in reader.chunks() for line in chunk.lines] == [2, 3, 4]
    bad = tmp_path / "bad.csv"
    bad.write_bytes("id,answer\n1,换车道\r2\n".encode())
    with pytest.raises(InputError, match=r"bad.csv: line 3: 1 fields, but the header has 2 \(line 1\)"):
        _table(bad)


def test_an_undecodable_byte_in_a_cr_file_names_its_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes("id,answer\r1,换车道\r2,ab".encode("gb18030") + b"\x81\x20\r")
    with pytest.raises(InputError, match=r"bad.csv: line 3: not gb18030 at character 5"):
        _table(path, encoding="gb18030")
