"""Reading a legacy ``.xls`` or an OpenDocument ``.ods`` workbook in a child process under
a memory and a time budget.

fastexcel (calamine) reads both, but such a file can ask for far more memory than its size
(an ``.ods`` cell repeated over a million rows and thousands of columns; an ``.xls`` cell
pointing at a long shared string, many times over), and a failed allocation in the
reader kills its process outright: no Python error can catch it. :mod:`.workbook_guard`
bounds ``.xlsx`` before it is parsed; for these two formats the sheet is read in a child
process whose address space is capped at :data:`MEMORY` bytes (where the platform has
``resource``) and its time at :data:`TIME` seconds, which writes it as an Arrow IPC file
for this process to read. A child that runs out of memory or time is one line: the
workbook needs more than the budget.

The child is ``python -m coscore.io.excel.workbook_child PATH SHEET OUT MEMORY``; it prints one
JSON line: ``{"sheets": [...], "index": i, "letters": [...]}``, or ``{"error": "..."}``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

#: The address space the child may take (bytes): the reader with its Python, and the sheet.
MEMORY = 2 << 30
#: The seconds the child may take (its parse is linear in the file: a minute for a million rows).
TIME = 600


@dataclass
class LoadedSheet:
    """One sheet read whole: the workbook's sheet names, the index of this one, its grid as
    an Arrow table of text (``None`` for an empty cell) and each column's letter."""

    sheets: list[str]
    index: int
    table: Any
    letters: list[str]


def read_sheet(path: str, source: str, sheet: str | int | None, kind: str, memory: int = MEMORY,
               seconds: float = TIME) -> LoadedSheet:
    """Read sheet ``sheet`` (see :func:`~.workbook_guard.choose_sheet`) of the workbook at
    ``path`` (``kind``: its format's name, for messages) in a child process under
    ``memory`` bytes and ``seconds``. Raises :class:`InputError` (one line) for a damaged
    file, a missing sheet or a workbook that needs more memory or time."""
    import pyarrow as pa

    with tempfile.TemporaryDirectory(prefix="coscore-sheet-") as folder:
        out = os.path.join(folder, "sheet.arrow")
        command = [sys.executable, "-m", "coscore.io.excel.workbook_child", os.fspath(path), json.dumps(sheet), out,
                   str(memory)]
        try:
            run = subprocess.run(command, capture_output=True, text=True, env=_child_env(), check=False,
                                 timeout=seconds)
        except subprocess.TimeoutExpired:
            raise InputError(source, f"refused: reading this {kind} workbook took more than {seconds:g} s") from None
        said = _said(run.stdout)
        if "error" in said:
            raise InputError(source, said["error"])
        if run.returncode != 0 or "sheets" not in said:
            raise InputError(source, f"refused: reading this {kind} workbook needs more than {memory >> 20:,} MiB "
                             f"of memory (a workbook that repeats its cells far over its size?)")
        with pa.OSFile(out, "rb") as file:   # read whole: the folder goes away
            written = pa.ipc.open_file(file)
            table = written.get_batch(0) if written.num_record_batches else written.schema.empty_table()
    return LoadedSheet(said["sheets"], said["index"], table, said["letters"])


def _said(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.splitlines()):
        try:
            said = json.loads(line)
        except ValueError:
            continue
        if isinstance(said, dict):
            return said
    return {}


def _child_env() -> dict[str, str]:
    """This process's environment, with coscore importable from where it is."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    env["RUST_BACKTRACE"] = "0"
    return env


def _cap(memory: int) -> None:
    try:
        import resource
    except ImportError:   # no address-space limit on this platform
        return
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    limit = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(argv: list[str]) -> int:
    """The child: read one sheet, write it as Arrow IPC, say what it read."""
    path, sheet_json, out, memory = argv
    _cap(int(memory))
    from .sheet_grid import column_letter
    from .workbook_guard import choose_sheet

    sheet = json.loads(sheet_json)
    source = os.path.basename(path)
    try:
        import fastexcel
        import pyarrow as pa

        reader = fastexcel.read_excel(path)
        names = list(reader.sheet_names)
        if not names:
            raise InputError(source, "the workbook has no sheet")
        index = choose_sheet(source, names, sheet)
        loaded = reader.load_sheet(index, header_row=None, skip_rows=0, dtypes="string", schema_sample_rows=1)
        table = loaded.to_arrow()
        letters = [column_letter(info.absolute_index) for info in loaded.selected_columns]
        with pa.OSFile(out, "wb") as file, pa.ipc.new_file(file, table.schema) as writer:
            writer.write(table)   # a RecordBatch or a Table
    except InputError as exc:
        print(json.dumps({"error": exc.problem}))
        return 2
    except MemoryError:
        return 3
    except Exception as exc:   # fastexcel's errors: a damaged or foreign file
        print(json.dumps({"error": f"not a readable workbook ({' '.join(str(exc).split())})"}))
        return 2
    print(json.dumps({"sheets": names, "index": index, "letters": letters}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
