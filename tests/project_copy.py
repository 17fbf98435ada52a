"""A copy of the project's sources in a temporary folder, for the tests that build it (the
debug build, the build without a compiler): no built extensions, Cython's generated C,
caches or build notes come along, so nothing built in the checkout stands in for what the
copy builds, and the checkout itself is never touched."""
from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAST = ROOT / "coscore" / "_fast"


def copy_project(dest: Path, tests: bool = False) -> None:
    """The package, what builds it and (``tests``) the test suite, copied into ``dest``."""
    generated = {p.with_suffix(".c").name for p in FAST.glob("*.pyx")}   # not _fast/src/*.c

    def ignore(folder, names):
        skip = {n for n in names if n in ("__pycache__", "build", "build-note.txt") or n.endswith((".so", ".pyd", ".html"))}
        if Path(folder).resolve() == FAST.resolve():
            skip |= generated & set(names)
        return skip

    shutil.copytree(ROOT / "coscore", dest / "coscore", ignore=ignore)
    if tests:
        shutil.copytree(ROOT / "tests", dest / "tests", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(ROOT / name, dest / name)
