"""Reading the score and mark columns of a file written by ``coscore score``."""
from __future__ import annotations

import os

import numpy as np

from ..io import InputError, open_reader
from ..labelled import number_cell


def read_scored(
    path: str | os.PathLike[str], label: str, pred: str = "coscore_score", fmt: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The ``label`` and ``pred`` columns of a scored file as float arrays (NaN where empty).

    Raises :class:`coscore.io.InputError` for a missing column or a value that is not a number.
    """
    humans: list[float] = []
    preds: list[float] = []
    with open_reader(path, fmt) as reader:
        has_header = reader.format in ("csv", "tsv", "coscore")
        for chunk in reader.chunks():
            for name in (label, pred):
                if name not in chunk.data:
                    where = {"line": 1} if has_header else {}
                    raise InputError(
                        reader.source, f"no such column (columns: {', '.join(reader.columns)})", column=name, **where
                    )
            for name, out in ((label, humans), (pred, preds)):
                out.extend(number_cell(v, chunk.source, name, chunk.where(i)) for i, v in enumerate(chunk.pylist(name)))
    return np.asarray(humans, dtype=np.float64), np.asarray(preds, dtype=np.float64)
