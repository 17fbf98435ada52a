"""One error base: every exception class the package defines derives from
:class:`coscore.CoscoreError`, keeps the built-in class users caught before, and the
public ones are exported from ``coscore``."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import coscore
from coscore.errors import CoscoreError


def _modules() -> list[str]:
    names = ["coscore"]
    for info in pkgutil.walk_packages(coscore.__path__, "coscore."):
        if info.name != "coscore.__main__":  # runs the command
            names.append(info.name)
    return names


def _defined_exceptions() -> list[type[Exception]]:
    """Every ``Exception`` subclass a module of the package defines. (BaseExceptions that are
    not errors stay out: ``cli.signals.Stopped`` is a KeyboardInterrupt, as Ctrl-C is, so
    that ``except Exception`` does not swallow a stop.)"""
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__ == name:
                found.append(value)
    return found


def test_every_exception_of_the_package_is_a_coscore_error() -> None:
    found = _defined_exceptions()
    assert len(found) >= 20  # the walk did reach the package's modules
    strays = sorted(f"{c.__module__}.{c.__qualname__}" for c in found if not issubclass(c, CoscoreError))
    assert not strays, f"derive these from coscore.errors.CoscoreError: {strays}"


@pytest.mark.parametrize(("name", "builtin"), [
    ("RuleError", ValueError), ("InputError", ValueError), ("BlanksMisfit", ValueError),
    ("ExamError", ValueError), ("SuiteError", ValueError), ("PatternError", ValueError),
    ("ClusterError", RuntimeError), ("BudgetExceeded", Exception), ("ExprSyntaxError", Exception),
    ("UsageError", Exception), ("ApiError", Exception),
])
def test_errors_keep_the_builtin_class_and_are_exported(name: str, builtin: type[Exception]) -> None:
    error = getattr(coscore, name)
    assert issubclass(error, CoscoreError) and issubclass(error, builtin)
    assert name in coscore.__all__ or name == "ApiError"  # ApiError's module needs coscore[serve]


def test_a_rule_error_is_caught_as_a_coscore_error() -> None:
    with pytest.raises(CoscoreError) as caught:
        coscore.compile({"atoms": {"0": {"type": "XX", "desc": "a"}}, "combos": {}})
    assert isinstance(caught.value, coscore.RuleError)


def test_every_public_name_resolves() -> None:
    # what ``from coscore import *`` asks for; none of it needs an optional extra
    for name in coscore.__all__:
        assert getattr(coscore, name) is not None, name
