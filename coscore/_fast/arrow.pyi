"""Blank columns held as Arrow strings, read in C (compiled; twin: arrow_py). ``texts``
gives a :class:`coscore._fast.texts.Texts` here, a list of ``str`` in the twin."""
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

class BlankColumns:
    n_rows: int
    def __init__(self, columns: list[Any]) -> None: ...
    @property
    def n_columns(self) -> int: ...
    def texts(
        self, key: int | str, start: int, stop: int
    ) -> tuple[Sequence[str], npt.NDArray[np.intp], npt.NDArray[np.bool_] | None]: ...
    def answers(self, start: int, stop: int) -> tuple[list[str | tuple[str, ...]], npt.NDArray[np.intp]]: ...
    def answer(self, row: int) -> str | tuple[str, ...]: ...
