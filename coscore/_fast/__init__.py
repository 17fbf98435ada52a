"""The matching kernels (no rule logic here), in one of two implementations.

- :class:`LcsScorer` -- OP: max LCS(k, s) / len(k)
- :class:`JaccardScorer` -- CS: character multiset Jaccard (:func:`token`, :func:`token_tables`)
- :class:`SubstringScanner` -- SM: ordered option walk
- batch plumbing: :func:`check_answers`, :func:`blank_column`, :func:`joined_column`,
  :func:`distinct_texts`, :func:`dedup_strings`, :func:`dedup_answers`, :func:`longest`, :func:`plain_strings`,
  :func:`tune_malloc`
- :func:`few_keys` -- whether a block of JSON Lines holds few distinct keys (for the reader)
- :class:`StrColumns` -- blank columns held as Python ``str``, read as :class:`BlankColumns`
  reads Arrow ones (one implementation, in ``_common``)
- :class:`BlankColumns` -- blank columns as Arrow strings, deduplicated on their UTF-8 bytes;
  the compiled form gives the distinct texts as a ``Texts`` (module ``texts``: the texts
  decoded in C, which the compiled kernels read as they read a list of ``str``)
- the plain statements of two atoms' semantics, the same in both implementations (module
  ``_common``, pure Python): :func:`group_hits` (SM: one group's ordered walk) and
  :func:`tokens` (CS: the token counts of a text)

The compiled modules (``lcs``, ``jaccard``, ``substring``, ``batch``, ``arrow``, ``json_keys``: Cython and C, working
on the code points of ``str`` objects and releasing the GIL in their loops) each have a
pure-Python twin (``lcs_py``, ...) with the same names and results bit for bit. The
implementation is chosen once, at import: ``COSCORE_IMPLEMENTATION=python`` or ``cython``
forces one (``cython`` raises ImportError when the compiled modules are missing); unset,
the compiled modules are used when they import, else the twins. :data:`IMPLEMENTATION`
says which. Import the kernels from here, never from the modules themselves: this is the
one module that chooses between the two (a compiled module never imports a twin, nor a
twin a compiled module; what both need is in ``_common``).
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import TYPE_CHECKING

from ._common import StrColumns, group_hits, tokens

__all__ = [
    "BUILD_NOTE",
    "IMPLEMENTATION",
    "BlankColumns",
    "JaccardScorer",
    "LcsScorer",
    "StrColumns",
    "SubstringScanner",
    "blank_column",
    "check_answers",
    "dedup_answers",
    "dedup_strings",
    "distinct_texts",
    "few_keys",
    "group_hits",
    "joined_column",
    "longest",
    "modules",
    "plain_strings",
    "token",
    "token_tables",
    "tokens",
    "tune_malloc",
]

#: The kernel modules, by the name of their compiled form.
MODULES = ("lcs", "jaccard", "substring", "batch", "arrow", "json_keys")


def _load(implementation: str) -> dict[str, ModuleType]:
    suffix = "_py" if implementation == "python" else ""
    return {name: importlib.import_module(f"{__name__}.{name}{suffix}") for name in MODULES}


def _choose() -> tuple[str, dict[str, ModuleType]]:
    wanted = os.environ.get("COSCORE_IMPLEMENTATION", "").strip().lower()
    if wanted not in ("", "python", "cython"):
        raise ImportError(f"COSCORE_IMPLEMENTATION must be 'python' or 'cython', got {wanted!r}")
    if wanted == "python":
        return "python", _load("python")
    try:
        return "cython", _load("cython")
    except ImportError as exc:
        if wanted == "cython":
            raise ImportError(
                f"COSCORE_IMPLEMENTATION=cython, but coscore's compiled kernels are missing ({exc}); "
                "build them (python setup.py build_ext --inplace) or unset the variable to use "
                "the pure-Python implementation"
            ) from exc
        return "python", _load("python")


def _build_note() -> str | None:
    """The note a build that could not compile the kernels left in the package, else None."""
    import importlib.resources

    note = importlib.resources.files(__name__).joinpath("build-note.txt")
    try:
        text = " ".join(note.read_text(encoding="utf-8").split()) if note.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


IMPLEMENTATION, _modules = _choose()

#: Why this install has no compiled kernels, in one line, when its build said so: a build
#: that found no working C compiler (or no Python headers, or no Cython) installs the twins
#: and leaves this note, which is also given once per process as a UserWarning (never in
#: worker processes, nor when ``COSCORE_IMPLEMENTATION=python`` asks for the twins). None
#: otherwise.
BUILD_NOTE: str | None = None
if IMPLEMENTATION == "python" and not os.environ.get("COSCORE_IMPLEMENTATION", "").strip():
    BUILD_NOTE = _build_note()
    if BUILD_NOTE is not None:
        import multiprocessing
        import warnings

        if multiprocessing.parent_process() is None:   # one line, from here (no source line shown)
            warnings.warn_explicit(f"{BUILD_NOTE} (COSCORE_IMPLEMENTATION=python: the same without this warning)",
                                   UserWarning, __file__, 0, module=__name__)

if TYPE_CHECKING:   # the compiled modules' stubs (lcs.pyi, ...) describe both implementations
    from .arrow import BlankColumns
    from .batch import (
        blank_column,
        check_answers,
        dedup_answers,
        dedup_strings,
        distinct_texts,
        joined_column,
        longest,
        plain_strings,
        tune_malloc,
    )
    from .jaccard import JaccardScorer, token, token_tables
    from .json_keys import few_keys
    from .lcs import LcsScorer
    from .substring import SubstringScanner
else:
    globals().update({name: getattr(module, name) for module in _modules.values()
                      for name in __all__ if hasattr(module, name)})


def modules(implementation: str = IMPLEMENTATION) -> dict[str, ModuleType]:
    """The kernel modules of ``implementation`` (``"cython"`` or ``"python"``) by the name
    of their compiled form (``"lcs"``, ``"jaccard"``, ``"substring"``, ``"batch"``, ``"arrow"``).

    Raises ImportError for ``"cython"`` when the compiled modules are missing."""
    if implementation not in ("python", "cython"):
        raise ValueError(f"implementation must be 'python' or 'cython', got {implementation!r}")
    return _modules if implementation == IMPLEMENTATION else _load(implementation)
