"""Installing without a C compiler: ``CC=/bin/false pip wheel .`` makes a pure-Python wheel
(``py3-none-any``) with one warning naming what was missing and how to get the compiled
kernels, instead of setuptools' error; installed in a fresh virtual environment, that wheel
runs ``coscore demo`` on the pure-Python kernels and says once why.

The build runs in a copy of the project in a temporary directory, with the environment's
own setuptools (``--no-build-isolation``: nothing is downloaded); the virtual environment
sees the packages of the environment the tests run in (numpy, pyarrow, ...: its site-packages
through a ``.pth`` file, whatever the base interpreter has) and gets only the wheel. About 20 s;
part of the default run (CI included), skipped on Windows (no ``/bin/false``) and when
setuptools cannot make wheels here (setuptools 70.1 or later, or the ``wheel`` package).
"""
from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from project_copy import copy_project

WARNING = "built without its compiled kernels"


def _can_make_wheels() -> bool:
    """Whether the environment's setuptools makes wheels (its own bdist_wheel, or wheel's)."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    return importlib.util.find_spec("setuptools.command.bdist_wheel") is not None or importlib.util.find_spec("wheel") is not None


def _site_folders() -> list[str]:
    """Where this environment's packages are: its site-packages (a virtual environment's,
    and the base interpreter's when it sees them) and the user's, when Python reads that."""
    folders = site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])
    return [f for f in dict.fromkeys(folders) if os.path.isdir(f)]


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COSCORE_", "PYTHONPATH", "PIP_", "VIRTUAL_ENV", "CFLAGS", "LDSHARED", "CC"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


@pytest.mark.skipif(os.name == "nt" or not os.path.exists("/bin/false"), reason="no /bin/false to stand in for the compiler")
@pytest.mark.skipif(not _can_make_wheels(), reason="setuptools cannot make wheels here (setuptools>=70.1 or wheel)")
def test_without_a_compiler_the_wheel_is_pure_and_the_demo_runs(tmp_path):
    project, dist, venv = tmp_path / "project", tmp_path / "dist", tmp_path / "venv"
    copy_project(project)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-v", "-w", str(dist), str(project)],
        cwd=tmp_path, env=_clean_env(CC="/bin/false"), capture_output=True, text=True, timeout=600)
    output = build.stdout + build.stderr
    assert build.returncode == 0, output[-5000:]
    warnings = [line for line in output.splitlines() if WARNING in line]
    assert len(warnings) == 1, warnings
    assert "a working C compiler" in warnings[0] and "/bin/false" in warnings[0] and "pip install --force-reinstall" in warnings[0]

    wheels = list(dist.glob("coscore-*.whl"))
    assert len(wheels) == 1 and wheels[0].name.endswith("-py3-none-any.whl"), wheels
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "coscore/_fast/build-note.txt" in names and "coscore/_fast/lcs_py.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))]

    # A virtual environment of its own (not the base interpreter's packages, which may lack numpy
    # and pyarrow), seeing this environment's packages (pip among them) after its own: a path in
    # a .pth file comes after the folder it is in, and the .pth files there are not read (so this
    # environment's own coscore, an editable install, is not found through them).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.strip()
    assert own.startswith(str(venv)), own
    (Path(own) / "the-tests-environment.pth").write_text("".join(f + "\n" for f in _site_folders()), encoding="utf-8")
    env = _clean_env()
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall",
                              str(wheels[0])],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    probe = subprocess.run([str(python), "-W", "ignore", "-c", "import coscore._fast as f; print(f.IMPLEMENTATION, f.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0 and probe.stdout.split()[0] == "python", probe.stdout + probe.stderr
    assert probe.stdout.split()[1].startswith(str(venv)), probe.stdout   # the wheel's coscore, not the checkout's

    demo = subprocess.run([str(venv / "bin" / "coscore"), "demo"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "coscore demo:" in demo.stdout and "lane-change" in demo.stdout
    said = [line for line in demo.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and WARNING in said[0] and "a working C compiler" in said[0], demo.stderr

    quiet = subprocess.run([str(venv / "bin" / "coscore"), "demo"], cwd=tmp_path, env={**env, "COSCORE_IMPLEMENTATION": "python"},
                           capture_output=True, text=True, timeout=600)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == demo.stdout
