"""Only the dispatcher (``coscore/_fast/__init__.py``) chooses between the compiled kernels
and their pure-Python twins: read from the sources, every import (lazy ones included)
keeps the two implementations apart.

- a module of coscore outside ``_fast/`` imports the kernels from ``coscore._fast`` only,
  never one of its modules (a twin, a compiled module or ``_common``);
- a compiled module (``.pyx``, ``.pxd``) never imports or cimports a ``*_py`` module;
- a twin (``*_py.py``) never imports a compiled module; both may import ``_common``,
  which imports neither.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "coscore"
FAST = PACKAGE / "_fast"
#: the compiled modules, by name (``lcs``, ``texts``, ``_scorer``, ...)
COMPILED = frozenset(p.stem for p in FAST.glob("*.pyx"))
#: the modules of ``coscore._fast`` (Python, Cython or both), by name
FAST_MODULES = COMPILED | frozenset(p.stem for p in FAST.glob("*.py") if p.stem != "__init__")
#: an import or cimport statement of Cython source (module-level or indented)
CYTHON_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?P<source>[\w.]+)[ \t]+c?import[ \t]+(?P<names>\([^)]*\)|[^#\n]*)"
                           r"|c?import[ \t]+(?P<modules>[\w., \t]+))", re.M)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, name: str | None = None) -> list[tuple[str, int]]:
    """``(module, line)`` for every module a Python file (the module ``name``, by default the
    one its path says) imports, at any depth: ``from X import y`` counts as X, and as ``X.y``
    too when that is a module of coscore._fast; ``import_module("X")`` counts as X."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = node.module if not node.level else f"{base}.{node.module}" if node.module else base
            found.append((module, node.lineno))
            if module == "coscore._fast":
                found.extend((f"{module}.{a.name}", node.lineno) for a in node.names if a.name in FAST_MODULES)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module":
            found.extend((arg.value, node.lineno) for arg in node.args[:1] if isinstance(arg, ast.Constant))
    return found


def _cython_imports(path: Path) -> list[tuple[str, int]]:
    """``(module, line)`` for every import and cimport of a ``.pyx``/``.pxd`` file."""
    found = []
    source_text = path.read_text("utf-8")
    for match in CYTHON_IMPORT.finditer(source_text):
        line = source_text.count("\n", 0, match.start()) + 1
        if match["source"]:
            source = match["source"]
            module = f"coscore._fast.{source.lstrip('.')}" if source.startswith(".") else source
            found.append((module, line))
            if module == "coscore._fast":
                names = [n.split()[0] for n in match["names"].strip("()").split(",") if n.strip()]
                found.extend((f"{module}.{n}", line) for n in names if n in FAST_MODULES)
        else:
            found.extend((m.split()[0], line) for m in match["modules"].split(",") if m.strip())
    return found


def _fast_module(module: str) -> str | None:
    """The name of the coscore._fast module ``module`` is (or is inside), else None."""
    prefix = "coscore._fast."
    return module[len(prefix):].split(".")[0] if module.startswith(prefix) else None


OUTSIDE = sorted(p for p in PACKAGE.rglob("*.py") if FAST not in p.parents)
TWINS = sorted(p for p in FAST.glob("*_py.py"))
CYTHON = sorted([*FAST.glob("*.pyx"), *FAST.glob("*.pxd")])


def test_the_sources_are_found():
    assert {"lcs", "jaccard", "substring", "batch", "arrow", "texts", "_scorer"} <= COMPILED
    assert {"lcs_py", "jaccard_py", "substring_py", "batch_py", "arrow_py", "_common"} <= FAST_MODULES
    assert len(OUTSIDE) > 20 and len(TWINS) >= 5 and len(CYTHON) >= 7
    # the readers see what they should: explain/evidence.py imports the dispatcher, substring.pyx _common
    assert any(m == "coscore._fast" for m, _ in _imported_modules(PACKAGE / "explain" / "evidence.py"))
    assert any(m == "coscore._fast._common" for m, _ in _cython_imports(FAST / "substring.pyx"))


@pytest.mark.parametrize("path", OUTSIDE, ids=_module_name)
def test_outside_the_kernels_only_the_dispatcher_is_imported(path):
    reached = [f"line {line}: {module}" for module, line in _imported_modules(path) if _fast_module(module)]
    assert not reached, f"{_module_name(path)} imports a kernel module, not coscore._fast: {reached}"


@pytest.mark.parametrize("path", CYTHON, ids=lambda p: p.name)
def test_a_compiled_module_never_imports_a_twin(path):
    twins = [f"line {line}: {module}" for module, line in _cython_imports(path)
             if (_fast_module(module) or "").endswith("_py")]
    assert not twins, f"{path.name} imports a pure-Python twin: {twins}"


@pytest.mark.parametrize("path", TWINS, ids=lambda p: p.name)
def test_a_twin_never_imports_a_compiled_module(path):
    compiled = [f"line {line}: {module}" for module, line in _imported_modules(path) if _fast_module(module) in COMPILED]
    assert not compiled, f"{path.name} imports a compiled module: {compiled}"


def test_the_common_module_imports_neither_implementation():
    reached = [module for module, _ in _imported_modules(FAST / "_common.py") if _fast_module(module)]
    assert not reached


def test_the_readers_catch_what_they_look_for(tmp_path):
    """The checks above fail on the imports they forbid (written into scratch files)."""
    pyx = tmp_path / "bad.pyx"
    pyx.write_text("cimport cython\nfrom coscore._fast.jaccard_py import tokens\n"
                   "def f():\n    from coscore._fast import substring_py\n    import coscore._fast.lcs_py as m\n")
    found = [_fast_module(m) for m, _ in _cython_imports(pyx)]
    assert found.count("jaccard_py") == 1 and found.count("substring_py") == 1 and found.count("lcs_py") == 1
    bad = tmp_path / "bad.py"   # read as if it were coscore/bad.py
    bad.write_text("from ._fast import lcs_py\nfrom ._fast.substring_py import group_hits\n"
                   "def f():\n    import importlib\n    return importlib.import_module('coscore._fast.batch')\n")
    found = [_fast_module(m) for m, _ in _imported_modules(bad, "coscore.bad")]
    assert {"lcs_py", "substring_py", "batch"} <= set(found)
