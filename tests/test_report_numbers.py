"""A column's numbers converted whole (:func:`coscore.labelled.number_column`) equal
:func:`coscore.labelled.number_cell` of each cell, errors included, for Arrow arrays of
text, integers, floats and nulls and for Python lists."""
from __future__ import annotations

import math
import random

import numpy as np
import pyarrow as pa
import pytest

from coscore.io import InputError
from coscore.marks import number_cell, number_column

TEXTS = ["", " ", "1", "-2", "+3", "1.", ".5", "1e5", "1E-3", "0.1", " 1.5 ", "1_000", "nan", "inf", "-Infinity",
         "１２", "1e400", "9" * 30, "0x10", "1,5", "\u3000", "007", "-0.0", "abc"]


def _cells(values):
    out = []
    for i, v in enumerate(values):
        try:
            out.append(number_cell(v, "f", "c", {"line": i + 2}))
        except InputError as exc:
            return str(exc)
    return np.asarray(out, dtype=np.float64)


def _column(values):
    try:
        return number_column(values, "f", "c", lambda i: {"line": i + 2})
    except InputError as exc:
        return str(exc)


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("seed", range(30))
def test_whole_columns_equal_cell_by_cell(seed):
    rnd = random.Random(seed)
    n = rnd.randrange(0, 30)
    texts = [rnd.choice(TEXTS) if rnd.random() < 0.9 else None for _ in range(n)]
    if seed % 3:  # mostly numbers, so that the conversion at once is taken
        texts = [t if t is None or rnd.random() < 0.2 else repr(rnd.uniform(-5, 5)) for t in texts]
    for values, cells in ((pa.array(texts, pa.string()), texts), (texts, texts)):
        assert _same(_column(values), _cells(cells))
    ints = [rnd.choice([0, 3, -7, 2**62, None]) for _ in range(n)]
    floats = [rnd.choice([0.5, -0.0, 1e300, math.nan, None]) for _ in range(n)]
    for kind, values in ((pa.int64(), ints), (pa.float64(), floats)):
        assert _same(_column(pa.array(values, kind)), _cells(values))
    assert _same(_column(pa.nulls(n)), _cells([None] * n))
    assert _same(_column(pa.array([True] * n)), _cells([True] * n))
