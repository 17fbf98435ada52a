"""What ``coscore workbench`` opens at start, before it serves: :func:`open_files`.

DATA files are imported into the store as the page imports them (the command's readers,
the mapping from ``--blanks``, ``--label``, ``--label2``, ``--group``, ``--id-column``, the
defaults and refusals of ``coscore report``); ``--rule`` is saved as a version of the rule
named after its file; ``--exam`` is opened on the first DATA file, each item's rule saved
as a rule. A file that cannot be used raises :class:`OpeningError` with the message the
page would show, on one line. The command's arguments and its run are the command's
(:mod:`coscore.cli.workbench`).
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CoscoreError

__all__ = ["OpeningError", "open_files"]


class OpeningError(CoscoreError):
    """A file given at start cannot be opened; the message says which and why, on one line."""


def _read_rule(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise OpeningError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise OpeningError(f"{path}: cannot read the rule file ({exc.strerror or exc})") from None


async def open_files(app: Any, data: Sequence[str], *, rule: str | None = None, exam: str | None = None,
                     reading: Mapping[str, Any] | None = None,
                     columns: Mapping[str, Any] | None = None) -> list[str]:
    """Import the files ``data``, save the rule file ``rule``, open the exam file ``exam``
    (on the first of ``data``) in the workbench ``app`` (its ``create_app``; its pool
    started), as the module's description says; what was opened, in lines. ``reading``:
    ``encoding``, ``sheet``, ``header_row``, ``max_cell_chars``; ``columns``: ``blanks``,
    ``label``, ``label2``, ``group``, ``id``. Raises :class:`OpeningError`."""
    from ..http.responses import ApiError

    try:
        return await _open(app, data, rule, exam, dict(reading or {}), dict(columns or {}))
    except ApiError as exc:
        raise OpeningError(exc.message) from None
    except UnicodeDecodeError as exc:
        raise OpeningError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise OpeningError(f"{where}{exc.strerror or exc}") from None


async def _open(app: Any, data: Sequence[str], rule: str | None, exam: str | None, reading: dict[str, Any],
                columns: dict[str, Any]) -> list[str]:
    from ..http.responses import ApiError

    library, store = app.state.library, app.state.store
    said: list[str] = []
    rule_text = None
    if rule:
        rule_text = _read_rule(Path(rule))
        name = Path(rule).stem
        number = store.save_rule(name, None, rule_text, f"file:{rule}")
        said.append(f"rule {name} (version {number})")
    mapping = {"blanks": columns.get("blanks") or [], "label": columns.get("label"),
               "label2": columns.get("label2"), "group": columns.get("group"), "id": columns.get("id")}
    first = None
    for given in data:
        path = Path(given)
        if not path.is_file():
            raise ApiError(400, f"{given}: no such file")
        upload = store.folder("uploads") / f"{os.urandom(8).hex()}{path.suffix.lower()}"
        shutil.copyfile(path, upload)
        found = await library.import_dataset({"upload": upload.stem, "file": path.name, "reading": reading,
                                              "columns": mapping, "rule": rule_text,
                                              "name_them": "--blanks COL[,COL...]"})
        first = first or found["name"]
        left = found.get("left_out") or {}
        said.append(f"dataset {found['name']}: {found['count']:,} rows, blanks {', '.join(found['columns']['blanks'])}"
                    + (f", marks {found['columns']['label']}" if found["columns"].get("label") else "")
                    + (f" ({left['rows']} left out: no mark)" if left.get("rows") else ""))
    if exam:
        opened = await library.open_exam(Path(exam).name, str(Path(exam).resolve()), True, first)
        said.append(f"exam {opened['exam']}: {len(opened['items'])} items" + (f" on {first}" if first else ""))
    return said
