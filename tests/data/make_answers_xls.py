"""Write tests/data/answers.xls, the legacy Excel (BIFF8) workbook the .xls tests read.

The file is committed (coscore only reads .xls, and its test dependencies write no .xls);
this script says what it holds and makes it again with xlwt (``pip install xlwt``, not a
dependency of coscore): ``python tests/data/make_answers_xls.py [OUT]``.

Sheet ``答案``: a header row (``id``, ``q1``, ``q2``) and four answers, with cells of every
kind a reader must turn into text -- the texts ``1`` and ``3``, the numbers 2 and 4.5, the boolean
TRUE (read as ``true``), an empty cell, CJK text and an emoji outside the BMP. Sheet
``other``: one column ``name`` holding ``v`` (for ``--sheet other`` / ``--sheet 2``).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROWS = [
    ["id", "q1", "q2"],
    ["1", "变换车道后停车", "笔纸尺"],
    [2, "车道", True],
    ["3", None, "左转 变道"],
    [4.5, "中文🎉", "x"],
]


def main(out: Path) -> None:
    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    answers = book.add_sheet("答案")
    for r, row in enumerate(ROWS):
        for c, value in enumerate(row):
            if value is not None:
                answers.write(r, c, value)
    other = book.add_sheet("other")
    other.write(0, 0, "name")
    other.write(1, 0, "v")
    book.save(str(out))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("answers.xls"))
