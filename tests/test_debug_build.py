"""The debug build: ``COSCORE_CYTHON_DEBUG=1`` compiles the kernels with bounds,
wraparound and initialisation checks, ``-O0 -g`` and, when the compiler has them,
AddressSanitizer and UBSan; the kernel tests and the conformance corpus then pass against
those extensions. The build happens in a copy of the project in a temporary directory
(the checkout's own extensions and generated C are untouched); the test is skipped only
when there is no C compiler."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from project_copy import copy_project

ROOT = Path(__file__).resolve().parents[1]


def _compiler() -> str | None:
    """The C compiler the extensions would be built with, when it is installed."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "").split()
    if os.name == "nt":   # MSVC: setuptools finds it itself; not exercised here
        return None
    return shutil.which(cc[0]) if cc else None


def _sanitizer_preload(cc: str) -> str | None:
    """The AddressSanitizer runtime to preload into the (uninstrumented) interpreter."""
    try:
        path = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return path if path and os.path.isabs(path) and os.path.exists(path) else None


@pytest.mark.skipif(_compiler() is None, reason="no C compiler")
def test_debug_build_passes_the_kernel_tests_and_the_corpus(tmp_path):
    cc = _compiler()
    project = tmp_path / "project"
    copy_project(project, tests=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COSCORE_", "LD_PRELOAD", "ASAN_"))}
    env["COSCORE_CYTHON_DEBUG"] = "1"
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"], cwd=project,
                           env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    sanitized = "debug build with AddressSanitizer" in build.stderr
    for flag in ("-O0", "-g"):
        assert flag in build.stdout + build.stderr
    env.pop("COSCORE_CYTHON_DEBUG")
    env.update(COSCORE_IMPLEMENTATION="cython", COSCORE_SHARED=os.environ.get("COSCORE_SHARED", str(ROOT.parent / "shared")),
               COSCORE_KERNEL_EXAMPLES="0.1", PYTHONPATH=str(project), PYTHONDONTWRITEBYTECODE="1")
    if sanitized:
        preload = _sanitizer_preload(cc)
        assert preload, "the extensions use AddressSanitizer but its runtime was not found"
        env.update(LD_PRELOAD=preload, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    probe = subprocess.run(
        [sys.executable, "-c", "import coscore._fast as f, coscore._fast.lcs as m; print(f.IMPLEMENTATION, m.__file__)"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-3000:]
    assert probe.stdout.split()[0] == "cython" and str(project) in probe.stdout, probe.stdout
    # (not the kernels' pure-Python twins, which this build does not touch: the tests of the
    # "python" implementation, and the corpus run with the twins alone)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider", "-k", "not python",
         "--deselect", "tests/kernels/test_implementation.py::test_conformance_corpus_with_the_twins",
         "tests/kernels", "tests/test_conformance.py"],
        cwd=project, env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-5000:]
