"""The file attacks of issue 37 (item 4), each read by ``coscore score`` in a child process.

Used by ``benchmarks/hostile.py --issue37``; each returns rows ``(attack, count, held,
figures)``:

- ``empty_rows``: a valid ``.xlsx`` with 120,000 empty styled rows (``<row r="N" s="1"/>``)
  after its data: held when it is scored (exit 0);
- ``wide_csv``: 100,000 and 300,000 columns in one header (0.9 and 2.9 MB; the trial's
  16 s / 1.1 GB, and an abort with ``std::bad_alloc``): held when refused in one line
  (exit 2) in under 5 s and 400 MB;
- ``wide_jsonl``: one object of 300,000 keys, and 100,000 rows each with a key of its own
  (17 GB and 10 minutes before): held when it ends (exit 0 or a one-line refusal) in under
  20 s and 600 MB;
- ``wide_parquet``: 100,000 and 300,000 columns of one row (22 and 66 MB; 1.1 GB read
  before): held when refused in one line (exit 2) in under 5 s and 400 MB.
"""
from __future__ import annotations

import json
import sys
import tempfile
import zipfile
from pathlib import Path

from benchmarks import children

Row = tuple[str, int, bool, str]

ROOT = Path(__file__).resolve().parent.parent
RULE = ROOT / "coscore" / "data" / "demo" / "lab-tools.rule.json"
_NS = "http://schemas.openxmlformats.org"


def _score(data: Path, *extra: str) -> tuple[int, float, float, str]:
    """``coscore score`` of ``data``: exit code, seconds, peak MB of the child, last line of stderr."""
    code, seconds, peak, _, err = children.run([sys.executable, "-m", "coscore", "score", str(RULE), str(data),
                                                *extra, "-o", str(data.with_suffix(".out.csv"))], cwd=ROOT, timeout=600)
    lines = err.strip().splitlines()
    return code, seconds, peak, lines[-1][:120] if lines else ""


def _workbook(path: Path, rows: bytes) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("_rels/.rels", f'<Relationships xmlns="{_NS}/package/2006/relationships"><Relationship '
                      f'Id="rId1" Type="{_NS}/officeDocument/2006/relationships/officeDocument" '
                      'Target="xl/workbook.xml"/></Relationships>')
        book.writestr("xl/workbook.xml", f'<workbook xmlns="{_NS}/spreadsheetml/2006/main" xmlns:r="{_NS}/'
                      'officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/>'
                      '</sheets></workbook>')
        book.writestr("xl/_rels/workbook.xml.rels", f'<Relationships xmlns="{_NS}/package/2006/relationships">'
                      f'<Relationship Id="rId1" Type="{_NS}/officeDocument/2006/relationships/worksheet" '
                      'Target="worksheets/sheet1.xml"/></Relationships>')
        book.writestr("xl/worksheets/sheet1.xml", f'<worksheet xmlns="{_NS}/spreadsheetml/2006/main"><sheetData>'
                      .encode() + rows + b"</sheetData></worksheet>")


def empty_rows(folder: Path) -> list[Row]:
    head = (b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>answer</t>'
            b"</is></c></row>")
    data = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>a wrench</t></is></c>'
                    b"</row>" % (n, n, n, n) for n in range(2, 12))
    gap = b"".join(b'<row r="%d" spans="1:2" s="1" customFormat="1" ht="15"/>' % n for n in range(12, 120012))
    _workbook(folder / "rows.xlsx", head + data + gap)
    code, seconds, peak, last = _score(folder / "rows.xlsx", "--blanks", "answer")
    return [("xlsx: 120,000 empty styled rows", 1, code == 0, f"exit {code}, {seconds:.1f} s, {peak:.0f} MB {last}")]


def wide_csv(folder: Path) -> list[Row]:
    rows: list[Row] = []
    for count in (100_000, 300_000):
        path = folder / f"wide{count}.csv"
        path.write_text(",".join(f"c{i}" for i in range(count)) + "\n" + ",".join("x" * count) + "\n")
        code, seconds, peak, last = _score(path)
        held = code == 2 and "16,384" in last and seconds < 5 and peak < 400
        rows.append((f"csv: {count:,} columns", 1, held, f"exit {code}, {seconds:.1f} s, {peak:.0f} MB: {last}"))
    return rows


def wide_jsonl(folder: Path) -> list[Row]:
    rows: list[Row] = []
    wide = folder / "wide.jsonl"
    wide.write_text(json.dumps({f"k{i}": "x" for i in range(300_000)}) + "\n")
    grow = folder / "grow.jsonl"
    grow.write_text("".join(json.dumps({"answer": "a", f"k{i}": "x"}) + "\n" for i in range(100_000)))
    for name, path in (("jsonl: one object of 300,000 keys", wide), ("jsonl: 100,000 rows, a key each", grow)):
        code, seconds, peak, last = _score(path, "--blanks", "answer")
        held = code in (0, 2) and seconds < 20 and peak < 600
        rows.append((name, 1, held, f"exit {code}, {seconds:.1f} s, {peak:.0f} MB: {last}"))
    return rows


def wide_parquet(folder: Path) -> list[Row]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows: list[Row] = []
    for count in (100_000, 300_000):
        path = folder / f"wide{count}.parquet"
        pq.write_table(pa.table({f"c{i}": ["x"] for i in range(count)}), path)
        code, seconds, peak, last = _score(path)
        held = code == 2 and "16,384" in last and seconds < 5 and peak < 400
        rows.append((f"parquet: {count:,} columns", 1, held, f"exit {code}, {seconds:.1f} s, {peak:.0f} MB: {last}"))
    return rows


def issue37_files() -> list[Row]:
    """Every file attack's rows."""
    with tempfile.TemporaryDirectory(prefix="coscore-files-") as folder:
        return (empty_rows(Path(folder)) + wide_csv(Path(folder)) + wide_jsonl(Path(folder))
                + wide_parquet(Path(folder)))


if __name__ == "__main__":
    from benchmarks.attacks_http import print_table

    print_table(issue37_files())
