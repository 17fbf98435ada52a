"""Every module of the package stays small enough to read in one sitting: a Python or
Cython module (``.py``, ``.pyx``, ``.pxd``) of coscore has at most 600 lines. A module
that grows past it is split by concern (as ``explain/`` into evidence and render)."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "coscore"
MAX_LINES = 600
SUFFIXES = (".py", ".pyx", ".pxd")


def test_every_module_has_at_most_600_lines():
    sources = [path for path in PACKAGE.rglob("*") if path.suffix in SUFFIXES and path.is_file()]
    assert len(sources) > 100 and any(path.suffix == ".pyx" for path in sources)
    lengths = {path.relative_to(PACKAGE.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
               for path in sources}
    over = {name: lines for name, lines in sorted(lengths.items()) if lines > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by concern): {over}"
