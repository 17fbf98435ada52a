"""Build the Cython kernels in coscore/_fast.

Compiler directives are set once here, for every kernel module. With
``COSCORE_NO_EXTENSIONS=1`` nothing is compiled: the wheel is pure Python and uses the
kernels' pure-Python twins (coscore/_fast/*_py.py).
"""
import os
from pathlib import Path

from setuptools import Extension, setup

_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "embedsignature": True,
}

_HERE = Path(__file__).parent
_extensions = [
    Extension(
        f"coscore._fast.{pyx.stem}",
        [str(pyx.relative_to(_HERE))],
        include_dirs=["coscore/_fast"],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted((_HERE / "coscore" / "_fast").glob("*.pyx"))
]

if os.environ.get("COSCORE_NO_EXTENSIONS", "0") not in ("", "0"):
    setup()
else:
    from Cython.Build import cythonize

    setup(ext_modules=cythonize(_extensions, compiler_directives=_DIRECTIVES))
