"""A light command: ``import coscore.cli`` (what ``coscore --help`` and every command start
with) loads neither numpy nor pyarrow; ``import coscore`` and ``import coscore.errors``
neither. Each is checked in a fresh interpreter."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pyarrow", "pandas", "coscore.engine", "coscore.pipeline")


@pytest.mark.parametrize("module", ["coscore", "coscore.errors", "coscore.cli"])
def test_import_loads_no_heavy_module(module: str) -> None:
    code = (f"import json, sys\nimport {module}\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [], f"import {module} loaded {done.stdout.strip()}"
