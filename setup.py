"""Build the Cython kernels in coscore/_fast.

Each extension is its .pyx module plus the C sources of coscore/_fast/src it uses
(``_SOURCES``). Compiler directives are set once here, for every kernel module; the C
flags suit the compiler (``-O3`` for unix compilers, ``/O2`` for MSVC).

Environment:

- ``COSCORE_NO_EXTENSIONS=1``: nothing is compiled; the wheel is pure Python and uses
  the kernels' pure-Python twins (coscore/_fast/*_py.py).
- ``COSCORE_CYTHON_DEBUG=1``: a debug build: bounds, wraparound and initialisation
  checks on, ``-O0 -g``, and AddressSanitizer + UndefinedBehaviorSanitizer when the
  compiler has them (see docs/building.md).
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_HERE = Path(__file__).parent
_FAST = Path("coscore") / "_fast"

#: the C sources (in coscore/_fast/src) each kernel module is built from
_SOURCES = {
    "lcs": ["aligned.c", "cpmap.c", "bitlcs.c"],
    "jaccard": ["aligned.c", "cpmap.c", "multiset.c"],
    "substring": ["cpmap.c", "cpu.c", "aho_corasick.c", "shift_and.c", "walk.c"],
    "batch": ["answers.c", "dedup.c", "heap.c"],
    "texts": ["cpu.c", "utf8.c"],
    "arrow": ["cpu.c", "utf8.c"],
}


def _on(name: str) -> bool:
    return os.environ.get(name, "0") not in ("", "0")


_DEBUG = _on("COSCORE_CYTHON_DEBUG")

_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": _DEBUG,
    "wraparound": _DEBUG,
    "initializedcheck": _DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

_SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=undefined"]


def _links_with(compiler, flags: list) -> bool:
    """Whether the unix compiler compiles a small C file with ``flags`` and its linker (the
    one the extensions are linked with, which may be another program: ``LDSHARED``) links
    it into a shared library with them: ``-flto`` objects of Clang, say, need Clang's
    linker driver, and the sanitizers need their runtimes."""
    cc = list(getattr(compiler, "compiler_so", None) or [])[:1]
    ld = list(getattr(compiler, "linker_so", None) or [])
    if not cc or not ld or not shutil.which(cc[0]) or not shutil.which(ld[0]):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src, obj, lib = (Path(tmp) / name for name in ("probe.c", "probe.o", "probe.so"))
        src.write_text("int coscore_probe(void) { return 0; }\n")
        try:
            for cmd in ([*cc, *flags, "-fPIC", "-c", str(src), "-o", str(obj)], [*ld, *flags, str(obj), "-o", str(lib)]):
                if subprocess.run(cmd, capture_output=True, timeout=60).returncode != 0:
                    return False
        except (OSError, subprocess.SubprocessError):
            return False
        return True


class _BuildExt(build_ext):
    """build_ext with flags per compiler (and the debug build's)."""

    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":
            args = ["/Od", "/Zi"] if _DEBUG else ["/O2"]
            link = ["/DEBUG"] if _DEBUG else []
        else:
            args = ["-fvisibility=hidden"]
            link = []
            if _DEBUG:
                args += ["-O0", "-g", "-UNDEBUG"]
                if _links_with(self.compiler, _SANITIZE):
                    args += _SANITIZE
                    link += _SANITIZE
                    print("coscore: debug build with AddressSanitizer and UBSan", file=sys.stderr)
                else:
                    print("coscore: debug build without sanitizers (the compiler has none)",
                          file=sys.stderr)
            else:
                args += ["-O3"]
                # the kernels' C sources are separate translation units: link-time
                # optimisation inlines their small entry points into the Cython loops
                if _links_with(self.compiler, ["-O3", "-flto"]):
                    args += ["-flto"]
                    link += ["-O3", "-flto"]
        for ext in self.extensions:
            ext.extra_compile_args = args + list(ext.extra_compile_args)
            ext.extra_link_args = link + list(ext.extra_link_args)
        super().build_extensions()


def _extensions() -> list:
    pyx = sorted((_HERE / _FAST).glob("*.pyx"))
    return [
        Extension(
            f"coscore._fast.{p.stem}",
            [str(_FAST / p.name)] + [str(_FAST / "src" / c) for c in _SOURCES.get(p.stem, [])],
            include_dirs=[str(_FAST)],
            depends=[str(_FAST / "src" / h.name) for h in sorted((_HERE / _FAST / "src").glob("*.h"))],
        )
        for p in pyx
    ]


if _on("COSCORE_NO_EXTENSIONS"):
    setup()
else:
    from Cython.Build import cythonize

    setup(
        # the debug build writes its generated C apart (build/cython-debug), so that it
        # never stands in for the normal build's coscore/_fast/*.c
        ext_modules=cythonize(_extensions(), compiler_directives=_DIRECTIVES,
                              build_dir="build/cython-debug" if _DEBUG else None, force=_DEBUG),
        cmdclass={"build_ext": _BuildExt},
    )
