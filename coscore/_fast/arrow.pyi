"""Blank columns held as Arrow strings, read in C (compiled; twin: arrow_py). ``texts``
gives a :class:`coscore._fast.texts.Texts` here, a list of ``str`` in the twin."""
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

class BlankColumns:
    n_rows: int
    def __init__(self, columns: list[Any]) -> None: ...
    @property
    def n_columns(self) -> int: ...
    def texts(
        self, key: Union[int, str], start: int, stop: int
    ) -> tuple[Sequence[str], npt.NDArray[np.intp], Optional[npt.NDArray[np.bool_]]]: ...
    def answers(self, start: int, stop: int) -> tuple[list[Union[str, tuple[str, ...]]], npt.NDArray[np.intp]]: ...
    def answer(self, row: int) -> Union[str, tuple[str, ...]]: ...
