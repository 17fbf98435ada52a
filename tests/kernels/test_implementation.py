"""Choosing the implementation: ``coscore._fast`` re-exports every kernel of the one it
picked (and the plain statements of the SM walk and CS tokens both share),
``COSCORE_IMPLEMENTATION`` forces one, the twins stand in when the compiled modules are
missing, and the conformance corpus passes with the twins."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import coscore._fast
from support import coscore_env

ROOT = Path(__file__).resolve().parents[2]
#: what the dispatcher re-exports from coscore._fast._common, the same in both implementations
COMMON = ("group_hits", "tokens", "StrColumns")


def _import_in_subprocess(value, code="import coscore._fast as f; print(f.IMPLEMENTATION, f.LcsScorer.__module__)"):
    env = coscore_env()
    env.pop("COSCORE_IMPLEMENTATION", None)
    if value is not None:
        env["COSCORE_IMPLEMENTATION"] = value
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_every_kernel_name_is_reexported():
    for implementation in ("cython", "python"):
        try:
            mods = coscore._fast.modules(implementation)
        except ImportError:
            continue
        for name in coscore._fast.__all__:
            if name not in ("IMPLEMENTATION", "BUILD_NOTE", "modules", *COMMON):
                module = next(m for m in mods.values() if hasattr(m, name))
                assert callable(getattr(module, name)), name
    for name in COMMON:   # the same pure-Python functions whichever implementation runs
        assert getattr(coscore._fast, name).__module__ == "coscore._fast._common", name
    assert coscore._fast.IMPLEMENTATION in ("cython", "python")
    assert coscore._fast.LcsScorer is coscore._fast.modules()["lcs"].LcsScorer


def test_the_environment_variable_forces_an_implementation():
    done = _import_in_subprocess("python")
    assert done.returncode == 0 and done.stdout.split() == ["python", "coscore._fast.lcs_py"], done.stderr
    done = _import_in_subprocess("bogus")
    assert done.returncode != 0 and "COSCORE_IMPLEMENTATION must be 'python' or 'cython'" in done.stderr
    try:
        coscore._fast.modules("cython")
    except ImportError:
        done = _import_in_subprocess("cython")
        assert done.returncode != 0 and "compiled kernels are missing" in done.stderr
    else:
        assert _import_in_subprocess("cython").stdout.split() == ["cython", "coscore._fast.lcs"]
        assert _import_in_subprocess(None).stdout.split() == ["cython", "coscore._fast.lcs"]


def test_without_compiled_modules_the_twins_are_used():
    """The compiled modules made unimportable: the package still imports and scores."""
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name in ('coscore._fast.lcs', 'coscore._fast.jaccard', 'coscore._fast.substring', 'coscore._fast.batch'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import coscore, coscore._fast as f\n"
        "rule = coscore.compile({'atoms': {'0': {'type': 'OP', 'desc': '0.5:abc'}},"
        " 'combos': {'A': {'combo': 'M(0, T(0))', 'score': 2, 'mode': 'logic'}}, 'comboMode': 'ADD'})\n"
        "print(f.IMPLEMENTATION, rule.score_many([['abx'], ['xyz']]).scores.tolist())\n"
    )
    done = _import_in_subprocess(None, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["python", "[2.0,", "0.0]"]


def test_conformance_corpus_with_the_twins():
    """tests/test_conformance.py with ``COSCORE_IMPLEMENTATION=python``, in a subprocess
    (some seconds; the run under that variable itself does it in process). ``score_many``
    on threads (``jobs`` 2 and -1) is left to the compiled run: the kernels are the same
    on one thread or several."""
    if coscore._fast.IMPLEMENTATION == "python":
        pytest.skip("this run uses the twins already: tests/test_conformance.py checks them")
    env = coscore_env(COSCORE_IMPLEMENTATION="python")
    threads = [f"tests/test_conformance.py::test_score_many_matches_every_case[{jobs}]" for jobs in (2, -1)]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           *(arg for test in threads for arg in ("--deselect", test)), "tests/test_conformance.py"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert "2 deselected" in done.stdout, done.stdout[-3000:]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
