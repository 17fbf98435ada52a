"""The original CoScore layout read as Arrow arrays equals, value for value, the layout
read line by line with ``str`` operations (the reference below): random files with
commas, dashes, quotes, CR and CRLF line ends, empty lines, a BOM, no final line end,
lines without a comma and invalid UTF-8."""
from __future__ import annotations

import random

import pytest

from coscore.io import InputError
from coscore.io.legacy import LegacyReader

PIECES = ["a", "-", ",", '"', "阻尼", "😀", " ", "\r", "1", "0.5", ""]


def _reference(data: bytes, labelled: bool) -> tuple[list[str], list[str]] | str:
    """texts and marks as the layout defines them, or the first error's line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    texts, marks = [], []
    for number, raw in enumerate(lines[1:], 2):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return f"line {number}: invalid UTF-8"
        if line.endswith("\r"):
            line = line[:-1]
        if labelled and "," not in line:
            return f"line {number}: no ','"
        texts.append(line.split(",", 1)[0])
        if labelled:
            marks.append(line.rsplit(",", 1)[1])
    return texts, marks


def _read(path, size: int, labelled: bool):
    reader = LegacyReader(path, size)
    texts: list[str] = []
    marks: list[str] = []
    lines: list[int] = []
    try:
        for chunk in reader.chunks():
            texts += chunk.pylist("text")
            marks += chunk.pylist("score") if labelled else []
            lines += list(chunk.lines)
    except InputError as exc:
        kind = "invalid UTF-8" if "UTF-8" in exc.problem else "no ','"
        return f"line {exc.line}: {kind}"
    finally:
        reader.close()
    assert lines == list(range(2, 2 + len(texts)))
    return texts, marks


@pytest.mark.parametrize("seed", range(60))
def test_columnar_reading_equals_the_line_by_line_definition(tmp_path, seed):
    rnd = random.Random(seed)
    labelled = seed % 2 == 0
    rows = []
    for _ in range(rnd.randrange(0, 40)):
        line = "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(0, 8)))
        if labelled and rnd.random() < 0.97:
            line += "," + rnd.choice(["0", "1", "2.5", ""])
        rows.append(line.encode("utf-8"))
    if rows and rnd.random() < 0.1:
        rows[rnd.randrange(len(rows))] += b"\xff"
    end = rnd.choice([b"\n", b"\r\n"])
    header = b"text,score" if labelled else b"text"
    data = (b"\xef\xbb\xbf" if rnd.random() < 0.2 else b"") + end.join([header, *rows])
    data += end if rnd.random() < 0.7 else b""
    path = tmp_path / "a.csv"
    path.write_bytes(data)
    expected = _reference(data, labelled)
    for size in (1, 3, 65536):
        assert _read(path, size, labelled) == expected, data
