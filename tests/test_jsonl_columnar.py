"""JSON Lines read by Arrow (when provably the same) and written column by column give,
byte for byte, the output of the line-by-line ``json`` reader and a per-row ``json.dumps``
writer: random files with missing keys, nulls, ints among floats, unicode, escapes,
blank lines, extra keys and lines that are errors."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from coscore.cli import main
from coscore.io import MISSING, InputError, jsonl
from coscore.io.jsonl import JsonlReader

DEMO = Path(__file__).parent.parent / "coscore" / "data" / "demo"

TEXTS = ["", "a", "阻尼器", "模型 大楼", "😀x", 'say "hi"', "back\\slash", "line\nbreak", "tab\there", "\x01ctl",
         "é", "\u2028sep", "{", "[1]", "null", "-", "a-b", "1.0", " "]


def _value(rnd: random.Random, depth: int = 0):
    kind = rnd.randrange(11)
    if kind < 3:
        return rnd.choice(TEXTS)
    if kind == 3:
        return rnd.choice([0, 1, -7, 2**53 + 1, 2**63 - 1, 2**63, -2**63, 10**30])
    if kind == 4:
        return rnd.choice([0.0, 1.0, 2.5, -0.0, 1e-7, 1e22, 0.1, float("nan"), float("inf")])
    if kind == 5:
        return None
    if kind == 6:
        return rnd.choice([True, False])
    if kind == 7 and depth < 2:
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(3))]
    if kind == 8 and depth < 2:
        return {rnd.choice("xyz"): _value(rnd, depth + 1)}
    return rnd.choice(TEXTS)


def _row(rnd: random.Random, style: int) -> dict:
    row: dict = {}
    if rnd.random() < 0.9:
        row["id"] = rnd.randrange(1000) if style % 2 else str(rnd.randrange(1000))
    answers = [rnd.choice(TEXTS[:8]) for _ in range(style % 3 + 1)]
    if rnd.random() < 0.05:
        answers[0] = None
    row["answers" if style != 3 else "answer"] = answers if style != 3 else answers[0]
    if rnd.random() < 0.8:
        row["mark"] = rnd.choice([[0, 1, 2], [0, 1, 1.5, 2.0], [0.0, 1.5, None, float("nan")]][style % 3])
    if rnd.random() < 0.15:
        row[rnd.choice(["extra", "note", "é"])] = _value(rnd)
    return row


def _line(rnd: random.Random, row: dict) -> str:
    if rnd.random() < 0.5:
        return json.dumps(row, ensure_ascii=False)
    return json.dumps(row, ensure_ascii=rnd.random() < 0.5, separators=rnd.choice([(",", ":"), (", ", ": ")]))


def _file(rnd: random.Random, path: Path, style: int) -> None:
    lines = []
    uniform = rnd.random() < 0.6  # most files are plain: the Arrow path is taken
    for _ in range(rnd.randrange(1, 60)):
        row = _row(rnd, style)
        if uniform:
            row = {"id": row.get("id", 1), **{k: v for k, v in row.items() if k in ("answers", "answer", "mark")}}
        lines.append(_line(rnd, row))
        if not uniform and rnd.random() < 0.05:
            lines.append(rnd.choice(["", "  ", '{"answers": ["a"], "answers": ["b"]}', '{"answer": "\\ud800"}',
                                     "[1]", '{"answer": "a"} {"answer": "b"}', '{"answer": NaN, "mark": 1}']))
    end = rnd.choice(["\n", "\r\n"])
    text = end.join(lines) + (end if rnd.random() < 0.8 else "")
    path.write_bytes((b"\xef\xbb\xbf" if rnd.random() < 0.1 else b"") + text.encode("utf-8"))


def _old_write(self, chunk) -> None:  # the per-row writer, as it was: the reference
    names = list(chunk.columns)
    columns = [jsonl._json_values(chunk.pylist(name), chunk.types.get(name)) for name in names]
    lines = []
    for values in zip(*columns):
        row = {name: v for name, v in zip(names, values) if v is not MISSING}
        lines.append(self._encode(row))
    if lines:
        self._stream.write("\n".join(lines) + "\n")


def _score(monkeypatch, capsys, args: list[str], out: Path, exact: bool) -> tuple[int, str, bytes]:
    with monkeypatch.context() as patch:
        if exact:
            patch.setattr(jsonl, "_arrow_table", lambda block: None)
            patch.setattr(jsonl.JsonlWriter, "write", _old_write)
        status = main([*args, "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    return status, err, out.read_bytes() if out.exists() else b""


@pytest.mark.parametrize("seed", range(40))
def test_arrow_reading_and_columnar_writing_equal_the_exact_path(tmp_path, monkeypatch, capsys, seed):
    rnd = random.Random(seed)
    style = seed % 5
    path = tmp_path / "in.jsonl"
    _file(rnd, path, style)
    rule = DEMO / ("lab-tools.rule.json" if style % 3 == 0 else "lane-change.rule.json")
    for suffix in ("jsonl", "csv", "parquet"):
        args = ["score", str(rule), str(path), "--chunk-size", str(rnd.choice([1, 3, 8, 65536]))]
        new = _score(monkeypatch, capsys, args, tmp_path / f"new.{suffix}", exact=False)
        old = _score(monkeypatch, capsys, args, tmp_path / f"old.{suffix}", exact=True)
        if new[0] and old[0]:  # which of two errors (reading, writing) comes first depends on the threads' timing
            new, old = new[::2], old[::2]
        assert new == old, (suffix, path.read_text(encoding="utf-8-sig"))
    for size in (1, 5, 65536):
        assert _read(path, size, monkeypatch, exact=False) == _read(path, size, monkeypatch, exact=True)


def _read(path: Path, size: int, monkeypatch, exact: bool) -> list:
    """Every chunk's columns, values and lines, or the error the reader raises."""
    with monkeypatch.context() as patch:
        if exact:
            patch.setattr(jsonl, "_arrow_table", lambda block: None)
        reader = JsonlReader(path, chunk_size=size)
        out: list = []
        try:
            for chunk in reader.chunks():
                out.append((chunk.columns, {n: repr(chunk.pylist(n)) for n in chunk.columns}, list(chunk.lines)))
        except InputError as exc:
            out.append(str(exc))
        finally:
            reader.close()
    return out


def test_blocks_taken_by_arrow_and_by_json(tmp_path):
    path = tmp_path / "a.jsonl"
    plain = "".join(json.dumps({"id": i, "answer": f"a{i}"}) + "\n" for i in range(6))
    path.write_text(plain + '{"id": 6}\n' + plain, encoding="utf-8")
    reader = JsonlReader(path, chunk_size=3)
    chunks = list(reader.chunks())
    reader.close()
    assert [type(c.data["id"]).__name__ for c in chunks] == ["Int64Array", "Int64Array", "list", "Int64Array", "Int64Array"]
    assert [list(c.lines) for c in chunks][2] == [7, 8, 9]
    assert chunks[2].data["answer"][0] is MISSING


def test_a_deeply_nested_line_is_not_given_to_arrow(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"answer": "a", "x": ' + "[" * 200 + "]" * 200 + "}\n", encoding="utf-8")
    reader = JsonlReader(path)
    (chunk,) = list(reader.chunks())
    reader.close()
    assert isinstance(chunk.data["x"], list) and len(chunk) == 1
