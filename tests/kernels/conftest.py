"""Fixtures of the kernel tests: the kernel modules of each implementation.

``kernels`` runs a test once with the compiled modules and once with their pure-Python
twins (the compiled run is skipped when they are not built); ``twins`` gives both, for
the tests that compare them call by call.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import coscore._fast


def _modules(implementation: str) -> SimpleNamespace:
    try:
        mods = coscore._fast.modules(implementation)
    except ImportError as exc:
        pytest.skip(f"the {implementation} kernels are not available: {exc}")
    return SimpleNamespace(name=implementation, **mods)


@pytest.fixture(scope="session", params=["cython", "python"])
def kernels(request) -> SimpleNamespace:
    """``kernels.lcs``, ``.jaccard``, ``.substring``, ``.batch`` of one implementation
    (``kernels.name``)."""
    return _modules(request.param)


@pytest.fixture(scope="session")
def twins() -> tuple[SimpleNamespace, SimpleNamespace]:
    """(compiled, pure Python) kernel modules."""
    return _modules("cython"), _modules("python")
