"""The core's layers: every import, lazy ones included, points to the same layer or below,
and no module imports another's ``_private`` names."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "coscore"

#: Bottom up; a module may import only from its own layer or the ones below.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("coscore.messages",),
    ("coscore._fast",),
    ("coscore.results", "coscore.spec", "coscore.diagnostics", "coscore.limits"),
    ("coscore.expr",),
    ("coscore.atoms", "coscore.reading"),
    ("coscore.engine",),
    ("coscore.io",),         # answer tables: knows no rule (see test_io_knows_tables_not_rules)
    ("coscore.pipeline",),   # joins io and the engine
    ("coscore.rule",),
)
#: Within the language, bottom up: each module imports only the ones before it.
LANGUAGE = ("coscore.expr.tokens", "coscore.expr.nodes", "coscore.expr.parse", "coscore.expr.evaluate")
#: Within the engine, bottom up.
ENGINE = ("coscore.engine.context", "coscore.engine.columnar", "coscore.engine.plan", "coscore.engine.reference",
          "coscore.engine.builder", "coscore.engine.chunk", "coscore.engine.schedule")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` for every import statement of a file, at any depth."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, [], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = f"{base}.{node.module}" if node.level and node.module else base if node.level else node.module
            names = [alias.name for alias in node.names]
            if node.level and not node.module:  # ``from . import engine``: the module coscore.engine
                found.extend((f"{base}.{n}", [], node.lineno) for n in names if _is_module(f"{base}.{n}"))
                names = [n for n in names if not _is_module(f"{base}.{n}")]
            if names:
                found.append((module, names, node.lineno))
    return found


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or path.is_dir() or any(path.parent.glob(path.name + ".*.so"))


def _layer(module: str) -> int | None:
    for index, members in enumerate(LAYERS):
        if any(module == m or module.startswith(m + ".") for m in members):
            return index
    return None


def _layer_or_front_end(module: str) -> int:
    """The layer of a core module; every other module of coscore is a front end, above them all."""
    layer = _layer(module)
    return len(LAYERS) if layer is None else layer


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "_fast" not in p.parts)


@pytest.mark.parametrize("path", [p for p in SOURCES if _layer(_module_name(p)) is not None], ids=_module_name)
def test_core_modules_import_only_their_layer_or_below(path):
    here = _layer(_module_name(path))
    upward = [
        f"line {line}: {module}"
        for module, _, line in _imports(path)
        if module.startswith("coscore.") and _layer_or_front_end(module) > here
    ]
    assert not upward, f"{_module_name(path)} imports a higher layer: {upward}"


@pytest.mark.parametrize("path", [p for p in SOURCES if _module_name(p) in LANGUAGE + ENGINE], ids=_module_name)
def test_the_language_and_the_engine_are_layered_inside(path):
    name = _module_name(path)
    order = LANGUAGE if name in LANGUAGE else ENGINE
    here = order.index(name)
    later = [module for module, _, _ in _imports(path) if module in order and order.index(module) > here]
    assert not later


@pytest.mark.parametrize("path", [p for p in SOURCES if _module_name(p).startswith("coscore.io")], ids=_module_name)
def test_io_knows_tables_not_rules(path):
    """No module of io imports the engine, the rule model or the language."""
    known = [module for module, _, _ in _imports(path)
             if module.startswith("coscore.") and not module.startswith(("coscore.io", "coscore.messages"))]
    assert not known


def test_the_core_never_imports_the_package_face():
    for path in SOURCES:
        if _layer(_module_name(path)) is not None:
            assert all(module != "coscore" for module, _, _ in _imports(path)), path


@pytest.mark.parametrize("path", SOURCES, ids=_module_name)
def test_no_module_imports_another_modules_private_names(path):
    here = _module_name(path)
    private = [
        f"line {line}: {module}.{name}"
        for module, names, line in _imports(path)
        if module.startswith("coscore") and module != here
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert not private
