"""The one error a malformed suite raises: :class:`SuiteError` (defined in
:mod:`coscore.errors`, under :class:`~coscore.errors.CoscoreError`, so that ``coscore``
exports it without importing this front)."""

from __future__ import annotations

from ..errors import SuiteError

__all__ = ["SuiteError"]
