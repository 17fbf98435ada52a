"""The package's layers: every import, lazy ones included, points to the same layer or
below, front ends never import each other, no import circle, and no module imports
another's ``_private`` names."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "coscore"

#: Bottom up; a module may import only from its own layer or the ones below. Every module
#: of the package belongs to one (docs/architecture.md draws them).
FRONT_ENDS = ("coscore.dask", "coscore.demo", "coscore.expect", "coscore.server", "coscore.webapp",
              "coscore.workbench")
#: The one way a front end uses another: ``coscore app`` mounts the workbench, through the
#: workbench's public entry point (the package ``coscore.workbench`` and what it exports,
#: none of its modules).
MOUNTS = {"coscore.webapp": "coscore.workbench"}
LAYERS: tuple[tuple[str, ...], ...] = (
    ("coscore.messages", "coscore.errors", "coscore.catalog"),                  # imports nothing of the package
    ("coscore._fast",),                                                            # kernels
    ("coscore.results", "coscore.spec", "coscore.diagnostics", "coscore.limits"),  # rule model
    ("coscore.expr",),                                                             # language
    ("coscore.atoms", "coscore.reading"),
    ("coscore.engine",),
    ("coscore.io",),         # answer tables: knows no rule (see test_io_knows_tables_not_rules)
    ("coscore.pipeline",),   # joins io and the engine
    ("coscore.rule", "coscore.language"),   # the public face: compile, Rule; what the language tells of a rule
    ("coscore.exam",),       # exams: the exam file, Exam, load_exam
    ("coscore",),            # the package's face
    # what front ends share, bottom up
    ("coscore.rulecache", "coscore.search_budget"), ("coscore.explain",), ("coscore.marks",), ("coscore.labelled",),
    ("coscore.compat",), ("coscore.report",),
    ("coscore.tune", "coscore.suggest"),   # the analyses the command and the workbench run
    ("coscore.http",),
    FRONT_ENDS,              # never import each other
    ("coscore.cli", "coscore.__main__"),   # the command runs the front ends
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
    """The index of the layer that holds ``module`` (the longest name that holds it)."""
    found = [(len(m), index) for index, members in enumerate(LAYERS) for m in members
             if module == m or module.startswith(m + ".")]
    return max(found)[1] if found else None


def _front(module: str) -> str | None:
    """The front end (package or module) that holds ``module``, if any."""
    return next((m for m in FRONT_ENDS if module == m or module.startswith(m + ".")), None)


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "_fast" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=_module_name)
def test_every_module_has_a_layer(path):
    name = _module_name(path)
    here = _layer(name)
    # every name starts with "coscore": a module held only by the package face's entry has no layer of its own
    assert here is not None and (here != _layer("coscore") or name == "coscore"), \
        "add it to LAYERS (and docs/architecture.md)"


def _type_checking_lines(path: Path) -> set[int]:
    """The lines of the ``if TYPE_CHECKING:`` blocks of a file."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


@pytest.mark.parametrize("path", SOURCES, ids=_module_name)
def test_modules_import_only_their_layer_or_below(path):
    name = _module_name(path)
    here = _layer(name)
    # The package face exports names of every layer (its errors too), imported when first
    # used: it names them for type checkers alone, which is no import.
    for_types = _type_checking_lines(path) if name == "coscore" else set()
    upward = [
        f"line {line}: {module}"
        for module, _, line in _imports(path)
        if module.startswith("coscore") and _layer(module) is not None and _layer(module) > here
        and line not in for_types
    ]
    assert not upward, f"{name} imports a higher layer: {upward}"


def _mounts(front: str | None, module: str, names: list[str]) -> bool:
    """Whether ``front`` importing ``names`` of ``module`` is its mount of another front:
    the names that other front's package exports, none of its modules."""
    mounted = MOUNTS.get(front or "")
    return module == mounted and not any(_is_module(f"{module}.{n}") for n in names)


@pytest.mark.parametrize("path", [p for p in SOURCES if _front(_module_name(p))], ids=_module_name)
def test_front_ends_never_import_each_other(path):
    """The service and the web app share coscore.http, not each other's modules; no front
    end borrows another's."""
    own = _front(_module_name(path))
    sideways = [f"line {line}: {module} {names}" for module, names, line in _imports(path)
                if _front(module) not in (None, own) and not _mounts(own, module, names)]
    assert not sideways


def test_no_import_circles():
    """No module of the package imports itself round a circle of imports."""
    graph = {_module_name(p): {m for m, _, _ in _imports(p) if m.startswith("coscore") and m != _module_name(p)}
             for p in SOURCES}
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            pytest.fail("import circle: " + " -> ".join([*path[path.index(node):], node]))
        if node in done or node not in graph:
            return
        for nxt in sorted(graph[node]):
            if nxt != "coscore":   # the package face imports its names lazily, when used
                visit(nxt, [*path, node])
        done.add(node)

    for module in sorted(graph):
        visit(module, [])


@pytest.mark.parametrize("path", [p for p in SOURCES if _module_name(p) in LANGUAGE + ENGINE], ids=_module_name)
def test_the_language_and_the_engine_are_layered_inside(path):
    name = _module_name(path)
    order = LANGUAGE if name in LANGUAGE else ENGINE
    here = order.index(name)
    later = [module for module, _, _ in _imports(path) if module in order and order.index(module) > here]
    assert not later


@pytest.mark.parametrize("path", [p for p in SOURCES if _module_name(p).startswith("coscore.io")], ids=_module_name)
def test_io_knows_tables_not_rules(path):
    """No module of io imports the engine, the rule model or the language (the kernels it
    may: a JSON Lines block's keys are counted by one)."""
    known = [module for module, _, _ in _imports(path)
             if module.startswith("coscore.") and not module.startswith(("coscore.io", "coscore.messages",
                                                                         "coscore.errors", "coscore._fast"))]
    assert not known


#: The fronts: they use the public API. Of the language and the engine nothing (what they need
#: of the language is in coscore.language); of io, what ``coscore.io`` exports. (coscore.dask
#: is left out: it reads Parquet piece by piece, a part of the pipeline's reach.)
PUBLIC_FACE_ONLY = ("coscore.cli", "coscore.__main__", "coscore.server", "coscore.webapp", "coscore.workbench",
                    "coscore.report", "coscore.expect", "coscore.tune", "coscore.suggest", "coscore.demo",
                    "coscore.compat")
INTERNALS = ("coscore.expr", "coscore.engine")


def _internal(module: str, names: list[str]) -> bool:
    if module.startswith(tuple(f"{m}." for m in INTERNALS)) or module in INTERNALS:
        return True
    if module.startswith("coscore.io."):
        return True
    return module == "coscore.io" and any(_is_module(f"coscore.io.{n}") for n in names)


@pytest.mark.parametrize("path", [p for p in SOURCES if _module_name(p).startswith(PUBLIC_FACE_ONLY)],
                         ids=_module_name)
def test_fronts_use_the_public_face(path):
    """The command, the servers, the apps, report, expect, tune and suggest import nothing of
    coscore.expr or coscore.engine, and of io only what coscore.io exports."""
    inside = [f"line {line}: {module} {names}" for module, names, line in _imports(path) if _internal(module, names)]
    assert not inside, "use coscore.language / coscore.io's exports (add what is missing there)"


def test_the_core_never_imports_the_package_face():
    face = _layer("coscore")
    for path in SOURCES:
        if _layer(_module_name(path)) < face:
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
