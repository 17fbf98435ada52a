"""Reading the score and mark columns of a file written by ``coscore score``."""
from __future__ import annotations

import os

import numpy as np

from ..io import InputError, open_reader
from ..marks import number_column


def read_scored(
    path: str | os.PathLike[str], label: str, pred: str = "coscore_score", fmt: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The ``label`` and ``pred`` columns of a scored file as float arrays (NaN where empty).

    Columns the reader gives as Arrow arrays are converted whole (no Python object per
    row). Raises :class:`coscore.io.InputError` for a missing column or a value that is
    not a number.
    """
    humans: list[np.ndarray] = []
    preds: list[np.ndarray] = []
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
                out.append(number_column(chunk.data[name], chunk.source, name, chunk.where))
    return _joined(humans), _joined(preds)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.float64)
